#!/usr/bin/env bash
# Sets up, builds and runs every test (unit, service, end-to-end).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j "$jobs"
