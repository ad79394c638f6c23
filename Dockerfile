# Azure Cosmos DB emulator (C++) container image.
#
#   docker build -t cosmos-emulator .
#   docker run --rm -p 8081:8081 -p 8080:8080 cosmos-emulator
#
# A drop-in for mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator (classic and vNext tags):
# the same ports, variables, flags, log lines and certificate download (docs/docker.md).
#
# With podman (no engine needed), keep the HEALTHCHECK by building in docker format:
#   podman build --isolation chroot --format docker -t cosmos-emulator .
#
# tests/docker/run.sh builds this image and runs an SDK smoke test against it.

ARG DEBIAN_IMAGE=debian:bookworm-slim

# ---------------------------------------------------------------------------
# Build stage: compilers and -dev packages, and Node.js with npm to bundle the Data Explorer
# (emulator/explorer: npm ci from its lockfile, then esbuild; embedded in the binary); never shipped.
# ---------------------------------------------------------------------------
FROM ${DEBIAN_IMAGE} AS build

ENV DEBIAN_FRONTEND=noninteractive
# The man1 folder is missing in slim images; the JRE's postinst needs it.
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential \
      cmake \
      ninja-build \
      pkg-config \
      libboost1.81-dev \
      libabsl-dev \
      libstemmer-dev \
      rapidjson-dev \
      libssl-dev \
      antlr4 \
      libantlr4-runtime-dev \
      default-jre-headless \
      libmozjs-102-dev \
      libpcre2-dev \
      nodejs \
      npm \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# The Data Explorer's npm packages, from its lockfile alone (a layer kept until the lockfile
# changes; the build's own `npm ci` step then finds them installed). Behind a proxy that
# re-signs TLS, pass its CA certificates (PEM text) with --build-arg EXTRA_CA_CERTS="$(cat ca.crt)":
# they are trusted by this step only and never reach the runtime image.
ARG EXTRA_CA_CERTS=""
COPY emulator/explorer/package.json emulator/explorer/package-lock.json emulator/explorer/
RUN cd emulator/explorer \
 && if [ -n "$EXTRA_CA_CERTS" ]; then \
      printf '%s\n' "$EXTRA_CA_CERTS" > /tmp/extra-ca.pem && export NODE_EXTRA_CA_CERTS=/tmp/extra-ca.pem; \
    fi \
 && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error \
 && rm -f /tmp/extra-ca.pem
# .dockerignore lets only the sources the build needs into the context
# (CMakeLists.txt, emulator/, sqlparser/ when present, cmake/ when present), never node_modules.
COPY . .

# The build finds the packages installed above from this lockfile and does not install them again
# (emulator/explorer/npm_ci.cmake): no second `npm ci`, which would lack the CA certificates.
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOSMOS_BUILD_TESTS=OFF \
 && cmake --build build -j2 \
 && install -D -m 0755 -s build/emulator/cosmos-emulator /out/cosmos-emulator

# The Debian packages that own every shared library the binary loads, so the runtime
# stage installs what the binary needs even when a new library is linked later.
RUN ldd /out/cosmos-emulator \
    | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' \
    | while read -r lib; do \
        dpkg -S "*/$(basename "$(readlink -f "$lib")")" 2>/dev/null | head -n 1 | cut -d: -f1; \
      done \
    | sort -u > /out/runtime-packages.txt \
 && echo "runtime packages:" $(cat /out/runtime-packages.txt)

# ---------------------------------------------------------------------------
# Runtime stage: shared libraries only.
# ---------------------------------------------------------------------------
FROM ${DEBIAN_IMAGE} AS runtime

ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libssl3 \
      libstdc++6 \
      libantlr4-runtime4.9 \
      libmozjs-102-0 \
      libpcre2-8-0 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb

COPY --from=build /out/runtime-packages.txt /usr/local/share/cosmos-emulator/runtime-packages.txt
# Install any further library package found by ldd in the build stage (usually none).
RUN missing="$(for p in $(cat /usr/local/share/cosmos-emulator/runtime-packages.txt); do \
                 dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"; \
               done)"; \
    if [ -n "$missing" ]; then \
      echo "installing extra runtime packages: $missing" \
      && apt-get update \
      && apt-get install -y --no-install-recommends $missing \
      && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb; \
    fi

RUN groupadd --system --gid 10001 cosmos \
 && useradd --system --uid 10001 --gid cosmos --create-home --home-dir /home/cosmos \
      --shell /usr/sbin/nologin cosmos \
 && install -d -o cosmos -g cosmos -m 0700 /data \
 && install -d -o cosmos -g cosmos -m 0755 /tmp/cosmos \
 && install -d -o cosmos -g cosmos -m 0700 /tmp/cosmos/appdata

COPY --from=build /out/cosmos-emulator /usr/local/bin/cosmos-emulator
# Fail the build, not the first start, if a shared library is missing.
RUN ! ldd /usr/local/bin/cosmos-emulator | grep 'not found'

# The settings are the official images' (PORT, PROTOCOL, KEY_FILE, CERT_PATH, ENABLE_EXPLORER,
# AZURE_COSMOS_EMULATOR_*, ...; docs/settings.md); these are only the image's defaults, and any of
# them set with -e or a flag wins. The certificate is also written where the classic image keeps
# it (the Python Testcontainers module copies it from there).
ENV COSMOS_EMULATOR_HOST=0.0.0.0 \
    COSMOS_EMULATOR_HEALTH_PORT=8080 \
    COSMOS_EMULATOR_EXPLORER_PORT=1234 \
    COSMOS_EMULATOR_CERT_EXPORT=/tmp/cosmos/appdata/.system/profiles/Client/AppData/Local/CosmosDBEmulator/emulator.pem \
    COSMOS_EMULATOR_DATA_DIR_IF_MOUNTED=/data,/tmp/cosmos/appdata

# Persistence, where the official images keep their data: a volume mounted on /data (vNext) or on
# /tmp/cosmos/appdata (classic; what Aspire's WithDataVolume mounts) keeps the data beyond the
# container; AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE=true keeps it in /tmp/cosmos/appdata,
# DATA_PATH where it says (docs/persistence.md). No VOLUME line: it would leave an anonymous
# volume behind every run, persistence or not.
USER cosmos
WORKDIR /home/cosmos
# 8081 the gateway (HTTPS and HTTP on one port), 8080 the health probes, 1234 the emulator's page,
# 10253 Direct mode (RNTBD over TLS; docs/direct-mode.md).
EXPOSE 8081 8080 1234 10253

# GET /ready on the health port of the running emulator, whatever port its flags or variables
# chose (it reads them from PID 1); no curl needed in the image.
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/cosmos-emulator", "--health-check"]

ENTRYPOINT ["/usr/local/bin/cosmos-emulator"]
