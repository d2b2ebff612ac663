#!/usr/bin/env bash
# End-to-end: starts parplan-server on 127.0.0.1 port 0, checks health and
# reflection and calls it from Python (grpcio) and from the CLI, then stops it
# with SIGTERM and expects exit 0.
#   run_e2e.sh PATH/parplan-server PATH/parplan SOURCE_DIR
set -euo pipefail
server_bin=$1 cli_bin=$2 src=$3
work=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then kill -9 "$server_pid"; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$server_bin" --listen 127.0.0.1:0 >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 1 200); do
  grep -q "listening on" "$work/server.out" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.err"; echo "server died"; exit 1; }
  sleep 0.05
done
address=$(sed -n 's/.*listening on \(.*\)$/\1/p' "$work/server.out")
[[ -n "$address" ]] || { echo "server did not report its address"; exit 1; }
echo "server at $address"

# Python client in another language: health, reflection, typed calls, rich errors.
/usr/bin/python3 "$src/tests/e2e/e2e_client.py" "$address" "$src" "$work"

# CLI through the server equals the CLI in-process.
remote=$("$cli_bin" min-gpus --json --pp 4 --tp 1 --ep 32 --cp 1 --etp 1 --server "$address")
local=$("$cli_bin" min-gpus --json --pp 4 --tp 1 --ep 32 --cp 1 --etp 1)
[[ "$remote" == "$local" ]] || { echo "CLI remote and local answers differ"; exit 1; }
grep -q '"min_gpus": "128"' <<<"$remote" || { echo "unexpected min_gpus: $remote"; exit 1; }
rc=0
"$cli_bin" validate --model llama3_70b --tp 0 --server "$address" >/dev/null 2>"$work/cli.err" || rc=$?
[[ $rc -eq 2 ]] || { echo "bad input should exit 2, got $rc"; exit 1; }
grep -q "config.tp\|--tp" "$work/cli.err" || { cat "$work/cli.err"; exit 1; }
grep -q "access method=MinGpus status=0" "$work/server.err" || { echo "no access log line"; exit 1; }

# Graceful stop with a call in flight: a range search that the 3 s call
# deadline cuts (it answers at ~2.9 s with truncated = true) is running when
# SIGTERM arrives at 1 s; it still gets its answer, then the server exits 0.
"$cli_bin" recommend --model deepseek_v3 --system gb200-nvl72 --gpus-range 64-16384 --seq 4096 --json \
    --timeout-ms 3000 --server "$address" >"$work/inflight.json" 2>"$work/inflight.err" &
inflight_pid=$!
sleep 1
kill -TERM "$server_pid"
rc=0
wait "$inflight_pid" || rc=$?
[[ $rc -eq 0 ]] || { echo "in-flight call failed during drain (rc $rc)"; cat "$work/inflight.err"; exit 1; }
grep -q '"truncated": true' "$work/inflight.json" || { echo "in-flight call was not cut by its deadline"; exit 1; }
grep -q "draining" "$work/server.err" || { echo "server did not report draining"; exit 1; }
echo "SIGTERM drained the in-flight search"

for _ in $(seq 1 100); do
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
wait "$server_pid"
status=$?
server_pid=
[[ $status -eq 0 ]] || { echo "server exit status $status"; exit 1; }
echo "e2e OK"
