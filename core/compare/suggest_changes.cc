#include "core/compare/suggest_changes.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/config/resolved_settings.h"
#include "core/pipeline/layout_builder.h"
#include "core/search/candidate_space.h"
#include "core/search/execution_knobs.h"
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
  if (!c.overlap_grad_reduce) {
    ResolvedConfig x = c;
    x.overlap_grad_reduce = true;
    add("overlap_grad_reduce = true", "overlap_grad_reduce", x);
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
  // The loss stage balanced: one layer fewer on the stage that computes the
  // logits (a layout), when the layers split evenly today.
  if (c.pp > 1 && c.pipeline_layout.empty() && !c.account_for_loss && c.first_stage_layers == 0 &&
      c.last_stage_layers == 0 && m.num_layers % (c.pp * std::max<int64_t>(1, c.vpp)) == 0 && !m.is_hybrid()) {
    ResolvedConfig x = c;
    x.pipeline_layout = LossBalancedLayout(m.num_layers, c.mtp_num_layers, c.pp * std::max<int64_t>(1, c.vpp));
    x.vpp = 0;
    x.vpp_given = false;
    add("pipeline_layout balancing the loss stage (one layer fewer where the logits are computed)", "pipeline_layout",
        x);
  }
  for (int64_t mbs : {c.mbs * 2, c.mbs / 2}) {
    if (mbs < 1 || mbs == c.mbs) continue;
    ResolvedConfig x = c;
    x.mbs = mbs;
    add(DescribeConfigChange(c, x), "mbs", x);
  }
  return out;
}

}  // namespace

ChangeAdvice AdviseChanges(const ModelSpec& model, const RunPrediction& base, const PerfParams& params, int max) {
  ChangeAdvice advice;
  const double step = base.perf.step_time_s;
  if (!base.ok || step <= 0 || !base.placement.system.has_value()) return advice;
  const SystemSpec& sys = *base.placement.system;
  auto estimate = [&](const std::string& change, const std::string& field, const ResolvedConfig& config,
                      KnobAxis* axis) -> std::optional<std::pair<SuggestedChange, RunPrediction>> {
    const RunPrediction p = PredictRun(model, config, base.placement, params);
    // A change whose layers no longer split would be estimated with another
    // split too: not a single change, left out.
    if (!p.ok || p.split_repaired) return std::nullopt;
    SuggestedChange s;
    s.change = change;
    s.predicted_step_s = p.perf.step_time_s;
    s.predicted_gain = (step - p.perf.step_time_s) / step;
    s.effect = EffectClassName(EffectOf(field));
    s.note = absl::StrFormat("step %.3f s -> %.3f s (%.1f%% faster); peak memory %s of %s", step, p.perf.step_time_s,
                             100 * s.predicted_gain, HumanGiB(p.memory.peak_bytes), HumanGiB(p.memory.capacity_bytes));
    if (axis != nullptr) {
      const auto [term, before] = KnobTerm(*axis, base.perf);
      const double after = KnobTerm(*axis, p.perf).second;
      absl::StrAppend(&s.note, absl::StrFormat("; %s %.3f -> %.3f s", term, before, after));
    }
    return std::make_pair(std::move(s), p);
  };
  auto keep = [&](std::optional<std::pair<SuggestedChange, RunPrediction>> r) {
    if (r.has_value() && r->second.memory.fits && r->first.predicted_gain > 1e-3) {
      advice.faster.push_back(std::move(r->first));
    }
  };
  int estimated = 0;
  for (const Candidate& cand : Candidates(model, base.config)) {
    if (++estimated > kMaxChangeCandidates) break;
    keep(estimate(cand.change, cand.field, cand.config, nullptr));
  }
  // The execution settings NVIDIA tunes, each axis's every accepted value;
  // an axis where none helps says why.
  for (KnobAxis axis : kKnobAxes) {
    const std::vector<KnobAlternative> alternatives = KnobAlternatives(model, base.config, sys, axis);
    if (alternatives.empty()) continue;
    std::vector<std::string> why;
    bool helped = false;
    for (const KnobAlternative& a : alternatives) {
      std::string value = KnobValue(a.option.config, axis);
      KnobOption option = a.option;
      if (!a.refusal.empty()) {
        // Refused only for another setting's value: priced with that one reset.
        const std::optional<KnobOption> cleared = WithoutConflict(model, a, sys);
        if (!cleared.has_value()) {
          why.push_back(absl::StrCat(value, " refused (", a.refusal.substr(0, a.refusal.find(':')), ")"));
          continue;
        }
        option = *cleared;
        value += option.change.substr(a.option.change.size());
      }
      auto r = estimate(option.change, KnobAxisField(axis), option.config, &axis);
      if (!r.has_value()) continue;
      if (!r->second.memory.fits) {
        why.push_back(absl::StrCat(value, " does not fit (", HumanGiB(r->second.memory.peak_bytes), ")"));
        continue;
      }
      if (r->first.predicted_gain > 1e-3) {
        helped = true;
        keep(std::move(r));
        continue;
      }
      const auto [term, before] = KnobTerm(axis, base.perf);
      const double after = KnobTerm(axis, r->second.perf).second;
      const double slower = -r->first.predicted_gain;
      std::string line =
          slower < 5e-4 ? absl::StrCat(value, " same speed") : absl::StrFormat("%s %.1f%% slower", value, 100 * slower);
      if (std::fabs(after - before) >= 5e-4)
        absl::StrAppend(&line, absl::StrFormat(" (%s %.3f -> %.3f s)", term, before, after));
      why.push_back(std::move(line));
    }
    if (!helped && !why.empty()) {
      // Why, once per setting: the term it would have moved is not there.
      std::string because;
      if (axis == KnobAxis::kCudaGraph && KnobTerm(axis, base.perf).second < 1e-3) {
        because = " (GPU-bound: no host time to hide)";
      } else if (axis == KnobAxis::kOptimizerOffload && !base.config.optimizer_cpu_offload) {
        because = " (it fits without: offload only adds the host step)";
      }
      advice.not_helping.push_back(absl::StrCat(KnobAxisName(axis), " ", KnobValue(base.config, axis), " stays best",
                                                because, ": ", absl::StrJoin(why, ", ")));
    }
  }
  std::stable_sort(advice.faster.begin(), advice.faster.end(), [](const SuggestedChange& a, const SuggestedChange& b) {
    return a.predicted_gain > b.predicted_gain;
  });
  if (static_cast<int>(advice.faster.size()) > max) advice.faster.resize(std::max(0, max));
  return advice;
}

std::vector<SuggestedChange> SuggestFasterChanges(const ModelSpec& model, const RunPrediction& base,
                                                  const PerfParams& params, int max) {
  return AdviseChanges(model, base, params, max).faster;
}

}  // namespace parplan
