// The prediction a comparison sets beside a log, made exactly as the
// EstimatePerformance method makes it (server/api/planner_api.cc): world and
// batch resolved (ResolveWorldAndBatch), memory, rules and the stage plan
// from AnswerMemoryOrNearestSplit (the nearest valid split when only the
// layer split is wrong), the planned VPP, then EstimatePerformance -- so the
// numbers agree with `parplan perf` for the same config and parameters.
#ifndef PARPLAN_CORE_COMPARE_PREDICT_RUN_H_
#define PARPLAN_CORE_COMPARE_PREDICT_RUN_H_

#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/memory/memory_model.h"
#include "core/model/model_spec.h"
#include "core/perf/perf_model.h"
#include "core/perf/uncertainty.h"

namespace parplan {

struct RunPrediction {
  bool ok = false;
  std::string unavailable_reason;  // why there is no estimate (ok false)
  ResolvedConfig config;           // as estimated: world/batch resolved, repaired split, planned VPP
  ResolvedPlacement placement;     // gpus resolved
  int64_t world = 0;
  PerfEstimate perf;
  MemoryEstimate memory;
  Uncertainty uncertainty;
  // The allocator slack the memory model adds on the peak stage (3% of its
  // other terms, core/memory/memory_steps.cc); 0 when overhead is fixed.
  double fragmentation_allowance_bytes = 0;
  bool split_repaired = false;     // estimated for the nearest valid split (NearestValidSplit)
  std::vector<std::string> notes;  // gbs chosen, split repaired, world assumed
};

// Preconditions: `model` complete (CompleteForEstimate), `config` resolved
// (ResolveConfig). No system or no sequence length: ok false with the
// reason. Deterministic; bounded by one validation and two estimates.
RunPrediction PredictRun(const ModelSpec& model, const ResolvedConfig& config, const ResolvedPlacement& placement,
                         const PerfParams& params);

}  // namespace parplan

#endif  // PARPLAN_CORE_COMPARE_PREDICT_RUN_H_
