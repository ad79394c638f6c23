#!/usr/bin/env bash
# Runs the Rust SDK tests (crates.io azure_data_cosmos, pinned in Cargo.toml / Cargo.lock) against
# the emulator binary. Each test starts its own emulator (--port 0).
#
#   tests/sdk/rust/run.sh            # every test
#   tests/sdk/rust/run.sh query::    # extra arguments go to the test binaries (e.g. a name filter)
#
# Verdict: exit 0 when every failed test is listed in tests/sdk/rust/known_failures.txt (a test name
# as cargo prints it, e.g. `binary_encoding::binary_create_and_read`, blanks, a one-line reason);
# exit 1 when a test not listed fails, when a listed test binary did not report every test it lists
# (a crash), when the build fails, or when no test ran. Listed tests that pass are printed (remove
# them from the list). Prints per-test results, the counts (`N passed, N failed, N skipped`, true
# counts, listed failures included), `known failures: K (listed)` and the wall time.
#
# Env: COSMOS_EMULATOR_BIN (default <repo>/build/emulator/cosmos-emulator; not built here),
#      BUILD_DIR (default <repo>/build; this run's log goes to $BUILD_DIR/rust-sdk/),
#      COSMOS_TEST_CACHE (default ~/.cache/cosmos-emulator-tests): cargo's output directory is
#        $COSMOS_TEST_CACHE/rust-target (or CARGO_TARGET_DIR), kept between runs and clones so only
#        this crate is compiled again; crates come from cargo's own cache (~/.cargo/registry),
#      RUST_TEST_THREADS (default 2).
# Needs: cargo and rustc >= 1.88 (the crate's rust-version) and a C compiler (aws-lc-sys, used by rustls).
# Uses ~/.cargo/bin or /root/.cargo/bin when present; otherwise installs Debian 12's cargo-web/rustc-web
# (1.96 from bookworm-security; bookworm's own cargo 0.66 / rustc 1.63 are too old).
set -uo pipefail

start=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)

PATH="${HOME:-/root}/.cargo/bin:/root/.cargo/bin:$PATH"
export PATH
# Short panic reports unless asked otherwise.
RUST_BACKTRACE="${RUST_BACKTRACE:-0}"
export RUST_BACKTRACE

rustc_ok() {
  command -v cargo >/dev/null 2>&1 && command -v rustc >/dev/null 2>&1 || return 1
  local v
  v=$(rustc --version | sed -n 's/^rustc \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  set -- $v
  [ "${1:-0}" -gt 1 ] || { [ "${1:-0}" -eq 1 ] && [ "${2:-0}" -ge 88 ]; }
}

if ! rustc_ok; then
  echo "run.sh: no cargo/rustc >= 1.88 on PATH; installing Debian's cargo-web (rustc-web)"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y cargo-web || exit 1
  hash -r 2>/dev/null || true
  if ! rustc_ok; then
    echo "run.sh: rustc $(rustc --version 2>/dev/null || echo missing) is older than 1.88, which azure_data_cosmos needs" >&2
    exit 1
  fi
fi
if ! command -v cc >/dev/null 2>&1 || ! command -v flock >/dev/null 2>&1; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y gcc util-linux || exit 1
fi
echo "run.sh: $(cargo --version), $(rustc --version)"

bin="${COSMOS_EMULATOR_BIN:-$repo/build/emulator/cosmos-emulator}"
if [ ! -x "$bin" ]; then
  echo "run.sh: emulator binary not found at $bin (build it first, or set COSMOS_EMULATOR_BIN)" >&2
  exit 1
fi
COSMOS_EMULATOR_BIN=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
export COSMOS_EMULATOR_BIN
cache="${COSMOS_TEST_CACHE:-${HOME:-/root}/.cache/cosmos-emulator-tests}"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$cache/rust-target}"
export CARGO_TARGET_DIR
mkdir -p "$CARGO_TARGET_DIR" || exit 1
out="${BUILD_DIR:-$repo/build}/rust-sdk"
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
known_file="$here/known_failures.txt"
# The SDK would otherwise query the Azure instance metadata service (169.254.169.254) once.
COSMOS_DISABLE_IMDS=1
export COSMOS_DISABLE_IMDS

# The output directory is shared by every clone of the repository on this machine. Cargo names this
# crate's artifacts by its path relative to the workspace, and decides freshness by modification
# times: a clone whose sources are older than another clone's last build would run that build. So
# runs take the directory in turn (flock), and when the last build came from another folder this
# crate's files are touched, which makes cargo compile it again (the dependencies stay compiled).
exec 9>"$CARGO_TARGET_DIR/.run.lock" || exit 1
if ! flock -n 9; then
  echo "run.sh: $CARGO_TARGET_DIR is in use by another run; waiting"
  flock 9
fi
stamp="$CARGO_TARGET_DIR/.built-from"
if [ "$(cat "$stamp" 2>/dev/null)" != "$here" ]; then
  find "$here/tests" "$here/Cargo.toml" "$here/Cargo.lock" -type f -exec touch {} +
fi

cd "$here" || exit 1
echo "run.sh: cargo output in $CARGO_TARGET_DIR; log in $out/test.log"
b0=$(date +%s)
if ! nice -n 10 cargo test --locked --no-run; then
  echo "run.sh: the build failed" >&2
  echo "0 passed, 0 failed, 0 skipped"
  exit 1
fi
printf '%s\n' "$here" >"$stamp"
b1=$(date +%s)
echo "run.sh: build took $((b1 - b0)) s"

# The tests each binary holds (for the "did every test report" check), then the run. Cargo prints
# "Running <source> (<binary>)" on stderr before each binary; the names below are per binary.
list="$out/list.txt"
log="$out/test.log"
if ! cargo test --locked -- --list "$@" >"$list" 2>&1; then
  cat "$list" >&2
  echo "run.sh: listing the tests failed" >&2
  exit 1
fi
cargo test --locked --no-fail-fast -- --test-threads="${RUST_TEST_THREADS:-2}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# binary<TAB>test for every listed test / every result
awk '
  /^ *Running / { b = $2; sub(/^.*\//, "", b); sub(/\.rs$/, "", b); if (b == "main") { b = $2; sub(/\/main\.rs$/, "", b); sub(/^.*\//, "", b) } next }
  /: test$/ { n = $0; sub(/: test$/, "", n); print b "\t" n }
' "$list" | sort -u >"$out/listed.tsv"
awk '
  /^ *Running / { b = $2; sub(/^.*\//, "", b); sub(/\.rs$/, "", b); if (b == "main") { b = $2; sub(/\/main\.rs$/, "", b); sub(/^.*\//, "", b) } next }
  /^test .* \.\.\. (ok|FAILED|ignored)/ {
    n = $0; sub(/^test /, "", n); r = n
    sub(/ \.\.\. .*$/, "", n); sub(/^.* \.\.\. /, "", r); sub(/[ ,].*$/, "", r)
    print b "\t" n "\t" r
  }
' "$log" | sort -u >"$out/results.tsv"

# known_failures.txt: name, blanks, reason; # comments and blank lines ignored
declare -A known=()
if [ -f "$known_file" ]; then
  while read -r name reason; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ -z "$reason" ]; then
      echo "run.sh: $known_file: '$name' has no reason" >&2
      exit 1
    fi
    known[$name]=$reason
  done <"$known_file"
fi

declare -A result=() seen=()
while IFS=$'\t' read -r b n r; do
  result["$n"]=$r
done <"$out/results.tsv"
passed=0 failed=0 skipped=0 known_failed=0
new=() nowpass=() missing=() knownlist=()
while IFS=$'\t' read -r b n; do
  if [ -n "${seen[$n]:-}" ]; then
    echo "run.sh: warning: test name '$n' is in more than one test binary; known_failures.txt cannot tell them apart" >&2
  fi
  seen[$n]=1
  case "${result[$n]:-}" in
    ok) passed=$((passed + 1))
        if [ -n "${known[$n]:-}" ]; then nowpass+=("$n"); fi ;;
    ignored) skipped=$((skipped + 1)) ;;
    FAILED|'')
      failed=$((failed + 1))
      if [ -z "${result[$n]:-}" ]; then missing+=("$b: $n"); fi
      if [ -n "${known[$n]:-}" ]; then known_failed=$((known_failed + 1)); knownlist+=("$n  [${known[$n]}]")
      else new+=("$n"); fi ;;
  esac
done <"$out/listed.tsv"
total=$(wc -l <"$out/listed.tsv")
stale=()
for n in "${!known[@]}"; do
  [ -n "${seen[$n]:-}" ] || stale+=("$n")
done

end=$(date +%s)
echo
echo "rust-sdk: $total tests in $(cut -f1 "$out/listed.tsv" | sort -u | wc -l) test binaries (cargo exit status $status)"
for m in "${missing[@]}"; do echo "did not report a result (the test binary ended early?): $m"; done
for k in "${knownlist[@]}"; do echo "known failure: $k"; done
if [ ${#nowpass[@]} -gt 0 ]; then
  echo "listed in known_failures.txt but PASSED now (remove them from the list): ${nowpass[*]}"
fi
if [ ${#stale[@]} -gt 0 ] && [ $# -eq 0 ]; then
  echo "listed in known_failures.txt but not a test of this suite: ${stale[*]}"
fi
if [ ${#new[@]} -gt 0 ]; then
  echo "NEW FAILURES (not in known_failures.txt): ${new[*]}"
fi
echo "run.sh: wall time $((end - start)) s (build $((b1 - b0)) s)"
echo "$passed passed, $failed failed, $skipped skipped"
echo "known failures: $known_failed (listed)"
if [ "$total" -eq 0 ] || [ $((passed + failed)) -eq 0 ]; then
  echo "run.sh: no test ran" >&2
  exit 1
fi
if [ ${#new[@]} -gt 0 ]; then exit 1; fi
# cargo fails when a test fails; anything else it fails for (a binary that would not start) shows
# as missing results above, which count as failures.
exit 0
