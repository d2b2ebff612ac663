// The optimizer step of Megatron-Core's optimizer CPU offload
// (megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py,
// HybridDeviceOptimizer): the first `optimizer_offload_fraction` of each
// rank's optimizer shard steps on host copies of its fp32 master weights,
// with its Adam moments in host memory (the distributed optimizer's fp32
// master shard stays on the GPU). Each step the shard's fp32 gradients go to the host, PyTorch's
// fused CPU AdamW updates them, and the fp32 weights come back; the rest steps on
// the GPU as usual. Copies and the CPU step run one after the other
// (overlap_cpu_optimizer_d2h_h2d is off by default in Megatron-Core).
#ifndef PARPLAN_CORE_PERF_OPTIMIZER_OFFLOAD_H_
#define PARPLAN_CORE_PERF_OPTIMIZER_OFFLOAD_H_

#include <string>

#include "core/system/system_spec.h"

namespace parplan {

// Seconds of the offloaded part of one optimizer step.
struct OffloadSeconds {
  double d2h = 0;  // fp32 gradients, GPU to host
  double cpu = 0;  // CPU AdamW over the offloaded parameters
  double h2d = 0;  // fp32 master weights, host to GPU
  double Total() const { return d2h + cpu + h2d; }
};

// Host link per GPU per direction in GB/s: the system's host link, else its
// PCIe link, else PCIe Gen4 x16 (32 GB/s).
double HostLinkGbps(const SystemSpec& s);

// Host DRAM bandwidth one GPU's share of the CPUs sees, GB/s; when the system
// does not say, 50 GB/s (a dual-socket DDR4/DDR5 host shared by 8 GPUs).
double HostMemoryGbps(const SystemSpec& s);

// What one rank's fused CPU AdamW streams on `s`, GB/s: the measured
// per-rank rate, or the host's memory share per GPU where that is lower.
double CpuAdamGbps(const SystemSpec& s);

// The offloaded step for `params` parameters of one GPU's optimizer shard on
// `s`, the copies at `link_efficiency` of the host link's line rate.
OffloadSeconds CpuOptimizerSeconds(double params, const SystemSpec& s, double link_efficiency);

// "optimizer CPU offload: 0.42 B params of this GPU's shard (5.0 GiB of fp32
// weights and moments) step on the host: ..." for the answer.
std::string DescribeOptimizerOffload(double params, const SystemSpec& s, double link_efficiency);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_OPTIMIZER_OFFLOAD_H_
