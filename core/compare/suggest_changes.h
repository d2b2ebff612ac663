// The single changes to a run's config that the model predicts make it
// faster: a bounded set (the execution settings of core/search/
// execution_knobs.h, gradient-reduce overlap, lighter recompute, other VPP,
// a loss-balanced pipeline layout, MBS), each validated and
// estimated like the run itself (PredictRun), kept when valid, fitting in
// HBM and faster, ranked by predicted gain.
#ifndef PARPLAN_CORE_COMPARE_SUGGEST_CHANGES_H_
#define PARPLAN_CORE_COMPARE_SUGGEST_CHANGES_H_

#include <string>
#include <vector>

#include "core/compare/compare_run.h"
#include "core/compare/predict_run.h"

namespace parplan {

// At most this many mesh, recompute and batch candidates are estimated (each
// one validation and two estimates), besides the execution settings' values
// (core/search/execution_knobs.h: at most 11).
inline constexpr int kMaxChangeCandidates = 24;
// The changes `perf` (EstimatePerformance) lists.
inline constexpr int kPerfSuggestions = 5;

struct ChangeAdvice {
  std::vector<SuggestedChange> faster;  // at most `max`, largest gain first
  // Per execution axis (dispatcher, overlaps, CUDA graphs, optimizer offload)
  // where no other value helps: why, with the step term it moves
  // ("cuda_graph none stays best (GPU-bound: no host time to hide):
  // transformer_engine [attn] same speed, ...").
  std::vector<std::string> not_helping;
};

// Preconditions: `base.ok`. The changes predicted faster (fitting in HBM)
// and, for the execution settings, why the others do not help.
ChangeAdvice AdviseChanges(const ModelSpec& model, const RunPrediction& base, const PerfParams& params, int max);

// Preconditions: `base.ok`. Returns at most `max` changes, largest gain first.
std::vector<SuggestedChange> SuggestFasterChanges(const ModelSpec& model, const RunPrediction& base,
                                                  const PerfParams& params, int max);

}  // namespace parplan

#endif  // PARPLAN_CORE_COMPARE_SUGGEST_CHANGES_H_
