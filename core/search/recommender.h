// The plan search: for a model on a system, the best configurations on a
// world size (or the fewest GPUs that fit, or a range of world sizes), each
// validated, with its memory, predicted performance and reasons; the
// rule-of-thumb starting point evaluated for comparison; and counts of what
// was rejected and why. Bounded by the request's deadline and candidate cap.
// Every estimate uses the request's step-time parameters (a cluster
// calibration; CalibratedPerfParams() when null). With a current plan
// (`recommend --from`) it is evaluated once, each plan lists what it
// changes from it, and among plans the model cannot tell apart the one
// changing the fewest settings ranks first (core/search/current_plan.h).
#ifndef PARPLAN_CORE_SEARCH_RECOMMENDER_H_
#define PARPLAN_CORE_SEARCH_RECOMMENDER_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/search/plan_explain.h"
#include "core/search/search_types.h"

namespace parplan {

// INVALID_ARGUMENT for an incomplete model, no sequence length, top_k out
// of 1..100, a negative current_gpus or an empty world range. An
// infeasible request (nothing fits) is OK with feasible = false and the
// reason. Deterministic: the same
// request gives the same plans in the same order.
absl::StatusOr<SearchResult> Recommend(const SearchRequest& request);

// Evaluates one config on `world` GPUs: rules, memory, performance (with
// `params`). `gbs` must already be set in the config.
PlanEval EvaluatePlan(const ModelSpec& model, const ResolvedConfig& config, int64_t world, const SystemSpec& system,
                      const PerfParams& params = CalibratedPerfParams());

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_RECOMMENDER_H_
