#!/usr/bin/env bash
# Microsoft's own test suite of the Python SDK azure-cosmos 4.x (the tests/ folder of its PyPI sdist,
# unchanged) against the emulator binary. Works on a fresh Debian 12 machine as root.
#
#   tests/sdk/python4/run.sh [extra pytest args, e.g. -k crud or test_crud.py]
#
# What it does:
#  1. a virtual environment $BUILD_DIR/python4-venv (Debian's /usr/bin/python3; python3-venv is
#     apt-installed when missing) with the pinned packages of requirements.txt;
#  2. `pip download --no-binary :all: --no-deps azure-cosmos==<pinned>` and extracts the sdist's tests/
#     into $BUILD_DIR/python4/suite (never into the repository);
#  3. starts the emulator on https://localhost:$PY4_PORT/ with --cert-export, waits for `Started`;
#  4. pytest -m cosmosEmulator (the marker Microsoft gives the tests that run against the emulator),
#     sync and async tests alike, with ACCOUNT_HOST / ACCOUNT_KEY as the suite's test_config reads them;
#  5. stops the emulator, prints passed/failed/errors/skipped and the wall time, and exits non-zero
#     when a test fails or errors that known_failures.txt does not list, or when pytest ran no test;
#  6. on a full run, the project's own tests with this SDK (own/, each starting its own emulators),
#     which must all pass.
#
# Environment:
#  BUILD_DIR            default <repo>/build (git-ignored); everything this script makes goes there.
#  COSMOS_EMULATOR_BIN  default build/emulator/cosmos-emulator (relative to the repository).
#  PY4_PORT             default 8081. The suite hardcodes https://localhost:8081/ in places
#                       (test_config.TestConfig.local_host: its emulator-mode switch, the fault-injection
#                       and excluded-locations tests' region URLs), so another port makes those tests
#                       fail for that reason alone; use PY4_NETNS=1 to keep 8081 when it is taken.
#  PY4_NETNS=1          run the emulator and pytest in a private network namespace (unshare -n, loopback
#                       only), so port 8081 there cannot clash with anything else on the machine.
#  PY4_MARK             pytest -m expression, default "cosmosEmulator".
#  PY4_TEST_TIMEOUT     per-test timeout in seconds (pytest-timeout), default 300.
#  PY4_PYTHON           interpreter for the venv, default /usr/bin/python3.
#  PY4_EMULATOR_ARGS    extra emulator flags, e.g. "--log-level debug" (one line per request in
#                       $BUILD_DIR/python4/emulator.log).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$REPO/build}
WORK=$BUILD_DIR/python4
VENV=$BUILD_DIR/python4-venv
BIN=${COSMOS_EMULATOR_BIN:-build/emulator/cosmos-emulator}
case "$BIN" in /*) ;; *) BIN=$REPO/$BIN ;; esac
export COSMOS_EMULATOR_BIN=$BIN
export PY4_PORT=${PY4_PORT:-8081}
[ "$PY4_PORT" = 8081 ] || [ "${PY4_INNER:-0}" = 1 ] || echo "py4: note: PY4_PORT=$PY4_PORT: tests that hardcode https://localhost:8081/ will fail for that reason"
export PY4_MARK=${PY4_MARK:-cosmosEmulator}
export PY4_TEST_TIMEOUT=${PY4_TEST_TIMEOUT:-300}
KEY='C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=='

log() { echo "py4: $*"; }
die() { echo "py4: ERROR: $*" >&2; exit 1; }

# ---------------------------------------------------------------- phase 2: emulator + pytest
run_suite() {
  local cert=$WORK/emulator.pem emu_log=$WORK/emulator.log results=$WORK/results.json
  rm -f "$cert" "$results"
  if [ "${PY4_IN_NETNS:-0}" = 1 ]; then
    ip link set lo up || die "cannot bring up loopback in the network namespace"
  fi
  if "$VENV/bin/python" - "$PY4_PORT" <<'EOF'
import socket, sys
s = socket.socket(); s.settimeout(1)
sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0 else 1)
EOF
  then
    die "port $PY4_PORT is already in use (set PY4_NETNS=1 to run in a private network namespace, or PY4_PORT)"
  fi

  # Run a copy: the build may relink the binary while the suite runs.
  cp "$BIN" "$WORK/cosmos-emulator" || die "cannot copy $BIN"
  log "starting $BIN --port $PY4_PORT --cert-export $cert ${PY4_EMULATOR_ARGS:-}"
  # shellcheck disable=SC2086
  "$WORK/cosmos-emulator" --port "$PY4_PORT" --cert-export "$cert" ${PY4_EMULATOR_ARGS:-} >"$emu_log" 2>&1 &
  EMU_PID=$!
  trap 'if [ -n "${EMU_PID:-}" ]; then kill "$EMU_PID" 2>/dev/null; wait "$EMU_PID" 2>/dev/null; fi' EXIT
  local i
  for i in $(seq 1 600); do
    grep -q 'Started' "$emu_log" 2>/dev/null && break
    kill -0 "$EMU_PID" 2>/dev/null || { cat "$emu_log"; die "the emulator exited before it started"; }
    sleep 0.1
  done
  grep -q 'Started' "$emu_log" || { cat "$emu_log"; die "the emulator did not print Started within 60 s"; }
  [ -s "$cert" ] || die "--cert-export wrote no certificate to $cert"

  # The SDK itself turns TLS verification off for hosts named localhost/127.0.0.1
  # (azure/cosmos/_synchronized_request.py and aio/_asynchronous_request.py: is_ssl_enabled), so the
  # suite never depends on trust; still, hand the exported certificate to every client that reads the
  # usual variables (requests: REQUESTS_CA_BUNDLE; OpenSSL/aiohttp: SSL_CERT_FILE), and check here that
  # a verifying HTTPS client does accept the emulator on https://localhost:$PY4_PORT with it.
  export REQUESTS_CA_BUNDLE=$cert SSL_CERT_FILE=$cert
  if "$VENV/bin/python" - "$PY4_PORT" "$cert" <<'EOF'
import sys, requests
r = requests.get("https://localhost:%s/_explorer/emulator.pem" % sys.argv[1], verify=sys.argv[2], timeout=10)
r.raise_for_status()
EOF
  then log "TLS check: https://localhost:$PY4_PORT verified with the exported certificate"
  else log "WARNING: a verifying client rejected https://localhost:$PY4_PORT with the exported certificate"
  fi

  local t0 t1 rc
  t0=$(date +%s)
  log "pytest -m \"$PY4_MARK\" in $WORK/suite/tests (log: $WORK/pytest.log; tests' captured output: $WORK/junit.xml)"
  (
    cd "$WORK/suite/tests" || exit 2
    ACCOUNT_HOST="https://localhost:$PY4_PORT/" ACCOUNT_KEY=$KEY \
    PYTHONPATH="$HERE/shim" PY4_RESULTS=$results PYTHONDONTWRITEBYTECODE=1 \
      "$VENV/bin/python" -m pytest -m "$PY4_MARK" -p py4_report -p no:cacheprovider \
        --timeout="$PY4_TEST_TIMEOUT" -o asyncio_default_fixture_loop_scope=function \
        -o junit_family=xunit2 -o junit_logging=all --junitxml="$WORK/junit.xml" \
        -rfE --tb=short --show-capture=no --durations=25 -q "$@"
  ) 2>&1 | tee "$WORK/pytest.log"
  rc=${PIPESTATUS[0]}
  t1=$(date +%s)

  kill "$EMU_PID" 2>/dev/null; wait "$EMU_PID" 2>/dev/null; EMU_PID=
  trap - EXIT
  local verdict_rc=0 own_rc=0
  "$VENV/bin/python" "$HERE/verdict.py" "$results" "$HERE/known_failures.txt" "$rc" "$((t1 - t0))" \
    "$([ $# -gt 0 ] && echo subset || echo full)" || verdict_rc=$?
  # The project's own tests with this SDK (tests/sdk/python4/own: Entra ID token credentials), each
  # module starting its own emulators on free ports; on full runs only.
  if [ $# -eq 0 ]; then
    log "the project's own tests with azure-cosmos 4 (tests/sdk/python4/own)"
    PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/python" -m pytest -p no:cacheprovider -q -rfE --tb=short \
      -W ignore::urllib3.exceptions.InsecureRequestWarning "$HERE/own" || own_rc=$?
  fi
  [ "$verdict_rc" = 0 ] && [ "$own_rc" = 0 ]
}

if [ "${PY4_INNER:-0}" = 1 ]; then   # re-entered inside the network namespace
  run_suite "$@"
  exit $?
fi

# ---------------------------------------------------------------- phase 1: install
START=$(date +%s)
mkdir -p "$WORK"
[ -x "$BIN" ] || die "emulator binary not found: $BIN (build it, or set COSMOS_EMULATOR_BIN)"

apt_updated=0
apt_install() {
  [ "$apt_updated" = 1 ] || { DEBIAN_FRONTEND=noninteractive apt-get update -qq || die "apt-get update failed"; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || die "apt-get install $* failed"
}
PY=${PY4_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || { log "installing python3"; apt_install python3; }
if ! "$PY" -c 'import venv, ensurepip' 2>/dev/null; then
  log "installing python3-venv"; apt_install python3-venv
fi
if [ "${PY4_NETNS:-0}" = 1 ]; then
  command -v unshare >/dev/null || apt_install util-linux
  command -v ip >/dev/null || apt_install iproute2
fi

REQ=$HERE/requirements.txt
REQ_SUM=$(sha256sum "$REQ" | cut -d' ' -f1)
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.py4-requirements" 2>/dev/null)" != "$REQ_SUM" ]; then
  log "creating $VENV"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV" || die "venv creation failed"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ" || die "pip install failed"
  "$VENV/bin/pip" check || die "pip check failed"
  echo "$REQ_SUM" >"$VENV/.py4-requirements"
fi

VERSION=$(sed -n 's/^azure-cosmos==\([^ ]*\).*/\1/p' "$REQ")
[ -n "$VERSION" ] || die "no azure-cosmos==X pin in $REQ"
SDIST=$(ls "$WORK"/dist/azure[-_]cosmos-"$VERSION".tar.gz 2>/dev/null | head -1)
if [ -z "$SDIST" ]; then
  log "downloading the azure-cosmos $VERSION sdist"
  "$VENV/bin/pip" download -q --disable-pip-version-check --no-binary :all: --no-deps \
    "azure-cosmos==$VERSION" -d "$WORK/dist" || die "pip download failed"
  SDIST=$(ls "$WORK"/dist/azure[-_]cosmos-"$VERSION".tar.gz | head -1)
fi
# Fresh copy of the sdist's tests/ every run (nothing left over from an earlier run).
rm -rf "$WORK/suite"; mkdir -p "$WORK/suite"
TOP=$(tar -tzf "$SDIST" | head -1 | cut -d/ -f1)
tar -xzf "$SDIST" -C "$WORK/suite" --strip-components=1 "$TOP/tests" || die "no tests/ in $SDIST"
log "azure-cosmos $VERSION: $(ls "$WORK"/suite/tests/test_*.py | wc -l) test files in $WORK/suite/tests"
"$VENV/bin/python" -c "import azure.cosmos, sys; v = azure.cosmos.__version__; sys.exit(0 if v == '$VERSION' else 'installed azure-cosmos ' + v + ' != $VERSION')" || exit 1

if [ "${PY4_NETNS:-0}" = 1 ]; then
  log "running in a private network namespace (unshare -n)"
  PY4_INNER=1 PY4_IN_NETNS=1 unshare -n -- bash "$HERE/run.sh" "$@"
  rc=$?
else
  run_suite "$@"
  rc=$?
fi
log "total wall time (install + run): $(( $(date +%s) - START )) s"
exit $rc
