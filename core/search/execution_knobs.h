// The execution settings NVIDIA tunes per recipe beside the mesh: the MoE
// token dispatcher and its flex backend, the expert-parallel all-to-all
// overlap, the TP communication overlap, the CUDA-graph scope and the
// optimizer's CPU offload. They change the schedule, never the math
// (EffectClass::kExecution). One place names their values, applies them to
// a config and filters them through Megatron's and Bridge's checks
// (core/rules/dispatch_graph_rules.cc, training_rules.cc), for the search
// (core/search/knob_refinement.h) and for the changes `perf` and `compare`
// suggest (core/compare/suggest_changes.h).
#ifndef PARPLAN_CORE_SEARCH_EXECUTION_KNOBS_H_
#define PARPLAN_CORE_SEARCH_EXECUTION_KNOBS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/perf/perf_model.h"
#include "core/system/system_spec.h"

namespace parplan {

enum class KnobAxis { kDispatcher, kEpOverlap, kTpOverlap, kCudaGraph, kOptimizerOffload };
inline constexpr KnobAxis kKnobAxes[] = {KnobAxis::kDispatcher, KnobAxis::kEpOverlap, KnobAxis::kTpOverlap,
                                         KnobAxis::kCudaGraph, KnobAxis::kOptimizerOffload};

// "dispatcher", "ep_overlap", "tp_overlap", "cuda_graph", "optimizer_offload".
const char* KnobAxisName(KnobAxis axis);
// The proto field that sets the axis (for its effect class and for answers).
const char* KnobAxisField(KnobAxis axis);

// True when the caller set the axis (ResolvedConfig::given): the search then
// keeps it, and reports what freeing it would gain.
bool KnobPinned(const ResolvedConfig& c, KnobAxis axis);

// The axis's value in `c`, in words: "alltoall", "flex/deepep", "on", "off",
// "transformer_engine [attn, moe_router, moe_preprocess]", "0.5".
std::string KnobValue(const ResolvedConfig& c, KnobAxis axis);

struct KnobOption {
  KnobAxis axis = KnobAxis::kDispatcher;
  std::string change;  // "moe_token_dispatcher_type = flex, moe_flex_dispatcher_backend = deepep"
  ResolvedConfig config;
};

// The other values of `axis` for `c` that apply to it (a dispatcher only for
// MoE models with EP x ETP > 1, EP overlap only with EP > 1, TP overlap only
// with TP > 1 and SP) and that Megatron's and Bridge's checks accept on
// `sys` (errors of the axis's rules; the mesh's own rules are not re-run).
// `c`'s own value is not included. Values, in order:
//  - dispatcher: alltoall, flex/deepep, flex/hybridep;
//  - ep_overlap, tp_overlap: the other of on / off;
//  - cuda_graph: none, transformer_engine over attn, over attn + moe_router +
//    moe_preprocess (MoE: what NVIDIA's DeepSeek and Qwen3 MoE performance
//    recipes capture), over whole layers, full_iteration;
//  - optimizer_offload: off, fraction 0.5, fraction 1.0.
std::vector<KnobOption> KnobOptions(const ModelSpec& m, const ResolvedConfig& c, const SystemSpec& sys, KnobAxis axis);

struct KnobAlternative {
  KnobOption option;
  std::string refusal;  // "" when the checks accept it, else "rule.id: message"
};

// Every other value of `axis` for `c` that applies to it, each with the
// checks' verdict (KnobOptions keeps the accepted ones).
std::vector<KnobAlternative> KnobAlternatives(const ModelSpec& m, const ResolvedConfig& c, const SystemSpec& sys,
                                              KnobAxis axis);

// When `alternative` is refused by a rule of another axis (a dispatcher
// value the current CUDA graph rules out), the same value with that axis at
// its neutral value (graphs none, overlaps off, offload off, alltoall) if
// the checks then accept it, its change naming both; else nullopt.
std::optional<KnobOption> WithoutConflict(const ModelSpec& m, const KnobAlternative& alternative,
                                          const SystemSpec& sys);

// The step term an axis moves and its seconds in `p` (for "why" lines):
// exposed EP ("EP comm") for the dispatcher and EP overlap, exposed TP,
// launch and host overhead for CUDA graphs, the optimizer step for offload.
std::pair<const char*, double> KnobTerm(KnobAxis axis, const PerfEstimate& p);

// The error a check raises on `c` for the axis's settings, or "" when the
// checks accept it (the rule id and message, for "why not" lines).
std::string KnobRefusal(const ModelSpec& m, const ResolvedConfig& c, const SystemSpec& sys, KnobAxis axis);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_EXECUTION_KNOBS_H_
