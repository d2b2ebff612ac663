#include "core/search/split_repair.h"

#include "absl/strings/str_cat.h"
#include "core/perf/flops.h"
#include "core/pipeline/layout_builder.h"

namespace parplan {
namespace {

bool IsSplitRule(const std::string& rule) { return rule == "pp.layers_divisible" || rule == "vpp.layers_divisible"; }

}  // namespace

bool OnlySplitErrors(const std::vector<Violation>& violations) {
  bool any = false;
  for (const Violation& v : violations) {
    if (v.severity != Severity::kError) continue;
    if (!IsSplitRule(v.rule)) return false;
    any = true;
  }
  return any;
}

std::optional<SplitRepair> NearestValidSplit(const ModelSpec& m, const ResolvedConfig& c) {
  if (m.is_hybrid() || m.num_layers <= 0) return std::nullopt;
  std::vector<Violation> violations;
  if (PlanStages(m, c, &violations).has_value()) return std::nullopt;
  bool split_problem = false;
  for (const Violation& v : violations) split_problem |= v.severity == Severity::kError && IsSplitRule(v.rule);
  if (!split_problem) return std::nullopt;

  // The accounting switches, both ends first (how NVIDIA's recipes split
  // 126 or 94 layers), when the config has no layout or uneven stages.
  if (c.pipeline_layout.empty() && c.first_stage_layers == 0 && c.last_stage_layers == 0) {
    for (const bool embedding : {true, false}) {
      ResolvedConfig r = c;
      r.account_for_embedding = embedding;
      r.account_for_loss = true;
      if (r.account_for_embedding == c.account_for_embedding && r.account_for_loss == c.account_for_loss) continue;
      if (auto plan = PlanStages(m, r); plan.has_value()) {
        const std::string change =
            embedding ? "account_for_embedding_in_pipeline_split = true, account_for_loss_in_pipeline_split = true"
                      : "account_for_loss_in_pipeline_split = true";
        const std::string flags = embedding ? "--account-for-embedding-in-pipeline-split "
                                              "--account-for-loss-in-pipeline-split"
                                            : "--account-for-loss-in-pipeline-split";
        return SplitRepair{r, *plan, change, flags};
      }
    }
  }
  // The balanced layout over the same PP*VPP virtual stages.
  const int64_t stages = c.pp * std::max<int64_t>(1, c.vpp);
  if (stages < 2 || stages > m.num_layers + 2) return std::nullopt;
  ResolvedConfig r = c;
  r.account_for_embedding = false;
  r.account_for_loss = false;
  r.first_stage_layers = 0;
  r.last_stage_layers = 0;
  r.pipeline_layout =
      BalancedLayout(m.num_layers, c.mtp_num_layers, stages, LastStageEndUnits(m, c.seq_length, 1, c.mtp_num_layers));
  auto plan = PlanStages(m, r);
  if (!plan.has_value()) return std::nullopt;
  const std::string layout = CompactLayout(r.pipeline_layout);
  return SplitRepair{r, *plan, absl::StrCat("pipeline_model_parallel_layout = \"", layout, "\""),
                     absl::StrCat("--pp-layout '", layout, "'")};
}

SplitAwareAnswer AnswerMemoryOrNearestSplit(const ModelSpec& model, const ResolvedConfig& config,
                                            const ResolvedPlacement& placement, const MemoryOptions& options) {
  SplitAwareAnswer out;
  out.answer = AnswerMemory(model, config, placement, options);
  out.as_given = out.answer.validation;
  if (out.answer.estimate.has_value() || !OnlySplitErrors(out.as_given.violations)) return out;
  std::optional<SplitRepair> repair = NearestValidSplit(model, config);
  if (!repair.has_value()) return out;
  MemoryAnswer repaired = AnswerMemory(model, repair->config, placement, options);
  if (!repaired.estimate.has_value() || !repaired.validation.valid) return out;
  out.answer = std::move(repaired);
  out.repair = std::move(repair);
  return out;
}

std::string RepairReason(const SplitRepair& repair, const ValidationResult& as_given) {
  std::string why;
  for (const Violation& v : as_given.violations) {
    if (v.severity == Severity::kError && IsSplitRule(v.rule)) {
      why = absl::StrCat(v.rule, ": ", v.message);
      break;
    }
  }
  return absl::StrCat("Estimated for the nearest valid split, not the config as given (", why, "): ", repair.change,
                      " (CLI: ", repair.cli_flags, ").");
}

}  // namespace parplan
