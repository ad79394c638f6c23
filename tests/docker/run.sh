#!/usr/bin/env bash
# Builds the cosmos-emulator container image, starts it, waits for it to be healthy,
# runs the JavaScript SDK smoke test (tests/docker/smoke.mjs) against it and stops it.
#
#   tests/docker/run.sh
#
# Engine: docker when `docker info` answers (a running engine), else podman/buildah
# (no engine needed; installed with apt-get when missing). When the base image
# debian:bookworm-slim is neither local nor pullable, it is made offline with
# debootstrap from the Debian package mirror and imported.
#
# Environment:
#   COSMOS_IMAGE        image tag to build           (default cosmos-emulator:test)
#   COSMOS_TEST_PORT    host port for the emulator   (default: a free port)
#   COSMOS_SKIP_BUILD=1 reuse an already built COSMOS_IMAGE
#   COSMOS_ENGINE       force docker or podman
#   COSMOS_RUN_MODE     podman only: podman | buildah (default: podman run, then podman run
#                       with runc, then buildah run --isolation chroot)
#   DEBIAN_MIRROR       mirror for debootstrap       (default http://deb.debian.org/debian)
#   COSMOS_HEALTH_TIMEOUT seconds to wait for health (default 60)
#
# Prints one summary line, "docker smoke: PASS ..." or "docker smoke: FAIL ...",
# and exits non-zero on any failure.
set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
IMAGE="${COSMOS_IMAGE:-cosmos-emulator:test}"
BASE_IMAGE="debian:bookworm-slim"
BASE_IMAGE_FQ="docker.io/library/debian:bookworm-slim"
PORT="${COSMOS_TEST_PORT:-}"
HEALTH_TIMEOUT="${COSMOS_HEALTH_TIMEOUT:-60}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
NAME="cosmos-emulator-smoke-$$"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cosmos-docker-test.XXXXXX")"
LOG="$WORK/emulator.log"

STAGE="setup"
ENGINE=""
RUN_MODE=""
BUILD_SECONDS="-"
BUILDAH_CTR=""
BUILDAH_PID=""
STARTED_AT=$SECONDS

say() { printf '[docker-test] %s\n' "$*" >&2; }

summary() {
  local rc=$1
  local elapsed=$((SECONDS - STARTED_AT))
  if [[ $rc -eq 0 ]]; then
    echo "docker smoke: PASS (engine=$ENGINE run=$RUN_MODE image=$IMAGE build=${BUILD_SECONDS}s total=${elapsed}s)"
  else
    echo "docker smoke: FAIL at stage '$STAGE' (engine=${ENGINE:-none} run=${RUN_MODE:-none} exit=$rc total=${elapsed}s)"
  fi
}

stop_emulator() {
  case "$RUN_MODE" in
    docker|podman)
      "$ENGINE" stop -t 10 "$NAME" >/dev/null 2>&1 || true
      "$ENGINE" rm -f "$NAME" >/dev/null 2>&1 || true
      ;;
    buildah)
      if [[ -n "$BUILDAH_PID" ]] && kill -0 "$BUILDAH_PID" 2>/dev/null; then
        # buildah run was started with setsid: signal its whole process group.
        kill -TERM -- "-$BUILDAH_PID" 2>/dev/null || true
        for _ in $(seq 1 20); do
          kill -0 "$BUILDAH_PID" 2>/dev/null || break
          sleep 0.5
        done
        if kill -0 "$BUILDAH_PID" 2>/dev/null; then
          say "emulator ignored SIGTERM for 10s; sending SIGKILL"
          kill -KILL -- "-$BUILDAH_PID" 2>/dev/null || true
        fi
        wait "$BUILDAH_PID" 2>/dev/null || true
      fi
      BUILDAH_PID=""
      if [[ -n "$BUILDAH_CTR" ]]; then
        buildah rm "$BUILDAH_CTR" >/dev/null 2>&1 || true
        BUILDAH_CTR=""
      fi
      ;;
  esac
}

dump_logs() {
  case "$RUN_MODE" in
    docker|podman) "$ENGINE" logs "$NAME" >"$LOG" 2>&1 || true ;;
  esac
  if [[ -s "$LOG" ]]; then
    say "---- emulator log (last 50 lines) ----"
    tail -n 50 "$LOG" >&2 || true
    say "--------------------------------------"
  fi
}

on_exit() {
  local rc=$?
  trap - EXIT
  if [[ $rc -ne 0 ]]; then
    dump_logs
  fi
  stop_emulator
  rm -rf "$WORK"
  summary "$rc"
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
  if [[ $ENGINE == docker ]]; then
    docker build --pull=false -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$WORK/build.log" 2>&1 || build_rc=$?
  else
    # docker format keeps HEALTHCHECK (the OCI format has no field for it).
    podman build --isolation chroot --format docker --pull=never \
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
STAGE="smoke test dependencies"
if [[ ! -d "$HERE/node_modules/@azure/cosmos" ]]; then
  say "npm ci in tests/docker"
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

# ---------------------------------------------------------------------------
STAGE="start container"
if [[ -z "$PORT" ]]; then
  PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})')"
fi
ENDPOINT="http://127.0.0.1:$PORT/"

http_healthy() {
  curl -fsS -o /dev/null --max-time 3 "${ENDPOINT}_health" 2>/dev/null
}

# Waits until GET /_health answers 200; fails early if the emulator process is gone.
wait_healthy() {
  local deadline=$((SECONDS + HEALTH_TIMEOUT))
  while ((SECONDS < deadline)); do
    if http_healthy; then return 0; fi
    case "$RUN_MODE" in
      docker|podman)
        [[ "$("$ENGINE" inspect -f '{{.State.Running}}' "$NAME" 2>/dev/null)" == true ]] || {
          say "container exited before it was healthy"; return 1; }
        ;;
      buildah)
        kill -0 "$BUILDAH_PID" 2>/dev/null || { say "emulator exited before it was healthy"; return 1; }
        ;;
    esac
    sleep 1
  done
  say "emulator not healthy after ${HEALTH_TIMEOUT}s"
  return 1
}

# $1: extra `podman run` options (word-split on purpose).
start_podman_host_network() {
  RUN_MODE=podman
  # shellcheck disable=SC2086
  podman run -d --name "$NAME" --network host $1 -e "COSMOS_EMULATOR_PORT=$PORT" "$IMAGE" \
      >/dev/null 2>"$WORK/run.err" || {
    say "podman run failed: $(tr '\n' ' ' <"$WORK/run.err")"
    podman rm -f "$NAME" >/dev/null 2>&1 || true
    RUN_MODE=""
    return 1
  }
  # Started but never healthy: an emulator problem, not a runtime one; no fallback.
  wait_healthy || exit 1
}

# Sandboxes without CAP_SYS_RESOURCE and with hybrid cgroups (v1 + v2) refuse podman's
# default runtime (crun: "cgroups in hybrid mode not supported") and its default
# rlimits ("setrlimit RLIMIT_NOFILE: Operation not permitted"); runc with rlimits no
# higher than this shell's works there.
start_podman_runc() {
  if ! command -v runc >/dev/null 2>&1; then
    need_apt_install runc:runc || return 1
  fi
  local nofile
  nofile="$(ulimit -Hn)"
  [[ $nofile == unlimited || $nofile -gt 65536 ]] && nofile=65536
  start_podman_host_network "--runtime runc --ulimit nofile=$nofile:$nofile --ulimit nproc=4096:4096"
}

start_buildah_chroot() {
  RUN_MODE=buildah
  : >"$LOG"
  BUILDAH_CTR="$(buildah from --pull-never --name "$NAME" "$IMAGE")" || return 1
  # The image's user, env (COSMOS_EMULATOR_HOST=0.0.0.0) and workdir apply; the port is
  # the test port because the emulator shares the host's network.
  setsid buildah run --isolation chroot --network host --user cosmos \
    --env "COSMOS_EMULATOR_PORT=$PORT" "$BUILDAH_CTR" -- /usr/local/bin/cosmos-emulator \
    >"$LOG" 2>&1 </dev/null &
  BUILDAH_PID=$!
  wait_healthy || exit 1
}

if curl -s -o /dev/null --max-time 2 "$ENDPOINT"; then
  say "port $PORT already answers on 127.0.0.1; set COSMOS_TEST_PORT to a free port"
  exit 1
fi

case "$ENGINE" in
  docker)
    RUN_MODE=docker
    docker run -d --name "$NAME" -p "127.0.0.1:$PORT:8081" "$IMAGE" >/dev/null
    wait_healthy || exit 1
    ;;
  podman)
    case "${COSMOS_RUN_MODE:-auto}" in
      podman) start_podman_host_network "" || start_podman_runc ;;
      buildah) start_buildah_chroot ;;
      *)
        start_podman_host_network "" || {
          say "retrying podman run with runc and explicit rlimits"
          start_podman_runc
        } || {
          say "podman run --network host did not work here; falling back to buildah run --isolation chroot"
          start_buildah_chroot
        }
        ;;
    esac
    ;;
esac
say "emulator healthy at $ENDPOINT (run mode: $RUN_MODE)"

STAGE="startup log"
case "$RUN_MODE" in
  docker|podman) "$ENGINE" logs "$NAME" >"$LOG" 2>&1 || true ;;
esac
grep -q 'Started' "$LOG" || { say "no 'Started' line in the emulator log"; exit 1; }

STAGE="image health check"
# The image's HEALTHCHECK (cosmos-emulator --health-check), run inside the container.
case "$RUN_MODE" in
  podman)
    [[ "$(podman inspect -f '{{json .Config.Healthcheck}}' "$NAME")" == *--health-check* ]] || {
      say "image has no HEALTHCHECK with --health-check"; exit 1; }
    podman healthcheck run "$NAME" 2>/dev/null
    ;;
  docker)
    [[ "$(docker inspect -f '{{json .Config.Healthcheck}}' "$NAME")" == *--health-check* ]] || {
      say "image has no HEALTHCHECK with --health-check"; exit 1; }
    docker exec "$NAME" /usr/local/bin/cosmos-emulator --health-check
    ;;
  buildah)
    buildah run --isolation chroot --network host --user cosmos \
      --env "COSMOS_EMULATOR_PORT=$PORT" "$BUILDAH_CTR" -- /usr/local/bin/cosmos-emulator --health-check
    ;;
esac
say "HEALTHCHECK (cosmos-emulator --health-check): healthy"

# ---------------------------------------------------------------------------
STAGE="sdk smoke test"
COSMOS_ENDPOINT="$ENDPOINT" node "$HERE/smoke.mjs"

STAGE="stop container"
stop_start=$SECONDS
final_mode="$RUN_MODE"
stop_emulator
RUN_MODE=""
stop_seconds=$((SECONDS - stop_start))
say "emulator stopped in ${stop_seconds}s"
if ((stop_seconds >= 9)); then
  say "warning: the emulator did not exit on SIGTERM; it was killed after the stop timeout"
fi
RUN_MODE="$final_mode"
