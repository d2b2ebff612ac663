// Words for the plan search's answers: a plan's label, its reasons, and how
// the top plan compares with the rule-of-thumb starting point.
#ifndef PARPLAN_CORE_SEARCH_PLAN_EXPLAIN_H_
#define PARPLAN_CORE_SEARCH_PLAN_EXPLAIN_H_

#include <string>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/perf/perf_model.h"
#include "core/search/search_types.h"
#include "core/system/system_spec.h"

namespace parplan {

// "TP=4 PP=8 VPP=5 CP=1 EP=1 MBS=1 recompute none" (ETP and layout when set).
std::string PlanLabel(const ResolvedConfig& config);

// Appends 3-4 reasons to a valid, estimated plan: speed, memory, the largest
// cost besides compute, and whether TP / EP*ETP stay inside NVLink. The
// other CP types a long-context plan could run are priced with `params`
// (the step-time parameters the plan was estimated with).
void AddPlanReasons(const ModelSpec& model, const SystemSpec& system, const PerfParams& params, PlanEval* plan);

// "Rule of thumb (<rule>): <label> predicts N tokens/s/GPU. The top plan
// changes TP 8 -> 4: predicted 7.4% faster." `top` may be null (no plan).
std::string CompareWithStartingPoint(const std::string& rule, const PlanEval& starting_point, const PlanEval* top);

// "12.3%" from 0.123.
std::string Percent(double fraction);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_PLAN_EXPLAIN_H_
