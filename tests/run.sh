#!/usr/bin/env bash
# Sets everything up (emulator/setup.sh) and runs every test: unit and in-process HTTP tests (ctest),
# then the official SDKs against the built binary (@azure/cosmos with node's test runner, and
# Debian's python3-azure-cosmos), and the blog sample at a small scale. Ends with one line "N passed, N failed" over the suites.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
"$ROOT/emulator/setup.sh" || { echo "setup failed"; exit 1; }
export COSMOS_EMULATOR_BIN="$BUILD_DIR/emulator/cosmos-emulator"

passed=0
failed=0
failures=()
suite() {
  local name="$1"; shift
  echo "=== $name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$name"); fi
}

suite "unit and in-process HTTP tests (ctest)" ctest --test-dir "$BUILD_DIR" --output-on-failure -j2
if [ -d "$ROOT/tests/sdk/js" ]; then
  suite "JavaScript SDK (@azure/cosmos) against the binary" bash -c "cd '$ROOT/tests/sdk/js' && node --test --test-concurrency=1 ./*.test.mjs"
fi
if [ -d "$ROOT/tests/sdk/python" ]; then
  suite "Python SDK (python3-azure-cosmos) against the binary" \
    /usr/bin/python3 -m unittest discover -s "$ROOT/tests/sdk/python" -p 'test_*.py' -v
fi

if [ -d "$ROOT/samples/blog/test" ]; then
  suite "blog sample, small scale, end to end (samples/blog)" bash -c "cd '$ROOT/samples/blog' && node --test --test-concurrency=1 test/"
fi

echo
if [ "$failed" -gt 0 ]; then echo "failed suites: ${failures[*]}"; fi
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
