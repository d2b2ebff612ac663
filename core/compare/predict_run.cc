#include "core/compare/predict_run.h"

#include "absl/strings/str_cat.h"
#include "core/memory/memory_planner.h"
#include "core/search/split_repair.h"

namespace parplan {

RunPrediction PredictRun(const ModelSpec& model, const ResolvedConfig& config, const ResolvedPlacement& placement,
                         const PerfParams& params) {
  RunPrediction out;
  out.config = config;
  out.placement = placement;
  if (!placement.system.has_value()) {
    out.unavailable_reason = "no system is given (its peaks and links set the step time)";
    return out;
  }
  if (config.seq_length <= 0) {
    out.unavailable_reason = "no sequence length: set seq_length";
    return out;
  }
  const bool gpus_given = placement.gpus > 0;
  ResolveWorldAndBatch(&out.config, &out.placement);
  if (!gpus_given)
    out.notes.push_back(absl::StrCat("No GPU count: the smallest valid world, ", out.placement.gpus, " GPUs."));
  if (!out.config.gbs_note.empty()) out.notes.push_back(out.config.gbs_note);
  const SplitAwareAnswer split = AnswerMemoryOrNearestSplit(model, out.config, out.placement, MemoryOptions{});
  const MemoryAnswer& a = split.answer;
  if (!a.estimate.has_value() || !a.validation.valid) {
    out.unavailable_reason = a.unavailable_reason.empty() ? "the config breaks Megatron's rules" : a.unavailable_reason;
    for (const Violation& v : a.validation.violations) {
      if (v.severity == Severity::kError) {
        absl::StrAppend(&out.unavailable_reason, " (", v.rule, ": ", v.message, ")");
        break;
      }
    }
    return out;
  }
  if (split.repair.has_value()) {
    out.notes.push_back(RepairReason(*split.repair, split.as_given));
    out.config = split.repair->config;
    out.split_repaired = true;
  }
  out.config.vpp = a.validation.stages->vpp;
  out.world = a.world;
  out.memory = *a.estimate;
  out.perf = EstimatePerformance(model, out.config, *a.validation.stages, a.world, *out.placement.system, params);
  out.uncertainty = PerfUncertainty(model, *out.placement.system, CalibratedUncertainty());
  const StageMemory& peak = out.memory.stages[out.memory.peak_pp_rank];
  out.fragmentation_allowance_bytes = peak.fragmentation_bytes;
  out.ok = true;
  return out;
}

}  // namespace parplan
