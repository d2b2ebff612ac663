#include "core/memory/memory_planner.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/util/text.h"

namespace parplan {

MemoryAnswer AnswerMemory(const ModelSpec& model, const ResolvedConfig& config, const ResolvedPlacement& placement,
                          const MemoryOptions& options) {
  MemoryAnswer a;
  ValidationInput in;
  in.model = &model;
  in.config = config;
  in.placement = placement;
  a.validation = Validate(in);
  a.world = placement.gpus;
  if (a.world == 0) {
    a.world = a.validation.min_gpus.min_gpus;
    a.world_assumed = true;
  }
  if (!a.validation.stages.has_value()) {
    a.unavailable_reason = "the pipeline split is invalid (see violations)";
    return a;
  }
  if (a.world > kMaxGpus || !SizeWorld(MeshOf(config), a.world, 0, 0, 0).valid) {
    a.unavailable_reason = absl::StrCat(a.world, " GPUs is not a valid world size for this mesh (see violations)");
    return a;
  }
  ResolvedConfig effective = config;
  effective.vpp = a.validation.stages->vpp;
  a.estimate = EstimateMemory(model, effective, *a.validation.stages, a.world,
                              placement.system.has_value() ? &*placement.system : nullptr, options);
  return a;
}

namespace {

struct Candidate {
  std::string change;
  std::string note;
  std::function<bool(ResolvedConfig*)> apply;  // false = not applicable
};

std::vector<Candidate> Candidates(const ModelSpec& m, const ResolvedPlacement& p) {
  std::vector<Candidate> out;
  out.push_back({"enable the distributed optimizer", "extra reduce-scatter/all-gather per step, usually overlapped",
                 [](ResolvedConfig* c) {
                   if (c->distributed_optimizer || c->fsdp) return false;
                   c->distributed_optimizer = true;
                   return true;
                 }});
  out.push_back({"", "more microbatches per step: same GBS, smaller GEMMs", [](ResolvedConfig* c) {
                   if (c->mbs <= 1) return false;
                   c->mbs /= 2;
                   return true;
                 }});
  // Cheap selective recompute: norms, MoE activations, MLA up-projections.
  out.push_back(
      {"", "recomputes cheap element-wise/projection work (~2-5% step time)", [m](ResolvedConfig* c) {
         if (c->recompute != RecomputeGranularity::kNone && c->recompute != RecomputeGranularity::kSelective) {
           return false;
         }
         std::vector<std::string> modules =
             c->recompute == RecomputeGranularity::kSelective ? c->recompute_modules : std::vector<std::string>{};
         const size_t before = modules.size();
         auto add = [&modules](const char* name) {
           if (std::find(modules.begin(), modules.end(), name) == modules.end()) modules.push_back(name);
         };
         add("layernorm");
         if (m.num_moe_experts > 0) add("moe_act");
         if (m.multi_latent_attention) add("mla_up_proj");
         if (modules.size() == before && c->recompute == RecomputeGranularity::kSelective) return false;
         c->recompute = RecomputeGranularity::kSelective;
         c->recompute_modules = modules;
         return true;
       }});
  out.push_back({"", "recomputes the MLP/MoE forward (~10-20% step time)", [m](ResolvedConfig* c) {
                   if (c->recompute == RecomputeGranularity::kFull) return false;
                   std::vector<std::string> modules = c->recompute == RecomputeGranularity::kSelective
                                                          ? c->recompute_modules
                                                          : std::vector<std::string>{};
                   const char* name = m.num_moe_experts > 0 ? "moe" : "mlp";
                   if (std::find(modules.begin(), modules.end(), name) != modules.end()) return false;
                   modules.push_back(name);
                   if (m.num_moe_experts > 0 && CountLayers(m).dense_mlp > 0) modules.push_back("mlp");
                   c->recompute = RecomputeGranularity::kSelective;
                   c->recompute_modules = modules;
                   return true;
                 }});
  out.push_back({"", "more expert all-to-all partners; fewer experts per GPU", [m](ResolvedConfig* c) {
                   if (m.num_moe_experts <= 0 || c->ep * 2 > m.num_moe_experts) return false;
                   c->ep *= 2;
                   return true;
                 }});
  out.push_back({"", "bigger pipeline bubble unless microbatches grow", [](ResolvedConfig* c) {
                   c->pp *= 2;
                   if (!c->pipeline_layout.empty()) return false;  // a layout fixes the stages
                   c->first_stage_layers = c->last_stage_layers = 0;
                   return true;
                 }});
  out.push_back({"", "more TP communication; smaller GEMMs", [p](ResolvedConfig* c) {
                   const int64_t domain = p.nvlink_domain_size > 0 ? p.nvlink_domain_size : 8;
                   if (c->tp * 2 > domain) return false;
                   c->tp *= 2;
                   if (c->etp_defaulted) c->etp = c->tp;
                   c->sp = true;
                   return true;
                 }});
  out.push_back({"", "KV exchange between CP ranks", [](ResolvedConfig* c) {
                   if (c->seq_length <= 0 || c->seq_length % (4 * c->cp) != 0) return false;
                   c->cp *= 2;
                   return true;
                 }});
  out.push_back(
      {"full recompute (uniform, 1 layer)", "recomputes every layer's forward (~30% step time)", [](ResolvedConfig* c) {
         if (c->recompute == RecomputeGranularity::kFull) return false;
         c->recompute = RecomputeGranularity::kFull;
         c->recompute_modules.clear();
         c->recompute_method = RecomputeMethod::kUniform;
         c->recompute_num_layers = 1;
         return true;
       }});
  out.push_back({"Megatron FSDP", "weights gathered per layer: more DP traffic", [](ResolvedConfig* c) {
                   if (c->fsdp) return false;
                   c->fsdp = true;
                   return true;
                 }});
  return out;
}

}  // namespace

std::vector<MemorySuggestion> SuggestMemoryChanges(const ModelSpec& model, const ResolvedConfig& config,
                                                   const ResolvedPlacement& placement, const MemoryOptions& options,
                                                   int max) {
  std::vector<MemorySuggestion> singles;
  const auto candidates = Candidates(model, placement);
  auto evaluate = [&](const ResolvedConfig& changed, const std::string& note) -> std::optional<MemorySuggestion> {
    const MemoryAnswer a = AnswerMemory(model, changed, placement, options);
    if (!a.estimate.has_value() || !a.validation.valid) return std::nullopt;
    MemorySuggestion s;
    s.change = DescribeConfigChange(config, changed);
    s.config = changed;
    s.peak_bytes = a.estimate->peak_bytes;
    s.fits = a.estimate->fits;
    s.note = note;
    return s;
  };
  for (const auto& cand : candidates) {
    ResolvedConfig changed = config;
    if (!cand.apply(&changed)) continue;
    if (auto s = evaluate(changed, cand.note)) singles.push_back(*s);
  }
  std::vector<MemorySuggestion> out;
  for (const auto& s : singles) {
    if (s.fits && static_cast<int>(out.size()) < max) out.push_back(s);
  }
  if (!out.empty()) return out;
  // Pairs of changes, in the order of the cheaper first change.
  for (size_t i = 0; i < candidates.size() && static_cast<int>(out.size()) < max; ++i) {
    for (size_t j = i + 1; j < candidates.size() && static_cast<int>(out.size()) < max; ++j) {
      ResolvedConfig changed = config;
      if (!candidates[i].apply(&changed) || !candidates[j].apply(&changed)) continue;
      auto s = evaluate(changed, absl::StrCat(candidates[i].note, "; ", candidates[j].note));
      if (s.has_value() && s->fits) out.push_back(*s);
    }
  }
  if (!out.empty()) return out;
  std::sort(singles.begin(), singles.end(),
            [](const MemorySuggestion& a, const MemorySuggestion& b) { return a.peak_bytes < b.peak_bytes; });
  for (auto& s : singles) {
    if (static_cast<int>(out.size()) >= max) break;
    s.note = absl::StrCat("not enough alone (", HumanGiB(s.peak_bytes), "); ", s.note);
    out.push_back(s);
  }
  return out;
}

}  // namespace parplan
