#include "core/perf/optimizer_offload.h"

#include "absl/strings/str_format.h"

namespace parplan {
namespace {

// PyTorch's AdamW (torch/optim/adamw.py, _multi_tensor_adamw) on the CPU makes
// one pass over memory per foreach op, fp32 throughout: weight decay (read p,
// write p: 8 B), m.lerp_(g) (12 B), v.mul_ then addcmul_ (8 + 12 B),
// v.sqrt() into a temporary (8 B), its scaling and + eps (8 + 8 B),
// p.addcdiv_(m, denom) (16 B): 80 B per parameter, at most what the host's
// DRAM delivers.
constexpr double kCpuAdamBytesPerParam = 80;
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

OffloadSeconds CpuOptimizerSeconds(double params, const SystemSpec& s, double link_efficiency) {
  OffloadSeconds out;
  if (params <= 0) return out;
  const double link = HostLinkGbps(s) * 1e9 * link_efficiency;
  out.d2h = kFp32 * params / link;
  out.h2d = kFp32 * params / link;
  out.cpu = kCpuAdamBytesPerParam * params / (HostMemoryGbps(s) * 1e9);
  return out;
}

std::string DescribeOptimizerOffload(double params, const SystemSpec& s, double link_efficiency) {
  const OffloadSeconds t = CpuOptimizerSeconds(params, s, link_efficiency);
  return absl::StrFormat(
      "Optimizer CPU offload: %.3f B parameters of this GPU's optimizer shard step on the host each iteration: fp32 "
      "gradients down and fp32 weights back over the host link (%.0f GB/s per direction at %.0f%%: %.3f s + %.3f "
      "s) and PyTorch's CPU AdamW at %.0f B per parameter over %.0f GB/s of host memory per GPU%s (%.3f s), one "
      "after the other (overlap_cpu_optimizer_d2h_h2d off).",
      params / 1e9, HostLinkGbps(s), 100 * link_efficiency, t.d2h, t.h2d, kCpuAdamBytesPerParam, HostMemoryGbps(s),
      s.host_memory_gbps_per_gpu > 0 ? "" : " (not given for this system: assumed)", t.cpu);
}

}  // namespace parplan
