// SystemSpec: one GPU platform (per-GPU peaks, memory, NVLink domain, node size).
#ifndef PARPLAN_CORE_SYSTEM_SYSTEM_SPEC_H_
#define PARPLAN_CORE_SYSTEM_SYSTEM_SPEC_H_

#include <map>
#include <string>
#include <vector>

namespace parplan {

struct SystemSpec {
  std::string id;  // h100-sxm, gb200-nvl72, ...
  std::string name;
  std::vector<std::string> aliases;
  std::string gpu_arch;        // ampere | hopper | blackwell
  int gpus_per_node = 8;       // GPUs per host (tray on NVL72)
  int nvlink_domain_size = 8;  // GPUs sharing one NVLink fabric
  double hbm_gb = 0;
  double hbm_bw_tbps = 0;
  double bf16_dense_tflops = 0;
  double fp8_dense_tflops = 0;            // 0 = no FP8 tensor cores
  double fp4_dense_tflops = 0;            // 0 = no FP4 tensor cores
  double nvlink_gbps_unidirectional = 0;  // GB/s per GPU per direction
  double scaleout_gbps_per_gpu = 0;       // Gb/s per GPU; 0 = unknown
  // Host PCIe link per GPU, GB/s per direction: the path between GPUs of one
  // host that do not share an NVLink domain (PCIe cards); 0 = unknown.
  double pcie_gbps_unidirectional = 0;
  // The CPU side, for optimizer CPU offload: the host link per GPU, GB/s per
  // direction (PCIe, or NVLink-C2C on Grace trays; 0 = the PCIe figure), and
  // the host DRAM bandwidth one GPU's share of the CPUs sees (0 = unknown).
  double host_link_gbps_unidirectional = 0;
  double host_memory_gbps_per_gpu = 0;
  // GPUs of each NVLink domain the job's ranks fill, from the placement
  // (Placement.gpus_per_nvlink_domain; 0 = all of them): rank r sits in
  // domain r / used. Carried with the system so the rank layout, the rules,
  // the performance model and the search all read the same number
  // (core/system/racks.h).
  int nvlink_domain_used = 0;
  int sm_count = 0;  // streaming multiprocessors per GPU; 0 = the architecture's flagship (core/perf/kernel_time.h)
  // Exponentials (SFU MUFU.EX2) per clock per SM; 0 = the architecture's
  // (core/perf/kernel_rates.h). Blackwell Ultra (B300, GB300) doubles it.
  double exp_per_clock_per_sm = 0;
  std::string description;
  std::map<std::string, std::string> sources;
  std::vector<std::string> notes;
};

}  // namespace parplan

#endif  // PARPLAN_CORE_SYSTEM_SYSTEM_SPEC_H_
