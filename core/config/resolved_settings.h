// The resolved plan as a list: every setting that changes what Megatron
// does, with the value the one resolution step (ResolveConfig,
// ResolvePlacement) gave it, where that value came from and what kind of
// effect the setting has. Every method's answer carries this list; no
// method fills a default of its own.
#ifndef PARPLAN_CORE_CONFIG_RESOLVED_SETTINGS_H_
#define PARPLAN_CORE_CONFIG_RESOLVED_SETTINGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"

namespace parplan {

// Where a resolved value came from.
enum class SettingSource {
  kUser,                 // given in the request
  kBridgeDefault,        // Megatron Bridge's default (its version is in the answer)
  kMegatronCoreDefault,  // Megatron-Core's dataclass default
  kMegatronLmDefault,    // Megatron-LM's argument parser default (front_end megatron-lm)
  kModel,                // the model's published config (sequence length, MTP depth)
  kSystem,               // the system's figures (node size, NVLink domain)
  kParplan,              // chosen by parplan; `why` says how
};

// What changing a setting changes.
enum class EffectClass {
  kExecution,  // the same math, another schedule: parallel sizes, recompute, offload, overlap, graphs, dispatcher
  kNumerics,   // the same model, other rounding: precision recipe, fp8_param_gather, gradient / optimizer dtypes
  kSemantics,  // what is trained: global batch, sequence length, MTP depth, PEFT
  kBenchmark,  // changes what training does; for benchmarks only (forced load balancing)
};

// "user" | "bridge_default" | "megatron_core_default" | "megatron_lm_default"
// | "model" | "system" | "parplan".
std::string SettingSourceName(SettingSource s);
// "execution" | "numerics" | "semantics" | "benchmark".
std::string EffectClassName(EffectClass e);
// The words an answer puts beside a setting that is not execution-only:
// "numerics: changes rounding, not the parallel plan", ...; "" for execution.
std::string EffectWarning(EffectClass e);

// The class of a ParallelConfig / Placement field by its proto name
// ("gbs", "moe_router_force_load_balancing", "placement.gpus", ...).
EffectClass EffectOf(std::string_view field);

struct ResolvedSetting {
  std::string field;  // proto field name; placement fields as "placement.<name>"
  std::string value;
  SettingSource source = SettingSource::kUser;
  EffectClass effect = EffectClass::kExecution;
  std::string why;  // short, with its source
};

// What a method varies: kSearch marks the parallel sizes, MBS and (unless
// given) recompute as chosen by the search rather than defaulted.
enum class SettingsScope { kConfig, kSearch };

// The settings of `c` (resolved by ResolveConfig, so c.given is set) on
// `placement`, in a fixed order: front end and version, the mesh and its
// derived DP/EDP (EDP and expert fields only for MoE models or EP > 1; CP
// fields only when CP > 1), batch and sequence, precision, recompute,
// optimizer, offload, overlap, kernels, MoE dispatch, placement. `model` may
// be null; `dp`/`edp` of 0 are left out (no world).
std::vector<ResolvedSetting> ListResolvedSettings(const ResolvedConfig& c, const ResolvedPlacement& placement,
                                                  const ModelSpec* model, int64_t dp, int64_t edp, SettingsScope scope);

// "moe_router_force_load_balancing = true: benchmark only: ..." for every
// setting whose effect is not execution-only and whose value departs from
// plain training (forced balancing on, a non-BF16 precision, ...).
std::vector<std::string> EffectWarnings(const std::vector<ResolvedSetting>& settings);

}  // namespace parplan

#endif  // PARPLAN_CORE_CONFIG_RESOLVED_SETTINGS_H_
