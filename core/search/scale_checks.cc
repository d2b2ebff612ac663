#include "core/search/scale_checks.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/config/parallel_config.h"
#include "core/util/text.h"

namespace parplan {

void AddScaleWarnings(PlanEval* plan) {
  const PerfEstimate& perf = plan->perf;
  if (!plan->valid || perf.step_time_s <= 0) return;
  const size_t before = plan->violations.size();
  const double bubble = perf.breakdown.bubble_s / perf.step_time_s;
  if (bubble > kBubbleWarningFraction) {
    plan->violations.push_back(Violation{
        "pipeline.bubble_over_25pct",
        Severity::kWarning,
        {"pp", "vpp", "gbs", "mbs"},
        absl::StrFormat("the pipeline bubble is %.0f%% of the step (%.2f of %.2f s): above %.0f%%, most of the "
                        "step waits for the pipeline to fill and drain",
                        100 * bubble, perf.breakdown.bubble_s, perf.step_time_s, 100 * kBubbleWarningFraction),
        "more microbatches per step (a larger gbs, or less DP), fewer pipeline stages, or interleaving (vpp)"});
  }
  if (perf.microbatches == 1) {
    plan->violations.push_back(Violation{
        "batch.one_microbatch",
        Severity::kWarning,
        {"gbs", "mbs"},
        absl::StrCat("each of the ", WithCommas(plan->dp),
                     " DP ranks runs one microbatch per step: nothing overlaps the pipeline's fill and drain or the "
                     "gradient reduction, and the batch cannot shrink without fewer DP ranks"),
        "more model parallelism per replica (TP, PP, CP) or fewer GPUs, so each DP rank runs several microbatches"});
  }
  // The same words among the plan's reasons, which every door and the page show.
  for (size_t i = before; i < plan->violations.size(); ++i) {
    const Violation& v = plan->violations[i];
    plan->reasons.push_back(absl::StrCat("Warning (", v.rule, "): ", v.message, "; fix: ", v.fix, "."));
  }
}

std::string BatchCapReason(const std::string& worlds, int64_t over_cap, int64_t seq_length) {
  return absl::StrCat(
      "Every config that fits on ", worlds, " GPUs (", WithCommas(over_cap),
      ") needs more than 16,777,216 tokens per step: one microbatch of ", WithCommas(seq_length),
      " tokens per DP rank is already above the 16M-token cap on the default global batch (Llama 3 405B's "
      "largest), because the world cannot be split into fewer DP ranks. Use fewer GPUs (or a count with more "
      "factors of two, so TP, PP and CP can take more of it), or give config.gbs to accept a larger batch.");
}

std::string StartingPointBatchNote(const SearchRequest& req, const PlanEval& starting_point) {
  const int64_t tokens = starting_point.config.gbs * starting_point.config.seq_length;
  if (req.base.gbs > 0 || tokens <= kMaxDefaultTokensPerStep) return "";
  return absl::StrCat(" The rule of thumb's own batch, ", WithCommas(tokens),
                      " tokens per step (one microbatch per DP rank), is above the 16M-token cap the plans keep to, "
                      "so its speed is not a like-for-like target.");
}

}  // namespace parplan
