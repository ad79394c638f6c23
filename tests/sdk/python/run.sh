#!/bin/sh
# Runs the Python SDK tests (Debian's python3-azure-cosmos 3.1.1) against the emulator binary.
# Must use the system interpreter: the package is installed for /usr/bin/python3 only.
# Env: COSMOS_EMULATOR_BIN (default build/emulator/cosmos-emulator), or COSMOS_ENDPOINT + COSMOS_KEY
# to run against an existing endpoint.
set -e
cd "$(dirname "$0")/../../.."
exec /usr/bin/python3 -m unittest discover -s tests/sdk/python -p 'test_*.py' -v "$@"
