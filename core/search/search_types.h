// Inputs and outputs of the plan search (Recommend).
#ifndef PARPLAN_CORE_SEARCH_SEARCH_TYPES_H_
#define PARPLAN_CORE_SEARCH_SEARCH_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "core/config/parallel_config.h"
#include "core/memory/memory_margin.h"
#include "core/memory/memory_model.h"
#include "core/model/model_spec.h"
#include "core/perf/perf_model.h"
#include "core/diagnostics/violation.h"
#include "core/system/system_spec.h"
#include "core/util/limits.h"

namespace parplan {

// Dimensions the caller fixes (0 = free) and limits on the search.
struct SearchConstraints {
  int64_t tp = 0, pp = 0, vpp = 0, cp = 0, ep = 0, etp = 0, mbs = 0;
  int64_t max_pp = 0;             // 0 = no limit beyond the layer count
  bool allow_cp = true;           // false: CP = 1
  bool allow_recompute = true;    // false: no activation recomputation
  bool recompute_pinned = false;  // true: only the base config's recompute setting
  bool nvlink_only = false;       // TP and EP*ETP groups must stay inside one NVLink domain
  // Also try the base config's own recompute setting when it is none of
  // the search's variants (set by Recommend with SearchRequest::current, so
  // the user's setting stays a candidate).
  bool keep_base_recompute = false;
};

enum class Objective { kThroughput, kFewestGpus, kHeadroom };
// Their names in requests: throughput, fewest-gpus, headroom.
const std::vector<std::string>& ObjectiveNames();

struct SearchRequest {
  const ModelSpec* model = nullptr;  // complete
  SystemSpec system;
  // World sizes: exactly `gpus` when > 0; otherwise the valid sizes in
  // [min_gpus, max_gpus] (fewest-GPU mode stops at the first that fits).
  int64_t gpus = 0;
  int64_t min_gpus = 0, max_gpus = 0;
  bool find_min_gpus = false;
  ResolvedConfig base;  // seq_length, gbs (0 = default), precision, MTP, training knobs
  SearchConstraints constraints;
  Objective objective = Objective::kThroughput;
  int top_k = 5;
  int64_t max_candidates = kDefaultCandidates;  // evaluations (memory + performance) at most
  // Plans keep peak memory under this share of HBM (1 = the memory model's
  // own verdict, which already holds 2 GiB + 3% for overheads).
  double max_memory_fraction = 1.0;
  // A fitting plan with less headroom than this share of HBM is "tight"
  // (core/memory/memory_margin.h): it says so and never ranks above a plan
  // with room that is as fast within the model's between-config error.
  double memory_reserve = kDefaultMemoryReserve;
  absl::Time deadline = absl::InfiniteFuture();
  // The plan the user runs now (`recommend --from`): evaluated beside the
  // search's plans, each plan lists what it changes from it, and among plans
  // the model cannot tell apart the one changing the fewest settings ranks first.
  // Its fixed settings (all but what the search varies: the mesh, MBS,
  // recompute, the pipeline split, the CP type and optimizer offload) are
  // the search's base in place of `base`: a caller applies its flags to
  // `current` itself. Its gbs 0 = `base`'s.
  std::optional<ResolvedConfig> current;
  // The GPUs the current plan runs on; 0 = `gpus`, else the smallest world
  // searched that its mesh divides.
  int64_t current_gpus = 0;
  // Step-time parameters (a cluster calibration, core/calibrate); null =
  // CalibratedPerfParams().
  const PerfParams* params = nullptr;
};

struct PlanEval {
  ResolvedConfig config;  // the plan (vpp resolved; layout set when uneven)
  int64_t world = 0;
  int64_t gpus_per_nvlink_domain = 0;  // the placement it was evaluated on (core/system/racks.h)
  int64_t dp = 0, edp = 0;
  MemoryEstimate memory;
  PerfEstimate perf;
  bool valid = true;
  bool tight = false;                 // fits inside the memory reserve (set by Recommend)
  std::vector<Violation> violations;  // errors when invalid, else warnings
  std::vector<std::string> reasons;
  // With SearchRequest::current: the settings this plan changes, in
  // resolved-setting names ("tp 4 -> 8", "recompute_granularity none -> selective").
  std::vector<std::string> changes;
};

struct RejectedSummary {
  int64_t invalid = 0;         // broke a Megatron rule
  int64_t does_not_fit = 0;    // valid but over the GPU's memory
  int64_t dominated = 0;       // valid and fits, ranked below the plans returned or redundant with a simpler one
  int64_t over_batch_cap = 0;  // fits, but its default batch is above 16M tokens (counted in invalid too)
  std::optional<PlanEval> best_invalid, best_not_fitting, best_dominated;
};

struct SearchResult {
  bool feasible = false;
  std::string infeasible_reason;
  std::vector<PlanEval> plans;             // best first
  std::optional<PlanEval> starting_point;  // the rule-of-thumb config, evaluated
  std::string starting_point_comparison;   // why the top plan differs (or agrees)
  std::optional<PlanEval> current;         // SearchRequest::current, evaluated
  std::string current_comparison;          // what the first plan changes from it and gains
  RejectedSummary rejected;
  int64_t candidates = 0;  // configurations enumerated
  int64_t evaluated = 0;   // memory (+ performance) evaluations
  // Memory + performance estimates made (each candidate once, performance
  // only within 125% of HBM; plans shown
  // reuse their candidate's): evaluated candidates with a valid split, the
  // starting point, and any example the search had not kept.
  int64_t estimates = 0;
  int64_t pruned_by_memory = 0;  // skipped: weights + gradients alone exceed memory
  // Skipped by the split bound (core/search/search_steps.h SplitBound): a
  // larger MBS of a split already over memory, or recompute where none fits
  // with room; counted in rejected.does_not_fit / dominated.
  int64_t pruned_by_bound = 0;
  std::vector<int64_t> worlds_searched;
  bool truncated = false;
  std::string truncated_reason;
  std::vector<std::string> reasons;
};

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_SEARCH_TYPES_H_
