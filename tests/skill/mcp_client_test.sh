#!/usr/bin/env bash
# MCP conformance with clients from the npm registry against `parplan mcp`:
# the MCP Inspector CLI (@modelcontextprotocol/inspector-cli) lists the tools
# and calls min_gpus; the official SDK client (tests/skill/mcp_sdk_client.mjs)
# lists the tools (validated against the MCP schema) and calls every one. Installs the
# versions pinned in tests/skill/npm/package-lock.json into BUILD/npm-mcp
# (npm ci, once). Skips (exit 77) only when the registry is unreachable.
# With the server binary, the SDK's Streamable HTTP client
# (tests/skill/mcp_sdk_http_client.mjs) also talks to parplan-server's /mcp on
# 127.0.0.1:0: without a token configured, with it, and refused (401)
# when it does not send it.
#   mcp_client_test.sh PATH/parplan BUILD_DIR SOURCE_DIR [PATH/parplan-server]
set -euo pipefail
cli=$1 build=$2 src=$3 server=${4:-}
dir="$build/npm-mcp"
command -v node >/dev/null && command -v npm >/dev/null || { echo "node/npm missing: run scripts/setup.sh"; exit 1; }
if ! cmp -s "$src/tests/skill/npm/package-lock.json" "$dir/package-lock.json" || [[ ! -d "$dir/node_modules" ]]; then
  if ! timeout 30 npm view @modelcontextprotocol/sdk@1.32.2 version >/dev/null 2>&1; then
    echo "SKIP: the npm registry is unreachable; cannot install the MCP clients"
    exit 77
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$src/tests/skill/npm/package.json" "$src/tests/skill/npm/package-lock.json" "$dir/"
  (cd "$dir" && timeout 300 npm ci --no-audit --no-fund --silent)
fi

# inspector-cli 1.0.3 reads its own package.json through a path tested against
# the working directory (../package.json): run it one level below a folder
# that has a package.json, as npm's install folder does.
mkdir -p "$dir/run"
cd "$dir/run"
inspector() { timeout 120 ../node_modules/.bin/mcp-inspector-cli --cli "$cli" mcp "$@" 2>/dev/null; }

list=$(inspector --method tools/list)
for tool in list_models get_model list_systems get_system min_gpus validate explain_layout render_config \
            estimate_memory estimate_performance recommend import_config compare_run calibrate; do
  grep -q "\"name\": \"$tool\"" <<<"$list" || { echo "tools/list lacks $tool"; echo "$list" | head -20; exit 1; }
done
echo "inspector tools/list: 14 tools"

call=$(inspector --method tools/call --tool-name min_gpus --tool-arg 'config={"tp":1,"pp":4,"ep":32,"cp":1}')
grep -q '"min_gpus": "128"' <<<"$call" || { echo "min_gpus call failed:"; echo "$call" | head -30; exit 1; }
grep -q '"isError": false' <<<"$call" || { echo "min_gpus call is an error"; exit 1; }
echo "inspector tools/call min_gpus: 128"

# ES modules resolve packages from their own folder: run a copy beside node_modules.
cp "$src/tests/skill/mcp_sdk_client.mjs" "$dir/"
timeout 120 node "$dir/mcp_sdk_client.mjs" "$cli"

[[ -n "$server" ]] || exit 0
cp "$src/tests/skill/mcp_sdk_http_client.mjs" "$dir/"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
# Starts parplan-server with HTTP on a free port and sets `port` to it (in
# this shell, not a subshell, so that the EXIT trap knows every pid).
start_server() {
  local out="$dir/server.$1.out"
  shift
  : >"$out"  # exists before the background job opens it: sed below must not race the redirection
  "$server" --listen 127.0.0.1:0 --http-listen 127.0.0.1:0 --no-access-log "$@" >"$out" 2>"$out.err" &
  pids+=($!)
  for _ in $(seq 100); do
    port=$(sed -n 's/^parplan-server http listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$out")
    [[ -n "$port" ]] && return
    sleep 0.1
  done
  echo "parplan-server did not start:" >&2; cat "$out.err" >&2; exit 1
}
start_server open
timeout 120 node "$dir/mcp_sdk_http_client.mjs" "http://127.0.0.1:$port/mcp"
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
PARPLAN_AUTH_TOKEN=$token
export PARPLAN_AUTH_TOKEN
start_server locked
unset PARPLAN_AUTH_TOKEN
timeout 120 node "$dir/mcp_sdk_http_client.mjs" "http://127.0.0.1:$port/mcp" "$token"
timeout 60 node "$dir/mcp_sdk_http_client.mjs" "http://127.0.0.1:$port/mcp" "" 401
echo "sdk http client: ok"
