"""Stand-in for Microsoft's `devtools_testutils` test helper package.

The azure-cosmos test suite imports two names from it (tests/test_config.py):
`devtools_testutils.helpers.is_live` and
`devtools_testutils.azure_recorded_testcase.get_credential`. The real package lives in
the azure-sdk-for-python repository (eng/tools/azure-sdk-tools) and is not published on
PyPI, so this project provides these two names itself (written here, not copied).
"""
