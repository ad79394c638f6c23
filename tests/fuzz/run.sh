#!/usr/bin/env bash
# Builds the libFuzzer targets with clang under AddressSanitizer and UndefinedBehaviorSanitizer
# (in build-fuzz/) and runs each for FUZZ_SECONDS from its committed seed corpus
# (tests/fuzz/corpus/<name>/ for fuzz_<name>; new inputs go to a scratch copy, not into the repository).
# Prints executions, coverage and findings per target; exits non-zero when a target crashes,
# leaks a sanitizer report, times out or gets a 500 answer (an exception no handler turned into a
# service error: fuzz_env.h). A failing input is kept in $FUZZ_ARTIFACTS.
#
#   tests/fuzz/run.sh                  every target, FUZZ_SECONDS each (default 30)
#   FUZZ_SECONDS=600 tests/fuzz/run.sh fuzz_query
#   FUZZ_RUNS=5000 tests/fuzz/run.sh   a fixed number of executions per target (the seed corpus first,
#                                      then mutations) from a fixed seed
#                                      (FUZZ_SEED, default 1): the same inputs every time
#   tests/fuzz/run.sh fuzz_query=2000 fuzz_json=9000   per-target counts (what tests/run.sh runs)
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_SECONDS, FUZZ_RUNS, FUZZ_SEED,
# FUZZ_ARTIFACTS (default $FUZZ_BUILD_DIR/artifacts), FUZZ_JOBS (ninja -j, default 2),
# FUZZ_KEEP_CORPUS=1 (keep each grown corpus in $FUZZ_BUILD_DIR/corpus/<target> to pick seeds from).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SECS="${FUZZ_SECONDS:-30}"
ARTIFACTS="${FUZZ_ARTIFACTS:-$BUILD/artifacts}"
# Arguments: targets, each optionally "target=N" for N inputs from the fixed seed (its own FUZZ_RUNS).
TARGETS=()
declare -A RUNS=()
for arg in "$@"; do
  t="${arg%%=*}"
  TARGETS+=("$t")
  [[ $arg == *=* ]] && RUNS[$t]="${arg#*=}"
done
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(fuzz_query fuzz_json fuzz_headers fuzz_pipeline fuzz_aad fuzz_rntbd)

# clang and its sanitizer and libFuzzer runtimes (only recommended by clang, so named here).
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "installing ${missing[*]} with apt-get"
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null || { echo "could not install ${missing[*]}"; exit 1; }
fi
mkdir -p "$BUILD" "$ARTIFACTS"
[[ -f $BUILD/.gitignore ]] || echo '*' >"$BUILD/.gitignore"
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DCOSMOS_BUILD_FUZZ=ON -DCOSMOS_BUILD_TESTS=OFF -DCOSMOS_UNITY_BUILD=OFF >"$BUILD/configure.log" 2>&1 ||
    { tail -n 30 "$BUILD/configure.log"; exit 1; }
fi
ninja -C "$BUILD" -j"${FUZZ_JOBS:-2}" "${TARGETS[@]}" >"$BUILD/build.log" 2>&1 ||
  { grep -E 'error' "$BUILD/build.log" | head -n 30; echo "fuzz build failed (log: $BUILD/build.log)"; exit 1; }

failed=0
summary=()
for t in "${TARGETS[@]}"; do
  runs="${RUNS[$t]:-${FUZZ_RUNS:-}}"
  if [[ -n $runs ]]; then
    limit=(-runs="$runs" -seed="${FUZZ_SEED:-1}")
    what="$runs executions in all, seeds first, seed ${FUZZ_SEED:-1}"
  else
    limit=(-max_total_time="$SECS")
    what="${SECS} s"
  fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/$t.XXXXXX")"
  seeddir="$HERE/corpus/${t#fuzz_}"  # fuzz_query's seeds are in corpus/query/
  [[ -d $seeddir ]] && compgen -G "$seeddir/*" >/dev/null || { echo "no seed corpus in $seeddir"; exit 1; }
  cp "$seeddir/"* "$work/"
  seeds=$(ls "$work" | wc -l)
  log="$BUILD/$t.log"
  start=$SECONDS
  # Leak checking stays off: SpiderMonkey keeps its runtime until exit by design.
  ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$HERE/ubsan.supp" \
    "$BUILD/tests/fuzz/$t" "${limit[@]}" -max_len=16384 -timeout=20 -rss_limit_mb=3072 \
    -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$t-" "$work" >"$log" 2>&1
  rc=$?
  secs=$((SECONDS - start))
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -n 1)
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log" | tail -n 1)
  rss=$(awk '/stat::peak_rss_mb/ {print $2}' "$log" | tail -n 1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1)
  corp=$(ls "$work" | wc -l)
  if [[ $rc -ne 0 ]]; then
    failed=1
    summary+=("FAIL $t: exit $rc after ${execs:-?} executions; ${cov:-no coverage line}; the input is in $ARTIFACTS (log $log)")
    grep -E 'ERROR: |runtime error|SUMMARY|^500 answer|^fuzz finding' "$log" | head -n 5
  else
    summary+=("PASS $t: ${execs:-?} executions ($what) in ${secs} s, ${rate:-?} exec/s, ${cov:-?}, corpus files $seeds -> $corp, peak RSS ${rss:-?} MB, no finding")
  fi
  if [[ -n ${FUZZ_KEEP_CORPUS:-} ]]; then
    rm -rf "$BUILD/corpus/$t" && mkdir -p "$BUILD/corpus" && mv "$work" "$BUILD/corpus/$t"
  else
    rm -rf "$work"
  fi
done
printf '%s\n' "${summary[@]}"
exit $failed
