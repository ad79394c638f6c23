#!/bin/bash
# Runs Microsoft's own emulator tests of the Go SDK (module github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos,
# its emulator_*_test.go files, unchanged, fetched from the Go module proxy) against the emulator binary.
#
#   tests/sdk/go/run.sh
#
# What it does: finds or installs Go; downloads the pinned azcosmos version into the module cache
# ($COSMOS_TEST_CACHE/go/gopath) and checks its hash; copies it (the cache is read-only) to $BUILD_DIR/go-sdk/azcosmos;
# selects the test functions of the files that call newEmulatorTests (the ones that reach the emulator);
# compiles the package's test binary; starts the emulator on port 8081 (the tests hardcode
# https://localhost:8081/) with --cert-export and its SQL compute endpoint on 8903 (--compute-port:
# TestItemIdEncodingComputeGW hardcodes https://localhost:8903/, the official emulator's); trusts the
# certificate through SSL_CERT_FILE (the AAD client verifies it; the key client skips verification);
# runs the selected tests with EMULATOR=true (the one variable they read: unset, every one of them
# skips); stops the emulator; prints each result, the output of the failed tests, the counts and the
# wall time. Exit 1 if a test fails that tests/sdk/go/known_failures.txt does not list (or a test does
# not finish); listed tests that pass are reported. The last lines are the true counts,
# `N passed, N failed, N skipped` (listed failures included), and `known failures: K (listed)`.
#
# Env: COSMOS_EMULATOR_BIN (default build/emulator/cosmos-emulator), BUILD_DIR (default <repo>/build),
# GO (a go command to use), GO_TEST_TIMEOUT (default 6m), GO_TEST_RUN (a regexp narrowing the selected
# test names, e.g. '^TestItemCRUD$'), EMULATOR_ARGS (extra flags for the emulator),
# GO_SDK_NETNS=1 (run the emulator and the tests in a private network namespace, `unshare -n`, so
# ports 8081 and 8903 need not be free on the machine),
# COSMOS_TEST_CACHE (default ~/.cache/cosmos-emulator-tests): Go's module cache and build cache
# ($COSMOS_TEST_CACHE/go/{gopath,gocache}) and a fetched toolchain live there, kept between runs and
# clones of the repository (the test binary is built with -trimpath, so its cache entries do not
# depend on the clone's folder).
# Logs: $BUILD_DIR/go-sdk/{emulator.log,test.json,report.txt}.
set -euo pipefail
START=${GO_SDK_START:-$(date +%s.%N)}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
cd "$REPO"

# The pin. `go list -m -versions` cannot list this module here (the proxy answers 404 for its version
# list), so the newest version was found by its .info (v1.5.0, 2026-07-14; no v1.5.1, v1.6.0-beta.*).
# Its go.mod says `go 1.25.0`.
AZCOSMOS_MODULE=github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos
AZCOSMOS_VERSION=v1.5.0
AZCOSMOS_SUM='h1:wtCn7MemMD9eo4/NdpJ6S/MFD2BV2CDwoEfvl5th2vM='
NEED_GO_MINOR=25
FALLBACK_TOOLCHAIN=go1.27.3   # taken from the Go module proxy when the machine's Go is older than 1.25
PORT=8081                     # hardcoded by newEmulatorTests (emulator_test.go)
COMPUTE_PORT=8903             # hardcoded by newEmulatorTestsWithComputeGateway (emulator_test.go)

BUILD_DIR=${BUILD_DIR:-$REPO/build}
mkdir -p "$BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
BIN=${COSMOS_EMULATOR_BIN:-build/emulator/cosmos-emulator}
case "$BIN" in /*) ;; *) BIN=$REPO/$BIN ;; esac
WORK=$BUILD_DIR/go-sdk
mkdir -p "$WORK"

CACHE=${COSMOS_TEST_CACHE:-${HOME:-/root}/.cache/cosmos-emulator-tests}/go
mkdir -p "$CACHE"
export GOPATH=$CACHE/gopath
export GOCACHE=$CACHE/gocache
export GOFLAGS="-buildvcs=false -trimpath"
export GOPROXY=${GOPROXY:-https://proxy.golang.org,direct}
export GO111MODULE=on
unset GOROOT GOWORK

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- Go ----
if [ -n "${GO:-}" ]; then :
elif command -v go >/dev/null 2>&1; then GO=$(command -v go)
elif [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go
else
  echo "go: not found; installing Debian's golang-go"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
  GO=$(command -v go)
fi
go_minor() { "$1" env GOVERSION | sed -nE 's/^go1\.([0-9]+).*/\1/p'; }
minor=$(GOTOOLCHAIN=local go_minor "$GO")
if [ -z "$minor" ]; then minor=$NEED_GO_MINOR; fi
if [ "$minor" -ge "$NEED_GO_MINOR" ]; then
  export GOTOOLCHAIN=local
elif [ "$minor" -ge 21 ]; then
  export GOTOOLCHAIN=$FALLBACK_TOOLCHAIN   # the go command fetches it from the module proxy itself
else
  # Debian 12's golang-go is 1.19, which predates toolchain switching: fetch the toolchain as the
  # module it is published as, and run its go command (a module zip keeps no exec bits).
  tc=golang.org/toolchain@v0.0.1-$FALLBACK_TOOLCHAIN.linux-$("$GO" env GOARCH)
  tcdir=$CACHE/toolchain/$FALLBACK_TOOLCHAIN
  if [ ! -x "$tcdir/bin/go" ]; then
    echo "go: $("$GO" env GOVERSION) is older than 1.21; fetching $tc"
    src=$(cd "$WORK" && "$GO" mod download -json "$tc" | sed -nE 's/^\s*"Dir": "(.*)",?$/\1/p')
    mkdir -p "$(dirname "$tcdir")"
    tmp=$(mktemp -d "$tcdir.XXXXXX")   # copied aside, then renamed: another run may be doing the same
    cp -r "$src/." "$tmp"; chmod -R u+w "$tmp"
    chmod +x "$tmp"/bin/* "$tmp"/pkg/tool/*/*
    mv -T "$tmp" "$tcdir" 2>/dev/null || rm -rf "$tmp"
  fi
  GO=$tcdir/bin/go
  export GOTOOLCHAIN=local
fi
echo "go: $GO ($("$GO" env GOVERSION)), GOTOOLCHAIN=$GOTOOLCHAIN, GOPATH=$GOPATH"

# ---- the SDK module ----
t=$(date +%s.%N)
(cd "$WORK" && "$GO" mod download -json "$AZCOSMOS_MODULE@$AZCOSMOS_VERSION") > "$WORK/download.json"
MODDIR=$(sed -nE 's/^\s*"Dir": "(.*)",?$/\1/p' "$WORK/download.json")
SUM=$(sed -nE 's/^\s*"Sum": "(.*)",?$/\1/p' "$WORK/download.json")
if [ "$SUM" != "$AZCOSMOS_SUM" ]; then
  echo "azcosmos $AZCOSMOS_VERSION: hash $SUM, expected $AZCOSMOS_SUM" >&2
  exit 1
fi
SRC=$WORK/azcosmos
rm -rf "$SRC"
cp -r "$MODDIR" "$SRC"
chmod -R u+w "$SRC"
echo "azcosmos $AZCOSMOS_VERSION ($SUM) copied to $SRC ($(elapsed "$t") s)"

# The tests that reach the emulator: every Test function of the files that call newEmulatorTests
# (emulator_*_test.go in this version). emulator_test.go holds the helpers.
mapfile -t emu_files < <(cd "$SRC" && grep -l 'newEmulatorTests' -- *_test.go | sort)
if [ "${#emu_files[@]}" -eq 0 ]; then
  echo "azcosmos $AZCOSMOS_VERSION: no test file calls newEmulatorTests" >&2
  exit 1
fi
grep -h -oE '^func Test[A-Za-z0-9_]+\(t \*testing\.T\)' "${emu_files[@]/#/$SRC/}" \
  | sed -E 's/^func (Test[A-Za-z0-9_]+).*/\1/' > "$WORK/emulator-tests.txt"
if [ -n "${GO_TEST_RUN:-}" ]; then
  grep -E -- "$GO_TEST_RUN" "$WORK/emulator-tests.txt" > "$WORK/emulator-tests.sel" || true
  mv "$WORK/emulator-tests.sel" "$WORK/emulator-tests.txt"
fi
n_all=$(cat "$SRC"/*_test.go | grep -cE '^func Test[A-Za-z0-9_]+\(t \*testing\.T\)')
n_emu=$(wc -l < "$WORK/emulator-tests.txt")
if [ "$n_emu" -eq 0 ]; then
  echo "no emulator test selected" >&2
  exit 1
fi
PATTERN="^($(paste -sd'|' "$WORK/emulator-tests.txt"))\$"
echo "tests: the package has $n_all top-level test functions; $n_emu reach the emulator (${emu_files[*]}); only those run"

# ---- compile (the test binary, and the report tool) ----
t=$(date +%s.%N)
if ! (cd "$SRC" && nice -n 10 "$GO" test -c -o "$WORK/azcosmos.test" .) || ! (cd "$HERE" && "$GO" build -o "$WORK/report" ./report); then
  echo "compiling the test binary or the report tool failed" >&2
  echo "0 passed, 0 failed, 0 skipped"
  exit 1
fi
echo "compiled the test binary ($(elapsed "$t") s)"

# ---- the emulators ----
if [ ! -x "$BIN" ]; then
  echo "$BIN: no emulator binary (build it: ninja -C build)" >&2
  exit 1
fi
if [ "${GO_SDK_NETNS:-0}" = 1 ] && [ -z "${GO_SDK_IN_NETNS:-}" ]; then
  if ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq util-linux iproute2 >/dev/null
  fi
  echo "netns: running the emulators and the tests in a private network namespace"
  # Everything is downloaded and compiled by now: the second pass finds it in the caches.
  exec unshare -n -- env GO_SDK_IN_NETNS=1 GO_SDK_START="$START" GOPROXY=off GOSUMDB=off GOTOOLCHAIN="$GOTOOLCHAIN" \
    GO="$GO" bash "$0" "$@"
fi
if [ -n "${GO_SDK_IN_NETNS:-}" ]; then
  ip link set lo up
fi
for p in "$PORT" "$COMPUTE_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    echo "port $p is in use; the tests hardcode https://localhost:$p/ (GO_SDK_NETNS=1 runs them in a network namespace of their own)" >&2
    exit 1
  fi
done
EMU_PIDS=()
stop_emulators() {
  local pid
  for pid in "${EMU_PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  EMU_PIDS=()
}
trap stop_emulators EXIT
# start_emulator PORT LOG [FLAGS...]: starts one, waits for its Started line.
start_emulator() {
  local port=$1 log=$2 pid
  shift 2
  # shellcheck disable=SC2086
  "$BIN" --port "$port" "$@" ${EMULATOR_ARGS:-} > "$log" 2>&1 &
  pid=$!
  EMU_PIDS+=("$pid")
  for _ in $(seq 1 300); do
    if grep -q '^Started' "$log"; then break; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "the emulator on port $port exited at start:" >&2; cat "$log" >&2; exit 1
    fi
    sleep 0.1
  done
  if ! grep -q '^Started' "$log"; then
    echo "the emulator on port $port did not print Started within 30 s:" >&2; cat "$log" >&2; exit 1
  fi
  echo "emulator: $BIN on port $port (pid $pid), log $log"
}
CERT=$WORK/emulator.pem
rm -f "$CERT"
# Microsoft's pipeline (ci.yml) starts the Windows emulator with /consistency=Strong; rate limiting is
# off here by default (its /disableratelimiting), and with /EnableSqlComputeEndpoint its SQL compute
# endpoint on 8903 (--compute-port here); only TestItemIdEncodingComputeGW talks to that, with the key
# client, which does not verify certificates.
start_emulator "$PORT" "$WORK/emulator.log" --cert-export "$CERT" --consistency Strong --compute-port "$COMPUTE_PORT"

# ---- the tests ----
TESTS_START=$(date +%s.%N)
set +e
(cd "$SRC" && EMULATOR=true SSL_CERT_FILE="$CERT" \
  "$GO" tool test2json -p "$AZCOSMOS_MODULE" "$WORK/azcosmos.test" -test.v=test2json \
    -test.run "$PATTERN" -test.count=1 -test.timeout="${GO_TEST_TIMEOUT:-6m}" 2>&1) \
  | tee "$WORK/test.json" \
  | "$WORK/report" -tests "$WORK/emulator-tests.txt" -known "$HERE/known_failures.txt" \
      -start "$START" -tests-start "$TESTS_START" \
  | tee "$WORK/report.txt"
rc=${PIPESTATUS[2]}
set -e
stop_emulators
# The plain last lines: the true counts, then how many of the failures are listed.
counts=$(sed -nE 's/^selected emulator tests: [0-9]+; passed ([0-9]+), failed ([0-9]+) \(([0-9]+) listed as known, [0-9]+ new\), skipped ([0-9]+)$/\1 \2 \4 \3/p' "$WORK/report.txt")
if [ -n "$counts" ]; then
  read -r n_pass n_fail n_skip n_known <<<"$counts"
  echo "$n_pass passed, $n_fail failed, $n_skip skipped"
  echo "known failures: $n_known (listed)"
else
  echo "0 passed, 0 failed, 0 skipped"
  echo "known failures: 0 (listed)"
  [ "$rc" -ne 0 ] || rc=1
fi
exit "$rc"
