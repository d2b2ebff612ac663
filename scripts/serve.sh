#!/usr/bin/env bash
# Sets up, builds and starts the planner service with the built-in catalog:
# gRPC on 127.0.0.1:50051, HTTP (JSON API, MCP at /mcp, the web page at /) on
# 127.0.0.1:8080. Extra arguments go to parplan-server (e.g. --listen).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/parplan-server --listen 127.0.0.1:50051 --http-listen 127.0.0.1:8080 "$@"
