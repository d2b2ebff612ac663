// What keeps a plan sane at any scale (hundreds of thousands of GPUs):
// the default global batch never goes above the 16M-token cap the tool
// states (a plan whose one microbatch per DP rank is already above it is
// not shown; when every plan that fits is, the search says why and what to
// change), and a plan whose step is mostly pipeline bubble, or that runs one
// microbatch per step, says so in its warnings.
#ifndef PARPLAN_CORE_SEARCH_SCALE_CHECKS_H_
#define PARPLAN_CORE_SEARCH_SCALE_CHECKS_H_

#include <string>

#include "core/search/search_types.h"

namespace parplan {

// A bubble above this share of the step is worth a warning.
inline constexpr double kBubbleWarningFraction = 0.25;

// Adds "pipeline.bubble_over_25pct" when the pipeline bubble is above
// kBubbleWarningFraction of the step, and "batch.one_microbatch" when each
// DP rank runs one microbatch per step (nothing to overlap the pipeline's
// fill and drain or the gradient reduction with). Warnings only, each also
// one of the plan's reasons ("Warning (rule): ...", shown by the page); a
// plan without performance estimate is left alone.
void AddScaleWarnings(PlanEval* plan);

// Why nothing is shown on `worlds` ("1024" or "512, 1024") when every
// candidate that fits needs more than kMaxDefaultTokensPerStep tokens per
// step with gbs left to its default: `over_cap` candidates, DP too large.
std::string BatchCapReason(const std::string& worlds, int64_t over_cap, int64_t seq_length);

// What the comparison with the rule of thumb adds when the rule of thumb's
// own default batch is above the cap (it ran with DP x MBS sequences, so its
// speed is no target for a plan held to 16M tokens): "" otherwise, or when
// the caller gave gbs.
std::string StartingPointBatchNote(const SearchRequest& req, const PlanEval& starting_point);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_SCALE_CHECKS_H_
