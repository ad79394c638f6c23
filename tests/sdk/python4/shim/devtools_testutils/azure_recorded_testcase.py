"""`get_credential()`: the AAD credential test_config uses when ACCOUNT_HOST is not the emulator.

test_config only calls it when ACCOUNT_HOST != "https://localhost:8081/" (its `is_emulator`
check), i.e. when this project's harness was told to use another port (PY4_PORT). No AAD
tenant is reachable here, so the account key stands in for the credential: the SDK then
signs with the master key exactly as it does in emulator mode. Tests that really need AAD
(marked cosmosAAD*) are not selected by the harness.
"""
import os

_EMULATOR_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="


def get_credential(**kwargs):  # is_async=... is accepted and ignored: a key works for both clients
    return os.environ.get("ACCOUNT_KEY", _EMULATOR_KEY)
