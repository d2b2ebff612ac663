#include "core/perf/kernel_time.h"

#include <algorithm>
#include <cmath>

namespace parplan {
namespace {

// Output tiles a Hopper/Blackwell GEMM kernel picks from, with the share of
// the large tile's rate each keeps (smaller tiles reuse operands less:
// NVIDIA "Matrix Multiplication Background User's Guide", tile quantization).
struct Tile {
  double rows, cols, rate;
};
constexpr Tile kTiles[] = {{128, 256, 1.0}, {128, 128, 0.9}, {64, 128, 0.75}};

constexpr double kAttentionBlock = 128;  // queries per CTA and keys per step (cuDNN / FlashAttention on Hopper)

// Sum over queries j = 0..q-1 of min(cap, j + first): the keys each query
// sees when the first sees `first` and each next one more, up to `cap`.
double SumOfCappedRamp(double q, double first, double cap) {
  if (q <= 0) return 0;
  if (first >= cap) return q * cap;
  const double uncapped = std::min(q, cap - first + 1);
  return uncapped * first + uncapped * (uncapped - 1) / 2 + (q - uncapped) * cap;
}

// Keys query `first`-th sees, and the cap, for a causal call.
double VisibleCap(const AttentionCall& c, double k_len) { return c.window > 0 ? std::min(c.window, k_len) : k_len; }

}  // namespace

int ArchIndex(const SystemSpec& s) {
  if (s.gpu_arch == "ampere") return 0;
  if (s.gpu_arch == "hopper") return 1;
  return 2;
}

int SmCount(const SystemSpec& s) {
  if (s.sm_count > 0) return s.sm_count;
  switch (ArchIndex(s)) {
    case 0:
      return 108;
    case 1:
      return 132;
    default:
      return 148;
  }
}

Device MakeDevice(const SystemSpec& s, Precision precision) {
  Device d;
  d.arch = ArchIndex(s);
  d.sm_count = SmCount(s);
  d.rates = MeasuredKernelRates(d.arch);
  d.exp_per_clock_per_sm = s.exp_per_clock_per_sm > 0 ? s.exp_per_clock_per_sm : d.rates.exp_per_clock_per_sm;
  d.peak_bf16_flops = s.bf16_dense_tflops * 1e12;
  d.hbm_peak_bytes_per_s = s.hbm_bw_tbps * 1e12;
  // A precision the GPU lacks runs at the one it falls back to (PeakTflops).
  int prec = 0;
  double peak = s.bf16_dense_tflops;
  if (IsFp4(precision) && s.fp4_dense_tflops > 0) {
    prec = 2;
    peak = s.fp4_dense_tflops;
  } else if ((IsFp4(precision) || IsFp8(precision)) && s.fp8_dense_tflops > 0) {
    prec = 1;
    peak = s.fp8_dense_tflops;
  }
  d.peak_flops = peak * 1e12;
  // A higher marketed peak on the same silicon sustains the reference's
  // absolute rate (KernelRates::reference_bf16_tflops).
  const double clock_share = d.rates.reference_bf16_tflops > 0 && s.bf16_dense_tflops > 0
                                 ? std::min(1.0, d.rates.reference_bf16_tflops / s.bf16_dense_tflops)
                                 : 1.0;
  d.gemm_ceiling = d.rates.gemm_ceiling[prec] * clock_share;
  d.rates.attention_forward *= clock_share;
  d.rates.attention_backward *= clock_share;
  d.operand_bytes = prec == 2 ? 0.5 + 1.0 / 16 : prec == 1 ? 1.0 : 2.0;
  // An amax pass first where the scale is per tensor: FP8 current scaling,
  // and NVFP4's second level (one FP32 scale per tensor over its E4M3 block
  // scales; NVIDIA's NVFP4 format).
  const bool tensor_amax = precision == Precision::kFp8Cs || (prec == 2 && precision == Precision::kNvfp4);
  if (prec > 0) d.quantize_bytes = 2.0 + 2.0 * d.operand_bytes + (tensor_amax ? 2.0 : 0.0);
  return d;
}

double GemmSeconds(double m, double n, double k, double count, const Device& d, double output_bytes) {
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return 0;
  const double flops = 2.0 * m * n * k * count;
  double best_rate = 0;
  for (const Tile& t : kTiles) {
    const double tiles = std::ceil(m / t.rows) * std::ceil(n / t.cols) * count;
    const double useful = (m * n * count) / (tiles * t.rows * t.cols);
    // Too few tiles to fill the SMs: split K over more of them (split-K /
    // stream-K), in slices of at least 512.
    const double split = std::max(1.0, std::min(std::floor(d.sm_count / tiles), std::floor(k / 512)));
    const double waves = std::ceil(tiles * split / d.sm_count);
    const double busy = tiles * split / (waves * d.sm_count);
    best_rate = std::max(best_rate, t.rate * useful * busy);
  }
  const double compute = flops / (d.peak_flops * d.gemm_ceiling * best_rate);
  // Operands in the GEMM precision, the output as the caller says; a GEMM
  // streams them at the streaming kernels' share of HBM.
  const double bytes = ((m * k + k * n) * d.operand_bytes + m * n * output_bytes) * count;
  return std::max(compute, bytes / d.StreamBytesPerS()) + d.rates.gemm_launch_us * 1e-6;
}

double LoopedGemmSeconds(double m, double n, double k, double count, const Device& d, double output_bytes) {
  return count > 0 ? count * GemmSeconds(m, n, k, 1, d, output_bytes) : 0;
}

TrainingGemm TrainingGemmSeconds(double m, double n, double k, double count, const Device& d, bool looped) {
  TrainingGemm t;
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return t;
  // One fused cast-transpose kernel per quantized input (all experts at once).
  auto quantize = [&](double elements) {
    return d.quantize_bytes > 0 ? StreamSeconds(elements * d.quantize_bytes, d) : 0.0;
  };
  auto gemm = [&](double gm, double gn, double gk, double out_bytes) {
    return looped ? LoopedGemmSeconds(gm, gn, gk, count, d, out_bytes) : GemmSeconds(gm, gn, gk, count, d, out_bytes);
  };
  t.forward = gemm(m, n, k, 2.0) + quantize(m * k * count);
  t.backward = gemm(m, k, n, 2.0) + gemm(k, n, m, 8.0) + quantize(m * n * count);
  return t;
}

double StreamSeconds(double bytes, const Device& d, double kernels) {
  if (bytes <= 0) return 0;
  return bytes / d.StreamBytesPerS() + kernels * d.rates.elementwise_launch_us * 1e-6;
}

PassSeconds NormSeconds(double elements, const Device& d) {
  PassSeconds p;
  if (elements <= 0) return p;
  p.forward = 2.0 * 2.0 * elements / d.ReductionBytesPerS() + d.rates.elementwise_launch_us * 1e-6;
  p.backward = d.rates.norm_backward_ratio * p.forward;
  return p;
}

double AdamSeconds(double params, const Device& d) {
  if (params <= 0) return 0;
  return params * d.rates.adam_bytes_per_param / (d.hbm_peak_bytes_per_s * d.rates.adam_efficiency) +
         d.rates.elementwise_launch_us * 1e-6;
}

PassSeconds GeluSeconds(double elements, const Device& d) {
  PassSeconds p;
  if (elements <= 0) return p;
  p.forward =
      2.0 * 2.0 * elements / (d.hbm_peak_bytes_per_s * d.rates.gelu_efficiency) + d.rates.elementwise_launch_us * 1e-6;
  p.backward = StreamSeconds(3.0 * 2.0 * elements, d);
  return p;
}

PassSeconds GatedNormSeconds(double elements, const Device& d) {
  PassSeconds p = NormSeconds(elements, d);
  p.backward = p.forward * d.rates.gated_norm_backward_ratio;
  return p;
}

PassSeconds SsdScanSeconds(double tokens, double d_in, double heads, double groups, double state, const Device& d) {
  PassSeconds p;
  if (tokens <= 0 || d_in <= 0) return p;
  constexpr double kChunk = 128;  // Megatron MambaMixer chunk_size
  const double flops = tokens * (2 * kChunk * (groups * state + d_in) + 4 * state * d_in);
  const double bytes = tokens * ((3 * d_in + 4 * groups * state + heads) * 2.0 + 3 * d_in * state / kChunk * 4 +
                                 2 * kChunk * groups * 4);
  const double compute = flops / (d.peak_bf16_flops * d.rates.mamba_scan_efficiency);
  const double memory = bytes / (d.hbm_peak_bytes_per_s * d.rates.ssd_efficiency);
  // Five kernels forward (chunk cumsum, chunk state, state passing, chunk bmm, chunk scan).
  p.forward = std::max(compute, memory) + 5 * d.rates.elementwise_launch_us * 1e-6;
  p.backward = p.forward * d.rates.ssd_backward_ratio;
  return p;
}

double AttentionHeadShare(double head_dim, bool backward, const Device& d) {
  const KernelRates& r = d.rates;
  if (head_dim <= 0 || r.tensor_flops_per_clock_per_sm <= 0 || r.exp_per_clock_per_sm <= 0 ||
      d.exp_per_clock_per_sm <= 0)
    return 1;
  constexpr double kScores = kAttentionBlock * kAttentionBlock;
  // The backward recomputes S and P (one exponential per score) and runs
  // 2.5x the forward's MMA FLOPs (dV, dP, dQ, dK).
  const double mma_passes = backward ? 2.5 : 1.0;
  auto clocks = [&](double dim, double exp_per_clock) {
    return mma_passes * 4 * kScores * dim / r.tensor_flops_per_clock_per_sm + kScores / exp_per_clock +
           r.attention_other_clocks[backward ? 1 : 0];
  };
  // Above 128 (MLA's 192/128) cuDNN runs at the d = 128 rate per FLOP
  // (attention.csv: 0.98-1.00 of it on the H200).
  const double dim = std::min(head_dim, 128.0);
  return (dim / 128) * clocks(128, r.exp_per_clock_per_sm) / clocks(dim, d.exp_per_clock_per_sm);
}

double AttentionForwardFlops(const AttentionCall& c) {
  if (c.heads <= 0 || c.q_len <= 0 || c.k_len <= 0 || c.batch <= 0) return 0;
  const double scores =
      c.causal ? SumOfCappedRamp(c.q_len, c.k_len - c.q_len + 1, VisibleCap(c, c.k_len)) : c.q_len * c.k_len;
  return 2.0 * scores * c.heads * c.batch * (c.qk_dim + c.v_dim);
}

PassSeconds FusedAttentionSeconds(const AttentionCall& c, const Device& d) {
  PassSeconds p;
  if (c.heads <= 0 || c.q_len <= 0 || c.k_len <= 0 || c.batch <= 0) return p;
  const KernelRates& r = d.rates;
  // Work units: one per (query block, key block) pair the mask keeps.
  const double q_blocks = std::ceil(c.q_len / kAttentionBlock);
  const double k_blocks = std::ceil(c.k_len / kAttentionBlock);
  double per_row_units = 0, longest = 0;
  if (c.causal) {
    const double cap = std::ceil(VisibleCap(c, c.k_len) / kAttentionBlock) + (c.window > 0 ? 1 : 0);
    const double cap_blocks = std::min(k_blocks, cap);
    per_row_units = SumOfCappedRamp(q_blocks, k_blocks - q_blocks + 1, cap_blocks);
    longest = cap_blocks;
  } else {
    per_row_units = q_blocks * k_blocks;
    longest = k_blocks;
  }
  const double units = per_row_units * c.heads * c.batch;
  const double makespan = std::max(units / d.sm_count + r.attention_tail * longest, longest);
  const double head_dim = (c.qk_dim + c.v_dim) / 2;
  const double unit_flops = 2.0 * kAttentionBlock * kAttentionBlock * (c.qk_dim + c.v_dim);
  const double sm_rate = d.peak_bf16_flops / d.sm_count;
  const double forward_rate = sm_rate * r.attention_forward * AttentionHeadShare(head_dim, false, d);
  const double backward_rate = sm_rate * r.attention_backward * AttentionHeadShare(head_dim, true, d);
  p.forward = makespan * unit_flops / forward_rate + r.attention_forward_us * 1e-6;
  // Backward: recompute S and P, then dV, dP, dQ, dK (2.5x the forward
  // FLOPs); its preprocessing reads O and dO, and dQ accumulates in fp32
  // before a conversion kernel writes it in bf16.
  const double rows = c.q_len * c.heads * c.batch;
  const double bytes = rows * (2.0 * c.v_dim * 2.0 + c.qk_dim * (4.0 + 4.0 + 2.0));
  p.backward =
      2.5 * makespan * unit_flops / backward_rate + bytes / d.StreamBytesPerS() + r.attention_backward_us * 1e-6;
  return p;
}

}  // namespace parplan
