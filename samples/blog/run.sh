#!/usr/bin/env bash
# The blog sample's one command: bash samples/blog/run.sh [options of main.mjs]
#
# Without COSMOS_ENDPOINT: sets up and builds the emulator (emulator/setup.sh), uses the emulator
# already listening on 127.0.0.1:8081 or starts one there (and stops it at the end), then runs the
# sample against it. With COSMOS_ENDPOINT (and COSMOS_KEY): runs the same sample against that
# account, installing only Node.js if it is missing. Results go to samples/blog/results/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

listening() { (exec 3<>/dev/tcp/127.0.0.1/8081) 2>/dev/null; }

if [ -z "${COSMOS_ENDPOINT:-}" ]; then
  "$ROOT/emulator/setup.sh"
  export COSMOS_ENDPOINT="http://127.0.0.1:8081/"
  if listening; then
    echo "using the emulator already listening on $COSMOS_ENDPOINT" >&2
  else
    log="$(mktemp)"
    "${BUILD_DIR:-$ROOT/build}/emulator/cosmos-emulator" --port 8081 >"$log" 2>&1 &
    emulator=$!
    trap 'kill "$emulator" 2>/dev/null; wait "$emulator" 2>/dev/null; rm -f "$log"' EXIT
    for _ in $(seq 100); do
      grep -q Started "$log" && break
      kill -0 "$emulator" 2>/dev/null || { cat "$log" >&2; exit 1; }
      sleep 0.1
    done
    grep -q Started "$log" || { echo "the emulator did not start" >&2; cat "$log" >&2; exit 1; }
    echo "started the emulator on $COSMOS_ENDPOINT" >&2
  fi
elif ! command -v npm >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi

cd "$HERE"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error && touch node_modules
fi
node main.mjs "$@"
