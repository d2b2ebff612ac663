"""The skill as an assistant uses it: SKILL.md's format, the one-command
install, the three example questions replayed as the CLI commands and MCP
tool calls SKILL.md gives (answers checked, and the same numbers from the
CLI in-process, the CLI through gRPC and MCP), and the README's Python gRPC
client snippet run against a live server.

usage: skill_test.py PATH/parplan PATH/parplan-server SOURCE_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

cli, server_bin, src = sys.argv[1:4]
work = tempfile.mkdtemp(prefix="parplan_skill_")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


# ---------------------------------------------------------------- SKILL.md format
skill = open(os.path.join(src, "skill", "SKILL.md"), encoding="utf-8").read()
m = re.match(r"^---\n(.*?)\n---\n(.*)$", skill, re.S)
check(m is not None, "SKILL.md starts with YAML front matter")
front, body = m.group(1), m.group(2)
name = re.search(r"^name: *(.+)$", front, re.M).group(1).strip()
description = re.search(r"^description: *(.+)$", front, re.M).group(1).strip()
check(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) is not None and len(name) <= 64, f"name '{name}' is lowercase-hyphens")
check(0 < len(description) <= 1024, f"description has 1..1024 characters ({len(description)})")
for word in ("TP", "PP", "CP", "EP", "min", "GPUs", "Megatron Bridge", "OOM"):
    check(word in description, f"description mentions {word}")
check(len(body.splitlines()) < 500, f"body under 500 lines ({len(body.splitlines())})")
references = sorted(os.listdir(os.path.join(src, "skill", "references")))
for ref in references:
    check(f"](references/{ref})" in body, f"SKILL.md links references/{ref}")
for link in re.findall(r"\]\((references/[^)]+)\)", body):
    check(os.path.exists(os.path.join(src, "skill", link)), f"link {link} exists")

commands = open(os.path.join(src, "skill", "references", "commands.md"), encoding="utf-8").read()
usage = subprocess.run([cli, "help"], capture_output=True, text=True, check=True).stdout.rstrip("\n")
check("```\n" + usage + "\n```" in commands, "references/commands.md quotes the current `parplan help`")

# ---------------------------------------------------------------- install
home = os.path.join(work, "home")
# The CLI under test (this build's), not a build of its own.
subprocess.run([os.path.join(src, "scripts", "install_skill.sh")],
               env={**os.environ, "HOME": home, "PARPLAN_CLI": os.path.abspath(cli)}, check=True,
               stdout=subprocess.DEVNULL)
installed = os.path.join(home, ".claude", "skills", name)
check(os.path.isfile(os.path.join(installed, "SKILL.md")), "install put SKILL.md in ~/.claude/skills/" + name)
check(os.access(os.path.join(installed, "bin", "parplan"), os.X_OK), "install linked bin/parplan")

# ---------------------------------------------------------------- a gRPC server for the identity check
server = subprocess.Popen([server_bin, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
address = http_address = None
for line in server.stdout:
    found = re.search(r"^parplan-server (http )?listening on (\S+)", line)
    if found and found.group(1):
        http_address = found.group(2)
        break
    if found:
        address = found.group(2)
check(address is not None and http_address is not None, f"server listening on {address} and {http_address}")


def mcp_call(tool, arguments):
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}},
    ]
    out = subprocess.run([cli, "mcp"], input="".join(json.dumps(l) + "\n" for l in lines), capture_output=True,
                         text=True, timeout=60, check=True).stdout.splitlines()
    reply = json.loads(out[-1])
    assert reply["id"] == 2 and not reply["result"]["isError"], reply
    return reply["result"]["structuredContent"]


def same_numbers(mcp, full, path="$"):
    """MCP's structuredContent (server/mcp/answer_view.h: configs print set
    fields only, recommend's plans 2.. and examples leave out what repeats)
    against the full answer: every number, flag and 64-bit integer MCP
    keeps, and every list of objects' length, is the same in the full one."""
    if isinstance(mcp, dict):
        if not isinstance(full, dict):
            return [f"{path}: object vs {type(full).__name__}"]
        return [d for k, v in mcp.items() for d in
                (same_numbers(v, full[k], f"{path}.{k}") if k in full else [f"{path}.{k}: missing in the full answer"])]
    if isinstance(mcp, list):
        if mcp and all(isinstance(x, dict) for x in mcp):
            if len(mcp) != len(full):
                return [f"{path}: {len(mcp)} items vs {len(full)}"]
            return [d for i, (a, b) in enumerate(zip(mcp, full)) for d in same_numbers(a, b, f"{path}[{i}]")]
        return []  # reasons and other text lists: MCP may leave out the restating ones
    numeric = isinstance(mcp, (bool, int, float)) or (isinstance(mcp, str) and re.fullmatch(r"-?\d+", mcp))
    return [f"{path}: {mcp!r} vs {full!r}"] if numeric and mcp != full else []


def cli_json(command, extra=()):
    args = command.split()
    args[0] = os.path.expanduser(args[0].replace("~", home, 1))
    out = subprocess.run(args + ["--json", *extra], capture_output=True, text=True, timeout=60, check=True).stdout
    return json.loads(out)


# ---------------------------------------------------------------- the three example questions
sections = re.split(r"^### ", body, flags=re.M)
examples = {}
for section in sections:
    title = section.splitlines()[0]
    command = re.search(r"```bash\n(.*?)\n```", section, re.S)
    call = re.search(r"```json\n(\{\"tool\".*?)\n```", section, re.S)
    if title.startswith("Q") and command and call:
        examples[title] = (command.group(1).strip(), json.loads(call.group(1)))
check(len(examples) == 6, f"SKILL.md has 6 worked examples with a command and a tool call ({len(examples)})")

answers = {}
for title, (command, call) in examples.items():
    local = cli_json(command)
    remote = cli_json(command, ["--server", address])
    via_mcp = mcp_call(call["tool"], call["arguments"])
    differences = same_numbers(via_mcp, local)
    check(local == remote and not differences, f"{title}: CLI, gRPC and MCP give the same answer {differences[:3]}")
    answers[title] = local

q1 = next(a for t, a in answers.items() if "70B" in t)
check(q1["feasible"] and len(q1["plans"]) == 5, "Q1: five plans")
top = q1["plans"][0]
c = top["config"]
check(top["gpus"] == "64" and top["fits"] and 64 % (c["tp"] * c["pp"] * c["cp"]) == 0 and c["tp"] <= 8,
      f"Q1: top plan TP={c['tp']} PP={c['pp']} fits on 64 GPUs with TP inside the node")
check("cfg.model.tensor_model_parallel_size = " + str(c["tp"]) in top["bridge_overrides"], "Q1: Bridge overrides")
check(q1["starting_point"]["config"]["tp"] == 8, "Q1: the rule-of-thumb starting point (TP 8)")

q2 = next(a for t, a in answers.items() if "min GPUs" in t)
check(q2["min_gpus"] == "128" and q2["next_valid_world_sizes"][:2] == ["128", "256"], "Q2: 128 GPUs, then 256")
check(any("lcm" in r for r in q2["reasons"]), "Q2: the reason gives the lcm formula")

q3 = next(a for t, a in answers.items() if "16K" in t)
check(q3["seq_length"] == 16384 and q3["feasible"], "Q3: searched at 16K")
check(q3["starting_point"]["config"]["cp"] == 2 and "CP" in q3["starting_point_comparison"],
      "Q3: compares with the rule of thumb's CP=2")
check(any(p["config"]["cp"] > 1 for p in q3["plans"]) or "CP" in q3["starting_point_comparison"],
      "Q3: the answer speaks to CP")

# Q3's second half: 128K through the CLI, gRPC and MCP; the plan fits, keeps
# TP inside the node and names its CP type (rendered for Bridge).
q3_section = next(sec for sec in sections if sec.startswith("Q3"))
long_command = re.findall(r"```bash\n(.*?)\n```", q3_section, re.S)[1].strip().splitlines()[0]
long_call = json.loads(re.findall(r"```json\n(\{\"tool\".*?)\n```", q3_section, re.S)[1])
long_local = cli_json(long_command)
check(long_local == cli_json(long_command, ["--server", address]) and
      not same_numbers(mcp_call(long_call["tool"], long_call["arguments"]), long_local),
      "Q3 128K: CLI, gRPC and MCP give the same answer")
long_top = long_local["plans"][0]
lc = long_top["config"]
check(long_local["seq_length"] == 131072 and long_top["fits"] and lc["tp"] <= 8 and lc["cp"] > 1,
      f"Q3 128K: top plan fits with TP={lc['tp']} inside the node and CP={lc['cp']}")
check(lc["cp_comm_type"] != "" and "cfg.model.cp_comm_type" in long_top["bridge_overrides"] and
      any("cp_comm_type " + lc["cp_comm_type"] in r for r in long_top["reasons"]),
      "Q3 128K: the CP type is named in the reasons and rendered")

q4 = next(a for t, a in answers.items() if "94-layer" in t)
fix = next((v["fix"] for v in q4["violations"] if v["rule"] == "pp.layers_divisible"), "")
check(not q4["valid"] and "94 + 2 = 96 = PP 8 x 12" in fix and "--account-for-loss-in-pipeline-split" in fix,
      "Q4: rejected, and the fix names the accounting flags with the arithmetic")
q4_fixed = cli_json(examples[next(t for t in examples if "94-layer" in t)][0] +
                    " --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split")
check(q4_fixed["valid"], "Q4: valid with both accounting flags, as the answer says")

q5 = next(a for t, a in answers.items() if "H800" in t)
check(q5["feasible"] and q5["plans"][0]["gpus"] == "32", "Q5: plans for 32 GPUs of the inline H800 system")
check(any("scaleout_gbps 100 (4 NICs x 200 Gb/s / 8 GPUs per node)" in r for r in q5["reasons"]),
      "Q5: the answer states the scale-out it derived from the NICs")
check(any("taken from the hopper reference" in r for r in q5["reasons"]), "Q5: the answer names the defaults used")

q6_title = next(t for t in examples if "Will DeepSeek-V3 fit" in t)
q6 = answers[q6_title]
check(any(v["rule"] == "pp.layers_divisible" for v in q6["violations"]), "Q6: the split error is reported")
layout = q6.get("nearest_valid_split", {}).get("config", {}).get("pipeline_layout", "")
check(layout != "" and len(q6["stages"]) == 16, f"Q6: estimated for the nearest valid split ({layout})")
check(not q6["fits"] and q6["suggestions"] and q6["suggestions"][0]["fits"],
      "Q6: does not fit, and the cheapest change fits")
with_layout = cli_json(examples[q6_title][0] + " --pp-layout " + layout)
check(with_layout["peak_bytes"] == q6["peak_bytes"] and not with_layout.get("violations"),
      "Q6: the layout the answer names is valid and gives the same peak")
steps = [s.get("step_time_s", 0) for s in q6["suggestions"]]
check(steps == sorted(steps) and steps[0] > 0, "Q6: the suggestions come fastest predicted step first")
# The first recompute fix with room, applied as SKILL.md says to confirm one.
roomy = next(s for s in q6["suggestions"]
             if s["fits"] and not s.get("tight") and s["config"].get("recompute_modules"))
fixed = cli_json(examples[q6_title][0] + " --pp-layout " + layout + " --recompute selective --recompute-modules " +
                 ",".join(roomy["config"]["recompute_modules"]))
check(fixed["fits"] and fixed["peak_bytes"] == roomy["peak_bytes"],
      "Q6: layout + the first recompute suggestion with room fits at the suggested peak")

# ---------------------------------------------------------------- README: Python gRPC snippet
readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
snippet = re.search(r"<!-- test: python-grpc -->\n```python\n(.*?)\n```", readme, re.S)
check(snippet is not None, "README has the Python gRPC snippet")
stubs = os.path.join(work, "py")
os.makedirs(stubs)
subprocess.run(["protoc", "-I", os.path.join(src, "proto"), "--python_out", stubs, "--grpc_out", stubs,
                "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin",
                os.path.join(src, "proto", "parplan", "v1", "planner.proto")], check=True)
code = snippet.group(1).replace("127.0.0.1:50051", address)
run = subprocess.run([sys.executable, "-c", code], cwd=stubs, capture_output=True, text=True, timeout=60)
check(run.returncode == 0 and run.stdout.startswith("128 "), f"README Python snippet prints 128: {run.stdout.strip()[:80]} {run.stderr[-300:]}")
node = open(os.path.join(src, "tests", "skill", "mcp_sdk_client.mjs"), encoding="utf-8").read()
node_snippet = re.search(r"// --- README snippet begins\n(.*?)// --- README snippet ends", node, re.S).group(1)
check(node_snippet.strip() in readme, "README's Node MCP snippet is the one tests/skill/mcp_sdk_client.mjs runs")
node = open(os.path.join(src, "tests", "skill", "mcp_sdk_http_client.mjs"), encoding="utf-8").read()
node_snippet = re.search(r"// --- README snippet begins\n(.*?)// --- README snippet ends", node, re.S).group(1)
check(node_snippet.strip() in readme, "README's remote MCP snippet is the one tests/skill/mcp_sdk_http_client.mjs runs")

# ---------------------------------------------------------------- README: curl over HTTP
for curl_block in re.findall(r"<!-- test: curl-http -->\n```sh\n(.*?)\n```", readme, re.S):
    command = curl_block.replace("127.0.0.1:8080", http_address)
    run = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60)
    check(run.returncode == 0 and '"min_gpus":"128"' in run.stdout, f"README curl example: {run.stdout[:120]} {run.stderr[-200:]}")
check("<!-- test: curl-http -->" in readme, "README has the curl example")

server.terminate()
server.wait(timeout=30)
shutil.rmtree(work, ignore_errors=True)
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("skill test: ok")
