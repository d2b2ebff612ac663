#!/usr/bin/env python3
"""The web page's "Start from what you run" panel in headless Chromium against
parplan-server on 127.0.0.1:0, driven over the DevTools protocol (the panel
takes pasted text, which no URL carries):

  import    a Megatron-LM launch script (TP 8, PP 4 on 64 H100): the format
            read, the counts, VALID, the argument table with the TP flag
            mapped to config.tp, the status filter, nothing "NaN" or
            "undefined" in the panel
  estimate  "Estimate speed and memory": step time, tokens/s and peak memory
  recommend "Recommend from here": the plans table, each plan saying what it
            changes from the imported plan (or that it is the same)
  compare   the script and a Megatron-LM log of that run: the steady window,
            the measured-vs-predicted table, the gate; "—" where the log
            says nothing, never NaN / undefined
  bad       an hf-config that is not JSON: the server's 400 shown beside the
            config box, naming the field, the page state "error"

The script and log are written here in Megatron-LM's formats with the values
of its Llama-3 70B example (NVIDIA/Megatron-LM d98e8a64,
examples/llama/train_llama3_70b_h100_fp8.sh style flags; the log line is
megatron/training/training.py's training_log format).

  web_paste_test.py PATH/parplan-server
"""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

SCRIPT = """#!/bin/bash
TP=8
PP=4
torchrun --nproc-per-node 8 --nnodes 8 pretrain_gpt.py \\
  --tensor-model-parallel-size $TP \\
  --pipeline-model-parallel-size $PP \\
  --sequence-parallel \\
  --use-distributed-optimizer \\
  --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 \\
  --num-attention-heads 64 --group-query-attention --num-query-groups 8 \\
  --seq-length 8192 --max-position-embeddings 8192 \\
  --micro-batch-size 1 --global-batch-size 128 \\
  --swiglu --normalization RMSNorm --position-embedding-type rope --untie-embeddings-and-output-weights \\
  --disable-bias-linear --bf16 --lr 3.0e-4 --manual-gc
"""


def log_text():
    lines = []
    for i in range(1, 41):
        ms = 30000.0 if i <= 2 else 9800.0 + (i % 3) * 10.0
        lines.append(
            f" [2025-01-01 00:{i:02d}:00] iteration {i:8d}/{100:8d} | consumed samples: {i * 128:12d} | "
            f"elapsed time per iteration (ms): {ms:.1f} | learning rate: 3.000000E-04 | global batch size: {128:5d} | "
            f"lm loss: 5.000000E+00 | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations: {0:3d} | "
            f"number of nan iterations: {0:3d} |")
    return "\n".join(lines) + "\n"


class Page:
    """One Chromium tab over the DevTools protocol's WebSocket (RFC 6455, text frames)."""

    def __init__(self, ws_url):
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", ws_url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=120)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:{m.group(2)}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            assert chunk, "DevTools closed the WebSocket handshake"
            head += chunk
        assert b" 101 " in head.split(b"\r\n")[0], head[:200]
        self.buf = head.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            assert chunk, "DevTools closed the WebSocket"
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _frame(self):
        b0, b1 = self._read(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self._read(8))[0]
        mask = self._read(4) if b1 & 0x80 else None
        data = self._read(n)
        if mask:
            data = bytes(c ^ mask[i % 4] for i, c in enumerate(data))
        return b0 & 0x80, b0 & 0x0F, data

    def _message(self):
        parts = []
        while True:
            fin, op, data = self._frame()
            if op == 0x9:  # ping
                continue
            parts.append(data)
            if fin:
                return b"".join(parts)

    def call(self, method, **params):
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        header = bytes([0x81])
        n = len(payload)
        header += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else \
            bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(payload)))
        while True:
            msg = json.loads(self._message())
            if msg.get("id") == self.next_id:
                assert "error" not in msg, msg
                return msg["result"]

    def js(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        assert "exceptionDetails" not in r, json.dumps(r)[:800]
        return r["result"].get("value")

    def wait_done(self, what, timeout=120):
        deadline = time.time() + timeout
        state = None
        while time.time() < deadline:
            state = self.js("document.body.dataset.state")
            if state in ("done", "error"):
                return state
            time.sleep(0.1)
        raise AssertionError(f"{what}: the page is still '{state}' after {timeout} s")


# The cells the page formats numbers into (server sentences may say "NaN").
NUMBER_CELLS = ("#paste .stat-value, #paste .stat-sub, #paste .fact dd, #paste td, #paste .rule-source, "
                "#results td")


def panel_text(page):
    """The panel's text; fails when a number the page formats reads NaN, undefined or an object."""
    cells = page.js("Array.from(document.querySelectorAll(%s)).map((e) => e.textContent)" % json.dumps(NUMBER_CELLS))
    for cell in cells:
        for junk in ("NaN", "undefined", "[object Object]", "Infinity"):
            assert junk not in cell, f"'{junk}' in a cell: {cell[:300]}"
    return page.js("document.getElementById('paste').innerText")


def main():
    server = sys.argv[1]
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    assert browser, "chromium is missing: run scripts/setup.sh --packages-only --test-tools"
    work = tempfile.mkdtemp()
    procs = []
    try:
        srv = subprocess.Popen([server, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0"],
                               stdout=subprocess.PIPE, stderr=open(os.path.join(work, "server.err"), "w"), text=True)
        procs.append(srv)
        port = None
        deadline = time.time() + 30
        while port is None and time.time() < deadline:
            m = re.match(r"parplan-server http listening on 127\.0\.0\.1:(\d+)$", srv.stdout.readline().strip())
            port = m and int(m.group(1))
        assert port, "parplan-server did not start"
        chrome = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                   "--no-first-run", f"--user-data-dir={work}/profile", "--remote-debugging-port=0",
                                   "--window-size=1400,2400", "about:blank"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        procs.append(chrome)
        devtools = None
        deadline = time.time() + 60
        while devtools is None and time.time() < deadline:
            m = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", chrome.stderr.readline())
            devtools = m and int(m.group(1))
        assert devtools, "chromium did not open DevTools"
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{devtools}/json/list", timeout=30))
        page = Page(next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"])
        page.call("Page.enable")
        page.call("Page.navigate", url=f"http://127.0.0.1:{port}/?model=llama3_70b&system=h100-sxm&gpus=64")
        time.sleep(0.5)
        assert page.wait_done("loading the catalog") == "done"

        # import
        page.js("(() => { document.getElementById('import-text').value = %s;"
                " document.getElementById('import-form').requestSubmit(); })()" % json.dumps(SCRIPT))
        time.sleep(0.2)
        state = page.wait_done("import")
        assert state == "done", "import failed: " + page.js("document.getElementById('import-error').innerText")
        assert page.js("document.getElementById('import-result').hidden") is False
        title = page.js("document.getElementById('import-title').textContent")
        assert "megatron-lm-script" in title, title
        summary = page.js("document.getElementById('import-summary').innerText")
        assert "VALID" in summary and "INVALID" not in summary, summary
        assert re.search(r"\d+ mapped", summary) and re.search(r"\d+ not modelled", summary), summary
        rows = page.js("Array.from(document.querySelectorAll('#import-args tbody tr')).map((tr) =>"
                       " Array.from(tr.cells).map((c) => c.textContent.trim()))")
        tp = [r for r in rows if r[0] == "--tensor-model-parallel-size"]
        assert tp and tp[0][1] == "8" and tp[0][2] == "mapped" and "config.tp" in tp[0][3], tp or rows[:5]
        page.js("(() => { const f = document.getElementById('args-filter'); f.value = 'mapped';"
                " f.dispatchEvent(new Event('change')); })()")
        statuses = page.js("Array.from(document.querySelectorAll('#import-args tbody tr')).map((tr) => tr.className)")
        assert statuses and set(statuses) == {"arg-mapped"}, statuses
        panel_text(page)
        print(f"web paste: import: {title}; {len(rows)} arguments; the TP flag mapped to config.tp; filter ok")

        # estimate
        page.js("document.getElementById('estimate-button').click()")
        time.sleep(0.2)
        assert page.wait_done("estimate") == "done", page.js("document.getElementById('import-error').innerText")
        estimate = page.js("document.getElementById('estimate-result').innerText")
        assert re.search(r"STEP TIME\s+[\d.]+ s", estimate, re.I) and "TOKENS/S PER GPU" in estimate.upper(), estimate
        panel_text(page)
        print("web paste: estimate: " + " ".join(estimate.split())[:160])

        # recommend
        page.js("document.getElementById('recommend-here-button').click()")
        time.sleep(0.2)
        assert page.wait_done("recommend", 300) == "done", page.js("document.getElementById('error').innerText")
        changes = page.js("Array.from(document.querySelectorAll('#plans .plan-changes')).map((e) => e.textContent)")
        plans = page.js("document.querySelectorAll('#plans tbody tr').length")
        assert plans > 0 and changes, f"{plans} plan rows, changes {changes}"
        print(f"web paste: recommend from here: {plans} rows, changes: {changes[0]}")

        # compare
        page.js("(() => { document.getElementById('log-text').value = %s;"
                " document.getElementById('compare-form').requestSubmit(); })()" % json.dumps(log_text()))
        time.sleep(0.2)
        state = page.wait_done("compare")
        assert state == "done", "compare failed: " + page.js("document.getElementById('log-error').innerText")
        assert page.js("document.getElementById('compare-result').hidden") is False
        for section in ("compare-window", "compare-vs"):
            assert page.js(f"!!document.getElementById('{section}')"), f"no #{section}"
        measured = page.js("Array.from(document.querySelectorAll('#compare-measured tbody tr')).map((tr) =>"
                           " Array.from(tr.cells).map((c) => c.textContent.trim()))")
        step = next(r for r in measured if r[0] == "Step time")
        assert re.match(r"9\.8\d* s", step[1]), step
        text = panel_text(page)
        print("web paste: compare: step " + " | ".join(step) + ("; gate shown" if "Measurement gate" in text else ""))

        # bad
        page.js("(() => { document.getElementById('import-text').value = 'this is not json';"
                " document.getElementById('import-format').value = 'hf-config';"
                " document.getElementById('import-form').requestSubmit(); })()")
        time.sleep(0.2)
        assert page.wait_done("bad import") == "error"
        err = page.js("document.getElementById('import-error').innerText")
        assert page.js("document.getElementById('import-error').hidden") is False and "Import failed" in err, err
        assert page.js("document.getElementById('import-text').getAttribute('aria-invalid')") == "true"
        print("web paste: bad hf-config: " + " ".join(err.split())[:200])
        print("web paste: ok")
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
