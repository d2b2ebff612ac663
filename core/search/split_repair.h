// The nearest valid layer split: when Megatron would reject a config only
// because its layers do not split over PP (or PP*VPP), the split parplan
// would use instead, so that memory and performance questions still get an
// estimate -- labelled as being for that split, never for the config as given.
#ifndef PARPLAN_CORE_SEARCH_SPLIT_REPAIR_H_
#define PARPLAN_CORE_SEARCH_SPLIT_REPAIR_H_

#include <optional>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/memory/memory_planner.h"
#include "core/model/model_spec.h"
#include "core/pipeline/stage_plan.h"
#include "core/rules/validate.h"

namespace parplan {

struct SplitRepair {
  ResolvedConfig config;  // the config with only its layer split changed
  StagePlan plan;         // the split Megatron builds for it
  std::string change;     // Megatron's names: "account_for_loss_in_pipeline_split = true"
  std::string cli_flags;  // the same as parplan CLI flags
};

// True when every error among `violations` is a layer-split rule
// (pp.layers_divisible, vpp.layers_divisible) and there is at least one.
bool OnlySplitErrors(const std::vector<Violation>& violations);

// The nearest split Megatron accepts with the same PP and VPP, tried in this
// order, as recommend builds them (core/search/candidate_space.cc): the
// embedding and/or the loss counted as layers when that makes the split
// exact; else the balanced pipeline layout (last stage lightened by the
// output layer's and MTP's FLOPs). nullopt when `config`'s split is valid,
// for hybrid models (their stages come from '|' in the pattern), or when no
// such split exists. Precondition: model.num_layers > 0.
std::optional<SplitRepair> NearestValidSplit(const ModelSpec& model, const ResolvedConfig& config);

// AnswerMemory for `config`, or -- when its only errors are the layer split's
// and a nearest valid split exists -- the answer for that split.
struct SplitAwareAnswer {
  MemoryAnswer answer;        // for `repair->config` when repaired
  ValidationResult as_given;  // the config as the caller gave it
  std::optional<SplitRepair> repair;
};
SplitAwareAnswer AnswerMemoryOrNearestSplit(const ModelSpec& model, const ResolvedConfig& config,
                                            const ResolvedPlacement& placement, const MemoryOptions& options);

// "Estimated for the nearest valid split, not the config as given: <change>
// (CLI: <flags>); <the violation>." for answers that used a repair.
std::string RepairReason(const SplitRepair& repair, const ValidationResult& as_given);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_SPLIT_REPAIR_H_
