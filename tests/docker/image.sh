#!/usr/bin/env bash
# Makes the cosmos-emulator container image with podman (no Docker engine needed), the way
# tests/docker/run.sh does: the base image debian:bookworm-slim is pulled, or, when no registry
# serves it, made offline with debootstrap --variant=minbase and `podman import`; then
# `podman build --isolation chroot --format docker` of the Dockerfile at the repository root.
#
#   tests/docker/image.sh              base image (when missing) and the image build
#   tests/docker/image.sh --base-only  the base image only
#
# Environment: COSMOS_IMAGE (default cosmos-emulator:test), COSMOS_SKIP_BUILD=1 (reuse the image;
# fails when it does not exist), DEBIAN_MIRROR (default http://deb.debian.org/debian),
# COSMOS_BUILD_LOG (where the build log goes; default a temporary file).
# Prints "image: built TAG in Ns" / "image: reused TAG" on stdout; exits non-zero on failure
# with the tail of the build log on stderr.
set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
IMAGE="${COSMOS_IMAGE:-cosmos-emulator:test}"
BASE_IMAGE="debian:bookworm-slim"
BASE_IMAGE_FQ="docker.io/library/debian:bookworm-slim"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

say() { printf '[image] %s\n' "$*" >&2; }

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

need_apt_install podman:podman

make_base_image_offline() {
  need_apt_install debootstrap:debootstrap
  local work rootfs
  work="$(mktemp -d "${TMPDIR:-/tmp}/cosmos-base.XXXXXX")"
  rootfs="$work/rootfs"
  say "making $BASE_IMAGE offline: debootstrap --variant=minbase bookworm from $DEBIAN_MIRROR"
  if ! debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2
    rm -rf "$work"
    return 1
  fi
  # Shaped like the official slim image (the same steps as tests/docker/run.sh).
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
  echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
  find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} + 2>/dev/null || true
  rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
         "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin \
         "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log "$rootfs"/tmp/*
  : >"$rootfs/etc/machine-id" || true
  tar -C "$rootfs" -c . | podman import --change 'CMD ["bash"]' - "$BASE_IMAGE" >/dev/null
  podman tag "$BASE_IMAGE" "$BASE_IMAGE_FQ"
  rm -rf "$work"
  say "imported $BASE_IMAGE"
}

if podman image exists "$BASE_IMAGE" || podman image exists "$BASE_IMAGE_FQ"; then
  say "base image $BASE_IMAGE is present"
elif timeout 60 podman pull -q "$BASE_IMAGE_FQ" >/dev/null 2>&1; then
  say "pulled $BASE_IMAGE"
else
  say "$BASE_IMAGE is not local and no registry answered"
  make_base_image_offline
fi
[[ ${1:-} == --base-only ]] && exit 0

if [[ ${COSMOS_SKIP_BUILD:-0} == 1 ]]; then
  if podman image exists "$IMAGE"; then
    echo "image: reused $IMAGE"
    exit 0
  fi
  say "COSMOS_SKIP_BUILD=1 but $IMAGE does not exist"
  exit 1
fi

LOG="${COSMOS_BUILD_LOG:-$(mktemp "${TMPDIR:-/tmp}/cosmos-image-build.XXXXXX.log")}"
# CA certificates this machine added locally (a proxy that re-signs TLS): npm in the build stage
# must trust them too.
extra_ca=""
for crt in /usr/local/share/ca-certificates/*.crt; do
  [[ -f $crt ]] && extra_ca+="$(cat "$crt")"$'\n'
done
say "building $IMAGE (log: $LOG)"
start=$SECONDS
rc=0
# docker format keeps HEALTHCHECK (the OCI format has no field for it).
nice -n 10 podman build --isolation chroot --format docker --pull=never \
  --build-arg EXTRA_CA_CERTS="$extra_ca" -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$LOG" 2>&1 || rc=$?
if ((rc != 0)); then
  say "---- image build log (last 80 lines) ----"
  tail -n 80 "$LOG" >&2
  exit "$rc"
fi
echo "image: built $IMAGE in $((SECONDS - start))s"
