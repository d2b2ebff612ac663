// Naming the hardware a job runs on: a catalog system, an inline spec, or a
// catalog system with some of its figures overridden ("our H100s have 4 x 200
// Gb/s per node"). Every model (rules, memory, performance, search) reads the
// one SystemSpec this resolves to, so an override changes every answer
// consistently.
#ifndef PARPLAN_CORE_RESOLVE_SYSTEM_RESOLVE_H_
#define PARPLAN_CORE_RESOLVE_SYSTEM_RESOLVE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/system/system_spec.h"
#include "core/util/limits.h"

namespace parplan {

// Bounds of the inline figures (documented in the proto).

// The figures a caller may give; unset = the base system's (or the
// architecture's reference GPU's) value.
struct SystemFigures {
  std::string name;
  std::string gpu_arch;                       // ampere | hopper | blackwell
  std::optional<double> hbm_gib;              // per GPU, as the driver reports
  std::optional<double> hbm_tbps;             // HBM bandwidth, TB/s
  std::optional<double> bf16_tflops;          // dense, per GPU
  std::optional<double> fp8_tflops;           // dense; 0 = no FP8 tensor cores
  std::optional<double> fp4_tflops;           // dense; 0 = no FP4 tensor cores
  std::optional<int64_t> nvlink_domain_size;  // GPUs sharing one NVLink fabric (1 = none)
  std::optional<double> nvlink_gbps;          // GB/s per GPU, both directions (as marketed); 0 = none
  std::optional<int64_t> gpus_per_node;       // GPUs behind one host
  std::optional<double> scaleout_gbps;        // network Gb/s per GPU
  std::optional<int64_t> nics_per_node;       // with nic_gbps: scale-out = nics * nic_gbps / gpus_per_node
  std::optional<double> nic_gbps;             // line rate of one NIC, Gb/s
  std::optional<double> pcie_gbps;            // host PCIe per GPU, GB/s per direction

  bool empty() const;
};

// A catalog id (may be empty) and figures: id alone = the catalog system;
// figures alone = an inline system (gpu_arch required); both = the catalog
// system with those figures replaced.
struct SystemRef {
  std::string id;
  SystemFigures figures;
};

struct ResolvedSystem {
  SystemSpec spec;
  std::vector<std::string> notes;  // overrides applied and defaults used, in words
};

// The architectures an inline system may name, each with its reference GPU.
const std::vector<std::string>& KnownGpuArchitectures();

// Resolves `ref`. Field errors are prefixed with `prefix` ("placement.system_spec")
// for the figures and name `id_field` for the id; NOT_FOUND for an unknown id.
// INVALID_ARGUMENT for an empty ref.
absl::StatusOr<ResolvedSystem> ResolveSystem(const SystemRef& ref, const std::string& id_field,
                                             const std::string& prefix);

}  // namespace parplan

#endif  // PARPLAN_CORE_RESOLVE_SYSTEM_RESOLVE_H_
