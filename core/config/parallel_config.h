// The parallel training configuration as a caller gives it (ParallelConfig,
// zeros meaning "not given") and with every default filled (ResolvedConfig).
#ifndef PARPLAN_CORE_CONFIG_PARALLEL_CONFIG_H_
#define PARPLAN_CORE_CONFIG_PARALLEL_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/config/precision.h"
#include "core/model/model_spec.h"
#include "core/system/system_spec.h"

namespace parplan {

inline constexpr int64_t kMaxDim = 4096;           // any single parallel dimension
inline constexpr int64_t kMaxGpus = 1 << 20;       // world size
inline constexpr int64_t kMaxMbs = 65536;
inline constexpr int64_t kMaxGbs = int64_t{1} << 30;
inline constexpr int64_t kMaxSeqLength = 1 << 24;
inline constexpr int64_t kMaxGpusPerNode = 1024;
inline constexpr size_t kMaxLayoutChars = 65536;

struct ParallelConfig {
  int64_t tp = 0, pp = 0, vpp = 0, cp = 0, ep = 0;
  std::optional<int64_t> etp;
  std::optional<bool> sp;
  int64_t mbs = 0;
  int64_t gbs = 0;
  int64_t seq_length = 0;
  int64_t first_stage_layers = 0;
  int64_t last_stage_layers = 0;
  std::string pipeline_layout;
  std::string precision;
  std::optional<int64_t> mtp_num_layers;
};

struct ResolvedConfig {
  int64_t tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, etp = 1;
  bool sp = false;
  bool etp_defaulted = false;  // ETP taken from TP (Megatron-Core's default)
  bool sp_defaulted = false;   // SP set by the planner's default (on when TP > 1)
  bool vpp_given = false;      // the caller set vpp (so a layout must agree with it)
  int64_t mbs = 1;
  int64_t gbs = 0;             // 0 = not given
  int64_t seq_length = 0;      // 0 = unknown (no model default either)
  int64_t first_stage_layers = 0;
  int64_t last_stage_layers = 0;
  std::string pipeline_layout;
  Precision precision = Precision::kBf16;
  int64_t mtp_num_layers = 0;
  std::vector<std::string> notes;  // which defaults were applied, in words
};

struct Placement {
  std::string system;     // id or alias; empty = none
  int64_t gpus = 0;       // 0 = not given
  int64_t gpus_per_node = 0;  // 0 = the system's
};

struct ResolvedPlacement {
  std::optional<SystemSpec> system;
  int64_t gpus = 0;
  int64_t gpus_per_node = 0;       // 0 = unknown
  int64_t nvlink_domain_size = 0;  // 0 = unknown
};

// Range checks; field names are prefixed with `prefix` ("config").
absl::Status CheckConfigBounds(const ParallelConfig& config, const std::string& prefix);

// Fills defaults (see proto/parplan/v1/planner.proto ParallelConfig); `model`
// may be null. Fails only on bounds or an unknown precision.
absl::StatusOr<ResolvedConfig> ResolveConfig(const ParallelConfig& config, const ModelSpec* model,
                                             const std::string& prefix);

// Looks up the system and checks bounds; NOT_FOUND for an unknown system.
absl::StatusOr<ResolvedPlacement> ResolvePlacement(const Placement& placement,
                                                   const std::string& prefix);

}  // namespace parplan

#endif  // PARPLAN_CORE_CONFIG_PARALLEL_CONFIG_H_
