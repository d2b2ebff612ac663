#include "core/perf/kernel_rates.h"

namespace parplan {
namespace {

// Hopper: H100 SXM / H200 SXM (same SMs and clocks), from the H200 kernel
// tables in tests/data/h200_kernels (2026-12-04, sustained clocks at 700 W).
// bench/kernel_accuracy_bench evaluates every row; core/perf/README.md lists
// how each value follows from them.
KernelRates Hopper() {
  KernelRates r;
  r.gemm_ceiling[0] = 0.71;         // gemm.csv bf16: layer GEMMs 640-720 TFLOP/s of 989
  r.gemm_ceiling[1] = 0.67;         // gemm.csv fp8_tensorwise: 1,250-1,350 TFLOP/s of 1,979
  r.gemm_ceiling[2] = 0.67;         // no FP4 on Hopper: runs as FP8
  r.gemm_launch_us = 5;             // gemm.csv: 512^3 takes 8 us
  r.reference_bf16_tflops = 989.4;  // H200 SXM (H100 SXM: the same SMs and clocks)
  r.attention_forward = 0.60;       // attention.csv cudnn fwd, d=128, 8K-32K: 590-650 TFLOP/s
  r.attention_backward = 0.52;      // attention.csv cudnn bwd, d=128, 8K-32K: 500-560 TFLOP/s
  r.attention_forward_us = 6;
  r.attention_backward_us = 40;
  r.attention_tail = 0.25;
  // The head-dimension model (kernel_time.h, AttentionHeadShare): H100/H200
  // run 4,096 dense bf16 FLOP per clock per SM (H100 whitepaper; 132 SMs x
  // 4,096 x 1.83 GHz = 989 TFLOP/s) and 16 exponentials (MUFU.EX2; the
  // FlashAttention-4 paper). The rest of a 128x128 tile's clocks is solved
  // from attention.csv's head dim 64 / 128 ratios of its long calls (64
  // heads at 8K and 16K, 8 heads at 16K and 32K): forward 0.71-0.77, mean
  // 0.73 -> 180 clocks; backward 0.78-0.82, mean 0.79 -> 770 clocks.
  // Head dims above 128 (MLA's 192/128) run at the d = 128 rate per FLOP:
  // 0.98-1.00 of it measured (16-128 heads, 4K-16K).
  r.tensor_flops_per_clock_per_sm = 4096;
  r.exp_per_clock_per_sm = 16;
  r.attention_other_clocks[0] = 180;
  r.attention_other_clocks[1] = 770;
  r.stream_efficiency = 0.85;     // elementwise.csv copy/add: 3.2-4.3 TB/s of 4.8
  r.reduction_efficiency = 0.55;  // elementwise.csv rms_norm/layer_norm: 2.3-2.9 TB/s
  r.elementwise_launch_us = 5;
  r.gelu_efficiency = 0.63;  // elementwise.csv gelu: 2.8-3.1 TB/s
  // recompute_parts_and_fp8.csv: eager RMSNorm/LayerNorm backward, less the
  // x.grad accumulation the measurement includes, 2.1-2.5x the forward.
  r.norm_backward_ratio = 2.3;
  r.adam_bytes_per_param = 28;  // step_parts.csv: fused AdamW 8.06 ps/param = 28 B at 3.47 TB/s of 4.8
  r.adam_efficiency = 0.72;
  // tests/data/h200_layers/mamba_ssd.csv (mamba_ssm Triton SSD, Nemotron-3
  // Nano shape): 32K tokens, GPU-bound, forward 1.23 ms for 2.96 GB of
  // traffic (2.4 TB/s = 0.5 of 4.8), backward 3.9x; at 2-8K tokens the
  // call is host-bound at 0.46 ms forward and 2.9 ms backward. The gated
  // norm's backward is 6.7x its forward (32K tokens).
  r.ssd_efficiency = 0.5;
  r.ssd_backward_ratio = 3.9;
  r.ssd_host_us = 3400;
  r.gated_norm_backward_ratio = 6.7;
  // moe_permute.csv (eager PyTorch, four MoE shapes, 8K tokens): unpermute
  // 666-809 GB/s of 4.8 TB/s (0.14-0.17); permute (gather) 3.7-4.9 TB/s,
  // the streaming rate; route_sort 154-180 us whatever the shape.
  r.scatter_efficiency = 0.16;
  r.route_sort_us = 155;
  return r;
}

// Published GEMM and attention rates come from short benchmark runs, which
// overstate what a training step sustains: on the H200 the same 8192^3 FP8
// GEMM ran at 1,528 TFLOP/s on a cold GPU and 1,305-1,348 sustained
// (tests/data/h200_kernels: recompute_parts_and_fp8.csv vs gemm.csv), a
// factor 0.87 applied to every published rate below.
constexpr double kSustainedOverBurst = 0.87;

// Ampere (A100): published measurements, derated to sustained clocks. GEMM:
// 0.87 of the bf16 peak for large shapes (S. Bekman, ml-engineering "Maximum Achievable Matmul FLOPS"
// table, A100 SXM bf16 271 of 312 TFLOP/s; no FP8). Attention:
// FlashAttention-2 (Dao 2023, Fig. 4-6): forward up to 73%, backward up to
// 63% of the A100 peak at head dim 128. Memory-bound kernels: Hopper's measured shares.
KernelRates Ampere() {
  KernelRates r = Hopper();
  r.reference_bf16_tflops = 312;  // A100 SXM
  // A100 whitepaper: 1,024 dense FP16/BF16 FMA per clock per SM (108 SMs x
  // 2,048 FLOP x 1.41 GHz = 312 TFLOP/s); exponentials and the rest of a
  // tile's clocks as Hopper's (the same SFU count per SM).
  r.tensor_flops_per_clock_per_sm = 2048;
  r.gemm_ceiling[0] = r.gemm_ceiling[1] = r.gemm_ceiling[2] = 0.87 * kSustainedOverBurst;
  r.attention_forward = 0.70 * kSustainedOverBurst;
  r.attention_backward = 0.60 * kSustainedOverBurst;
  return r;
}

// Blackwell (B200/GB200/B300/GB300): published measurements on B200, derated
// from short-run to sustained clocks. GEMM: 0.78 of the bf16 and 0.76 of the
// FP8 dense peak (S. Bekman, ml-engineering "Maximum Achievable Matmul
// FLOPS" table, B200: 1,755 bf16 TFLOP/s). GB200 and GB300 market a 2,500
// TFLOP/s peak on the same silicon; the same table measures GB200 at 0.73 of
// it (1,825 TFLOP/s, 4% above B200 where the peak is 11% above), so their
// shares are scaled by 2,250 / 2,500 (reference_bf16_tflops). Attention:
// cuDNN 9.13 on B200 reaches 1/1.3 of FlashAttention-4's 1,605 TFLOP/s
// (Zadouri et al. 2025, "FlashAttention-4": up to 1.3x faster than cuDNN
// 9.13), 0.55 of the bf16 peak; backward at Hopper's measured
// backward/forward ratio. FP4: no published sustained NVFP4 GEMM measurement
// was found; FP8's share is assumed (core/perf/README.md names it), scaled
// like the others (B300/GB300's extra FP4 units are in their FP4 peak).
// Attention's head-dimension share: 8,192 dense bf16 FLOP per clock per SM
// (twice Hopper's) with the same 16 exponentials per clock per SM and the
// same shared-memory bandwidth (FlashAttention-4: the exponential, not the
// MMA, bounds the B200 forward at head dim 128); the rest of a tile's clocks
// as measured on Hopper. Blackwell Ultra (B300, GB300) doubles the
// exponential rate (NVIDIA, "Making Softmax More Efficient with NVIDIA
// Blackwell Ultra"): the catalog's exp_per_clock_per_sm, applied by
// AttentionHeadShare relative to the B200 these rates were measured on.
// Every figure and its source: tests/data/blackwell_kernels/published.csv.
// Memory-bound kernels: Hopper's measured shares of the HBM peak.
KernelRates Blackwell() {
  KernelRates r = Hopper();
  r.reference_bf16_tflops = 2250;  // B200
  r.gemm_ceiling[0] = 0.78 * kSustainedOverBurst;
  r.gemm_ceiling[1] = 0.76 * kSustainedOverBurst;
  r.gemm_ceiling[2] = 0.76 * kSustainedOverBurst;
  r.attention_forward = 0.55 * kSustainedOverBurst;
  r.attention_backward = r.attention_forward * 0.52 / 0.60;
  r.tensor_flops_per_clock_per_sm = 8192;  // 148 SMs x 8,192 x 1.86 GHz = 2,250 TFLOP/s
  r.exp_per_clock_per_sm = 16;
  return r;
}

}  // namespace

const KernelRates& MeasuredKernelRates(int arch) {
  static const KernelRates rates[3] = {Ampere(), Hopper(), Blackwell()};
  if (arch <= 0) return rates[0];
  return arch == 1 ? rates[1] : rates[2];
}

}  // namespace parplan
