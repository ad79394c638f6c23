#!/usr/bin/env bash
# Sets everything up (emulator/setup.sh) and starts the emulator on http://127.0.0.1:8081 with the
# well-known key. Extra arguments go to the emulator (see --help).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/emulator/setup.sh"
exec "${BUILD_DIR:-$ROOT/build}/emulator/cosmos-emulator" "$@"
