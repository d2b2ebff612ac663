#!/usr/bin/env python3
"""Host launch time of eager layers (short sequences, where the GPU waits on
Python) and a kernel-by-kernel profile of one dense layer's forward+backward."""
import csv, os, sys, time
import torch
import triton.testing as tt
sys.path.insert(0, os.path.dirname(__file__))
from layers import Dense, Moe  # shared/tools/gpu/layers.py, copied next to this file

OUT = os.environ.get("OUT", "out")
dev = torch.device("cuda")

def bench(fn):
    return tt.do_bench(fn, warmup=10, rep=60, return_mode="median") * 1e-3

def host_issue(fn, n=30):
    # CPU seconds to issue one call without waiting for the GPU.
    fn(); torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    cpu = (time.perf_counter() - t) / n
    torch.cuda.synchronize()
    return cpu

rows = []
for s in (128, 512, 2048, 8192):
    m = Dense(4096, 32, 8, 128, 14336).to(dev, torch.bfloat16)
    x = torch.randn(1, s, 4096, device=dev, dtype=torch.bfloat16, requires_grad=True)
    gy = torch.randn_like(x)
    def fb():
        m(x).backward(gy)
    rows.append(["dense_llama3_8b", s, f"{bench(lambda: m(x)):.4e}", f"{bench(fb):.4e}", f"{host_issue(lambda: m(x)):.4e}", f"{host_issue(fb):.4e}"])
    print(rows[-1], flush=True)
    del m, x, gy
for T in (256, 2048, 8192):
    m = Moe(2048, 768, 16, 8).to(dev, torch.bfloat16)
    x = torch.randn(1, T, 2048, device=dev, dtype=torch.bfloat16, requires_grad=True)
    gy = torch.randn_like(x)
    def fb():
        m(x).backward(gy)
    rows.append(["moe_qwen3_ep8_local", T, f"{bench(lambda: m(x)):.4e}", f"{bench(fb):.4e}", f"{host_issue(lambda: m(x)):.4e}", f"{host_issue(fb):.4e}"])
    print(rows[-1], flush=True)
    del m, x, gy
with open(os.path.join(OUT, "host_time.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["layer", "tokens", "gpu_fwd_s", "gpu_fwd_bwd_s", "host_issue_fwd_s", "host_issue_fwd_bwd_s"])
    w.writerows(rows)

# Kernel profile of a Llama-3 8B layer (seq 8192) and Llama-3 70B TP8 layer shape.
from torch.profiler import profile, ProfilerActivity
with open(os.path.join(OUT, "layer_kernels.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["layer", "seq", "kernel", "calls", "cuda_us_total", "wall_us_fwd_bwd"])
    for name, h, a, g, d, ff, s in (("llama3_8b", 4096, 32, 8, 128, 14336, 8192), ("llama3_70b_tp8", 8192, 8, 1, 128, 3584, 8192)):
        m = Dense(h, a, g, d, ff).to(dev, torch.bfloat16)
        x = torch.randn(1, s, h, device=dev, dtype=torch.bfloat16, requires_grad=True)
        gy = torch.randn_like(x)
        for _ in range(3):
            m(x).backward(gy)
        torch.cuda.synchronize()
        n = 5
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            t = time.perf_counter()
            for _ in range(n):
                m(x).backward(gy)
            torch.cuda.synchronize()
            wall = (time.perf_counter() - t) / n
        for e in prof.key_averages():
            dt = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
            if dt > 0:
                w.writerow([name, s, e.key[:120].replace(",", ";"), e.count // n, f"{dt / n:.1f}", f"{wall*1e6:.0f}"])
        print(name, "wall", wall, flush=True)
        del m, x, gy
print("done")
