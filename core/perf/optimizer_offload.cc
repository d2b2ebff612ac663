#include "core/perf/optimizer_offload.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace parplan {
namespace {

// Megatron-Core builds the CPU side as torch.optim.AdamW with fused=True
// (megatron/core/optimizer/__init__.py, optimizer_cpu_offload branch):
// PyTorch's fused CPU AdamW makes one pass per parameter, reading the fp32
// weight, gradient and both moments and writing back the weight and moments
// (28 B).
constexpr double kCpuAdamBytesPerParam = 28;
// What one rank's CPU AdamW streams per second, measured: Megatron Bridge's
// optimizer-offload sweep (skill nemo-mbridge-perf-cpu-offloading,
// card.yaml measured_results at 067f987df0: Qwen3-30B-A3B, TP2 PP2 EP4 on
// 2 x 8 H100; tests/data/optimizer_offload_ab.csv) adds 0.88 / 1.49 / 2.19 /
// 3.19 s to the step at 25 / 50 / 75 / 100% of a 1.905 B-parameter shard:
// 3.09 s at 100% through the origin, 0.32 s of it the copies (the sweep's own
// D2H/H2D-overlap A/B hides 0.31 s), so 1.905e9 x 28 B / 2.77 s = 19.3 GB/s.
// That is one core's stream, far below the host's 77 GB/s per GPU: one
// thread per rank, as torchrun and NVIDIA's enroot hook set
// OMP_NUM_THREADS=1 by default. Hosts whose DRAM share per GPU is lower are
// bound by it instead.
constexpr double kCpuAdamRankGbps = 19.3;
constexpr double kFp32 = 4;
constexpr double kDefaultHostMemoryGbps = 50;
constexpr double kDefaultHostLinkGbps = 32;

}  // namespace

double HostLinkGbps(const SystemSpec& s) {
  if (s.host_link_gbps_unidirectional > 0) return s.host_link_gbps_unidirectional;
  return s.pcie_gbps_unidirectional > 0 ? s.pcie_gbps_unidirectional : kDefaultHostLinkGbps;
}

double HostMemoryGbps(const SystemSpec& s) {
  return s.host_memory_gbps_per_gpu > 0 ? s.host_memory_gbps_per_gpu : kDefaultHostMemoryGbps;
}

double CpuAdamGbps(const SystemSpec& s) { return std::min(kCpuAdamRankGbps, HostMemoryGbps(s)); }

OffloadSeconds CpuOptimizerSeconds(double params, const SystemSpec& s, double link_efficiency) {
  OffloadSeconds out;
  if (params <= 0) return out;
  const double link = HostLinkGbps(s) * 1e9 * link_efficiency;
  out.d2h = kFp32 * params / link;
  out.h2d = kFp32 * params / link;
  out.cpu = kCpuAdamBytesPerParam * params / (CpuAdamGbps(s) * 1e9);
  return out;
}

std::string DescribeOptimizerOffload(double params, const SystemSpec& s, double link_efficiency) {
  const OffloadSeconds t = CpuOptimizerSeconds(params, s, link_efficiency);
  return absl::StrFormat(
      "Optimizer CPU offload: %.3f B parameters of this GPU's optimizer shard step on the host each iteration: fp32 "
      "gradients down and fp32 weights back over the host link (%.0f GB/s per direction at %.0f%%: %.3f s + %.3f "
      "s) and PyTorch's fused CPU AdamW at %.0f B per parameter streamed at %.1f GB/s (one rank's measured rate; "
      "host memory %.0f GB/s per GPU%s) (%.3f s), one after the other (overlap_cpu_optimizer_d2h_h2d off).",
      params / 1e9, HostLinkGbps(s), 100 * link_efficiency, t.d2h, t.h2d, kCpuAdamBytesPerParam, CpuAdamGbps(s),
      HostMemoryGbps(s), s.host_memory_gbps_per_gpu > 0 ? "" : ", not given for this system: assumed", t.cpu);
}

}  // namespace parplan
