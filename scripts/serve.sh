#!/usr/bin/env bash
# Sets up, builds and starts the planner service on 127.0.0.1:50051 with the
# built-in catalog. Extra arguments go to parplan-server (e.g. --listen).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/parplan-server --listen 127.0.0.1:50051 "$@"
