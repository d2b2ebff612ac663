#include "core/rules/validate.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/diagnostics/rule_catalog.h"
#include "core/rules/rule_context.h"

namespace parplan {

void RuleContext::Add(const char* rule, std::vector<std::string> fields, std::string message, std::string fix) const {
  const RuleInfo* info = FindRule(rule);
  Severity severity = info != nullptr ? info->severity : Severity::kError;
  if (info != nullptr && info->megatron_lm_only && in.config.front_end == FrontEnd::kBridge) {
    // A Bridge launch never runs Megatron-LM's validate_args: the same
    // config is accepted there, and the answer says which front end refuses it.
    if (severity == Severity::kError) severity = Severity::kWarning;
    message += " (Megatron-LM's argument validation refuses this; a Megatron Bridge launch does not check it)";
  }
  out->push_back({rule, severity, std::move(fields), std::move(message), std::move(fix)});
}

ValidationResult Validate(const ValidationInput& in) {
  ValidationResult r;
  const MeshDims dims = MeshOf(in.config);
  r.min_gpus = ComputeMinGpus(dims);
  if (in.placement.gpus > 0) {
    r.world = SizeWorld(dims, in.placement.gpus, in.placement.gpus_per_node, in.config.gbs, in.config.mbs);
  }
  RuleContext ctx{in, dims, r.world, &r.violations};
  CheckMeshRules(ctx);
  CheckModelRules(ctx);
  if (in.model != nullptr && in.model->num_layers > 0) {
    r.stages = PlanStages(*in.model, in.config, &r.violations);
  } else {
    ctx.Add("pp.split_unchecked", {"pp", "vpp", "pipeline_layout"},
            "layer count unknown: the pipeline split is not checked", "pass a model with num_layers");
  }
  CheckTopologyRules(ctx);
  CheckPrecisionRules(ctx);
  CheckTrainingRules(ctx);
  CheckLayerRules(ctx);
  CheckDispatchGraphRules(ctx);
  CheckContextParallelRules(ctx);
  CheckContainerRules(ctx);
  ctx.Add("memory.not_checked", {},
          "validate checks Megatron's rules, not memory: whether the config fits the GPU is a separate estimate",
          "run EstimateMemory (`parplan memory`) for the per-GPU peak and what to change when it does not fit");
  ctx.Add("advice.profile_first_iterations", {},
          "valid means Megatron will accept the config, not that it is fast or fits",
          "profile the first iterations (memory and step time) before a long run");
  SortViolations(&r.violations);
  for (const auto& v : r.violations) {
    switch (v.severity) {
      case Severity::kError:
        ++r.errors;
        break;
      case Severity::kWarning:
        ++r.warnings;
        break;
      case Severity::kInfo:
        ++r.infos;
        break;
    }
  }
  r.valid = r.errors == 0;
  r.reasons.push_back(
      absl::StrCat(r.valid ? "Valid: " : "Invalid: ", r.errors, " error(s), ", r.warnings, " warning(s)."));
  // EP, ETP and EDP only where an expert mesh is in play (not a dense model at EP = 1).
  const bool experts = ExpertMeshInPlay(dims);
  r.reasons.push_back(absl::StrCat("Needs a multiple of ", r.min_gpus.min_gpus, " GPUs (",
                                   experts ? "PP*lcm(TP*CP, EP*ETP)" : "PP*TP*CP", ")."));
  if (r.world.has_value() && r.world->dp > 0 && r.world->edp > 0) {
    r.reasons.push_back(absl::StrCat(
        r.world->gpus, " GPUs: DP=", r.world->dp, experts ? absl::StrCat(", EDP=", r.world->edp) : std::string(),
        r.world->microbatches > 0 ? absl::StrCat(", ", r.world->microbatches, " microbatches per step") : std::string(),
        r.world->nodes > 0 ? absl::StrCat(", ", r.world->nodes, " nodes") : std::string(), "."));
  }
  if (r.stages.has_value() && r.stages->source == StagePlan::Source::kAccounted) {
    const StagePlan& p = *r.stages;
    const int64_t units = in.model->num_layers + in.config.account_for_embedding + in.config.account_for_loss;
    r.reasons.push_back(
        absl::StrCat("Pipeline split with the ", SplitAccountingName(in.config),
                     " counted as layers: ", in.model->num_layers, " + ", units - in.model->num_layers, " = ", units,
                     " units over PP ", p.pp, p.vpp > 1 ? absl::StrCat(" x VPP ", p.vpp) : std::string(), " = ",
                     units / (p.pp * p.vpp), " per stage; rank 0's first stage holds ", p.decoder_layers[0][0],
                     " decoder layer(s), the last rank's last ", p.decoder_layers[p.pp - 1][p.vpp - 1], "."));
  }
  for (const auto& note : in.config.notes) r.reasons.push_back(note);
  return r;
}

}  // namespace parplan
