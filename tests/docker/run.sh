#!/usr/bin/env bash
# Builds the cosmos-emulator container image, then checks, against running containers of it, the
# contract of Microsoft's emulator images that Testcontainers (Java, .NET, Go, Python, Node), Aspire
# and the SDKs rely on, and measures the image and its start-up:
#
#   1. the log line each harness waits for (read raw: Java's pattern needs the CRLF)
#   2. the certificate download (/_explorer/emulator.pem) and the copy at the classic image's path
#   3. HTTPS trusting only that certificate (127.0.0.1 and localhost), plain HTTP on the same port
#   4. /ready, /alive, /status on the gateway port (https, http) and the health port; the emulator's
#      page; the image's HEALTHCHECK run inside the container, also when --port chose the port
#   5. the JavaScript SDK over HTTPS trusting only the downloaded certificate (smoke.mjs)
#   6. settings through the image: data persistence where the official images keep it (a volume
#      on /tmp/cosmos/appdata or /data, kept across a re-created container with its certificate), the Node module's
#      PORT/PROTOCOL=http, the Go module's `--enable-explorer false`
#   7. the image size and start-to-ready times (median of COSMOS_MEASURE_STARTS starts)
#
#   tests/docker/run.sh
#
# Prints one line per check ("PASS  ...", "FAIL  ...", "SKIP  ..." when a check cannot run in this
# run mode), then a summary with every check line and the measurements, and exits non-zero on any
# FAIL.
#
# Engine: docker when `docker info` answers (a running engine), else podman/buildah (no engine
# needed; installed with apt-get when missing, as are curl and node). When the base image
# debian:bookworm-slim is neither local nor pullable, it is made offline with debootstrap.
# Every container shares the host's network (podman/buildah) or publishes its ports on the same
# numbers (docker), so the script moves the gateway, health and explorer ports to free ones.
#
# Environment:
#   COSMOS_IMAGE          image tag to build                (default cosmos-emulator:test)
#   COSMOS_TEST_PORT      gateway port of the main run      (default: a free port)
#   COSMOS_SKIP_BUILD=1   reuse an already built COSMOS_IMAGE
#   COSMOS_ENGINE         force docker or podman
#   COSMOS_RUN_MODE       podman only: podman | runc | buildah (default: podman run, then podman run
#                         with runc, then buildah run --isolation chroot)
#   COSMOS_MEASURE_STARTS starts timed for the start-to-ready median (default 5)
#   DEBIAN_MIRROR         mirror for debootstrap            (default http://deb.debian.org/debian)
#   COSMOS_HEALTH_TIMEOUT seconds to wait for /ready        (default 60)
set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
IMAGE="${COSMOS_IMAGE:-cosmos-emulator:test}"
BASE_IMAGE="debian:bookworm-slim"
BASE_IMAGE_FQ="docker.io/library/debian:bookworm-slim"
HEALTH_TIMEOUT="${COSMOS_HEALTH_TIMEOUT:-60}"
MEASURE_STARTS="${COSMOS_MEASURE_STARTS:-5}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
EMULATOR_BIN=/usr/local/bin/cosmos-emulator
# Where the classic image keeps the certificate (the Python module copies it from there).
CLASSIC_PEM=/tmp/cosmos/appdata/.system/profiles/Client/AppData/Local/CosmosDBEmulator/emulator.pem
NAME_PREFIX="cosmos-emulator-test-$$"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cosmos-docker-test.XXXXXX")"
RESULTS="$WORK/results"   # every check line, in order
MEASURES="$WORK/measures" # the measurement lines of the summary
: >"$RESULTS"
: >"$MEASURES"

STAGE="setup"
ENGINE=""
RUN_MODE=""          # docker | podman | buildah, chosen at the first start
PODMAN_OPTS=()       # extra `podman run` options of the run mode (runc and its rlimits)
VOLUMES=()           # -v HOST:CONTAINER options of the next starts (every run mode takes them)
BUILD_SECONDS="-"
STARTED_AT=$SECONDS

# The one container running at a time.
CUR_LABEL=""         # the run's name, also the prefix of its check lines and log files
CUR_NAME=""          # container name (docker/podman) or working container (buildah)
CUR_PID=""           # buildah: the `buildah run` process (its own process group)
CUR_ENV=()           # KEY=VALUE settings the emulator was started with
CUR_ISSUED_US=0      # when the run command was issued (µs since the epoch)
CUR_READY_MS=""      # from then to the first 200 on /ready
CUR_STARTED_MS=""    # buildah: from then to the Started line in the log (seen while polling)
CUR_STOP_SECONDS=""  # time `stop` took
CUR_EXIT_CODE=""     # the emulator's exit code after the stop
RUN_FAILS_BEFORE=0   # FAIL lines before the current run started

say() { printf '[docker-test] %s\n' "$*" >&2; }
now_us() { local t=${EPOCHREALTIME/[.,]/}; printf '%s' "$t"; }

# ---------------------------------------------------------------------------
# Check lines

record() { printf '%s\n' "$1" >>"$RESULTS"; printf '%s\n' "$1"; }
pass() { record "PASS  $1"; }
skip() { record "SKIP  $1: $2"; }
fail() { record "FAIL  $1: $2"; }
measure() { printf '%s\n' "$1" >>"$MEASURES"; say "$1"; }

# check "what is checked" command [args...]: PASS when the command exits 0 (its first output line,
# if any, is appended in parentheses), else FAIL with its first output line; the whole output of a
# failing command goes to stderr.
check() {
  local what=$1 out rc=0
  shift
  out="$("$@" 2>&1)" || rc=$?
  if ((rc == 0)); then
    if [[ -n $out ]]; then pass "$what (${out%%$'\n'*})"; else pass "$what"; fi
  else
    if [[ -n $out ]]; then fail "$what" "${out%%$'\n'*}"; else fail "$what" "exit code $rc"; fi
    [[ $out == *$'\n'* ]] && printf '%s\n' "$out" | sed 's/^/      /' >&2
  fi
  return 0
}

count() { grep -c "^$1  " "$RESULTS" || true; }

summary() {
  local rc=$1 elapsed=$((SECONDS - STARTED_AT))
  local passes fails skips
  passes=$(count PASS) fails=$(count FAIL) skips=$(count SKIP)
  echo
  echo "==================== docker contract summary ===================="
  cat "$RESULTS"
  if [[ -s $MEASURES ]]; then
    echo "------------------------------ measured ------------------------------"
    cat "$MEASURES"
  fi
  echo "-----------------------------------------------------------------------"
  local run="$RUN_MODE${PODMAN_OPTS[*]:+ (${PODMAN_OPTS[*]})}" build="${BUILD_SECONDS}s"
  [[ $BUILD_SECONDS == - ]] && build=reused
  if [[ $rc -eq 0 ]]; then
    echo "docker contract: PASS $passes checks, $skips skipped (engine=$ENGINE run=$run image=$IMAGE build=$build total=${elapsed}s)"
  else
    local where=""
    [[ $STAGE == "done" ]] || where=" (stopped at stage '$STAGE')"
    echo "docker contract: FAIL $fails failed, $passes passed, $skips skipped$where (engine=${ENGINE:-none} run=${run:-none} exit=$rc total=${elapsed}s)"
  fi
}

# ---------------------------------------------------------------------------
# Containers

container_running() {
  case "$RUN_MODE" in
    docker|podman) [[ "$("$ENGINE" inspect -f '{{.State.Running}}' "$CUR_NAME" 2>/dev/null)" == true ]] ;;
    buildah) [[ -n $CUR_PID ]] && kill -0 "$CUR_PID" 2>/dev/null ;;
    *) return 1 ;;
  esac
}

# The current container's output so far, raw (CR kept), in $WORK/<label>.out and .err.
fetch_logs() {
  case "$RUN_MODE" in
    docker|podman) "$ENGINE" logs "$CUR_NAME" >"$WORK/$CUR_LABEL.out" 2>"$WORK/$CUR_LABEL.err" || true ;;
    buildah) ;;  # `buildah run` writes them there itself
  esac
}

dump_logs() {
  [[ -n $CUR_LABEL ]] || return 0
  fetch_logs
  local f
  for f in "$WORK/$CUR_LABEL.out" "$WORK/$CUR_LABEL.err"; do
    if [[ -s $f ]]; then
      say "---- $(basename "$f") (last 40 lines) ----"
      tail -n 40 "$f" >&2 || true
    fi
  done
}

# Runs a command inside the current container (as the image's user, with the run's settings).
in_container() {
  case "$RUN_MODE" in
    docker|podman) "$ENGINE" exec "$CUR_NAME" "$@" ;;
    buildah)
      local envs=() kv
      for kv in "${CUR_ENV[@]}"; do envs+=(--env "$kv"); done
      buildah run --isolation chroot --network host --user cosmos "${envs[@]}" "$CUR_NAME" -- "$@"
      ;;
  esac
}

# Copies a file out of the current container; says how.
copy_out() {
  local path=$1 dest=$2
  case "$RUN_MODE" in
    docker|podman)
      if "$ENGINE" cp "$CUR_NAME:$path" "$dest" 2>/dev/null; then
        echo "$ENGINE cp"
      else
        in_container cat "$path" >"$dest" && echo "$ENGINE exec cat"
      fi
      ;;
    buildah) in_container cat "$path" >"$dest" && echo "buildah run cat" ;;
  esac
}

# launch LABEL "PORTS" "KEY=VALUE ..." [emulator args...]: starts a container in the background
# (PORTS are published on the same numbers when the engine is docker). Returns non-zero when the
# run command itself fails.
launch() {
  local label=$1 ports=$2 envs=() publish=() kv p
  read -r -a CUR_ENV <<<"$3"
  shift 3
  CUR_LABEL=$label
  CUR_NAME="$NAME_PREFIX-$label"
  CUR_PID=""
  CUR_STARTED_MS=""
  : >"$WORK/$label.out"
  : >"$WORK/$label.err"
  for kv in "${CUR_ENV[@]}"; do envs+=(-e "$kv"); done
  for p in $ports; do publish+=(-p "127.0.0.1:$p:$p"); done
  CUR_ISSUED_US=$(now_us)
  case "$RUN_MODE" in
    docker)
      docker run -d --name "$CUR_NAME" "${publish[@]}" "${VOLUMES[@]}" "${envs[@]}" "$IMAGE" "$@" >/dev/null 2>"$WORK/run.err"
      ;;
    podman)
      podman run -d --name "$CUR_NAME" --network host "${PODMAN_OPTS[@]}" "${VOLUMES[@]}" "${envs[@]}" "$IMAGE" "$@" \
        >/dev/null 2>"$WORK/run.err"
      ;;
    buildah)
      buildah from --pull-never --name "$CUR_NAME" "$IMAGE" >/dev/null 2>"$WORK/run.err" || return 1
      envs=()
      for kv in "${CUR_ENV[@]}"; do envs+=(--env "$kv"); done
      # The image's env and user apply; `buildah run` has no entrypoint, so the binary is named.
      # setsid: its own process group, so a stop signals buildah and the emulator together.
      setsid buildah run --isolation chroot --network host --user cosmos "${VOLUMES[@]}" "${envs[@]}" "$CUR_NAME" \
        -- "$EMULATOR_BIN" "$@" >"$WORK/$label.out" 2>"$WORK/$label.err" </dev/null &
      CUR_PID=$!
      ;;
  esac
}

# Polls GET http://127.0.0.1:PORT/ready with curl every 20 ms until it answers 200; sets
# CUR_READY_MS (from the run command to that answer). Fails when the emulator exits first.
wait_ready() {
  local port=$1 code now i=0
  local deadline=$((CUR_ISSUED_US + HEALTH_TIMEOUT * 1000000))
  while :; do
    code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/ready" 2>/dev/null)" || true
    now=$(now_us)
    # buildah writes the log to a file: note when the Started line shows up.
    if [[ $RUN_MODE == buildah && -z $CUR_STARTED_MS ]] && grep -q Started "$WORK/$CUR_LABEL.out" 2>/dev/null; then
      CUR_STARTED_MS=$(((now - CUR_ISSUED_US) / 1000))
    fi
    if [[ $code == 200 ]]; then
      CUR_READY_MS=$(((now - CUR_ISSUED_US) / 1000))
      return 0
    fi
    if ((now > deadline)); then
      echo "no 200 on /ready after ${HEALTH_TIMEOUT}s"
      return 1
    fi
    if ((++i % 25 == 0)) && ! container_running; then
      echo "the container exited before /ready answered"
      return 1
    fi
    sleep 0.02
  done
}

# Waits (up to 10 s) until the log holds the Started line: the log is read by the engine
# asynchronously, and the start-up lines are checked whole.
wait_started_line() {
  local i
  for i in $(seq 1 100); do
    fetch_logs
    grep -q 'Started' "$WORK/$CUR_LABEL.out" && return 0
    sleep 0.1
  done
  return 1
}

# Stops the current container with SIGTERM (10 s, then SIGKILL); sets CUR_STOP_SECONDS and
# CUR_EXIT_CODE.
stop_current() {
  [[ -n $CUR_NAME ]] || return 0
  local t0=$SECONDS
  CUR_EXIT_CODE=""
  case "$RUN_MODE" in
    docker|podman)
      "$ENGINE" stop -t 10 "$CUR_NAME" >/dev/null 2>&1 || true
      CUR_EXIT_CODE="$("$ENGINE" inspect -f '{{.State.ExitCode}}' "$CUR_NAME" 2>/dev/null)" || true
      fetch_logs
      "$ENGINE" rm -f "$CUR_NAME" >/dev/null 2>&1 || true
      ;;
    buildah)
      if [[ -n $CUR_PID ]] && kill -0 "$CUR_PID" 2>/dev/null; then
        # SIGTERM to the emulator (found in the session setsid gave `buildah run`), as a container
        # stop sends it to PID 1; `buildah run` then exits with the emulator's exit code. When it
        # cannot be found, the whole process group gets it.
        local emulator_pid
        emulator_pid="$(ps -s "$CUR_PID" -o pid=,comm= 2>/dev/null | awk '$2 == "cosmos-emulator" { print $1; exit }')"
        if [[ -n $emulator_pid ]]; then
          kill -TERM "$emulator_pid" 2>/dev/null || true
        else
          kill -TERM -- "-$CUR_PID" 2>/dev/null || true
        fi
        local _
        for _ in $(seq 1 100); do
          kill -0 "$CUR_PID" 2>/dev/null || break
          sleep 0.1
        done
        if kill -0 "$CUR_PID" 2>/dev/null; then
          say "emulator ignored SIGTERM for 10s; sending SIGKILL"
          kill -KILL -- "-$CUR_PID" 2>/dev/null || true
        fi
      fi
      if [[ -n $CUR_PID ]]; then
        CUR_EXIT_CODE=0
        wait "$CUR_PID" 2>/dev/null || CUR_EXIT_CODE=$?
      fi
      buildah rm "$CUR_NAME" >/dev/null 2>&1 || true
      ;;
  esac
  CUR_STOP_SECONDS=$((SECONDS - t0))
  CUR_NAME=""
  CUR_PID=""
}

# Sandboxes without CAP_SYS_RESOURCE and with hybrid cgroups (v1 + v2) refuse podman's default
# runtime (crun: "cgroups in hybrid mode not supported") and its default rlimits ("setrlimit
# RLIMIT_NOFILE: Operation not permitted"); runc with rlimits no higher than this shell's works.
use_runc() {
  command -v runc >/dev/null 2>&1 || need_apt_install runc:runc || return 1
  local nofile
  nofile="$(ulimit -Hn)"
  [[ $nofile == unlimited || $nofile -gt 65536 ]] && nofile=65536
  PODMAN_OPTS=(--runtime runc --ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)
}

# start LABEL GATEWAY_PORT "PORTS" "KEY=VALUE ..." [emulator args...]: launches the container and
# waits for /ready on the gateway port. The first start picks the run mode: podman run, then
# podman run with runc, then buildah run (each only when the previous one could not start a
# container at all). Records the check "LABEL: starts, /ready 200".
start() {
  local label=$1 port=$2
  shift 2
  local candidates=() mode
  RUN_FAILS_BEFORE=$(count FAIL)
  if [[ -n $RUN_MODE ]]; then
    candidates=("$RUN_MODE")
  elif [[ $ENGINE == docker ]]; then
    candidates=(docker)
  else
    case "${COSMOS_RUN_MODE:-auto}" in
      podman) candidates=(podman runc) ;;
      runc) candidates=(runc) ;;
      buildah) candidates=(buildah) ;;
      *) candidates=(podman runc buildah) ;;
    esac
  fi
  for mode in "${candidates[@]}"; do
    if [[ -z $RUN_MODE ]]; then
      case "$mode" in
        runc) use_runc || continue; RUN_MODE=podman ;;
        *) RUN_MODE=$mode ;;
      esac
      say "trying run mode: $mode"
    fi
    if launch "$label" "$@"; then
      if wait_ready "$port" >"$WORK/wait.out"; then
        pass "$label: container starts, GET /ready on $port answers 200 ($CUR_READY_MS ms after the run command)"
        return 0
      fi
      # Started but never ready: an emulator problem, not a runtime one; no fallback.
      fail "$label: container starts, GET /ready on $port answers 200" "$(cat "$WORK/wait.out")"
      return 1
    fi
    say "$mode could not start a container here: $(tr '\n' ' ' <"$WORK/run.err")"
    case "$RUN_MODE" in
      docker|podman) "$ENGINE" rm -f "$CUR_NAME" >/dev/null 2>&1 || true ;;
      buildah) buildah rm "$CUR_NAME" >/dev/null 2>&1 || true ;;
    esac
    CUR_NAME=""
    if [[ ${#candidates[@]} -gt 1 ]]; then RUN_MODE=""; PODMAN_OPTS=(); fi
  done
  fail "$label: container starts" "no run mode could start a container (last: $(tr '\n' ' ' <"$WORK/run.err"))"
  return 1
}

# run_to_exit LABEL "KEY=VALUE ..." [emulator args...]: runs a container until it stops by itself;
# its stdout, stderr (the container's own, read from its log: not the engine's messages) and exit
# code land in $WORK/LABEL.out, .err and .rc.
run_to_exit() {
  local label=$1 envs=() kv rc=0 name="$NAME_PREFIX-$1"
  local settings=()
  read -r -a settings <<<"$2"
  shift 2
  case "$RUN_MODE" in
    docker|podman)
      for kv in "${settings[@]}"; do envs+=(-e "$kv"); done
      local opts=(--network host "${PODMAN_OPTS[@]}")
      [[ $RUN_MODE == docker ]] && opts=()
      "$ENGINE" run -d --name "$name" "${opts[@]}" "${envs[@]}" "$IMAGE" "$@" >/dev/null 2>"$WORK/run.err" || rc=$?
      if ((rc == 0)); then
        rc="$(timeout 60 "$ENGINE" wait "$name" 2>/dev/null | tail -n 1)" || rc="did not stop"
        "$ENGINE" logs "$name" >"$WORK/$label.out" 2>"$WORK/$label.err" || true
      else
        rc="run failed: $(tr '\n' ' ' <"$WORK/run.err")"
      fi
      "$ENGINE" rm -f "$name" >/dev/null 2>&1 || true
      ;;
    buildah)
      for kv in "${settings[@]}"; do envs+=(--env "$kv"); done
      buildah from --pull-never --name "$name" "$IMAGE" >/dev/null
      timeout 60 buildah run --isolation chroot --network host --user cosmos "${envs[@]}" "$name" \
        -- "$EMULATOR_BIN" "$@" >"$WORK/$label.out" 2>"$WORK/$label.err.raw" </dev/null || rc=$?
      buildah rm "$name" >/dev/null 2>&1 || true
      # buildah adds its own lines to the process's stderr when it exits non-zero; drop them.
      grep -v -E '^(subprocess exited with status [0-9]+|Error: exit status [0-9]+)$' \
        "$WORK/$label.err.raw" >"$WORK/$label.err" || true
      ;;
  esac
  echo "$rc" >"$WORK/$label.rc"
}

# ---------------------------------------------------------------------------
# Predicates for check (silent on success unless they have something to show)

# http_expect STATUS CONTENT_TYPE BODY_FILE URL [curl options...]: one GET; the status must be
# STATUS and the Content-Type start with CONTENT_TYPE (when not empty).
http_expect() {
  local want=$1 ctype=$2 body=$3 url=$4 got status type
  shift 4
  got="$(curl -sS -o "$body" -w '%{http_code} %{content_type}' --max-time 5 "$@" "$url" 2>&1)" || {
    echo "$url: curl failed: $got"
    return 1
  }
  status=${got%% *}
  type=${got#* }
  [[ $status == "$want" ]] || { echo "$url: HTTP $status, expected $want; body: $(head -c 300 "$body")"; return 1; }
  [[ -z $ctype || $type == "$ctype"* ]] || { echo "$url: Content-Type '$type', expected '$ctype'"; return 1; }
}

# probe_ok URL EXPLORER PROTOCOL [curl options...]: 200, application/json, the vNext document.
probe_ok() {
  local url=$1 explorer=$2 protocol=$3 body="$WORK/probe.json"
  shift 3
  http_expect 200 application/json "$body" "$url" "$@" || return 1
  node "$HERE/contract.mjs" probe-json "$body" "$explorer" "$protocol"
}

# curl_refused CURL_EXITS URL [curl options...]: curl must fail with one of these exit codes
# (a|b|...).
curl_refused() {
  local want=$1 url=$2 rc=0 out
  shift 2
  out="$(curl -sS -o /dev/null --max-time 5 "$@" "$url" 2>&1)" || rc=$?
  [[ $rc =~ ^($want)$ ]] || { echo "$url: curl exit $rc, expected $want ($out)"; return 1; }
  echo "curl: ${out#curl: }"
}

log_pattern() { node "$HERE/contract.mjs" log-pattern "$1" "$WORK/$CUR_LABEL.out"; }
startup_lines() { node "$HERE/contract.mjs" startup-lines "$WORK/$CUR_LABEL.out" "$@"; }

# The image's HEALTHCHECK command, run inside the current container, must exit 0.
healthcheck_ok() {
  local out rc=0
  case "$RUN_MODE" in
    podman) out="$(podman healthcheck run "$CUR_NAME" 2>&1)" || rc=$? ;;
    *) out="$(in_container "${HEALTHCHECK_CMD[@]}" 2>&1)" || rc=$? ;;
  esac
  ((rc == 0)) || { echo "exit code $rc: $out"; return 1; }
  echo "exit 0${out:+, $out}"
}

# one_line FILE PREFIX: the file is exactly one line, starting with PREFIX; shows the line.
one_line() {
  local lines
  lines=$(wc -l <"$1")
  [[ $lines == 1 ]] || { echo "$lines lines: $(head -c 300 "$1")"; return 1; }
  [[ $(head -n 1 "$1") == "$2"* ]] || { echo "does not start with '$2': $(head -n 1 "$1")"; return 1; }
  head -n 1 "$1"
}

# No listener on 127.0.0.1:PORT.
port_closed() {
  local rc=0
  curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$1/" || rc=$?
  [[ $rc == 7 ]] || { echo "127.0.0.1:$1 answers (curl exit $rc)"; return 1; }
}

# Ends the current run: its log when one of its checks failed, then the stop, checked.
finish_run() {
  if (($(count FAIL) > RUN_FAILS_BEFORE)); then dump_logs; fi
  stop_current
  check "$CUR_LABEL: stops on SIGTERM" stopped_cleanly
}

stopped_cleanly() {
  [[ $CUR_EXIT_CODE == 0 ]] || { echo "exit code ${CUR_EXIT_CODE:-unknown} after ${CUR_STOP_SECONDS}s"; return 1; }
  ((CUR_STOP_SECONDS < 9)) || { echo "took ${CUR_STOP_SECONDS}s: SIGTERM ignored, killed"; return 1; }
  echo "${CUR_STOP_SECONDS}s, exit code 0"
}

# SDK checks: smoke.mjs prints PASS/FAIL lines; they are recorded as they are (a non-zero exit
# without a FAIL line is a FAIL too).
sdk_checks() {
  local label=$1 endpoint=$2 ca=${3:-} line failed=0
  while IFS= read -r line; do
    case "$line" in
      PASS*|SKIP*) record "$line" ;;
      FAIL*) record "$line"; failed=1 ;;
      "smoke.mjs exit 0") ;;
      "smoke.mjs exit "*) ((failed)) || fail "$label" "${line#smoke.mjs }" ;;
      *) printf '      %s\n' "$line" >&2 ;;
    esac
  done < <(env -u NODE_EXTRA_CA_CERTS -u NODE_TLS_REJECT_UNAUTHORIZED \
             COSMOS_ENDPOINT="$endpoint" COSMOS_CA_FILE="$ca" COSMOS_SMOKE_LABEL="$label" \
             node "$HERE/smoke.mjs" 2>&1; echo "smoke.mjs exit $?")
}

# smoke_marker write|read ENDPOINT: creates the database "kept-db" through the SDK, or reads it.
smoke_marker() {
  env -u NODE_EXTRA_CA_CERTS -u NODE_TLS_REJECT_UNAUTHORIZED COSMOS_ENDPOINT="$2" COSMOS_SMOKE_MARKER="$1:kept-db" \
    node "$HERE/smoke.mjs"
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

free_ports() {
  node -e '
    const net = require("net"); const n = Number(process.argv[1]); const servers = []; let bound = 0;
    for (let i = 0; i < n; i++) {
      const s = net.createServer(); servers.push(s);
      s.listen(0, "0.0.0.0", () => { if (++bound === n) {
        console.log(servers.map((x) => x.address().port).join(" ")); servers.forEach((x) => x.close()); } });
    }' "$1"
}

on_exit() {
  local rc=$?
  trap - EXIT
  if [[ $rc -ne 0 && -n $CUR_NAME ]]; then dump_logs; fi
  stop_current >/dev/null 2>&1 || true
  if [[ $rc -eq 0 && $(count FAIL) -gt 0 ]]; then rc=1; fi
  summary "$rc"
  rm -rf "$WORK"
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

need_apt_install() {
  local missing=()
  for pair in "$@"; do
    local cmd=${pair%%:*} pkg=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    say "installing ${missing[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# ---------------------------------------------------------------------------
STAGE="choose engine"
if [[ -n "${COSMOS_ENGINE:-}" ]]; then
  ENGINE="$COSMOS_ENGINE"
elif command -v docker >/dev/null 2>&1 && timeout 20 docker info >/dev/null 2>&1; then
  ENGINE=docker
else
  ENGINE=podman
fi
if [[ $ENGINE == podman ]]; then
  need_apt_install podman:podman buildah:buildah
fi
need_apt_install node:nodejs npm:npm curl:curl
say "engine: $ENGINE"

image_exists() {
  if [[ $ENGINE == docker ]]; then
    docker image inspect "$1" >/dev/null 2>&1
  else
    podman image exists "$1"
  fi
}

# ---------------------------------------------------------------------------
STAGE="base image"
make_base_image_offline() {
  need_apt_install debootstrap:debootstrap
  local rootfs="$WORK/rootfs"
  say "making $BASE_IMAGE offline: debootstrap --variant=minbase bookworm from $DEBIAN_MIRROR"
  debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$WORK/debootstrap.log" 2>&1 || {
    tail -n 30 "$WORK/debootstrap.log" >&2
    return 1
  }
  # Shape it like the official slim image: apt sources with updates and security,
  # no documentation or caches, apt cleans up after itself.
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $DEBIAN_MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${DEBIAN_MIRROR%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
EOF
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  cat >"$rootfs/etc/apt/apt.conf.d/docker-no-languages" <<'EOF'
Acquire::Languages "none";
EOF
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
  find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} + 2>/dev/null || true
  rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
         "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin \
         "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log "$rootfs"/tmp/*
  : >"$rootfs/etc/machine-id" || true
  if [[ $ENGINE == docker ]]; then
    tar -C "$rootfs" -c . | docker import --change 'CMD ["bash"]' - "$BASE_IMAGE" >/dev/null
  else
    tar -C "$rootfs" -c . | podman import --change 'CMD ["bash"]' - "$BASE_IMAGE" >/dev/null
    # Also under the name `FROM debian:bookworm-slim` normalises to.
    podman tag "$BASE_IMAGE" "$BASE_IMAGE_FQ"
  fi
  rm -rf "$rootfs"
  say "imported $BASE_IMAGE"
}

if image_exists "$BASE_IMAGE" || image_exists "$BASE_IMAGE_FQ"; then
  say "base image $BASE_IMAGE is present"
elif timeout 60 "$ENGINE" pull -q "$BASE_IMAGE_FQ" >/dev/null 2>&1; then
  say "pulled $BASE_IMAGE"
else
  say "$BASE_IMAGE is not local and no registry answered"
  make_base_image_offline
fi

# ---------------------------------------------------------------------------
STAGE="image build"
if [[ "${COSMOS_SKIP_BUILD:-0}" == 1 ]]; then
  say "COSMOS_SKIP_BUILD=1: using existing $IMAGE"
  image_exists "$IMAGE"
else
  say "building $IMAGE (log: tail of it is shown on failure)"
  build_start=$SECONDS
  build_rc=0
  # CA certificates this machine added locally (a proxy that re-signs TLS): npm in the build
  # stage must trust them too.
  extra_ca=""
  for crt in /usr/local/share/ca-certificates/*.crt; do
    [[ -f $crt ]] && extra_ca+="$(cat "$crt")"$'\n'
  done
  if [[ $ENGINE == docker ]]; then
    nice -n 10 docker build --pull=false --build-arg EXTRA_CA_CERTS="$extra_ca" \
      -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$WORK/build.log" 2>&1 || build_rc=$?
  else
    # docker format keeps HEALTHCHECK (the OCI format has no field for it).
    nice -n 10 podman build --isolation chroot --format docker --pull=never --build-arg EXTRA_CA_CERTS="$extra_ca" \
      -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$WORK/build.log" 2>&1 || build_rc=$?
  fi
  BUILD_SECONDS=$((SECONDS - build_start))
  if [[ $build_rc -ne 0 ]]; then
    say "---- image build log (last 80 lines) ----"
    tail -n 80 "$WORK/build.log" >&2
    exit "$build_rc"
  fi
  grep -E '^runtime packages:' "$WORK/build.log" | tail -n 1 | sed 's/^/[docker-test] /' >&2 || true
  say "built $IMAGE in ${BUILD_SECONDS}s"
fi

# ---------------------------------------------------------------------------
STAGE="test dependencies"
if [[ ! -d "$HERE/node_modules/@azure/cosmos" ]]; then
  say "npm ci in tests/docker"
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

# ---------------------------------------------------------------------------
STAGE="image"
"$ENGINE" image inspect "$IMAGE" >"$WORK/image.json"
mapfile -t HEALTHCHECK_CMD < <(node "$HERE/contract.mjs" healthcheck-cmd "$WORK/image.json")
check "image: HEALTHCHECK is [$EMULATOR_BIN --health-check]" \
  test "${HEALTHCHECK_CMD[*]}" == "$EMULATOR_BIN --health-check"
image_user="$("$ENGINE" image inspect -f '{{.Config.User}}' "$IMAGE")"
check "image: runs as the non-root user cosmos (USER $image_user)" test "$image_user" == cosmos
# shellcheck disable=SC2016 # a Go template, not shell
image_ports="$("$ENGINE" image inspect -f '{{range $p, $_ := .Config.ExposedPorts}}{{$p}} {{end}}' "$IMAGE")"
image_ports="${image_ports% }"
check "image: EXPOSE 8081 8080 1234 ($image_ports)" \
  test "$(tr ' ' '\n' <<<"$image_ports" | grep -c -E '^(8081|8080|1234)/tcp$')" == 3
image_bytes="$("$ENGINE" image inspect --format '{{.Size}}' "$IMAGE")"
if [[ $ENGINE == docker ]]; then
  image_human="$(docker images --format '{{.Size}}' "$IMAGE" | head -n 1)"
else
  image_human="$(podman images --format '{{.Size}}' "$IMAGE" | head -n 1)"
fi
measure "image size: $image_bytes bytes ($image_human)"

# ---------------------------------------------------------------------------
# The main run: the gateway port through the official PORT variable, the health and explorer
# ports moved through COSMOS_EMULATOR_HEALTH_PORT / COSMOS_EMULATOR_EXPLORER_PORT.
STAGE="main run"
read -r P H X <<<"$(free_ports 3)"
P="${COSMOS_TEST_PORT:-$P}"
port_closed "$P" >/dev/null || { say "port $P already answers on 127.0.0.1; set COSMOS_TEST_PORT to a free port"; exit 1; }
L=main
start "$L" "$P" "$P $H $X" "PORT=$P COSMOS_EMULATOR_HEALTH_PORT=$H COSMOS_EMULATOR_EXPLORER_PORT=$X" || exit 1
say "emulator ready on $P (health $H, explorer $X; run mode: $RUN_MODE${PODMAN_OPTS[*]:+ ${PODMAN_OPTS[*]}})"

# 1. The log line each harness waits for.
check "$L: log has the Started line" wait_started_line
check "$L: Java module's log wait: a line matches .*Started\\r\\n\$ (CRLF)" log_pattern java
check "$L: Python module's log wait: Started\\s*\$ at the end of the output" log_pattern python
check "$L: Go module's log wait: \"Started\"" log_pattern go
check "$L: Node module's log wait: \"Now listening on: \"" log_pattern node
check "$L: .NET's log wait: \"Started\"" log_pattern dotnet
check "$L: start-up lines: info, Now listening on https then http :$P, Health probes :$H, Explorer page :$X, Started<CRLF> last" \
  startup_lines both "$P" "$H" "$X"

# 2. The certificate, downloaded and in the container.
PEM="$WORK/downloaded.pem"
check "$L: GET https://127.0.0.1:$P/_explorer/emulator.pem (curl -k) is 200 application/x-pem-file" \
  http_expect 200 application/x-pem-file "$PEM" "https://127.0.0.1:$P/_explorer/emulator.pem" -k
check "$L: the download is one PEM certificate, the root that signed the served one" \
  node "$HERE/contract.mjs" pem "$PEM"
check "$L: the certificate is in the container at $CLASSIC_PEM" copy_out "$CLASSIC_PEM" "$WORK/in-container.pem"
check "$L: the container's copy is identical to the download" cmp "$PEM" "$WORK/in-container.pem"

# 3. HTTPS trusting that certificate; plain HTTP on the same port.
check "$L: https without the certificate is refused by curl (exit 60)" \
  curl_refused 60 "https://127.0.0.1:$P/ready"
check "$L: curl --cacert downloaded.pem https://127.0.0.1:$P/ready is 200" \
  http_expect 200 application/json "$WORK/body" "https://127.0.0.1:$P/ready" --cacert "$PEM"
check "$L: curl --cacert downloaded.pem https://localhost:$P/ready is 200" \
  http_expect 200 application/json "$WORK/body" "https://localhost:$P/ready" --cacert "$PEM"
check "$L: plain http://127.0.0.1:$P/ready on the same port is 200" \
  http_expect 200 application/json "$WORK/body" "http://127.0.0.1:$P/ready"

# 4. Probes, the emulator's page, the HEALTHCHECK.
for url in "https://127.0.0.1:$P" "http://127.0.0.1:$P" "http://127.0.0.1:$H"; do
  opts=()
  [[ $url == https* ]] && opts=(--cacert "$PEM")
  for path in /ready /alive /status; do
    check "$L: GET $url$path is 200 application/json, vNext's document (gateway, postgres healthy)" \
      probe_ok "$url$path" healthy both "${opts[@]}"
  done
done
check "$L: the health port serves only the probes (GET http://127.0.0.1:$H/dbs is 404)" \
  http_expect 404 "" "$WORK/body" "http://127.0.0.1:$H/dbs"
check "$L: GET https://127.0.0.1:$P/_explorer/index.html (unverified, as Python) is 200 text/html" \
  http_expect 200 text/html "$WORK/body" "https://127.0.0.1:$P/_explorer/index.html" -k
check "$L: the explorer port serves the page (GET http://127.0.0.1:$X/ is 200 text/html)" \
  http_expect 200 text/html "$WORK/body" "http://127.0.0.1:$X/"
check "$L: the image's HEALTHCHECK run inside the container" healthcheck_ok

# 5. The JavaScript SDK over HTTPS, trusting only the downloaded certificate.
sdk_checks "$L: sdk https" "https://127.0.0.1:$P/" "$PEM"

finish_run

# ---------------------------------------------------------------------------
# The --port flag: it wins over PORT, and the HEALTHCHECK (which reads PID 1's command line and
# environment) finds it. The health port is off, so the check has to probe the gateway port.
STAGE="flag run"
read -r P2 D2 <<<"$(free_ports 2)"
L=flag
start "$L" "$P2" "$P2" "PORT=$D2" --port "$P2" --health-port off --explorer-port off || exit 1
check "$L: PORT=$D2 is not listened on (--port $P2 wins)" port_closed "$D2"
check "$L: log has the Started line" wait_started_line
check "$L: start-up lines: Now listening on https then http :$P2, no health or explorer port, Started<CRLF>" \
  startup_lines both "$P2" - -
if [[ $RUN_MODE == buildah ]]; then
  skip "$L: the image's HEALTHCHECK follows --port $P2" \
    "buildah run --isolation chroot has no PID namespace: PID 1 is the host's init, not the emulator"
else
  # It would fail if it used the image's defaults (8080, 8081) or PORT=$D2 instead of the flags;
  # said so when something else on this host answers on a default port.
  note=""
  for p in 8080 8081; do
    port_closed "$p" >/dev/null || note+=" (note: 127.0.0.1:$p answers on this host)"
  done
  check "$L: the image's HEALTHCHECK follows --port $P2 (health port off)$note" healthcheck_ok
fi
finish_run
# The control: the same command where no emulator answers exits 1 (the check is not vacuous).
read -r C1 <<<"$(free_ports 1)"
L=healthcheck-control
run_to_exit "$L" "" "${HEALTHCHECK_CMD[@]:1}" --health-port "$C1"
check "$L: with nothing on the port it probes (health port $C1), the HEALTHCHECK command exits 1" \
  test "$(cat "$WORK/$L.rc")" == 1

# ---------------------------------------------------------------------------
# 6. Settings as the harnesses pass them.
# The Node module: PORT, PROTOCOL=http, ENABLE_TELEMETRY=false, ENABLE_EXPLORER=false.
STAGE="node module run"
read -r P3 H3 X3 <<<"$(free_ports 3)"
L=node
start "$L" "$P3" "$P3 $H3 $X3" \
  "PORT=$P3 PROTOCOL=http ENABLE_TELEMETRY=false ENABLE_EXPLORER=false COSMOS_EMULATOR_HEALTH_PORT=$H3 COSMOS_EMULATOR_EXPLORER_PORT=$X3" \
  || exit 1
check "$L: log has the Started line" wait_started_line
check "$L: Node module's log wait: \"Now listening on: \"" log_pattern node
check "$L: start-up lines: Now listening on http://0.0.0.0:$P3 only, Health probes :$H3, Started<CRLF>" \
  startup_lines http "$P3" "$H3" -
check "$L: GET http://127.0.0.1:$P3/ready is 200, protocol http, explorer disabled" \
  probe_ok "http://127.0.0.1:$P3/ready" disabled http
check "$L: no TLS on $P3 (curl -k https fails)" curl_refused '35|52|56' "https://127.0.0.1:$P3/ready" -k
sdk_checks "$L: sdk http" "http://127.0.0.1:$P3/"
finish_run

# The Go module: command args `--enable-explorer false` (the port through PORT here, as every
# container shares the host's network).
STAGE="go module run"
read -r P4 H4 X4 <<<"$(free_ports 3)"
L=go
start "$L" "$P4" "$P4 $H4 $X4" "PORT=$P4 COSMOS_EMULATOR_HEALTH_PORT=$H4 COSMOS_EMULATOR_EXPLORER_PORT=$X4" \
  --enable-explorer false || exit 1
check "$L: log has the Started line" wait_started_line
check "$L: Go module's log wait: \"Started\"" log_pattern go
check "$L: GET http://127.0.0.1:$P4/ready is 200, explorer disabled" \
  probe_ok "http://127.0.0.1:$P4/ready" disabled both
check "$L: GET https://127.0.0.1:$P4/_explorer/index.html is 404 (explorer off)" \
  http_expect 404 application/json "$WORK/body" "https://127.0.0.1:$P4/_explorer/index.html" -k
check "$L: no explorer port (127.0.0.1:$X4 closed)" port_closed "$X4"
check "$L: the image's HEALTHCHECK run inside the container" healthcheck_ok
finish_run

# Data persistence where the official images keep it (docs/persistence.md): the classic image's
# switch with a volume on /tmp/cosmos/appdata (what Aspire's WithDataVolume mounts), kept across a
# re-created container with its certificate; and vNext's volume on /data, used without a variable.
STAGE="persistence run"
VOL="$WORK/appdata-volume"
install -d -o 10001 -g 10001 -m 0700 "$VOL"
VOLUMES=(-v "$VOL:/tmp/cosmos/appdata")
read -r P5 H5 X5 <<<"$(free_ports 3)"
L=persistence
start "$L" "$P5" "$P5 $H5 $X5" \
  "AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE=true PORT=$P5 COSMOS_EMULATOR_HEALTH_PORT=$H5 COSMOS_EMULATOR_EXPLORER_PORT=$X5" ||
  exit 1
check "$L: log has the Started line" wait_started_line
check "$L: AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE=true: data kept in /tmp/cosmos/appdata" \
  grep -q "^cosmos-emulator: data kept in /tmp/cosmos/appdata (durability fsync): recovered 0 databases" "$WORK/$L.out"
check "$L: GET http://127.0.0.1:$P5/ready is 200" probe_ok "http://127.0.0.1:$P5/ready" healthy both
check "$L: the certificate is downloaded" \
  http_expect 200 application/x-pem-file "$WORK/kept1.pem" "https://127.0.0.1:$P5/_explorer/emulator.pem" -k
check "$L: a database is created through the SDK" smoke_marker write "http://127.0.0.1:$P5/"
finish_run
L=persistence-recreated
start "$L" "$P5" "$P5 $H5 $X5" \
  "AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE=true PORT=$P5 COSMOS_EMULATOR_HEALTH_PORT=$H5 COSMOS_EMULATOR_EXPLORER_PORT=$X5" ||
  exit 1
check "$L: log has the Started line" wait_started_line
check "$L: a new container on the same volume recovers the database" \
  grep -q "^cosmos-emulator: data kept in /tmp/cosmos/appdata (durability fsync): recovered 1 databases" "$WORK/$L.out"
check "$L: the SDK reads the database written by the first container" smoke_marker read "http://127.0.0.1:$P5/"
check "$L: the kept certificate is reused" grep -q "^cosmos-emulator: reusing the certificate kept in /tmp/cosmos/appdata" "$WORK/$L.out"
check "$L: the certificate is downloaded" \
  http_expect 200 application/x-pem-file "$WORK/kept2.pem" "https://127.0.0.1:$P5/_explorer/emulator.pem" -k
check "$L: it is the first container's certificate (trusted once, trusted still)" cmp "$WORK/kept1.pem" "$WORK/kept2.pem"
finish_run
VOL="$WORK/data-volume"
install -d -o 10001 -g 10001 -m 0700 "$VOL"
VOLUMES=(-v "$VOL:/data")
L=persistence-vnext
start "$L" "$P5" "$P5 $H5 $X5" "PORT=$P5 COSMOS_EMULATOR_HEALTH_PORT=$H5 COSMOS_EMULATOR_EXPLORER_PORT=$X5" || exit 1
check "$L: log has the Started line" wait_started_line
check "$L: a volume on /data keeps the data without any variable (as vNext)" \
  grep -q "^cosmos-emulator: data kept in /data (durability fsync): recovered 0 databases" "$WORK/$L.out"
finish_run
VOLUMES=()
L=no-volume
start "$L" "$P5" "$P5 $H5 $X5" "PORT=$P5 COSMOS_EMULATOR_HEALTH_PORT=$H5 COSMOS_EMULATOR_EXPLORER_PORT=$X5" || exit 1
check "$L: log has the Started line" wait_started_line
check "$L: without a volume or a variable, nothing is kept" bash -c "! grep -q 'data kept in' '$WORK/$L.out'"
finish_run

# ---------------------------------------------------------------------------
# 7. Start-up times: from the run command to the first 200 on /ready (curl every 20 ms); with
# podman/docker also from the process start (.State.StartedAt) to the Started line's log time.
STAGE="measure"
read -r P6 H6 X6 <<<"$(free_ports 3)"
ready_ms=() started_ms=() created_ms=() logged_ms=()
for i in $(seq 1 "$MEASURE_STARTS"); do
  L="start$i"
  start "$L" "$P6" "$P6 $H6 $X6" "PORT=$P6 COSMOS_EMULATOR_HEALTH_PORT=$H6 COSMOS_EMULATOR_EXPLORER_PORT=$X6" || exit 1
  ready_ms+=("$CUR_READY_MS")
  line="start $i: run command -> first 200 on /ready: $CUR_READY_MS ms"
  if [[ $RUN_MODE != buildah ]] && wait_started_line; then
    "$ENGINE" logs -t "$CUR_NAME" >"$WORK/$L.ts" 2>&1 || true
    started_at="$("$ENGINE" inspect -f '{{.State.StartedAt.UnixNano}}' "$CUR_NAME" 2>/dev/null)" || started_at=""
    started_line="$(node "$HERE/contract.mjs" started-ns "$WORK/$L.ts" 2>/dev/null)" || started_line=""
    if [[ $started_at =~ ^[0-9]+$ && $started_line =~ ^[0-9]+$ ]]; then
      started_ms+=("$(((started_line - started_at) / 1000000))")
      created_ms+=("$(((started_at / 1000 - CUR_ISSUED_US) / 1000))")
      line+="; run command -> process start: ${created_ms[-1]} ms; process start -> Started line: ${started_ms[-1]} ms"
    fi
  elif [[ -n $CUR_STARTED_MS ]]; then
    logged_ms+=("$CUR_STARTED_MS")
    line+="; run command -> Started line in the log: $CUR_STARTED_MS ms"
  fi
  measure "$line"
  stop_current
done
measure "start-to-ready median over $MEASURE_STARTS starts: $(median "${ready_ms[@]}") ms (run mode $RUN_MODE)"
if [[ ${#started_ms[@]} -gt 0 ]]; then
  measure "process start -> Started line median: $(median "${started_ms[@]}") ms; run command -> process start median: $(median "${created_ms[@]}") ms"
fi
if [[ ${#logged_ms[@]} -gt 0 ]]; then
  measure "run command -> Started line in the log median: $(median "${logged_ms[@]}") ms (the process start is not observable in this run mode)"
fi
STAGE="done"
