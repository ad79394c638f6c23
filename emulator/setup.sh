#!/usr/bin/env bash
# Installs what the emulator (and, with SETUP_TESTS, its tests) need on Debian 12 (as root, with
# apt-get and npm), then builds. Safe to run again: it installs only what is missing and builds
# incrementally.
#   BUILD_DIR   build directory            (default: <repo>/build)
#   BUILD_TYPE  CMake build type           (default: Release)
#   SETUP_TESTS set: everything the tests need too (GoogleTest, Google Benchmark, the Python SDK,
#               the tests' npm packages, Chromium), and every target is built; unset (what
#               emulator/start.sh does): only the emulator and the Data Explorer it embeds
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${BUILD_TYPE:-Release}"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(build-essential cmake ninja-build pkg-config
  libboost1.81-dev rapidjson-dev libssl-dev libabsl-dev libstemmer-dev
  antlr4 libantlr4-runtime-dev default-jre-headless libmozjs-102-dev libpcre2-dev
  curl ca-certificates openssl)
if [ -n "${SETUP_TESTS:-}" ]; then
  # ccache: the test command builds every target, and again with clang for the fuzz targets; a
  # second clone on the same machine (CI's clean one) then reuses what the first compiled.
  PACKAGES+=(libgtest-dev libgmock-dev libbenchmark-dev python3 python3-azure-cosmos ccache)
fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v node >/dev/null 2>&1; then missing+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# What only the tests need (SETUP_TESTS=1, as tests/run.sh sets it): Debian's Chromium, which the
# Data Explorer's browser tests drive headless.
if [ -n "${SETUP_TESTS:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing chromium (the Data Explorer's browser tests)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium
fi

# The official @azure/cosmos 4.x for the SDK tests and the blog sample, and puppeteer-core for the
# browser tests, pinned by package-lock.json. (The Data Explorer's own packages are installed by
# the build: emulator/CMakeLists.txt.)
if [ -n "${SETUP_TESTS:-}" ]; then
  for dir in "$ROOT/tests/sdk/js" "$ROOT/samples/blog" "$ROOT/tests/explorer"; do
    if [ -f "$dir/package.json" ] && { [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; }; then
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error && touch node_modules)
    fi
  done
fi

# The tests are configured when asked for, or when an earlier setup configured them (so that
# starting the emulator never drops them from a build directory the tests use).
TESTS=OFF
if [ -n "${SETUP_TESTS:-}" ] || grep -qs '^COSMOS_BUILD_TESTS:BOOL=ON' "$BUILD_DIR/CMakeCache.txt"; then TESTS=ON; fi
# The benchmarks (bench/) are built with the tests, so that a change that breaks one fails the test
# command instead of waiting for the next `bench/run.sh`; they are run only on demand.
if [ ! -f "$BUILD_DIR/build.ninja" ] || ! grep -qs "^COSMOS_BUILD_TESTS:BOOL=$TESTS" "$BUILD_DIR/CMakeCache.txt" ||
   ! grep -qs "^COSMOS_BUILD_BENCH:BOOL=$TESTS" "$BUILD_DIR/CMakeCache.txt"; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DCOSMOS_BUILD_TESTS="$TESTS" \
    -DCOSMOS_BUILD_BENCH="$TESTS"
fi
if [ -n "${SETUP_TESTS:-}" ]; then
  cmake --build "$BUILD_DIR" -j2
else
  cmake --build "$BUILD_DIR" -j2 --target cosmos-emulator  # what emulator/start.sh starts, nothing else
fi
