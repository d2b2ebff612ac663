#!/usr/bin/env bash
# The web page in a real headless browser (Debian's chromium): loads
# /?model=llama3_70b&system=h100-sxm&gpus=64&run=1 from parplan-server on
# 127.0.0.1:0 ("Llama-3 70B on 64 H100"), waits for the plans and pictures,
# and checks the DOM: the page finished (body data-state="done"), the rank
# map has 64 cells and the memory chart one bar per pipeline stage of plan 1
# (as the server's own Recommend answer says), the placement field and the
# OpenAPI / MCP links are there, and every script the page loads is served.
# Then two more recommend answers: Llama-3 8B at 131,072 tokens (CP plans:
# each shows its cp_comm_type, "p2p (default)" when unset, and its warnings,
# as the server's answer has them) and DeepSeek-V3 on 256 GB200 NVL72 with
# gpus-per-domain=32 in the URL (the drawn plan uses 32 of each 72-GPU
# domain). Plan 1's resolved plan (settings, class badges, versions assumed)
# is checked against the answer when the answer carries one. Takes a
# screenshot into BUILD_DIR/web_page.png (with PARPLAN_UPDATE_SCREENSHOT=1
# also into docs/web_page.png, the README's picture, and the long-context and
# GB200 answers into docs/web_page_long_context.png and docs/web_page_gb200.png).
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
  : >"$work/$name.out"  # exists before the background job opens it: sed below must not race the redirection
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
# The placement field, the API links, and every script the page loads.
python3 - "$work/dom.html" "http://127.0.0.1:$port" <<'PY'
import re, sys, urllib.request
dom, base = open(sys.argv[1]).read(), sys.argv[2]
assert re.search(r'<input[^>]*id="gpus-per-domain"', dom), "no GPUs-per-NVLink-domain field"
assert 'href="/openapi.json"' in dom, "no link to /openapi.json"
assert re.search(r'<a href="/mcp"[^>]*>http://127\.0\.0\.1:\d+/mcp</a>', dom), "no MCP endpoint link with this server's address"
assert "claude mcp add --transport http parplan" in dom, "no MCP how-to"
scripts = re.findall(r'<script src="(/[\w.]+\.js)"', dom)
assert len(scripts) >= 10, f"the page loads only {scripts}"
for src in scripts:
    with urllib.request.urlopen(base + src) as r:
        assert r.status == 200 and r.headers["content-type"].startswith("text/javascript"), (src, r.status)
print(f"web page: placement field, OpenAPI and MCP links, {len(scripts)} scripts served")
PY
# CP plans: cp_comm_type under each, warnings counted as the answer has them.
cp_url="http://127.0.0.1:$port/?model=llama3_8b&system=h100-sxm&gpus=64&seq=131072&run=1"
chrome --dump-dom "$cp_url" >"$work/cp.html"
curl -sS -X POST -H 'Content-Type: application/json' \
  --data '{"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"seq_length":131072},"objective":"throughput","top_k":5}' \
  "http://127.0.0.1:$port/v1/Recommend" >"$work/cp.json"
# The 32-of-72 placement from the URL reaches the drawn plan.
chrome --dump-dom "http://127.0.0.1:$port/?model=deepseek_v3&system=gb200-nvl72&gpus=256&gpus-per-domain=32&run=1" >"$work/rack.html"
python3 - "$work/cp.html" "$work/cp.json" "$work/rack.html" <<'PY'
import html, json, re, sys
dom, answer, rack = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
assert re.search(r'<body[^>]*data-state="done"', dom), "the CP page did not finish"
rows = re.findall(r'<tr[^>]*data-index="(-?\d+)"[^>]*>(.*?)</tr>', dom, re.S)
plans = answer["plans"] + ([answer["starting_point"]] if answer.get("starting_point", {}).get("label") else [])
assert len(rows) == len(plans), f"{len(rows)} rows for {len(plans)} plans"
shown_cp = 0
for (index, row), plan in zip(rows, plans):
    config = plan["config"]
    cp = re.findall(r'<span class="plan-cp">([^<]*)</span>', row)
    if int(config.get("cp", 1)) > 1:
        want = "cp_comm_type " + (config.get("cp_comm_type") or "p2p (default)")
        assert cp == [want], f"row {index}: {cp}, expected {want}"
        shown_cp += 1
    else:
        assert not cp, f"row {index} (CP=1) shows {cp}"
    warnings = [v for v in plan.get("violations", []) if v["severity"] == "warning"]
    badge = re.findall(r'<summary class="badge badge-warn">(\d+) warnings?</summary>', row)
    assert badge == ([str(len(warnings))] if warnings else []), f"row {index}: warnings {badge}, expected {len(warnings)}"
    for w in warnings:
        assert html.escape(w["rule"]) in row, f"row {index}: warning {w['rule']} not listed"
assert shown_cp > 0, "no CP plan in the answer: the case no longer tests cp_comm_type"
# Plan 1's warnings as rule cards above its pictures.
first = [v["rule"] for v in answer["plans"][0].get("violations", []) if v["severity"] == "warning"]
m = re.search(r'<div id="plan-rules"[^>]*>(.*?)<div id="plan-resolved"', dom, re.S)
cards = re.findall(r'<code class="rule-id">([^<]+)</code>', m.group(1) if m else "")
assert cards == first, f"plan 1's warning cards {cards}, expected {first}"
print(f"web page: CP answer, {shown_cp} rows with cp_comm_type, warnings as the answer has them")
# Plan 1's resolved plan: every setting with a badge for each that is not
# execution-only, and the versions assumed; nothing while answers lack them.
resolved, assumes = answer.get("resolved") or [], answer.get("assumes") or ""
box = re.search(r'<div id="plan-resolved"([^>]*)>(.*?)</div>\s*<div id="figures"', dom, re.S)
assert box, "no #plan-resolved before the figures"
if resolved or assumes:
    assert "hidden" not in box.group(1), "the answer has a resolved plan; the page hides it"
    text = html.unescape(re.sub(r"<[^>]+>", " ", box.group(2)))
    for r in resolved:
        assert f"{r['field']} = {r['value']}" in text, f"{r['field']} not shown"
    badges = box.group(2).count("effect-badge")
    want = sum(1 for r in resolved if r.get("effect", "execution") != "execution")
    assert badges == want, f"{badges} class badges, expected {want}"
    assert assumes in text, "the versions assumed are not shown"
    print(f"web page: resolved plan of plan 1, {len(resolved)} settings, {badges} class badges")
else:
    assert "hidden" in box.group(1) and not box.group(2).strip(), "a resolved box without a resolved plan"
    print("web page: the answer has no resolved plan yet; none drawn")
assert re.search(r'<body[^>]*data-state="done"', rack), "the GB200 page did not finish"
reasons = re.search(r'<ul id="plan-reasons"[^>]*>(.*?)</ul>', rack, re.S).group(1)
assert "32 of each 72-GPU domain" in html.unescape(reasons), "gpus-per-domain=32 not used: " + reasons[:600]
assert re.search(r'<input[^>]*id="gpus-per-domain"[^>]*value="32"', rack), "the field lost the URL's 32"
placements = re.findall(r'<span class="plan-placement">([^<]*)</span>', rack)
assert placements and set(placements) == {"32 of 72 GPUs per NVLink domain"}, f"plan rows say {placements}"
print("web page: gpus-per-domain=32 on GB200 NVL72 drawn with 32 of each 72-GPU domain")
PY
chrome --screenshot="$build/web_page.png" --window-size=1400,1800 "$url" >/dev/null
size=$(stat -c %s "$build/web_page.png")
[[ $size -gt 20000 ]] || { echo "screenshot is only $size bytes"; exit 1; }
echo "screenshot: $build/web_page.png ($size bytes)"
if [[ "${PARPLAN_UPDATE_SCREENSHOT:-}" == 1 ]]; then
  mkdir -p "$src/docs"
  cp "$build/web_page.png" "$src/docs/web_page.png"
  echo "updated docs/web_page.png"
  # Long context (cp_comm_type, warnings) and DeepSeek-V3 on 256 GB200 NVL72 at 64 GPUs per rack.
  chrome --screenshot="$src/docs/web_page_long_context.png" --window-size=1400,2000 "$cp_url" >/dev/null
  chrome --screenshot="$src/docs/web_page_gb200.png" --window-size=1400,2000 \
    "http://127.0.0.1:$port/?model=deepseek_v3&system=gb200-nvl72&gpus=256&gpus-per-domain=64&run=1" >/dev/null
  echo "updated docs/web_page_long_context.png and docs/web_page_gb200.png"
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
