#!/usr/bin/env bash
# The web page in a real headless browser (Debian's chromium): loads
# /?model=llama3_70b&system=h100-sxm&gpus=64&run=1 from parplan-server on
# 127.0.0.1:0 ("Llama-3 70B on 64 H100"), waits for the plans and pictures,
# and checks the DOM: the page finished (body data-state="done"), the rank
# map has 64 cells and the memory chart one bar per pipeline stage of plan 1
# (as the server's own Recommend answer says). Takes a screenshot into
# BUILD_DIR/web_page.png (with PARPLAN_UPDATE_SCREENSHOT=1 also into
# docs/web_page.png, the README's picture).
#   web_page_test.sh PATH/parplan-server BUILD_DIR SOURCE_DIR
set -euo pipefail
server=$1 build=$2 src=$3
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n "$browser" ]] || { echo "chromium is missing: run scripts/setup.sh --packages-only --test-tools"; exit 1; }
work=$(mktemp -d)
pid=
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
# Starts parplan-server (HTTP on a free port) logging to $work/NAME.out and
# .err; sets pid and port.
start_server() {
  local name=$1
  "$server" --listen 127.0.0.1:0 --http-listen 127.0.0.1:0 >"$work/$name.out" 2>"$work/$name.err" &
  pid=$!
  port=
  for _ in $(seq 200); do
    port=$(sed -n 's/^parplan-server http listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/$name.out")
    [[ -n "$port" ]] && return
    sleep 0.05
  done
  cat "$work/$name.err"
  echo "parplan-server ($name) did not start"
  exit 1
}
start_server server
url="http://127.0.0.1:$port/?model=llama3_70b&system=h100-sxm&gpus=64&run=1"
chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --no-first-run --user-data-dir="$work/profile" --virtual-time-budget=30000 "$@" 2>>"$work/chromium.log"
}
chrome --dump-dom "$url" >"$work/dom.html"
expected_pp=$(curl -sS -X POST -H 'Content-Type: application/json' \
  --data '{"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"top_k":5}' \
  "http://127.0.0.1:$port/v1/Recommend" | python3 -c 'import json,sys; print(json.load(sys.stdin)["plans"][0]["config"]["pp"])')
python3 - "$work/dom.html" "$expected_pp" <<'PY'
import sys
from html.parser import HTMLParser

dom, expected_pp = open(sys.argv[1]).read(), int(sys.argv[2])
# HTML's void elements (Chromium serializes SVG elements with end tags).
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

class Counter(HTMLParser):
    """Counts classed elements inside the elements with the given ids."""
    def __init__(self):
        super().__init__()
        self.stack, self.state, self.counts = [], None, {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.state = a.get("data-state")
        inside = (self.stack[-1] if self.stack else None)
        if a.get("id") in ("rank-map", "memory-chart"):
            inside = a["id"]
        classes = (a.get("class") or "").split()
        for c in classes:
            self.counts[(inside, c)] = self.counts.get((inside, c), 0) + 1
        if tag not in VOID:
            self.stack.append(inside)
    def handle_startendtag(self, tag, attrs):
        a = dict(attrs)
        inside = self.stack[-1] if self.stack else None
        for c in (a.get("class") or "").split():
            self.counts[(inside, c)] = self.counts.get((inside, c), 0) + 1
    def handle_endtag(self, tag):
        if tag not in VOID and self.stack:
            self.stack.pop()

counter = Counter()
counter.feed(dom)
cells = counter.counts.get(("rank-map", "rank-cell"), 0)
bars = counter.counts.get(("memory-chart", "stage-bar"), 0)
print(f"web page: state={counter.state} rank cells={cells} memory bars={bars} (plan 1 PP={expected_pp})")
assert counter.state == "done", f"the page did not finish (state {counter.state})"
assert cells == 64, f"rank map has {cells} cells, expected 64"
assert bars == expected_pp, f"memory chart has {bars} bars, expected one per stage ({expected_pp})"
PY
chrome --screenshot="$build/web_page.png" --window-size=1400,1800 "$url" >/dev/null
size=$(stat -c %s "$build/web_page.png")
[[ $size -gt 20000 ]] || { echo "screenshot is only $size bytes"; exit 1; }
echo "screenshot: $build/web_page.png ($size bytes)"
if [[ "${PARPLAN_UPDATE_SCREENSHOT:-}" == 1 ]]; then
  mkdir -p "$src/docs"
  cp "$build/web_page.png" "$src/docs/web_page.png"
  echo "updated docs/web_page.png"
fi
grep -q "access door=http method=POST path=/plot status=200" "$work/server.err" || { echo "the page never plotted"; exit 1; }

# A server with a token: the page loads, its first call gets 401, and it
# shows the error and the token field.
kill "$pid"
PARPLAN_AUTH_TOKEN=web-page-test-token-0123456789 start_server locked
chrome --dump-dom "http://127.0.0.1:$port/" >"$work/locked.html"
python3 - "$work/locked.html" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
field = re.search(r'<div[^>]*id="token-field"[^>]*>', dom)
assert field and "hidden" not in field.group(0), f"token field not shown: {field.group(0) if field else None}"
assert 'data-state="error"' in dom and "UNAUTHENTICATED" in dom, "the 401 is not shown"
print("web page with a token server: 401 shown, token field visible")
PY
