// Time of single GPU kernels from their shapes: GEMMs (tile and wave
// quantization over the SMs, a roofline against HBM), fused attention (by
// head dimension and keys per query) and memory-bound kernels (bytes moved).
// The rates come from the system (peak, HBM bandwidth, SM count) and from
// ceilings measured on real kernels (PerfParams, core/perf/README.md).
#ifndef PARPLAN_CORE_PERF_KERNEL_TIME_H_
#define PARPLAN_CORE_PERF_KERNEL_TIME_H_

#include <cstdint>

#include "core/config/precision.h"
#include "core/system/system_spec.h"

namespace parplan {

struct PerfParams;

// The GPU as the kernel timings see it.
struct Device {
  int arch = 1;  // 0 = Ampere, 1 = Hopper, 2 = Blackwell
  int sm_count = 132;
  double peak_flops = 0;            // dense tensor FLOP/s at the GEMM precision
  double peak_bf16_flops = 0;       // attention runs in bf16
  double hbm_bytes_per_s = 0;       // achievable (peak x hbm_efficiency)
  double gemm_ceiling = 0.7;        // largest fraction of peak a large GEMM reaches at this precision
  double grouped_share = 0.85;      // a grouped GEMM's ceiling relative to a dense one
  double kernel_overhead_s = 3e-6;  // fixed GPU time per GEMM or quantization kernel
  double operand_bytes = 2;         // bytes per GEMM operand element (bf16 2, FP8 1, FP4 0.5 plus scales)
  // HBM bytes per input element to quantize a bf16 GEMM input into the GEMM
  // precision for both operand layouts (row-wise for this GEMM, column-wise
  // for the weight gradient): read 2 B, write 2 x operand bytes, plus one
  // more read for current scaling's amax pass (Transformer Engine); 0 in bf16.
  double quantize_bytes = 0;
};

// Arch index of `system`: ampere 0, hopper 1, blackwell (and anything newer) 2.
int ArchIndex(const SystemSpec& system);

// SMs of the system's GPU: the catalog's figure, else its architecture's
// flagship (A100 108, H100 SXM 132, B200 148; NVIDIA architecture whitepapers).
int SmCount(const SystemSpec& system);

// The device for GEMMs at `precision` on `system`.
Device MakeDevice(const SystemSpec& system, Precision precision, const PerfParams& params);

// Seconds of `count` independent GEMMs C[m x n] = A[m x k] B[k x n] (a
// grouped GEMM when count > 1: the tiles of all problems share the waves).
// The kernel picks the output tile (128x256, 128x128 or 64x128) that
// finishes first; compute runs at ceiling x peak x (useful share of the
// padded tiles) x (share of the last wave's SMs kept busy; fewer tiles than
// SMs split K over more of them), and never faster
// than reading A and B and writing C once from HBM (`output_bytes` per
// element of C: 2 for bf16, 8 for a weight gradient accumulated into the fp32
// main_grad, read and written). Zero for empty shapes.
double GemmSeconds(double m, double n, double k, double count, const Device& device, double output_bytes = 2);

// Forward and backward seconds of one GEMM Y[m x n] = X[m x k] W[k x n] in
// training: the forward (with quantizing X), the data gradient dX = dY W^T
// (m x k x n) and the weight gradient dW = X^T dY (k x n x m) (with
// quantizing dY; accumulated into fp32 main_grad, Megatron's
// gradient_accumulation_fusion). Weights are quantized once per step, not counted.
struct TrainingGemm {
  double forward = 0;
  double backward = 0;
};
TrainingGemm TrainingGemmSeconds(double m, double n, double k, double count, const Device& device);

// Seconds to move `bytes` through HBM (read + write) at the achievable rate.
double MemorySeconds(double bytes, const Device& device);

// Fused (flash) attention of `tokens` queries, each attending to `keys`
// keys on average (causal: about half the sequence; the kernel skips masked
// blocks), `heads` query heads on this GPU, head dims `qk_dim` and `v_dim`.
// Forward: 2 GEMMs (QK^T, PV); backward: 5 of them (recompute of S, dV, dP,
// dQ, dK), at the attention ceiling scaled by the head dimension (small
// heads use the tensor cores less well: FlashAttention-2/3 papers).
struct AttentionSeconds {
  double forward = 0;
  double backward = 0;
};
// `block` is the query length of one kernel call (the sequence, or one of a
// CP rank's two load-balanced chunks): short calls run slower (FlashAttention-3
// forward, d=128, H100: 430 / 517 / 566 / 590 / 614 / 621 TFLOP/s at 512 /
// 1k / 2k / 4k / 8k / 16k, i.e. about block / (block + 230)).
AttentionSeconds FlashAttentionSeconds(double tokens, double keys, double heads, double qk_dim, double v_dim,
                                       double block, const Device& device, const PerfParams& params);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_KERNEL_TIME_H_
