#!/usr/bin/env bash
# ThreadSanitizer: builds the emulator and the gtest suite with -fsanitize=thread (in build-tsan/),
# runs the whole ctest suite, then the JavaScript SDK's concurrent tests (the stress test, the
# change feed under concurrent writers, bulk, batch, HTTPS, query cancellation, the server's
# limits, persistence under kill -9) against the TSan binary. Any data race report fails the run
# (halt_on_error). Run on demand: cold, about 15 minutes on 2 cores (10 to build, 3.5 for ctest,
# 1.5 for the JavaScript tests).
#
#   tests/tsan.sh
#
# Environment: TSAN_BUILD_DIR (default build-tsan), TSAN_JOBS (ninja -j, default 2),
# STRESS_SECONDS (the stress test's duration here, default 10).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TSAN_BUILD_DIR:-$ROOT/build-tsan}"
mkdir -p "$BUILD"
[[ -f $BUILD/.gitignore ]] || echo '*' >"$BUILD/.gitignore"
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOSMOS_TSAN=ON \
    >"$BUILD/configure.log" 2>&1 || { tail -n 30 "$BUILD/configure.log"; exit 1; }
fi
# The SQL corpus runner finds tests/sql from its source path; name it (ccache may rewrite the path),
# also for the build, which lists the corpus's tests.
export COSMOS_SQL_CORPUS_DIR="${COSMOS_SQL_CORPUS_DIR:-$ROOT/tests/sql}"
ninja -C "$BUILD" -j"${TSAN_JOBS:-2}" >"$BUILD/build.log" 2>&1 ||
  { grep -E 'error' "$BUILD/build.log" | head -n 30; echo "TSan build failed (log: $BUILD/build.log)"; exit 1; }

# SpiderMonkey and the ANTLR runtime are not built with TSan; races TSan reports inside them are
# suppressed (tests/tsan.supp says which and why). Every report also goes to a file under
# $BUILD/tsan-reports: the emulators the JavaScript tests start write theirs there too (their
# stderr is the test's), and any file left there fails the run.
REPORTS="$BUILD/tsan-reports"
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp:log_path=$REPORTS/report"
status=0
echo "=== ctest under TSan"
ctest --test-dir "$BUILD" -j2 --output-on-failure || status=1
echo "=== JavaScript SDK concurrent tests against the TSan binary"
export COSMOS_EMULATOR_BIN="$BUILD/emulator/cosmos-emulator"
export COSMOS_EMULATOR_SANITIZER=ThreadSanitizer  # server.test.mjs skips its resident-memory test
export COSMOS_STRESS_SECONDS="${STRESS_SECONDS:-10}"
(cd "$ROOT/tests/sdk/js" && { [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error >/dev/null; })
files=()
for f in stress.test.mjs changefeed_concurrency.test.mjs bulk.test.mjs batch.test.mjs https.test.mjs \
  query_cancel.test.mjs server.test.mjs persistence.test.mjs; do
  [[ -f $ROOT/tests/sdk/js/$f ]] && files+=("./$f")
done
(cd "$ROOT/tests/sdk/js" && node --test --test-concurrency=1 "${files[@]}") || status=1
echo
if compgen -G "$REPORTS/report.*" >/dev/null; then
  status=1
  for f in "$REPORTS"/report.*; do
    echo "=== $f"
    head -n 60 "$f"
  done
fi
[[ $status -eq 0 ]] && echo "tsan: no data race reported, every test passed" || echo "tsan: FAILED"
exit $status
