#!/usr/bin/env bash
# The web page's "check a config" mode, its URL checking and the rank map of
# large worlds, in a real headless browser (Debian's chromium) against
# parplan-server on 127.0.0.1:0. Each case loads a URL, waits for the page
# (body data-state), dumps the DOM and checks it:
#   dense        llama3_70b TP=8 PP=4 on 64 H100: valid, fits, tokens/s with
#                its uncertainty, MFU against its peak, 64 rank cells
#   moe-invalid  mixtral_8x7b EP=3 on 64 H100: invalid, the error's rule card
#                (rule id, message, fix, upstream source), no pictures
#   tp-invalid   llama3_70b TP=3 (does not divide its 64 heads): rule cards
#                for tp.heads_divisible and the others, no error banner, no
#                "Plot failed", no pictures
#   split        llama3_70b TP=8 PP=3 on 48 H100 (80 layers do not split over
#                3 stages): the rule card, the estimates and pictures for the
#                nearest valid split, each estimate card saying so, no banner
#   moe-fixed    the same with EP=8 ETP=1 (the fixes): valid, drawn
#   custom-model a pasted Hugging Face config.json: valid, drawn
#   custom-system a custom system (hopper, 40 GiB, 4-GPU nodes and NVLink
#                domains): the capacity and the domain in the answer
#   gpus-1024    recommend on 1,024 H100: plans with their uncertainty and
#                rule-of-thumb column, the rank map by node (128 cells)
#   gpus-100000  check on 100,000 H100 with DP groups: the rank map by rack,
#                only the stages drawn in the legend
#   infeasible   recommend llama3_405b on 8 A100: the reason, no "GBS 0"
#   bad-url      gpus=-5, tp=abc, an unknown parameter: errors beside the
#                fields, the values kept in the boxes, nothing sent
# With PARPLAN_UPDATE_SCREENSHOT=1 it also writes docs/web_check_*.png (the
# README's pictures); CI runs only the DOM checks.
#   web_check_test.sh PATH/parplan-server BUILD_DIR SOURCE_DIR
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
: >"$work/server.out"  # exists before the background job opens it: sed below must not race the redirection
"$server" --listen 127.0.0.1:0 --http-listen 127.0.0.1:0 >"$work/server.out" 2>"$work/server.err" &
pid=$!
port=
for _ in $(seq 200); do
  port=$(sed -n 's/^parplan-server http listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/server.out")
  [[ -n "$port" ]] && break
  sleep 0.05
done
[[ -n "$port" ]] || { cat "$work/server.err"; echo "parplan-server did not start"; exit 1; }
base="http://127.0.0.1:$port/"
chrome() {
  timeout 180 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --no-first-run --user-data-dir="$work/profile" --virtual-time-budget=60000 "$@" 2>>"$work/chromium.log"
}
hf='{"model_type":"llama","architectures":["LlamaForCausalLM"],"hidden_size":2048,"intermediate_size":8192,"num_hidden_layers":16,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"max_position_embeddings":8192,"rope_theta":500000.0,"rms_norm_eps":1e-05,"tie_word_embeddings":true}'
hf_url=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$hf")
declare -A urls=(
  [dense]="?mode=check&model=llama3_70b&system=h100-sxm&gpus=64&tp=8&pp=4&gbs=512&run=1"
  [moe-invalid]="?mode=check&model=mixtral_8x7b&system=h100-sxm&gpus=64&tp=2&pp=4&ep=3&run=1"
  [tp-invalid]="?mode=check&model=llama3_70b&system=h100-sxm&gpus=64&tp=3&run=1"
  [split]="?mode=check&model=llama3_70b&system=h100-sxm&gpus=48&tp=8&pp=3&run=1"
  [moe-fixed]="?mode=check&model=mixtral_8x7b&system=h100-sxm&gpus=64&tp=2&pp=4&ep=8&etp=1&run=1"
  [custom-model]="?mode=check&model=custom&model-json=$hf_url&system=h100-sxm&gpus=8&tp=2&run=1"
  [custom-system]="?mode=check&model=llama3_8b&system=custom&gpu-arch=hopper&hbm-gib=40&bf16-tflops=500&gpus-per-node=4&nvlink-domain=4&nvlink-gbps=400&gpus=16&tp=4&pp=2&run=1"
  [gpus-1024]="?model=llama3_70b&system=h100-sxm&gpus=1024&groups=dp&run=1"
  [gpus-100000]="?mode=check&model=llama3_70b&system=h100-sxm&gpus=100000&tp=8&pp=5&gbs=100000&groups=pp&run=1"
  [bad-url]="?mode=check&model=llama3_70b&system=h100-sxm&gpus=-5&tp=abc&bogus=1&run=1"
  [infeasible]="?model=llama3_405b&system=a100-80gb&gpus=8&run=1"
)
# The bad URL first: it must send nothing but the catalog calls.
chrome --dump-dom "$base${urls[bad-url]}" >"$work/bad-url.html"
if grep -E "method=POST path=/(v1/(Validate|EstimateMemory|EstimatePerformance|Recommend)|plot)" "$work/server.err"; then
  echo "bad-url: the page sent a request despite the bad values"
  exit 1
fi
for name in "${!urls[@]}"; do
  [[ $name == bad-url ]] && continue
  chrome --dump-dom "$base${urls[$name]}" >"$work/$name.html"
done
python3 - "$work" <<'PY'
import html, re, sys

work = sys.argv[1]

def dom(name):
    return open(f"{work}/{name}.html").read()

def text_of(d, element_id):
    """The text inside the element with this id (tags stripped)."""
    m = re.search(r'<(\w+)[^>]*\bid="%s"[^>]*>' % re.escape(element_id), d)
    assert m, f"no #{element_id}"
    tag, start, depth, i = m.group(1), m.end(), 1, m.end()
    for t in re.finditer(r"<(/?)%s\b[^>]*>" % tag, d[start:]):
        depth += -1 if t.group(1) else 1
        if depth == 0:
            return html.unescape(re.sub(r"<[^>]+>", " ", d[start:start + t.start()]))
    return html.unescape(re.sub(r"<[^>]+>", " ", d[start:]))

def hidden(d, element_id):
    m = re.search(r'<\w+[^>]*\bid="%s"[^>]*>' % re.escape(element_id), d)
    assert m, f"no #{element_id}"
    return re.search(r"\shidden(=|\s|>)", m.group(0)) is not None

def state(d):
    return re.search(r'<body[^>]*data-state="(\w+)"', d).group(1)

def check(cond, name, what):
    if not cond:
        raise SystemExit(f"{name}: {what}")

for name in ["dense", "moe-fixed", "custom-model", "custom-system", "gpus-100000"]:
    d = dom(name)
    check(state(d) == "done", name, f"page state {state(d)}: {text_of(d, 'error')[:400]}")
    check("Valid config" in text_of(d, "check-title"), name, "not valid: " + text_of(d, "check-results")[:600])
    check(not hidden(d, "plan-detail"), name, "no pictures")

d = dom("dense")
summary = text_of(d, "check-summary")
check("typical error ±" in summary, "dense", "no uncertainty: " + summary)
check(re.search(r"of [\d,]+ TFLOP/s dense peak at bf16", summary), "dense", "no MFU peak: " + summary)
cells = d.count('class="rank-cell')
check(cells == 64, "dense", f"{cells} rank cells")

d = dom("moe-invalid")
check(state(d) == "done", "moe-invalid", f"state {state(d)}")
check("Invalid config" in text_of(d, "check-title"), "moe-invalid", "not invalid")
rules = text_of(d, "violations-box")
check("error" in rules and re.search(r"\bEP\b|expert", rules), "moe-invalid", "no EP error: " + rules[:400])
fixes = re.findall(r'<p class="rule-fix"><strong>Fix: </strong>([^<]+)</p>', d)
check(any(f.strip() for f in fixes), "moe-invalid", "no fix shown")
check(hidden(d, "plan-detail"), "moe-invalid", "an invalid config was drawn")

def cards(d):
    """The rule cards in the check answer: [(severity, rule id, text)]."""
    box = re.search(r'<div id="violations-box"[^>]*>(.*?)<div id="check-resolved"', d, re.S)
    check(box, "cards", "no #violations-box")
    out = []
    for c in re.findall(r'<article class="rule-card rule-card-(\w+)">(.*?)</article>', box.group(1), re.S):
        rule = re.search(r'<code class="rule-id">([^<]+)</code>', c[1])
        out.append((c[0], rule.group(1) if rule else "", html.unescape(re.sub(r"<[^>]+>", " ", c[1]))))
    return out

# An invalid config: its rule cards (id, message, fix, upstream source), not an error banner.
d = dom("tp-invalid")
check(state(d) == "done", "tp-invalid", f"state {state(d)}: {text_of(d, 'error')[:300]}")
check(hidden(d, "error") and "Plot failed" not in d, "tp-invalid", "an error banner: " + text_of(d, "error")[:300])
check("Invalid config" in text_of(d, "check-title"), "tp-invalid", "not invalid")
c = {rule: (sev, text) for sev, rule, text in cards(d)}
check("tp.heads_divisible" in c, "tp-invalid", f"no tp.heads_divisible card: {sorted(c)}")
sev, text = c["tp.heads_divisible"]
check(sev == "error" and "num_attention_heads 64 is not divisible by TP=3" in text, "tp-invalid", text)
check("Fix:" in text and "Source: megatron/core/transformer/transformer_config.py" in text, "tp-invalid", "no fix or source: " + text)
check(hidden(d, "plan-detail"), "tp-invalid", "an invalid config was drawn")

# Only the layer split is invalid: estimated and drawn for the nearest valid split, and saying so.
d = dom("split")
check(state(d) == "done", "split", f"state {state(d)}: {text_of(d, 'error')[:300]}")
check(hidden(d, "error") and "Plot failed" not in d, "split", "an error banner: " + text_of(d, "error")[:300])
check([r for s, r, t in cards(d) if s == "error"] == ["pp.layers_divisible"], "split", f"cards {cards(d)}")
note = text_of(d, "violations-box")
check("computed for the nearest valid split (account_for_loss_in_pipeline_split = true)" in note, "split", "no split note: " + note[:300])
summary = text_of(d, "check-summary")
check(summary.count("for the nearest valid split") == 4, "split", "estimate cards do not all say so: " + summary)
check(not hidden(d, "plan-detail") and d.count('class="rank-cell') == 48, "split", "the nearest valid split was not drawn")
check("Drawn for the nearest valid split" in text_of(d, "plan-notes"), "split", "the pictures do not say which split")

d = dom("custom-system")
summary = text_of(d, "check-summary")
check("/ 40.0 GiB" in summary, "custom-system", "capacity not 40 GiB: " + summary)
check("NVLink domain 4 GPUs" in text_of(d, "rank-map"), "custom-system", "rank map lacks the 4-GPU domain")

d = dom("gpus-1024")
check(state(d) == "done", "gpus-1024", f"state {state(d)}: {text_of(d, 'error')[:300]}")
plans = text_of(d, "plans")
check(re.search(r"±\d", plans), "gpus-1024", "no uncertainty column values: " + plans[:500])
check("rule of thumb" in plans, "gpus-1024", "no rule-of-thumb row")
units = d.count('class="unit-cell')
check(units == 128, "gpus-1024", f"{units} node cells, expected 128")
check("GBS 0" not in text_of(d, "plans-meta"), "gpus-1024", "GBS 0 in the header")

d = dom("gpus-100000")
rank_map = text_of(d, "rank-map")
check("3125 racks of 32 GPUs" in rank_map, "gpus-100000", "not by rack: " + rank_map[:300])
check("stage 4" in rank_map and "stage 5" not in rank_map, "gpus-100000", "legend stages wrong: " + rank_map[-600:])
check("PP groups:" in rank_map, "gpus-100000", "no PP group note")

d = dom("bad-url")
check(state(d) == "error", "bad-url", f"state {state(d)}")
gpus = re.search(r'<input[^>]*id="gpus"[^>]*>', d).group(0)
check('value="-5"' in gpus or "-5" in gpus, "bad-url", "the -5 was replaced: " + gpus)
err = dict(re.findall(r'<small class="field-error" data-for="([\w-]+)">([^<]*)</small>', d))
check("-5 is out of range" in err.get("gpus", ""), "bad-url", f"gpus error: {err}")
check("'abc' is not a whole number" in err.get("tp", ""), "bad-url", f"tp error: {err}")
check("unknown URL parameter 'bogus'" in text_of(d, "error"), "bad-url", "unknown parameter not named")
d = dom("infeasible")
check(state(d) == "done", "infeasible", f"state {state(d)}")
check(not hidden(d, "infeasible") and "No feasible plan" in text_of(d, "infeasible"), "infeasible", "no reason shown")
meta = text_of(d, "plans-meta")
check("GBS" not in meta and " 0 configs" not in meta, "infeasible", "header: " + meta)
print("web check page: dense, MoE invalid + fixed, TP invalid (rule cards), nearest valid split, custom model, custom system, 1,024 and 100,000 GPUs, infeasible, bad URL: ok")
PY
if [[ "${PARPLAN_UPDATE_SCREENSHOT:-}" == 1 ]]; then
  mkdir -p "$src/docs"
  declare -A heights=([dense]=2300 [moe-invalid]=1550 [tp-invalid]=1900 [split]=2700 [moe-fixed]=2300 [custom-system]=2500 [gpus-1024]=2100
                      [gpus-100000]=2900 [bad-url]=1150)
  for name in dense moe-invalid tp-invalid split moe-fixed custom-system gpus-1024 gpus-100000 bad-url; do
    chrome --screenshot="$build/web_check_$name.png" --window-size=1400,${heights[$name]} "$base${urls[$name]}" >/dev/null
    cp "$build/web_check_$name.png" "$src/docs/web_check_$name.png"
    echo "updated docs/web_check_$name.png"
  done
fi
