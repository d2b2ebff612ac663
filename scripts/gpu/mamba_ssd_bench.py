#!/usr/bin/env python3
"""Mamba-2 SSD (mamba_ssm Triton kernels, as Megatron's MambaMixer runs them) and
the gated RMSNorm: forward and backward times on this GPU. Writes $OUT/mamba_ssd.csv."""
import csv, os, sys, time, traceback
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import packaging  # noqa
except ImportError:
    import types
    pk = types.ModuleType("packaging"); vm = types.ModuleType("packaging.version")
    class V:
        def __init__(self, s): self.t = tuple(int(x) for x in s.split("+")[0].split(".")[:3] if x.isdigit())
        def __ge__(self, o): return self.t >= o.t
        def __lt__(self, o): return self.t < o.t
        def __gt__(self, o): return self.t > o.t
        def __le__(self, o): return self.t <= o.t
    vm.parse = V; pk.version = vm; sys.modules["packaging"] = pk; sys.modules["packaging.version"] = vm
import torch
import triton.testing as tt
from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined
from mamba_ssm.ops.triton.layernorm_gated import rmsnorm_fn

OUT = os.environ.get("OUT", "out")
dev = torch.device("cuda")

def bench(fn):
    return tt.do_bench(fn, warmup=5, rep=30, return_mode="median") * 1e-3

rows = []
cases = [  # name, batch, seq, heads, head_dim, groups, state
    ("nemotron_3_nano", 1, 8192, 64, 64, 8, 128),
    ("nemotron_3_nano", 2, 8192, 64, 64, 8, 128),
    ("nemotron_3_nano", 1, 2048, 64, 64, 8, 128),
    ("nemotron_3_nano", 1, 32768, 64, 64, 8, 128),
    ("nemotron_h_8b", 1, 8192, 128, 64, 8, 128),
    ("nemotron_h_56b_tp8", 1, 8192, 32, 64, 1, 256),
    ("mamba2_2.7b", 1, 4096, 80, 64, 1, 128),
]
for name, b, s, h, p, g, n in cases:
    try:
        x = torch.randn(b, s, h, p, device=dev, dtype=torch.bfloat16, requires_grad=True)
        dt = torch.randn(b, s, h, device=dev, dtype=torch.bfloat16, requires_grad=True)
        A = (-torch.rand(h, device=dev, dtype=torch.float32)).requires_grad_()
        B = torch.randn(b, s, g, n, device=dev, dtype=torch.bfloat16, requires_grad=True)
        C = torch.randn(b, s, g, n, device=dev, dtype=torch.bfloat16, requires_grad=True)
        D = torch.randn(h, device=dev, dtype=torch.float32, requires_grad=True)
        dt_bias = torch.randn(h, device=dev, dtype=torch.float32, requires_grad=True)
        f = lambda: mamba_chunk_scan_combined(x, dt, A, B, C, 128, D=D, dt_bias=dt_bias, dt_softplus=True)
        y = f(); gy = torch.randn_like(y); y.backward(gy)
        t_f = bench(f)
        def fb():
            f().backward(gy)
        t_fb = bench(fb)
        # Gated RMSNorm over d_in = h * p, gate z (MambaMixer's norm before out_proj).
        yy = torch.randn(b * s, h * p, device=dev, dtype=torch.bfloat16, requires_grad=True)
        z = torch.randn_like(yy, requires_grad=True)
        w = torch.ones(h * p, device=dev, dtype=torch.bfloat16, requires_grad=True)
        nf = lambda: rmsnorm_fn(yy, w, None, z=z, eps=1e-5, group_size=h * p // g, norm_before_gate=False)
        o = nf(); go = torch.randn_like(o); o.backward(go)
        n_f = bench(nf)
        def nfb():
            nf().backward(go)
        n_fb = bench(nfb)
        rows.append([name, b, s, h, p, g, n, f"{t_f:.4e}", f"{t_fb - t_f:.4e}", f"{n_f:.4e}", f"{n_fb - n_f:.4e}"])
        print(rows[-1], flush=True)
        del x, dt, B, C, y, gy, yy, z, o, go
        torch.cuda.empty_cache()
    except Exception:
        traceback.print_exc()
with open(os.path.join(OUT, "mamba_ssd.csv"), "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["model", "batch", "seq", "heads", "head_dim", "groups", "state", "ssd_fwd_s", "ssd_bwd_s",
                "gated_norm_fwd_s", "gated_norm_bwd_s"])
    w.writerows(rows)
print("done")
