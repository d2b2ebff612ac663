// The single changes to a run's config that the model predicts make it
// faster: a bounded set (communication overlap switches, lighter recompute,
// other VPP, CUDA graphs, the MoE dispatcher, MBS), each validated and
// estimated like the run itself (PredictRun), kept when valid, fitting in
// HBM and faster, ranked by predicted gain.
#ifndef PARPLAN_CORE_COMPARE_SUGGEST_CHANGES_H_
#define PARPLAN_CORE_COMPARE_SUGGEST_CHANGES_H_

#include <vector>

#include "core/compare/compare_run.h"
#include "core/compare/predict_run.h"

namespace parplan {

// At most this many candidates are estimated (each one validation and two estimates).
inline constexpr int kMaxChangeCandidates = 24;

// Preconditions: `base.ok`. Returns at most `max` changes, largest gain first.
std::vector<SuggestedChange> SuggestFasterChanges(const ModelSpec& model, const RunPrediction& base,
                                                  const PerfParams& params, int max);

}  // namespace parplan

#endif  // PARPLAN_CORE_COMPARE_SUGGEST_CHANGES_H_
