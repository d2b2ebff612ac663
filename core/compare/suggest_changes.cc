#include "core/compare/suggest_changes.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/config/resolved_settings.h"
#include "core/search/candidate_space.h"
#include "core/util/text.h"

namespace parplan {
namespace {

struct Candidate {
  std::string change;
  std::string field;  // proto name, for its effect class
  ResolvedConfig config;
};

int RecomputeWeight(RecomputeGranularity g) {
  return g == RecomputeGranularity::kNone ? 0 : g == RecomputeGranularity::kSelective ? 1 : 2;
}

// "full", "selective (mlp)", "none".
std::string RecomputeWords(const ResolvedConfig& c) {
  if (c.recompute != RecomputeGranularity::kSelective) return RecomputeName(c.recompute);
  return absl::StrCat("selective (", absl::StrJoin(c.recompute_modules, ", "), ")");
}

std::vector<Candidate> Candidates(const ModelSpec& m, const ResolvedConfig& c) {
  std::vector<Candidate> out;
  auto add = [&](std::string change, std::string field, ResolvedConfig changed) {
    out.push_back({std::move(change), std::move(field), std::move(changed)});
  };
  if (c.tp > 1 && !c.tp_comm_overlap) {
    ResolvedConfig x = c;
    x.tp_comm_overlap = true;
    add("tp_comm_overlap = true", "tp_comm_overlap", x);
  }
  if (!c.overlap_grad_reduce) {
    ResolvedConfig x = c;
    x.overlap_grad_reduce = true;
    add("overlap_grad_reduce = true", "overlap_grad_reduce", x);
  }
  if (m.is_moe() && c.ep > 1 && !c.overlap_moe_expert_parallel_comm) {
    ResolvedConfig x = c;
    x.overlap_moe_expert_parallel_comm = true;
    add("overlap_moe_expert_parallel_comm = true", "overlap_moe_expert_parallel_comm", x);
  }
  // Lighter recompute: every variant the search tries that recomputes less.
  for (ResolvedConfig x : RecomputeVariants(m, c)) {
    const bool lighter = RecomputeWeight(x.recompute) < RecomputeWeight(c.recompute) ||
                         (x.recompute == c.recompute && x.recompute == RecomputeGranularity::kSelective &&
                          x.recompute_modules.size() < c.recompute_modules.size());
    if (!lighter) continue;
    x.recompute_method_given = false;
    x.recompute_num_layers_given = false;
    add(absl::StrCat("recompute ", RecomputeWords(c), " -> ", RecomputeWords(x)), "recompute_granularity", x);
  }
  // Other interleaving: twice and half the VPP, and 2 when there is none
  // (a pipeline layout fixes VPP itself).
  if (c.pp > 1 && c.pipeline_layout.empty()) {
    for (int64_t v : {c.vpp * 2, c.vpp / 2}) {
      if (v < 1 || v == c.vpp || v * c.pp > m.num_layers) continue;
      ResolvedConfig x = c;
      x.vpp = v;
      x.vpp_given = v > 1;
      add(DescribeConfigChange(c, x), "vpp", x);
    }
  }
  if (c.cuda_graph_impl == "none") {
    ResolvedConfig x = c;
    x.cuda_graph_impl = "transformer_engine";
    x.cuda_graph_modules.clear();
    add("cuda_graph_impl = transformer_engine (whole layers)", "cuda_graph_impl", x);
    if (m.is_moe()) {
      x.cuda_graph_modules = {"attn", "moe_router", "moe_preprocess"};
      add("cuda_graph_impl = transformer_engine, cuda_graph_modules = [attn, moe_router, moe_preprocess]",
          "cuda_graph_impl", x);
    }
    x.cuda_graph_impl = "full_iteration";
    x.cuda_graph_modules.clear();
    add("cuda_graph_impl = full_iteration", "cuda_graph_impl", x);
  }
  if (m.is_moe() && c.ep * c.etp > 1) {
    const std::pair<const char*, const char*> dispatchers[] = {
        {"alltoall", ""}, {"flex", "deepep"}, {"flex", "hybridep"}};
    for (const auto& [type, backend] : dispatchers) {
      const bool same = c.moe_token_dispatcher_type == type &&
                        (std::string(type) != "flex" || c.moe_flex_dispatcher_backend == backend);
      if (same) continue;
      ResolvedConfig x = c;
      x.moe_token_dispatcher_type = type;
      x.dispatcher_defaulted = false;
      x.dispatch_fields_given = true;
      if (*backend != '\0') {
        x.moe_flex_dispatcher_backend = backend;
        x.flex_backend_given = true;
      }
      add(*backend != '\0' ? absl::StrCat("moe_token_dispatcher_type = flex, moe_flex_dispatcher_backend = ", backend)
                           : absl::StrCat("moe_token_dispatcher_type = ", type),
          "moe_token_dispatcher_type", x);
    }
  }
  for (int64_t mbs : {c.mbs * 2, c.mbs / 2}) {
    if (mbs < 1 || mbs == c.mbs) continue;
    ResolvedConfig x = c;
    x.mbs = mbs;
    add(DescribeConfigChange(c, x), "mbs", x);
  }
  if (out.size() > static_cast<size_t>(kMaxChangeCandidates)) out.resize(kMaxChangeCandidates);
  return out;
}

}  // namespace

std::vector<SuggestedChange> SuggestFasterChanges(const ModelSpec& model, const RunPrediction& base,
                                                  const PerfParams& params, int max) {
  std::vector<SuggestedChange> out;
  const double step = base.perf.step_time_s;
  if (!base.ok || step <= 0) return out;
  for (const Candidate& cand : Candidates(model, base.config)) {
    const RunPrediction p = PredictRun(model, cand.config, base.placement, params);
    // A change whose layers no longer split would be estimated with another
    // split too: not a single change, left out.
    if (!p.ok || !p.memory.fits || p.split_repaired) continue;
    const double gain = (step - p.perf.step_time_s) / step;
    if (gain <= 1e-3) continue;
    SuggestedChange s;
    s.change = cand.change;
    s.predicted_step_s = p.perf.step_time_s;
    s.predicted_gain = gain;
    s.effect = EffectClassName(EffectOf(cand.field));
    s.note = absl::StrFormat("step %.3f s -> %.3f s (%.1f%% faster); peak memory %s of %s", step, p.perf.step_time_s,
                             100 * gain, HumanGiB(p.memory.peak_bytes), HumanGiB(p.memory.capacity_bytes));
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const SuggestedChange& a, const SuggestedChange& b) {
    return a.predicted_gain > b.predicted_gain;
  });
  if (static_cast<int>(out.size()) > max) out.resize(std::max(0, max));
  return out;
}

}  // namespace parplan
