#!/usr/bin/env bash
# Benchmark suite: startup time, point-read and create throughput of the emulator, against a minimal
# Boost.Beast server as the baseline; or (`bench/run.sh query`) the query micro-benchmarks; or
# (`bench/run.sh partitions`) the partition micro-benchmarks; or (`bench/run.sh changefeed`,
# `bench/run.sh scripts`, `bench/run.sh batch`) the change feed, server-side JavaScript or
# transactional batch and bulk micro-benchmarks.
# Run on demand; never part of the test suite.
#
#   bench/run.sh            startup, point-read and create throughput (the default)
#   bench/run.sh query [ARGS...]
#                           only the query micro-benchmarks (query_bench: parse, bind, and queries
#                           over 100,000 in-memory items); prints medians of QUERY_REPS runs.
#                           ARGS go to query_bench, e.g. --benchmark_filter=Query
#   bench/run.sh partitions [ARGS...]
#                           only the partition micro-benchmarks (partition_bench: key placement, the
#                           rate limiter, in-process create and point read on 1 vs 16 partitions with
#                           the limiter off vs on); prints medians of PARTITION_REPS runs and the
#                           ratios 16 vs 1 partitions and limiter on vs off. ARGS go to partition_bench.
#   bench/run.sh changefeed [ARGS...]
#                           only the change feed micro-benchmarks (change_feed_bench: write cost of the
#                           all-versions log, page reads, TTL expiry); medians of PARTITION_REPS runs
#                           and the ratios log on vs off. ARGS go to change_feed_bench.
#   bench/run.sh scripts [ARGS...]
#                           only the server-side JavaScript micro-benchmarks (scripts_bench: an empty
#                           stored procedure, one creating a 1 KB item vs the same direct create, a
#                           query with a UDF vs without over 100 and 1,000 items, all in process on one
#                           logical partition); medians of SCRIPTS_REPS runs, the ratios and the cost
#                           of one UDF call. ARGS go to scripts_bench.
#   bench/run.sh persistence
#                           the cost of --data-dir (bench/persistence.mjs): creates/s in memory vs
#                           --durability fsync vs process (medians of alternating rounds, ratios), and
#                           start-up with ITEMS (100,000) items from the log and from a snapshot.
#                           Environment: EMULATOR, BENCH_SECONDS, ROUNDS, CONNS, ITEMS, STARTS.
#   bench/run.sh scale      seeding, queries, point reads and memory over 10,000 to 1,000,000 items of
#                           about 1 KB on 1 and 10 physical partitions (bench/scale.mjs): builds the
#                           emulator (Release) in BUILD_DIR, writes the data once (BUILD_DIR/scale-data),
#                           loads it with --seed, times each request REPS times (medians) with its
#                           charge; prints a markdown table beside the previous run's figures
#                           (bench/results/scale.json) and writes BUILD_DIR/bench-logs/scale.md and
#                           scale.json. Environment: SIZES, PARTITIONS, REPS, PAGES, SAVE=0 (keep
#                           bench/results/scale.json as it is).
#   bench/run.sh vector     TOP 10 vector search over VECTORS (100,000) items of DIMS (1,536) numbers in
#                           one partition (bench/vector.mjs): medians with the vector index and computing
#                           every distance (--query-indexes off), side by side, the same rows checked
#                           each time; memory per item and per vector index entry. Environment:
#                           VECTORS, DIMS, K, REPS, QUERIES.
#   bench/run.sh batch [ARGS...]
#                           only the batch micro-benchmarks (batch_bench: 100 direct creates of 1 KB
#                           items vs one transactional batch and one bulk request of 100 creates, and
#                           100 creates into a container with a unique key vs without, all in process
#                           on one logical partition); medians of BATCH_REPS runs, the CPU time of one
#                           item and the ratios. ARGS go to batch_bench.
#   bench/run.sh direct     point reads of the 1 KB item over the gateway (HTTPS/1.1 keep-alive) against
#                           the same over Direct mode (RNTBD over TLS on --direct-port DIRECT_PORT), both
#                           from bench/direct_load (closed loop: CONN connections with one request
#                           outstanding each, like wrk; every answer must be 200) in ROUNDS alternating
#                           rounds of DURATION seconds; prints each run, the medians and the ratios
#                           direct/gateway of throughput and of p50 and p99 latency. The certificate
#                           the emulator exports (--cert-export) is verified; CAFILE= skips that.
#                           Environment: DIRECT_PORT, CONN, LOAD_THREADS, LOAD_WARMUP, CAFILE, ROUNDS, DURATION.
#
# Settings (environment):
#   BUILD_DIR=build-bench   build directory (Release, COSMOS_BUILD_BENCH=ON, tests off)
#   SKIP_BUILD=0            1: use the binaries already in BUILD_DIR
#   EMULATOR=...            emulator binary (default BUILD_DIR/emulator/cosmos-emulator)
#   STARTUP_RUNS=10         startup_probe runs per server
#   ROUNDS=3 DURATION=10    wrk rounds (each: emulator then minimal_server) and seconds per run
#   WARMUP=2                seconds of untimed wrk per server before round 1 (0: none)
#   WRK_THREADS=2 WRK_CONN=32 SERVER_THREADS=2
#   EMU_PORT=18081 MIN_PORT=18082 PROBE_PORT=18083
#   QUERY_REPS=9            query mode: repetitions of each benchmark (medians are reported)
#   PARTITION_REPS=9        partitions mode: the same for partition_bench (and change_feed_bench)
#   SCRIPTS_REPS=9          scripts mode: the same for scripts_bench
#   BATCH_REPS=9            batch mode: the same for batch_bench
#   DIRECT_PORT=18084 CONN=32
#                           direct mode: the emulator's --direct-port; direct_load's connections
#   LOAD_THREADS=$WRK_THREADS LOAD_WARMUP=1
#                           direct mode: direct_load's threads; untimed seconds at the start of each run
# Exit status: 0 only if the build, setup, every check and every measurement succeeded.
set -uo pipefail

MODE=http
case ${1-} in
  "") ;;
  query) MODE=query; shift ;;
  partitions) MODE=partitions; shift ;;
  changefeed) MODE=changefeed; shift ;;
  scripts) MODE=scripts; shift ;;
  batch) MODE=batch; shift ;;
  persistence)
    # Node's own modules only; the emulator binary as built by the README's setup.
    shift
    exec node "$(dirname "${BASH_SOURCE[0]}")/persistence.mjs" "$@" ;;
  scale) MODE=scale; shift ;;
  vector) MODE=vector; shift ;;
  direct) MODE=direct; shift ;;
  -h|--help) sed -n '2,79p' "${BASH_SOURCE[0]}"; exit 0 ;;
  *) echo "usage: bench/run.sh [query [query_bench args...] | partitions [partition_bench args...] | changefeed [change_feed_bench args...] | scripts [scripts_bench args...] | batch [batch_bench args...] | persistence | scale | vector | direct]" >&2; exit 2 ;;
esac

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-bench}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
SKIP_BUILD=${SKIP_BUILD:-0}
EMULATOR=${EMULATOR:-$BUILD_DIR/emulator/cosmos-emulator}
MINIMAL=$BUILD_DIR/bench/minimal_server
PROBE=$BUILD_DIR/bench/startup_probe
DIRECT_LOAD=$BUILD_DIR/bench/direct_load
STARTUP_RUNS=${STARTUP_RUNS:-10}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
WRK_THREADS=${WRK_THREADS:-2}
WRK_CONN=${WRK_CONN:-32}
SERVER_THREADS=${SERVER_THREADS:-2}
EMU_PORT=${EMU_PORT:-18081}
MIN_PORT=${MIN_PORT:-18082}
PROBE_PORT=${PROBE_PORT:-18083}
DIRECT_PORT=${DIRECT_PORT:-18084}
CONN=${CONN:-32}
LOAD_THREADS=${LOAD_THREADS:-$WRK_THREADS}
LOAD_WARMUP=${LOAD_WARMUP:-1}
QUERY_REPS=${QUERY_REPS:-9}
QUERY_BENCH=$BUILD_DIR/bench/query_bench
PARTITION_REPS=${PARTITION_REPS:-9}
SCRIPTS_REPS=${SCRIPTS_REPS:-9}
BATCH_REPS=${BATCH_REPS:-9}
KEY='C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=='
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
SIGN=$ROOT/bench/sign.py
LUA=$ROOT/bench/wrk_report.lua
LOG_DIR=$BUILD_DIR/bench-logs
ITEM_PATH=/dbs/bench/colls/c/docs/item1

FAILED=0
EMU_PID=""
MIN_PID=""
declare -a PROBLEMS=()

say() { printf '== %s\n' "$*"; }
problem() { printf 'FAIL: %s\n' "$*" >&2; PROBLEMS+=("$*"); FAILED=1; }
die() { problem "$*"; finish; }

stop_pid() {  # stop a server this script started, by its pid
  local pid=$1
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() { stop_pid "$EMU_PID"; EMU_PID=""; stop_pid "$MIN_PID"; MIN_PID=""; }
finish() {
  cleanup
  if ((FAILED)); then
    echo
    echo "bench/run.sh: FAILED (${#PROBLEMS[@]} problem(s)); logs in $LOG_DIR"
    for p in "${PROBLEMS[@]}"; do echo "  - $p"; done
    exit 1
  fi
  exit 0
}
trap 'problem "interrupted"; finish' INT TERM

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }

CORES=$(nproc)
# Share of CPU time (all cores) spent busy by anything during the next second.
cpu_busy() {
  local a b
  a=$(head -n1 /proc/stat); sleep 1; b=$(head -n1 /proc/stat)
  awk -v a="$a" -v b="$b" 'BEGIN {
    n = split(a, x); split(b, y); tot = 0
    for (i = 2; i <= n; i++) tot += y[i] - x[i]
    idle = (y[5] - x[5]) + (y[6] - x[6])
    printf "%.0f", (tot > 0) ? 100 * (tot - idle) / tot : 0 }'
}

# build [TARGET...]: configure BUILD_DIR (Release, bench on, tests off) and build the targets
# (everything when none are given), unless SKIP_BUILD=1.
build() {
  [[ $SKIP_BUILD == 1 ]] && return 0
  say "building (Release, bench on) in $BUILD_DIR"
  local gen=() targets=()
  command -v ninja >/dev/null && [[ ! -f $BUILD_DIR/CMakeCache.txt ]] && gen=(-G Ninja)
  if ! cmake -S "$ROOT" -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCOSMOS_BUILD_BENCH=ON -DCOSMOS_BUILD_TESTS=OFF >"$LOG_DIR/configure.log" 2>&1; then
    tail -n 30 "$LOG_DIR/configure.log" >&2
    die "cmake configure failed (log: $LOG_DIR/configure.log)"
  fi
  (($# > 0)) && targets=(--target "$@")
  if ! cmake --build "$BUILD_DIR" -j"$(nproc)" "${targets[@]}" >"$LOG_DIR/build.log" 2>&1; then
    grep -E 'error|Error' "$LOG_DIR/build.log" | head -n 30 >&2
    die "build failed (log: $LOG_DIR/build.log)"
  fi
}

command -v cmake >/dev/null || die "cmake is not installed"
mkdir -p "$LOG_DIR"
# Keep the build tree out of git without touching the repository's own files.
[[ -f $BUILD_DIR/.gitignore ]] || echo '*' >"$BUILD_DIR/.gitignore"

# partition_ratios FILE: from partition_bench's console output, the ratios of the median CPU times
# (16 vs 1 partitions, limiter on vs off, 64 vs 1 partitions for Locate) and their differences.
partition_ratios() {
  awk '
    function ns(v, u) { return v * (u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9) }
    / *_median / { n = $1; sub(/_median$/, "", n); sub(/\/iterations:[0-9]+/, "", n); cpu[n] = ns($4, $5) }
    function ratio(label, a, b) {
      if (!(a in cpu) || !(b in cpu) || cpu[b] <= 0) { printf "  %-52s %8s\n", label, "n/a"; return }
      printf "  %-52s %8.3f   (%s -> %s, %+.0f ns)\n", label, cpu[a] / cpu[b], fmt(cpu[b]), fmt(cpu[a]), cpu[a] - cpu[b]
    }
    function fmt(v) { return v >= 1e3 ? sprintf("%.2f us", v / 1e3) : sprintf("%.1f ns", v) }
    END {
      print ""
      print "ratios of the median CPU times:"
      split("Create Read", ops, " ")
      for (i = 1; i <= 2; i++) {
        op = ops[i]; b = "BM_E2E_" op "/partitions:"
        ratio(op " 16 vs 1 partitions, limiter off", b "16/limiter:0", b "1/limiter:0")
        ratio(op " 16 vs 1 partitions, limiter on", b "16/limiter:1", b "1/limiter:1")
        ratio(op " limiter on vs off, 1 partition", b "1/limiter:1", b "1/limiter:0")
        ratio(op " limiter on vs off, 16 partitions", b "16/limiter:1", b "16/limiter:0")
      }
      split("V1 V2 MultiHash", kinds, " ")
      for (k = 0; k < 3; k++)
        ratio("Locate " kinds[k + 1] " 64 vs 1 partitions", "BM_Locate/kind:" k "/partitions:64", "BM_Locate/kind:" k "/partitions:1")
      ratio("PartitionForEpk 64 vs 1 partitions", "BM_PartitionForEpk/partitions:64", "BM_PartitionForEpk/partitions:1")
      ratio("Limiter Admit+Consume enabled vs disabled", "BM_Limiter/enabled:1", "BM_Limiter/enabled:0")
    }' "$1"
}

# changefeed_ratios FILE: the cost of keeping the all-versions log (log on vs off).
changefeed_ratios() {
  awk '
    function ns(v, u) { return v * (u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9) }
    / *_median / { n = $1; sub(/_median$/, "", n); sub(/\/iterations:[0-9]+/, "", n); cpu[n] = ns($4, $5) }
    function ratio(label, a, b) {
      if (!(a in cpu) || !(b in cpu) || cpu[b] <= 0) { printf "  %-40s %8s\n", label, "n/a"; return }
      printf "  %-40s %8.3f   (%.0f ns -> %.0f ns)\n", label, cpu[a] / cpu[b], cpu[b], cpu[a]
    }
    END {
      print ""
      print "ratios of the median CPU times (all-versions log on vs off):"
      ratio("create 1 KB", "BM_Create/log:1", "BM_Create/log:0")
      ratio("replace 1 KB", "BM_Replace/log:1", "BM_Replace/log:0")
      ratio("expire 1,000 items", "BM_ExpireItems/log:1", "BM_ExpireItems/log:0")
    }' "$1"
}

# scripts_ratios FILE: stored procedures against direct creates, and what a UDF adds to a query.
scripts_ratios() {
  awk '
    function ns(v, u) { return v * (u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9) }
    / *_median / { n = $1; sub(/_median$/, "", n); sub(/\/iterations:[0-9]+/, "", n); cpu[n] = ns($4, $5) }
    function fmt(v) { return v >= 1e3 ? sprintf("%.2f us", v / 1e3) : sprintf("%.1f ns", v) }
    function ratio(label, a, b) {
      if (!(a in cpu) || !(b in cpu) || cpu[b] <= 0) { printf "  %-52s %8s\n", label, "n/a"; return }
      printf "  %-52s %8.3f   (%s -> %s, %+.0f ns)\n", label, cpu[a] / cpu[b], fmt(cpu[b]), fmt(cpu[a]), cpu[a] - cpu[b]
    }
    function per_call(label, a, b, calls) {
      if (!(a in cpu) || !(b in cpu)) { printf "  %-52s %8s\n", label, "n/a"; return }
      printf "  %-52s %s\n", label, fmt((cpu[a] - cpu[b]) / calls)
    }
    END {
      print ""
      print "ratios of the median CPU times:"
      ratio("stored procedure creating 1 KB vs direct create", "BM_SprocCreate", "BM_DirectCreate")
      ratio("empty stored procedure vs direct create", "BM_SprocEmpty", "BM_DirectCreate")
      ratio("stored procedure creating 1 KB vs empty one", "BM_SprocCreate", "BM_SprocEmpty")
      ratio("query with UDF vs without, 100 items", "BM_Query/udf:1/items:100", "BM_Query/udf:0/items:100")
      ratio("query with UDF vs without, 1,000 items", "BM_Query/udf:1/items:1000", "BM_Query/udf:0/items:1000")
      print ""
      print "one UDF call (difference of the query medians / items):"
      per_call("over 100 items", "BM_Query/udf:1/items:100", "BM_Query/udf:0/items:100", 100)
      per_call("over 1,000 items", "BM_Query/udf:1/items:1000", "BM_Query/udf:0/items:1000", 1000)
    }' "$1"
}

# batch_ratios FILE: the CPU time of one item by each path (an iteration writes 100), a transactional
# batch and a bulk request against direct creates, and what the unique index adds to a create.
batch_ratios() {
  awk '
    function ns(v, u) { return v * (u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9) }
    / *_median / { n = $1; sub(/_median$/, "", n); sub(/\/iterations:[0-9]+/, "", n); cpu[n] = ns($4, $5) }
    function fmt(v) { return v >= 1e3 ? sprintf("%.2f us", v / 1e3) : sprintf("%.1f ns", v) }
    function per_item(label, a) {
      if (!(a in cpu)) { printf "  %-52s %8s\n", label, "n/a"; return }
      printf "  %-52s %s\n", label, fmt(cpu[a] / 100)
    }
    function ratio(label, a, b) {
      if (!(a in cpu) || !(b in cpu) || cpu[b] <= 0) { printf "  %-52s %8s\n", label, "n/a"; return }
      printf "  %-52s %8.3f   (%s -> %s an item, %+.0f ns)\n", label, cpu[a] / cpu[b], fmt(cpu[b] / 100), fmt(cpu[a] / 100), (cpu[a] - cpu[b]) / 100
    }
    END {
      print ""
      print "CPU time of one 1 KB item (median of an iteration / 100):"
      per_item("direct create", "BM_DirectCreate/unique:0")
      per_item("in a transactional batch of 100", "BM_Batch")
      per_item("in a bulk request of 100", "BM_Bulk")
      per_item("direct create, unique key /email", "BM_DirectCreate/unique:1")
      print ""
      print "ratios of the median CPU times:"
      ratio("transactional batch vs direct creates", "BM_Batch", "BM_DirectCreate/unique:0")
      ratio("bulk request vs direct creates", "BM_Bulk", "BM_DirectCreate/unique:0")
      ratio("direct creates, unique key vs none", "BM_DirectCreate/unique:1", "BM_DirectCreate/unique:0")
    }' "$1"
}

# ---------------------------------------------------------------------------------------------
# Shared by the modes that start the emulator (the default and direct).
wait_started() {  # name, pid, log
  local name=$1 pid=$2 log=$3
  for _ in $(seq 300); do
    grep -q Started "$log" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "$name exited during startup (log: $log)"; }
    sleep 0.1
  done
  die "$name did not log 'Started' within 30 s (log: $log)"
}

# cosmos VERB TYPE LINK PATH [BODY]: signed request to the emulator; prints the status code,
# leaves the body in $LOG_DIR/last-response.json.
cosmos() {
  local verb=$1 type=$2 link=$3 path=$4 body=${5-}
  local sig
  mapfile -t sig < <("$PY" "$SIGN" "$verb" "$type" "$link" "$KEY") || true
  [[ ${#sig[@]} -ge 2 ]] || { echo 000; return; }
  local args=(-sS -o "$LOG_DIR/last-response.json" -w '%{http_code}' -X "$verb"
    -H "x-ms-date: ${sig[0]}" -H "authorization: ${sig[1]}" -H "x-ms-version: 2020-07-15"
    -H 'x-ms-documentdb-partitionkey: ["p1"]')
  [[ -n $body ]] && args+=(-H "content-type: application/json" --data-binary "$body")
  curl "${args[@]}" "http://127.0.0.1:$EMU_PORT$path" 2>>"$LOG_DIR/curl.log" || true
}
expect() {  # what, got, allowed...
  local what=$1 got=$2; shift 2
  for a in "$@"; do [[ $got == "$a" ]] && { echo "   $what: HTTP $got"; return 0; }; done
  echo "   response body: $(head -c 600 "$LOG_DIR/last-response.json" 2>/dev/null)" >&2
  die "$what: HTTP $got (expected $*)"
}

# setup_item: database bench, container c (partition key /pk) and the 1 KB item item1 in partition
# "p1", over plain HTTP with curl and sign.py; checks that the point read answers 200 with the item.
setup_item() {
  say "setup: database, container, 1 KB item"
  ITEM=$("$PY" -c '
import json
doc = {"id": "item1", "pk": "p1", "kind": "bench", "n": 42, "ok": True, "payload": ""}
doc["payload"] = "x" * (1024 - len(json.dumps(doc, separators=(",", ":"))))
print(json.dumps(doc, separators=(",", ":")))')
  expect "create database" "$(cosmos POST dbs "" /dbs '{"id":"bench"}')" 201 409
  expect "create container" "$(cosmos POST colls dbs/bench /dbs/bench/colls \
    '{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}')" 201 409
  expect "create item (${#ITEM} bytes)" "$(cosmos POST docs dbs/bench/colls/c /dbs/bench/colls/c/docs "$ITEM")" 201 409
  expect "point read $ITEM_PATH" "$(cosmos GET docs dbs/bench/colls/c/docs/item1 "$ITEM_PATH")" 200
  grep -q '"item1"' "$LOG_DIR/last-response.json" || die "point read body has no \"item1\": $(head -c 300 "$LOG_DIR/last-response.json")"
  echo "   point read body: $(wc -c <"$LOG_DIR/last-response.json") bytes"
}

# ---------------------------------------------------------------------------------------------
# Scale mode: the emulator (Release) and bench/scale.mjs (Node's own modules only).
if [[ $MODE == scale ]]; then
  command -v node >/dev/null || die "node is not installed (emulator/setup.sh installs it)"
  build cosmos-emulator
  [[ -x $EMULATOR ]] || die "no emulator binary at $EMULATOR"
  EMULATOR=$EMULATOR DATA_DIR=${DATA_DIR:-$BUILD_DIR/scale-data} OUT_DIR=$LOG_DIR \
    node "$ROOT/bench/scale.mjs" "$@" || problem "bench/scale.mjs failed (its output above)"
  finish
fi

# ---------------------------------------------------------------------------------------------
# Vector mode: the emulator (Release) and bench/vector.mjs (Node's own modules only).
if [[ $MODE == vector ]]; then
  command -v node >/dev/null || die "node is not installed (emulator/setup.sh installs it)"
  build cosmos-emulator
  [[ -x $EMULATOR ]] || die "no emulator binary at $EMULATOR"
  EMULATOR=$EMULATOR DATA_DIR=${DATA_DIR:-$BUILD_DIR/vector-data} OUT_DIR=$LOG_DIR \
    node "$ROOT/bench/vector.mjs" "$@" || problem "bench/vector.mjs failed (its output above)"
  finish
fi

# ---------------------------------------------------------------------------------------------
# Direct mode: point reads of item1 over the gateway (HTTPS keep-alive) against the same over Direct
# mode (RNTBD over TLS), both from bench/direct_load.cpp (closed loop, one request outstanding on
# each connection, as wrk), in alternating rounds against one emulator.
if [[ $MODE == direct ]]; then
  command -v curl >/dev/null || die "curl is not installed"
  build cosmos-emulator direct_load
  for b in "$EMULATOR" "$DIRECT_LOAD"; do [[ -x $b ]] || die "missing binary $b"; done
  for p in "$EMU_PORT" "$DIRECT_PORT"; do
    port_busy "$p" && die "port $p is already in use (set EMU_PORT/DIRECT_PORT)"
  done
  BUSY_START=$(cpu_busy); BUSY_START=${BUSY_START:-0}
  say "machine: $CORES cores, ${BUSY_START}% busy before the run; the emulator gets --threads $SERVER_THREADS, direct_load -t$LOAD_THREADS -c$CONN runs on the same cores"
  if ((BUSY_START > 20)); then
    echo "   WARNING: the machine is busy (${BUSY_START}% CPU used by other processes): figures will be low and noisy"
  fi
  say "starting emulator on :$EMU_PORT (gateway) and :$DIRECT_PORT (Direct mode)"
  rm -f "$LOG_DIR/emulator.pem"
  "$EMULATOR" --host 127.0.0.1 --port "$EMU_PORT" --direct-port "$DIRECT_PORT" --key "$KEY" \
    --threads "$SERVER_THREADS" --cert-export "$LOG_DIR/emulator.pem" >"$LOG_DIR/emulator-direct.log" 2>&1 &
  EMU_PID=$!
  wait_started emulator "$EMU_PID" "$LOG_DIR/emulator-direct.log"
  grep -q "Direct mode on: rntbd://" "$LOG_DIR/emulator-direct.log" ||
    die "the emulator did not print 'Direct mode on: rntbd://...' (log: $LOG_DIR/emulator-direct.log)"
  echo "   $(grep -m1 'Direct mode on' "$LOG_DIR/emulator-direct.log" | sed 's/^ *//')"
  setup_item
  # The exported certificate is verified (host 127.0.0.1); CAFILE= skips verification.
  CAFILE=${CAFILE-$LOG_DIR/emulator.pem}
  CA_ARGS=()
  [[ -n $CAFILE ]] && CA_ARGS=(--cafile "$CAFILE")

  # run_load MODE SECONDS LABEL -> sets RPS, P50, P99; records problems.
  run_load() {
    local mode=$1 secs=$2 label=$3
    RPS=nan P50=nan P99=nan
    local out="$LOG_DIR/direct_load-$label-$mode.txt"
    "$DIRECT_LOAD" --mode "$mode" --host 127.0.0.1 --port "$EMU_PORT" --connections "$CONN" \
      --threads "$LOAD_THREADS" --duration "$secs" --warmup "$LOAD_WARMUP" "${CA_ARGS[@]}" --key "$KEY" \
      --pk '["p1"]' >"$out" 2>&1
    local rc=$?
    local line
    line=$(grep '^BENCH ' "$out")
    if ((rc != 0)) || [[ -z $line ]]; then
      sed 's/^/   /' "$out" >&2
      problem "direct_load --mode $mode ($label) failed (exit $rc; $out)"
      return
    fi
    local -A f=()
    for kv in ${line#BENCH }; do f[${kv%%=*}]=${kv#*=}; done
    printf '   %-8s %-8s %10s req/s  p50 %6s us  p90 %6s us  p99 %7s us  errors %s  %s B/answer\n' \
      "$label" "$mode" "${f[rps]}" "${f[p50_us]}" "${f[p90_us]}" "${f[p99_us]}" "${f[errors]}" \
      "$(( f[requests] > 0 ? f[bytes] / f[requests] : 0 ))"
    kill -0 "$EMU_PID" 2>/dev/null || die "emulator died during $label $mode (log: $LOG_DIR/emulator-direct.log)"
    RPS=${f[rps]} P50=${f[p50_us]} P99=${f[p99_us]}
  }

  say "point reads of $ITEM_PATH: direct_load -t$LOAD_THREADS -c$CONN, ${DURATION}s (+${LOAD_WARMUP}s warm-up) x $ROUNDS rounds, gateway and Direct alternating"
  declare -a G_RPS=() G_P50=() G_P99=() D_RPS=() D_P50=() D_P99=()
  for r in $(seq "$ROUNDS"); do
    # The order alternates too, so that drift (other engineers' load) spreads over both.
    if ((r % 2)); then order=(gateway direct); else order=(direct gateway); fi
    for m in "${order[@]}"; do
      run_load "$m" "$DURATION" "round$r"
      if [[ $m == gateway ]]; then G_RPS+=("$RPS"); G_P50+=("$P50"); G_P99+=("$P99")
      else D_RPS+=("$RPS"); D_P50+=("$P50"); D_P99+=("$P99"); fi
    done
  done
  # What the first runs found in their setup (the container's rid, the address feed).
  for m in gateway direct; do
    [[ -f $LOG_DIR/direct_load-round1-$m.txt ]] && grep -E '^(container|address feed)' "$LOG_DIR/direct_load-round1-$m.txt"
  done | awk '!seen[$0]++ { print "   " $0 }'
  expect "point read after load" "$(cosmos GET docs dbs/bench/colls/c/docs/item1 "$ITEM_PATH")" 200
  cleanup
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a == a+0) printf "%.3f", a / b; else print "nan" }'; }
  {
    echo
    echo "Direct mode vs gateway, point read of a 1 KB item ($(date -u '+%Y-%m-%d %H:%M UTC'), $CORES cores,"
    echo "${BUSY_START}% CPU busy before the run; emulator --threads $SERVER_THREADS; direct_load -t$LOAD_THREADS -c$CONN -d${DURATION}s"
    echo "on the same machine, one request outstanding a connection; TLS on both)"
    echo
    printf '%-26s %12s %12s %12s %12s %12s %12s\n' "" "gw req/s" "direct req/s" "gw p50 us" "direct p50" "gw p99 us" "direct p99"
    for i in "${!G_RPS[@]}"; do
      printf '%-26s %12s %12s %12s %12s %12s %12s\n' "round $((i + 1))" "${G_RPS[$i]}" "${D_RPS[$i]:-nan}" \
        "${G_P50[$i]}" "${D_P50[$i]:-nan}" "${G_P99[$i]}" "${D_P99[$i]:-nan}"
    done
    MG_RPS=$(median "${G_RPS[@]}"); MD_RPS=$(median "${D_RPS[@]}")
    MG_P50=$(median "${G_P50[@]}"); MD_P50=$(median "${D_P50[@]}")
    MG_P99=$(median "${G_P99[@]}"); MD_P99=$(median "${D_P99[@]}")
    printf '%-26s %12s %12s %12s %12s %12s %12s\n' "median" "$MG_RPS" "$MD_RPS" "$MG_P50" "$MD_P50" "$MG_P99" "$MD_P99"
    echo
    echo "ratio direct/gateway (medians): throughput $(ratio "$MD_RPS" "$MG_RPS"), p50 latency $(ratio "$MD_P50" "$MG_P50"), p99 latency $(ratio "$MD_P99" "$MG_P99")"
    echo "(throughput above 1 and latency below 1: Direct mode is faster)"
  } | tee "$LOG_DIR/direct-results.txt"
  finish
fi

# ---------------------------------------------------------------------------------------------
# Query, partitions, changefeed, scripts and batch modes: one Google Benchmark program (query_bench,
# partition_bench, change_feed_bench, scripts_bench or batch_bench), medians of QUERY_REPS /
# PARTITION_REPS / SCRIPTS_REPS / BATCH_REPS repetitions.
if [[ $MODE == query || $MODE == partitions || $MODE == changefeed || $MODE == scripts || $MODE == batch ]]; then
  if [[ $MODE == batch ]]; then
    GB_NAME=batch_bench GB_REPS=$BATCH_REPS GB_TITLE="Batch and bulk" GB_RESULTS=batch-results.txt
    GB_NOTE="; an iteration writes 100 items; RU is the request charge of the last request"
    # Interleaved, so that drift spreads over the variants compared (batch, bulk, unique vs direct).
    GB_EXTRA=(--benchmark_enable_random_interleaving=true)
  elif [[ $MODE == scripts ]]; then
    GB_NAME=scripts_bench GB_REPS=$SCRIPTS_REPS GB_TITLE="Server-side JavaScript" GB_RESULTS=scripts-results.txt
    GB_NOTE="; RU is the request charge of each call"
    # Interleaved, so that drift spreads over the variants compared (script vs direct, UDF vs none).
    GB_EXTRA=(--benchmark_enable_random_interleaving=true)
  elif [[ $MODE == changefeed ]]; then
    GB_NAME=change_feed_bench GB_REPS=$PARTITION_REPS GB_TITLE="Change feed" GB_RESULTS=changefeed-results.txt
    GB_NOTE=""
    GB_EXTRA=(--benchmark_enable_random_interleaving=true)
  elif [[ $MODE == query ]]; then
    GB_NAME=query_bench GB_REPS=$QUERY_REPS GB_TITLE=Query GB_RESULTS=query-results.txt
    GB_NOTE="; items/s is per CPU second"
    GB_EXTRA=()
  else
    GB_NAME=partition_bench GB_REPS=$PARTITION_REPS GB_TITLE=Partition GB_RESULTS=partitions-results.txt
    GB_NOTE=""
    # Repetitions of all the benchmarks in random order, so that slow drift spreads over the
    # variants that are compared (16 vs 1 partitions, limiter on vs off) instead of biasing one.
    GB_EXTRA=(--benchmark_enable_random_interleaving=true)
  fi
  QUERY_BENCH=$BUILD_DIR/bench/$GB_NAME
  QUERY_REPS=$GB_REPS
  build "$GB_NAME"
  [[ -x $QUERY_BENCH ]] || die "missing binary $QUERY_BENCH (is libbenchmark-dev installed? see $LOG_DIR/configure.log)"
  BUSY_START=$(cpu_busy); BUSY_START=${BUSY_START:-0}
  say "machine: $CORES cores, ${BUSY_START}% busy before the run; $GB_NAME runs on one thread"
  if ((BUSY_START > 20)); then
    echo "   WARNING: the machine is busy (${BUSY_START}% CPU used by other processes): figures will be high and noisy"
  fi
  say "$GB_NAME: $QUERY_REPS repetitions of each benchmark (console: $LOG_DIR/$GB_NAME.txt, json: $LOG_DIR/$GB_NAME.json)"
  # CPU used by other processes during the run: the machine's busy time, less the benchmark's own.
  STAT_A=$(head -n1 /proc/stat)
  TIMEFORMAT='%U %S'
  { time "$QUERY_BENCH" --benchmark_repetitions="$QUERY_REPS" --benchmark_report_aggregates_only=true \
      --benchmark_out="$LOG_DIR/$GB_NAME.json" --benchmark_out_format=json "${GB_EXTRA[@]}" "$@" \
      >"$LOG_DIR/$GB_NAME.txt" 2>&1; } 2>"$LOG_DIR/$GB_NAME.cputime"
  rc=$?
  STAT_B=$(head -n1 /proc/stat)
  OTHERS=$(awk -v a="$STAT_A" -v b="$STAT_B" -v own="$(cat "$LOG_DIR/$GB_NAME.cputime")" \
    -v hz="$(getconf CLK_TCK)" 'BEGIN {
      n = split(a, x); split(b, y); split(own, o); tot = 0
      for (i = 2; i <= n; i++) tot += y[i] - x[i]
      busy = tot - (y[5] - x[5]) - (y[6] - x[6]) - (o[1] + o[2]) * hz
      printf "%.0f", (tot > 0 && busy > 0) ? 100 * busy / tot : 0 }')
  # The context (CPU, caches, load) and any error; the medians follow in the results.
  sed -n '/^-----/q; p' "$LOG_DIR/$GB_NAME.txt" | sed 's/^/   /'
  grep -E 'ERROR OCCURRED' "$LOG_DIR/$GB_NAME.txt" | sed 's/^/   /'
  ((rc == 0)) || problem "$GB_NAME failed (exit $rc)"
  grep -q 'ERROR OCCURRED' "$LOG_DIR/$GB_NAME.txt" && problem "a benchmark reported an error (see above)"
  {
    echo
    echo "$GB_TITLE results ($(date -u '+%Y-%m-%d %H:%M UTC'), $CORES cores, ${BUSY_START}% CPU busy before the run,"
    echo "other processes used ${OTHERS:-?}% of the machine's CPU during it)"
    echo "medians of $QUERY_REPS repetitions; Time is wall clock, CPU is the process's CPU time$GB_NOTE"
    echo
    grep -E '^Benchmark' "$LOG_DIR/$GB_NAME.txt"
    # Interleaved repetitions come out in random order: sort them by name.
    grep -E '_median ' "$LOG_DIR/$GB_NAME.txt" | if [[ $MODE == partitions || $MODE == scripts || $MODE == batch ]]; then sort -V; else cat; fi
    echo
    echo "coefficient of variation of the CPU time (stddev/mean of the $QUERY_REPS runs; above ~5% means a noisy run):"
    grep -E '_cv ' "$LOG_DIR/$GB_NAME.txt" | if [[ $MODE == partitions || $MODE == scripts || $MODE == batch ]]; then sort -V; else cat; fi |
      awk '{printf "  %-58s %6s %%\n", $1, $4}'
    [[ $MODE == partitions ]] && partition_ratios "$LOG_DIR/$GB_NAME.txt"
    [[ $MODE == changefeed ]] && changefeed_ratios "$LOG_DIR/$GB_NAME.txt"
    [[ $MODE == scripts ]] && scripts_ratios "$LOG_DIR/$GB_NAME.txt"
    [[ $MODE == batch ]] && batch_ratios "$LOG_DIR/$GB_NAME.txt"
    if ((${OTHERS:-0} > 10)); then
      echo
      echo "WARNING: other processes used ${OTHERS}% of the CPU during the run: the figures are likely high and noisy; run again on a quiet machine"
    fi
  } | tee "$LOG_DIR/$GB_RESULTS"
  finish
fi

# ---------------------------------------------------------------------------------------------
# 0. tools
if ! command -v wrk >/dev/null; then
  say "installing wrk"
  if [[ $(id -u) == 0 ]]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk) >/dev/null ||
      die "could not install wrk (apt-get install wrk)"
  else
    die "wrk is not installed (apt-get install wrk)"
  fi
fi
command -v curl >/dev/null || die "curl is not installed"

# ---------------------------------------------------------------------------------------------
# 1. build
build
for b in "$EMULATOR" "$MINIMAL" "$PROBE"; do [[ -x $b ]] || die "missing binary $b"; done
for p in "$EMU_PORT" "$MIN_PORT" "$PROBE_PORT"; do
  port_busy "$p" && die "port $p is already in use (set EMU_PORT/MIN_PORT/PROBE_PORT)"
done

BUSY_START=$(cpu_busy); BUSY_START=${BUSY_START:-0}
say "machine: $CORES cores, ${BUSY_START}% busy before the run; servers get $SERVER_THREADS threads, wrk -t$WRK_THREADS -c$WRK_CONN runs on the same cores"
if ((BUSY_START > 20)); then
  echo "   WARNING: the machine is busy (${BUSY_START}% CPU used by other processes): figures will be low and noisy"
fi

# ---------------------------------------------------------------------------------------------
# 2. startup: fork/exec to first 200 on a signed GET /
say "startup: $STARTUP_RUNS runs each"
startup_median() {  # name, command... -> sets STARTUP_MEDIAN
  local name=$1; shift
  STARTUP_MEDIAN=nan
  local out="$LOG_DIR/startup-$name.txt"
  "$PROBE" --port "$PROBE_PORT" --runs "$STARTUP_RUNS" --child-log "$LOG_DIR/startup-$name-child.log" \
    -- "$@" >"$out" 2>&1
  local rc=$?
  sed 's/^/   /' "$out"
  ((rc == 0)) || problem "startup_probe against $name failed (exit $rc; child log $LOG_DIR/startup-$name-child.log)"
  STARTUP_MEDIAN=$(awk '/^median_ms/ {print $2}' "$out")
  STARTUP_MEDIAN=${STARTUP_MEDIAN:-nan}
}
startup_median emulator "$EMULATOR" --host 127.0.0.1 --port "$PROBE_PORT" --key "$KEY" --threads "$SERVER_THREADS"
STARTUP_EMU=$STARTUP_MEDIAN
startup_median minimal "$MINIMAL" --host 127.0.0.1 --port "$PROBE_PORT" --threads "$SERVER_THREADS"
STARTUP_MIN=$STARTUP_MEDIAN

# ---------------------------------------------------------------------------------------------
# 3. throughput servers
say "starting emulator on :$EMU_PORT and minimal_server on :$MIN_PORT"
"$EMULATOR" --host 127.0.0.1 --port "$EMU_PORT" --key "$KEY" --threads "$SERVER_THREADS" \
  >"$LOG_DIR/emulator.log" 2>&1 &
EMU_PID=$!
"$MINIMAL" --host 127.0.0.1 --port "$MIN_PORT" --threads "$SERVER_THREADS" >"$LOG_DIR/minimal.log" 2>&1 &
MIN_PID=$!
wait_started emulator "$EMU_PID" "$LOG_DIR/emulator.log"
wait_started minimal_server "$MIN_PID" "$LOG_DIR/minimal.log"

setup_item
MIN_BODY=$(curl -sS "http://127.0.0.1:$MIN_PORT$ITEM_PATH" | wc -c)
echo "   minimal_server body: $MIN_BODY bytes"

# ---------------------------------------------------------------------------------------------
# 4. throughput: wrk, alternating emulator / minimal_server
# run_wrk NAME PORT SECONDS LABEL [SCHEME [EXTRA_HEADER]] -> sets RPS; records problems
# The emulator serves HTTPS and HTTP on one port; wrk does not check the certificate.
# With CREATE=1 in the environment: creates of 1 KB items (POST .../docs) instead of point reads.
run_wrk() {
  local name=$1 port=$2 secs=$3 label=$4 scheme=${5:-http} extra=${6:-}
  RPS=nan
  local sig
  local path=$ITEM_PATH
  if [[ ${CREATE:-0} == 1 ]]; then
    mapfile -t sig < <("$PY" "$SIGN" POST docs dbs/bench/colls/c "$KEY")
    path=/dbs/bench/colls/c/docs
  else
    mapfile -t sig < <("$PY" "$SIGN" GET docs dbs/bench/colls/c/docs/item1 "$KEY")
  fi
  local out="$LOG_DIR/wrk-$label-$name${CREATE:+-create}.txt"
  local headers=(-H "x-ms-date: ${sig[0]}" -H "authorization: ${sig[1]}" -H "x-ms-version: 2020-07-15"
    -H 'x-ms-documentdb-partitionkey: ["p1"]' -H "accept: application/json")
  [[ -n $extra ]] && headers+=(-H "$extra")
  WRK_CREATE=${CREATE:-0} WRK_RUN="$label$name$RANDOM" wrk -t"$WRK_THREADS" -c"$WRK_CONN" -d"${secs}s" -s "$LUA" "${headers[@]}" \
    "$scheme://127.0.0.1:$port$path" >"$out" 2>&1
  local rc=$?
  local line
  line=$(grep '^BENCH ' "$out")
  if ((rc != 0)) || [[ -z $line ]]; then
    cat "$out" >&2
    problem "wrk against $name ($label) failed (exit $rc)"
    return
  fi
  local -A f=()
  for kv in ${line#BENCH }; do f[${kv%%=*}]=${kv#*=}; done
  local errs=$((f[errors_connect] + f[errors_read] + f[errors_write] + f[errors_timeout]))
  printf '   %-8s %-16s %10s req/s  p50 %6s us  p99 %7s us  non2xx %s  socket errors %s  %s B/resp\n' \
    "$label" "$name" "${f[rps]}" "${f[p50_us]}" "${f[p99_us]}" "${f[non2xx]}" "$errs" \
    "$(( f[requests] > 0 ? f[bytes] / f[requests] : 0 ))"
  ((f[non2xx] == 0)) || problem "$name ($label): ${f[non2xx]} non-2xx responses (last: ${f[last_non2xx]})"
  ((errs == 0)) || problem "$name ($label): socket errors connect=${f[errors_connect]} read=${f[errors_read]} write=${f[errors_write]} timeout=${f[errors_timeout]}"
  ((f[requests] > 0)) || problem "$name ($label): no requests completed"
  kill -0 "$EMU_PID" 2>/dev/null || die "emulator died during $label (log: $LOG_DIR/emulator.log)"
  kill -0 "$MIN_PID" 2>/dev/null || die "minimal_server died during $label"
  RPS=${f[rps]}
}

say "throughput: wrk -t$WRK_THREADS -c$WRK_CONN, ${DURATION}s x $ROUNDS rounds, GET $ITEM_PATH"
if ((WARMUP > 0)); then
  run_wrk emulator "$EMU_PORT" "$WARMUP" warmup
  run_wrk emulator-https "$EMU_PORT" "$WARMUP" warmup https
  run_wrk minimal_server "$MIN_PORT" "$WARMUP" warmup
fi
# Each round: the emulator over HTTP, the same emulator and port over HTTPS (keep-alive: the
# handshake once per connection), minimal_server; then both schemes with a new connection for
# every request (Connection: close: a TCP connect, and a full TLS handshake, per request).
declare -a RPS_EMU=() RPS_TLS=() RPS_MIN=() RPS_EMU_CLOSE=() RPS_TLS_CLOSE=()
for r in $(seq "$ROUNDS"); do
  run_wrk emulator "$EMU_PORT" "$DURATION" "round$r"
  RPS_EMU+=("$RPS")
  run_wrk emulator-https "$EMU_PORT" "$DURATION" "round$r" https
  RPS_TLS+=("$RPS")
  run_wrk minimal_server "$MIN_PORT" "$DURATION" "round$r"
  RPS_MIN+=("$RPS")
  run_wrk emulator-close "$EMU_PORT" "$DURATION" "round$r" http "Connection: close"
  RPS_EMU_CLOSE+=("$RPS")
  run_wrk emulator-https-close "$EMU_PORT" "$DURATION" "round$r" https "Connection: close"
  RPS_TLS_CLOSE+=("$RPS")
done
# Creates of 1 KB items, emulator over HTTP against minimal_server answering the same POST.
declare -a CPS_EMU=() CPS_MIN=()
say "throughput: wrk -t$WRK_THREADS -c$WRK_CONN, ${DURATION}s x $ROUNDS rounds, POST /dbs/bench/colls/c/docs (a new 1 KB item each)"
for r in $(seq "$ROUNDS"); do
  CREATE=1 run_wrk emulator "$EMU_PORT" "$DURATION" "round$r"
  CPS_EMU+=("$RPS")
  CREATE=1 run_wrk minimal_server "$MIN_PORT" "$DURATION" "round$r"
  CPS_MIN+=("$RPS")
done
# A last point read after the load, to be sure the emulator still answers correctly.
expect "point read after load" "$(cosmos GET docs dbs/bench/colls/c/docs/item1 "$ITEM_PATH")" 200
cleanup

MED_EMU=$(median "${RPS_EMU[@]}")
MED_TLS=$(median "${RPS_TLS[@]}")
MED_MIN=$(median "${RPS_MIN[@]}")
MED_EMU_CLOSE=$(median "${RPS_EMU_CLOSE[@]}")
MED_TLS_CLOSE=$(median "${RPS_TLS_CLOSE[@]}")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a == a+0) printf "%.3f", a / b; else print "nan" }'; }
RATIO=$(ratio "$MED_EMU" "$MED_MIN")
MED_CEMU=$(median "${CPS_EMU[@]}")
MED_CMIN=$(median "${CPS_MIN[@]}")

# ---------------------------------------------------------------------------------------------
# 5. results
{
  echo
  echo "Results ($(date -u '+%Y-%m-%d %H:%M UTC'), $CORES cores, ${BUSY_START}% CPU busy before the run,"
  echo "server threads $SERVER_THREADS, wrk -t$WRK_THREADS -c$WRK_CONN -d${DURATION}s on the same machine)"
  echo
  printf '%-34s %14s %16s %16s\n' "" "emulator http" "emulator https" "minimal_server"
  printf '%-34s %14s %16s %16s\n' "startup, median ms ($STARTUP_RUNS runs)" "${STARTUP_EMU:-nan}" "" "${STARTUP_MIN:-nan}"
  for i in "${!RPS_EMU[@]}"; do
    printf '%-34s %14s %16s %16s\n' "point read req/s, round $((i + 1))" "${RPS_EMU[$i]}" "${RPS_TLS[$i]}" "${RPS_MIN[$i]}"
  done
  printf '%-34s %14s %16s %16s\n' "point read req/s, median" "$MED_EMU" "$MED_TLS" "$MED_MIN"
  for i in "${!RPS_EMU_CLOSE[@]}"; do
    printf '%-34s %14s %16s\n' "new connection each, round $((i + 1))" "${RPS_EMU_CLOSE[$i]}" "${RPS_TLS_CLOSE[$i]}"
  done
  printf '%-34s %14s %16s\n' "new connection each, median" "$MED_EMU_CLOSE" "$MED_TLS_CLOSE"
  for i in "${!CPS_EMU[@]}"; do
    printf '%-34s %14s %16s %16s\n' "create 1 KB req/s, round $((i + 1))" "${CPS_EMU[$i]}" "" "${CPS_MIN[$i]}"
  done
  printf '%-34s %14s %16s %16s\n' "create 1 KB req/s, median" "$MED_CEMU" "" "$MED_CMIN"
  echo
  echo "throughput ratio emulator/minimal_server (medians, http): $RATIO"
  echo "throughput ratio emulator/minimal_server, creates (medians, http): $(ratio "$MED_CEMU" "$MED_CMIN")"
  echo "throughput ratio https/http, keep-alive (medians): $(ratio "$MED_TLS" "$MED_EMU")"
  echo "throughput ratio https/http, new connection per request (medians): $(ratio "$MED_TLS_CLOSE" "$MED_EMU_CLOSE")"
} | tee "$LOG_DIR/results.txt"
finish
