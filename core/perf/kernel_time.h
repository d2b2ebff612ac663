// Time of single GPU kernels from their shapes: GEMMs (tile and wave
// quantization over the SMs, a roofline against HBM), cuDNN fused attention
// (causal work per query block spread over the SMs), and memory-bound
// kernels (bytes moved at the measured streaming or reduction rate). The
// rates come from the system (peaks, HBM bandwidth, SM count) and from
// kernel measurements (core/perf/kernel_rates.h); nothing here is fitted
// to step times. bench/kernel_accuracy_bench holds every function against
// the measured H200 tables.
#ifndef PARPLAN_CORE_PERF_KERNEL_TIME_H_
#define PARPLAN_CORE_PERF_KERNEL_TIME_H_

#include <cstdint>

#include "core/config/precision.h"
#include "core/perf/kernel_rates.h"
#include "core/system/system_spec.h"

namespace parplan {

// The GPU as the kernel timings see it.
struct Device {
  int arch = 1;  // 0 = Ampere, 1 = Hopper, 2 = Blackwell
  int sm_count = 132;
  double peak_flops = 0;       // dense tensor FLOP/s at the GEMM precision
  double peak_bf16_flops = 0;  // attention runs in bf16
  double hbm_peak_bytes_per_s = 0;
  double gemm_ceiling = 0.7;  // largest fraction of peak a large GEMM sustains at this precision
  double operand_bytes = 2;   // bytes per GEMM operand element (bf16 2, FP8 1, FP4 0.5 plus scales)
  // HBM bytes per input element to quantize a bf16 GEMM input into the GEMM
  // precision for both operand layouts (row-wise for this GEMM, column-wise
  // for the weight gradient): read 2 B, write 2 x operand bytes, plus one
  // more read for current scaling's amax pass (Transformer Engine's fused
  // cast-transpose); 0 in bf16.
  double quantize_bytes = 0;
  KernelRates rates;  // measured kernel rates of the architecture
  // Exponentials (MUFU.EX2) per clock per SM of this GPU: the system's, else
  // its architecture's (KernelRates::exp_per_clock_per_sm).
  double exp_per_clock_per_sm = 16;
  // Seconds per byte of streaming and reduction kernels.
  double StreamBytesPerS() const { return hbm_peak_bytes_per_s * rates.stream_efficiency; }
  double ReductionBytesPerS() const { return hbm_peak_bytes_per_s * rates.reduction_efficiency; }
};

// Arch index of `system`: ampere 0, hopper 1, blackwell (and anything newer) 2.
int ArchIndex(const SystemSpec& system);

// SMs of the system's GPU: the catalog's figure, else its architecture's
// flagship (A100 108, H100 SXM 132, B200 148; NVIDIA architecture whitepapers).
int SmCount(const SystemSpec& system);

// The device for GEMMs at `precision` on `system`, with its architecture's
// measured kernel rates.
Device MakeDevice(const SystemSpec& system, Precision precision);

// Seconds of one GEMM kernel C[m x n] = A[m x k] B[k x n], or of one grouped
// kernel over `count` such problems (their tiles share the waves; one
// launch). The kernel picks the output tile (128x256, 128x128 or 64x128)
// that finishes first; compute runs at ceiling x peak x (useful share of the
// padded tiles) x (share of the last wave's SMs kept busy; fewer tiles than
// SMs split K over more of them), and never faster than reading A and B and
// writing C once from HBM (`output_bytes` per element of C: 2 for bf16, 8
// for a weight gradient accumulated into the fp32 main_grad, read and
// written). Zero for empty shapes.
double GemmSeconds(double m, double n, double k, double count, const Device& device, double output_bytes = 2);

// `count` separate GEMM kernels of one shape (one launch each).
double LoopedGemmSeconds(double m, double n, double k, double count, const Device& device, double output_bytes = 2);

// Forward and backward seconds of one GEMM Y[m x n] = X[m x k] W[k x n] in
// training (grouped over `count` experts when count > 1): the forward (with
// quantizing X), the data gradient dX = dY W^T (m x k x n) and the weight
// gradient dW = X^T dY (k x n x m) (with quantizing dY; accumulated into
// fp32 main_grad, Megatron's gradient_accumulation_fusion). Weights are
// quantized once per step, not counted.
struct TrainingGemm {
  double forward = 0;
  double backward = 0;
};
// `looped`: the `count` problems run as one GEMM kernel each (Transformer
// Engine's GroupedLinear: a cuBLAS GEMM per local expert on a few streams,
// general_grouped_gemm) instead of one grouped kernel.
TrainingGemm TrainingGemmSeconds(double m, double n, double k, double count, const Device& device, bool looped = false);

// Seconds of `kernels` streaming kernels (copies, adds, activations, casts)
// moving `bytes` through HBM (reads + writes) in all.
double StreamSeconds(double bytes, const Device& device, double kernels = 1);

// Forward and backward of memory-bound work.
struct PassSeconds {
  double forward = 0;
  double backward = 0;
};

// A RMSNorm or LayerNorm over `elements` bf16 values (tokens x width): the
// forward reads and writes them at the reduction rate; the backward moves
// norm_backward_ratio times that (measured).
PassSeconds NormSeconds(double elements, const Device& device);

// GeLU over `elements` bf16 values: the forward reads and writes them at the
// measured GeLU rate; the backward reads x and dy and writes dx, streaming.
PassSeconds GeluSeconds(double elements, const Device& device);

// Mamba's gated RMSNorm (mamba_ssm layernorm_gated) over `elements`
// values: a norm forward; its backward (dx, dz, dw partials) is
// gated_norm_backward_ratio times the forward (measured).
PassSeconds GatedNormSeconds(double elements, const Device& device);

// The Mamba-2 chunked SSD scan (mamba_ssm mamba_chunk_scan_combined, chunk
// 128) over `tokens` tokens of `d_in` channels in `heads` heads, `groups`
// B/C groups of `state` states: the larger of its FLOPs (intra-chunk C B^T
// and its product with x, chunk states in and out) at
// mamba_scan_efficiency of the bf16 peak and its HBM traffic (x, B, C read
// twice, y written, fp32 chunk states written, passed and read) at
// ssd_efficiency; backward ssd_backward_ratio times the forward. GPU time
// only: the host's launch time is KernelRates::ssd_host_us.
PassSeconds SsdScanSeconds(double tokens, double d_in, double heads, double groups, double state, const Device& device);

// Fused AdamW over `params` fp32 parameters (Megatron's optimizer step).
double AdamSeconds(double params, const Device& device);

// One cuDNN fused attention call: `batch` independent sequences (or CP
// chunk pairs) of `heads` query heads, q_len queries against k_len keys.
// Causal: the queries are the last q_len of the keys (bottom-right aligned);
// `window` > 0 limits each query to the last `window` keys.
struct AttentionCall {
  double batch = 1;
  double heads = 0;
  double q_len = 0;
  double k_len = 0;
  bool causal = true;
  double window = 0;
  double qk_dim = 128;
  double v_dim = 128;
};

// Forward: each (head, 128-query block) is one unit of work per 128-key
// block it sees; the units spread over the SMs, and the longest block adds
// its tail (attention_tail of it) beyond the even spread, at
// attention_forward x bf16 peak x AttentionHeadShare per SM, plus a fixed
// time per call. Backward: 2.5x the forward FLOPs at attention_backward
// (times the backward's head share), plus reading O and dO and the fp32 dQ
// accumulator, plus its fixed time.
PassSeconds FusedAttentionSeconds(const AttentionCall& call, const Device& device);

// The rate of fused attention at head dimension `head_dim` (the mean of the
// QK and V dimensions) on `device`, as a share of the measured rate at head
// dimension 128 on its architecture's reference GPU: (head_dim / 128) x
// clocks(128, reference exponential rate) / clocks(head_dim, the device's),
// where clocks() of one 128x128 tile is its MMA (2.5x the forward's in the
// backward) plus its 128^2 exponentials plus the rest
// (KernelRates::attention_other_clocks), one after the other; a head
// dimension above 128 counts as 128 (cuDNN's MLA kernels run at the d = 128
// rate per FLOP, measured on the H200). Where the
// exponentials take as long as the MMA (Blackwell at 128), halving the head
// dimension saves little; doubling the exponential rate (Blackwell Ultra)
// speeds every head dimension up. 1 for head_dim 128 on the reference GPU.
double AttentionHeadShare(double head_dim, bool backward, const Device& device);

// Useful FLOPs of `call`'s forward (2 GEMMs over the unmasked scores).
double AttentionForwardFlops(const AttentionCall& call);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_KERNEL_TIME_H_
