// The gap between a measured and a predicted step, by term: for each term of
// the predicted step (StepParts), what it alone would have to be for the
// prediction to match, and whether that is a plausible cause.
#ifndef PARPLAN_CORE_COMPARE_TERM_GAP_H_
#define PARPLAN_CORE_COMPARE_TERM_GAP_H_

#include <string>
#include <vector>

#include "core/compare/compare_run.h"

namespace parplan {

// One TermGap per StepParts term, in StepParts order. `dp` is the run's DP
// size (a DP term is zero by config when it is 1). Preconditions:
// measured_step_s > 0 and finite.
std::vector<TermGap> GapByTerm(const ModelSpec& model, const PerfBreakdown& predicted, const ResolvedConfig& config,
                               int64_t dp, double measured_step_s);

// The terms that could close the gap alone with the smallest relative
// change, best first (at most `max`).
std::vector<const TermGap*> LikeliestTerms(const std::vector<TermGap>& gap, size_t max);

}  // namespace parplan

#endif  // PARPLAN_CORE_COMPARE_TERM_GAP_H_
