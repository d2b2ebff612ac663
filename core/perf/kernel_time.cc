#include "core/perf/kernel_time.h"

#include <algorithm>
#include <cmath>

#include "core/perf/perf_model.h"

namespace parplan {
namespace {

// Output tiles a Hopper/Blackwell GEMM kernel picks from, with the share of
// the large tile's rate each keeps (smaller tiles reuse operands less:
// NVIDIA "Matrix Multiplication Background User's Guide", tile quantization).
struct Tile {
  double rows, cols, rate;
};
constexpr Tile kTiles[] = {{128, 256, 1.0}, {128, 128, 0.9}, {64, 128, 0.75}};

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

Device MakeDevice(const SystemSpec& s, Precision precision, const PerfParams& p) {
  Device d;
  d.arch = ArchIndex(s);
  d.sm_count = SmCount(s);
  d.peak_flops = PeakTflops(s, precision) * 1e12;
  d.peak_bf16_flops = s.bf16_dense_tflops * 1e12;
  d.hbm_bytes_per_s = s.hbm_bw_tbps * 1e12 * p.hbm_efficiency;
  // A precision the GPU lacks runs at the one it falls back to (PeakTflops).
  int prec = 0;
  if (IsFp4(precision) && s.fp4_dense_tflops > 0) {
    prec = 2;
  } else if ((IsFp4(precision) || IsFp8(precision)) && s.fp8_dense_tflops > 0) {
    prec = 1;
  }
  d.gemm_ceiling = p.gemm_ceiling[d.arch][prec];
  d.grouped_share = p.grouped_gemm_share;
  d.kernel_overhead_s = p.kernel_overhead_us * 1e-6;
  d.operand_bytes = prec == 2 ? 0.5 + 1.0 / 16 : prec == 1 ? 1.0 : 2.0;
  if (prec > 0) d.quantize_bytes = 2.0 + 2.0 * d.operand_bytes + (precision == Precision::kFp8Cs ? 2.0 : 0.0);
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
  const double ceiling = d.gemm_ceiling * (count > 1 ? d.grouped_share : 1.0);
  const double compute = flops / (d.peak_flops * ceiling * best_rate);
  // Operands in the GEMM precision, the output as the caller says.
  const double bytes = ((m * k + k * n) * d.operand_bytes + m * n * output_bytes) * count;
  return std::max(compute, bytes / d.hbm_bytes_per_s) + count * d.kernel_overhead_s;
}

TrainingGemm TrainingGemmSeconds(double m, double n, double k, double count, const Device& d) {
  TrainingGemm t;
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return t;
  const double quantize_kernels = d.quantize_bytes > 0 ? count * d.kernel_overhead_s : 0.0;
  t.forward = GemmSeconds(m, n, k, count, d) + MemorySeconds(m * k * count * d.quantize_bytes, d) + quantize_kernels;
  t.backward = GemmSeconds(m, k, n, count, d) + GemmSeconds(k, n, m, count, d, 8.0) +
               MemorySeconds(m * n * count * d.quantize_bytes, d) + quantize_kernels;
  return t;
}

double MemorySeconds(double bytes, const Device& d) { return bytes > 0 ? bytes / d.hbm_bytes_per_s : 0; }

AttentionSeconds FlashAttentionSeconds(double tokens, double keys, double heads, double qk_dim, double v_dim,
                                       double block, const Device& d, const PerfParams& p) {
  AttentionSeconds a;
  if (tokens <= 0 || keys <= 0 || heads <= 0) return a;
  const double head_dim = std::max(qk_dim, v_dim);
  // Tensor-core use grows with the head dimension (FlashAttention-3, Fig. 5:
  // H100 bf16 forward ~500 TFLOP/s at 64, ~650-750 at 128, ~750 at 256).
  const double head_share = head_dim / (head_dim + p.attention_head_dim_half);
  const double reference = 128.0 / (128.0 + p.attention_head_dim_half);
  constexpr double kHalfBlock = 230;  // query tokens per call at half the long-sequence rate
  const double length_share = block / (block + kHalfBlock);
  const double forward_rate = d.peak_bf16_flops * p.attention_ceiling[d.arch] * head_share / reference * length_share;
  const double forward_flops = 2.0 * tokens * keys * heads * (qk_dim + v_dim);
  a.forward = forward_flops / forward_rate;
  a.backward = 2.5 * forward_flops / (forward_rate * p.attention_backward_ratio);
  return a;
}

}  // namespace parplan
