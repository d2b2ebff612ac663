#!/usr/bin/env bash
# Installs the Debian 12 packages parplan needs (only the missing ones,
# non-interactively) and builds it into ./build. Safe to run again.
#   scripts/setup.sh [extra cmake args...]
#   scripts/setup.sh --packages-only     the packages, no build
#   scripts/setup.sh --packages-only --test-tools
#                                        and the tests' own tools (curl; chromium
#                                        for the web page test)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ cmake make pkg-config
  libgrpc++-dev libgrpc-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev nlohmann-json3-dev libyaml-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
  golang-github-gogo-googleapis-dev grpc-proto
  libboost-dev libssl-dev
  python3 python3-grpcio python3-protobuf python3-yaml openssl clang-format
)
if [[ "${2:-}" == "--test-tools" ]]; then
  packages+=(curl chromium fonts-dejavu-core)
fi
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Node.js and npm for the MCP conformance test (an npm MCP client); any
# installed Node.js is kept (Debian's npm conflicts with other builds of it).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [[ "${1:-}" == "--packages-only" ]]; then exit 0; fi
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$jobs"
