#include "core/search/knob_refinement.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/pipeline/stage_plan.h"
#include "core/search/plan_explain.h"
#include "core/util/text.h"

namespace parplan {
namespace {

using MeshKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;

MeshKey MeshOfCandidate(const ResolvedConfig& c, int64_t world) {
  return {world, c.tp, c.pp, std::max<int64_t>(1, c.vpp), c.cp, c.ep, c.etp};
}

// Every axis's value: one variant's identity within a seed's walk.
std::string KnobKey(const ResolvedConfig& c) {
  std::string key;
  for (KnobAxis axis : kKnobAxes) absl::StrAppend(&key, KnobValue(c, axis), "|");
  return key;
}

// A fitting plan beats one that does not; else the faster by kKnobMinGain.
bool Beats(const Scored& a, const Scored& b) {
  if (a.fits != b.fits) return a.fits;
  return a.tokens_per_gpu > b.tokens_per_gpu * (1 + kKnobMinGain);
}

// The axes the walk varies: those the caller did not set (all of them with `free_all`).
std::vector<KnobAxis> WalkedAxes(const ResolvedConfig& base, bool free_all) {
  std::vector<KnobAxis> out;
  for (KnobAxis axis : kKnobAxes) {
    if (free_all || !KnobPinned(base, axis)) out.push_back(axis);
  }
  return out;
}

class Walker {
 public:
  Walker(const SearchRequest& req, Evaluated* e, SearchResult* out) : req_(req), e_(e), out_(out) {}

  bool stopped() const { return stopped_; }

  // Estimates `c` on `world` GPUs of `sys` (SystemFor(req, world); nullopt:
  // its split fails, or the candidate bound or deadline is reached). With
  // `add` it joins the candidates.
  std::optional<Scored> Try(ResolvedConfig c, int64_t world, const SystemSpec& sys, bool add) {
    if (stopped_) return std::nullopt;
    if ((add && out_->evaluated >= req_.max_candidates) || absl::Now() > req_.deadline) {
      stopped_ = true;
      return std::nullopt;
    }
    const auto plan = PlanStages(*req_.model, c);
    if (add) {
      ++out_->evaluated;
      ++out_->candidates;
    }
    if (!plan.has_value()) {
      if (add) ++out_->rejected.invalid;
      return std::nullopt;
    }
    Estimates est;
    bool timed = false;
    Scored s = ScoreConfig(req_, *plan, world, sys, &c, &est, &timed);
    ++out_->estimates;
    // A plan the search put on optimizer offload ranks like a tight one: it
    // yields to a plan without it that is as fast within the model's
    // between-config error (the host link and CPU Adam step are priced from
    // bandwidths, not from measured runs).
    if (c.optimizer_cpu_offload && !KnobPinned(c, KnobAxis::kOptimizerOffload)) s.tight = true;
    if (!add) {
      s.space = -1;
      return s;
    }
    auto [it, inserted] = space_of_world_.try_emplace(world, static_cast<int64_t>(e_->spaces.size()));
    if (inserted) e_->spaces.push_back(WorldCandidates{world, {}});
    WorldCandidates& space = e_->spaces[it->second];
    s.space = it->second;
    s.index = static_cast<int64_t>(space.configs.size());
    space.configs.push_back(std::move(c));
    e_->store.Offer(s, std::move(est), timed);
    e_->scored.push_back(s);
    return s;
  }

  // Walks `axes` from `seed` (already scored as `seed_score`): returns the
  // best variant found and its score.
  std::pair<ResolvedConfig, Scored> Walk(const ResolvedConfig& seed, const Scored& seed_score,
                                         const std::vector<KnobAxis>& axes, bool add) {
    ResolvedConfig best = seed;
    Scored best_score = seed_score;
    std::set<std::string> seen = {KnobKey(seed)};
    const SystemSpec sys = SystemFor(req_, seed_score.world);
    for (int pass = 0; pass < kKnobPasses && !stopped_; ++pass) {
      bool changed = false;
      for (KnobAxis axis : axes) {
        for (KnobOption& option : KnobOptions(*req_.model, best, sys, axis)) {
          if (!seen.insert(KnobKey(option.config)).second) continue;
          std::optional<Scored> s = Try(option.config, seed_score.world, sys, add);
          if (!s.has_value() || !Beats(*s, best_score)) continue;
          best = std::move(option.config);
          best_score = *s;
          changed = true;
        }
      }
      if (!changed) break;
    }
    return {best, best_score};
  }

 private:
  const SearchRequest& req_;
  Evaluated* e_;
  SearchResult* out_;
  std::map<int64_t, int64_t> space_of_world_;
  bool stopped_ = false;
};

// The candidates to refine: the fastest fitting ones (at most
// kKnobSeedsPerMesh per mesh), then the fastest over memory but timed.
std::vector<Scored> Seeds(const Evaluated& e) {
  std::vector<Scored> fitting, over;
  for (const Scored& s : e.scored) {
    if (s.oversized_batch || s.tokens_per_gpu <= 0) continue;
    (s.fits ? fitting : over).push_back(s);
  }
  auto faster = [](const Scored& a, const Scored& b) { return a.tokens_per_gpu > b.tokens_per_gpu; };
  std::stable_sort(fitting.begin(), fitting.end(), faster);
  std::stable_sort(over.begin(), over.end(), faster);
  std::vector<Scored> seeds;
  std::map<MeshKey, size_t> per_mesh;
  for (const Scored& s : fitting) {
    if (seeds.size() >= kKnobSeeds) break;
    if (++per_mesh[MeshOfCandidate(e.ConfigOf(s), s.world)] > kKnobSeedsPerMesh) continue;
    seeds.push_back(s);
  }
  for (size_t i = 0; i < std::min(over.size(), kKnobNearlyFitting); ++i) seeds.push_back(over[i]);
  return seeds;
}

// "alltoall -9.6% (exposed EP 1.26->1.89 s)", "0.5 +0.2%", "off does not fit (88.9 GiB)".
std::string AlternativeWords(KnobAxis axis, const std::string& name, const PlanEval& plan, const MemoryEstimate& mem,
                             const PerfEstimate& perf) {
  if (!mem.fits) return absl::StrCat(name, " does not fit (", HumanGiB(mem.peak_bytes), ")");
  const double base = plan.perf.tokens_per_s_per_gpu;
  const double change = base > 0 ? perf.tokens_per_s_per_gpu / base - 1 : 0;
  std::string out =
      std::fabs(change) < 5e-4 ? absl::StrCat(name, " same") : absl::StrFormat("%s %+.1f%%", name, 100 * change);
  const auto [term, before] = KnobTerm(axis, plan.perf);
  const double after = KnobTerm(axis, perf).second;
  if (std::fabs(after - before) >= 5e-3)
    absl::StrAppend(&out, absl::StrFormat(" (%s %.2f->%.2f s)", term, before, after));
  return out;
}

// Plan 1's line: each axis's value and, per other value, its speed change
// on this mesh and the term it moves, or the rule refusing it.
std::string DetailedKnobLine(const SearchRequest& req, const PlanEval& plan, SearchResult* out) {
  const ModelSpec& m = *req.model;
  const SystemSpec sys = SystemFor(req, plan.world);
  std::vector<std::string> parts;
  bool starred = false;
  for (KnobAxis axis : kKnobAxes) {
    const std::vector<KnobAlternative> alternatives = KnobAlternatives(m, plan.config, sys, axis);
    if (alternatives.empty()) continue;
    std::vector<std::string> others;
    std::map<std::string, std::vector<std::string>> refused;  // rule -> values
    for (const KnobAlternative& a : alternatives) {
      ResolvedConfig c = a.option.config;
      std::string name = KnobValue(c, axis);
      if (!a.refusal.empty()) {
        const std::optional<KnobOption> cleared = WithoutConflict(m, a, sys);
        if (!cleared.has_value()) {
          refused[a.refusal.substr(0, a.refusal.find(':'))].push_back(name);
          continue;
        }
        c = cleared->config;
        name += "*";  // with the conflicting setting reset (said once below)
        starred = true;
      }
      const auto stages = PlanStages(m, c);
      if (!stages.has_value()) continue;
      const MemoryEstimate mem = EstimateMemory(m, c, *stages, plan.world, &sys, MemoryOptions{});
      const PerfEstimate perf = EstimatePerformance(m, c, *stages, plan.world, sys, ParamsOf(req));
      ++out->estimates;
      others.push_back(AlternativeWords(axis, name, plan, mem, perf));
    }
    for (const auto& [rule, values] : refused) {
      others.push_back(absl::StrCat(absl::StrJoin(values, ", "), " refused by ", rule));
    }
    std::vector<std::string> notes;
    if (KnobPinned(req.base, axis)) notes.push_back("yours");
    notes.insert(notes.end(), others.begin(), others.end());
    parts.push_back(absl::StrCat(KnobAxisName(axis), " ", KnobValue(plan.config, axis),
                                 notes.empty() ? "" : absl::StrCat(" (", absl::StrJoin(notes, "; "), ")")));
  }
  if (parts.empty()) return "";
  return absl::StrCat("Execution settings searched (other values' tokens/s/GPU on this mesh): ",
                      absl::StrJoin(parts, "; "), starred ? " (*: with the setting refusing it reset)" : "", ".");
}

// Later plans: the values only.
std::string ShortKnobLine(const SearchRequest& req, const PlanEval& plan) {
  const SystemSpec sys = SystemFor(req, plan.world);
  std::vector<std::string> parts;
  for (KnobAxis axis : kKnobAxes) {
    if (KnobAlternatives(*req.model, plan.config, sys, axis).empty()) continue;
    parts.push_back(absl::StrCat(KnobAxisName(axis), " ", KnobValue(plan.config, axis),
                                 KnobPinned(req.base, axis) ? " (yours)" : ""));
  }
  if (parts.empty()) return "";
  return absl::StrCat("Execution settings (searched on this mesh; plan 1 shows what other values cost): ",
                      absl::StrJoin(parts, ", "), ".");
}

}  // namespace

UnpinnedGain RefineExecutionKnobs(const SearchRequest& req, Evaluated* e, SearchResult* out) {
  UnpinnedGain gain;
  for (KnobAxis axis : kKnobAxes) {
    if (KnobPinned(req.base, axis)) gain.pinned.push_back(axis);
  }
  const std::vector<Scored> seeds = Seeds(*e);
  Walker walker(req, e, out);
  const std::vector<KnobAxis> free_axes = WalkedAxes(req.base, false);
  const std::vector<KnobAxis> all_axes = WalkedAxes(req.base, true);
  std::optional<Scored> best_free;
  for (const Scored& seed : seeds) {
    if (walker.stopped()) break;
    const ResolvedConfig config = e->ConfigOf(seed);  // copied: the walk adds to the spaces
    auto [best, score] = walker.Walk(config, seed, free_axes, true);
    if (score.fits) gain.best_pinned_tokens = std::max(gain.best_pinned_tokens, score.tokens_per_gpu);
    if (gain.pinned.empty()) continue;
    auto [unpinned, unpinned_score] = walker.Walk(best, score, all_axes, false);
    if (unpinned_score.fits && (!best_free.has_value() || unpinned_score.tokens_per_gpu > best_free->tokens_per_gpu)) {
      best_free = unpinned_score;
      gain.best = std::move(unpinned);
      gain.world = unpinned_score.world;
      gain.tokens_per_gpu = unpinned_score.tokens_per_gpu;
    }
  }
  for (const Scored& s : e->scored) {
    if (s.fits && !s.oversized_batch) gain.best_pinned_tokens = std::max(gain.best_pinned_tokens, s.tokens_per_gpu);
  }
  return gain;
}

void ExplainExecutionKnobs(const SearchRequest& req, const UnpinnedGain& unpinned, SearchResult* out) {
  for (size_t i = 0; i < out->plans.size(); ++i) {
    PlanEval& plan = out->plans[i];
    std::string line = i == 0 ? DetailedKnobLine(req, plan, out) : ShortKnobLine(req, plan);
    if (!line.empty()) plan.reasons.push_back(std::move(line));
  }
  if (unpinned.pinned.empty() || !unpinned.best.has_value() || unpinned.best_pinned_tokens <= 0) return;
  std::vector<std::string> names;
  for (KnobAxis axis : unpinned.pinned) names.push_back(KnobAxisField(axis));
  const double gain = unpinned.tokens_per_gpu / unpinned.best_pinned_tokens - 1;
  if (gain <= kKnobMinGain) {
    out->reasons.push_back(absl::StrCat("You set ", absl::StrJoin(names, ", "),
                                        ": with them free the search finds nothing faster by more than ",
                                        absl::StrFormat("%.0f%%", 100 * kKnobMinGain), "."));
    return;
  }
  std::vector<std::string> values;
  for (KnobAxis axis : unpinned.pinned) {
    values.push_back(absl::StrCat(KnobAxisName(axis), " ", KnobValue(*unpinned.best, axis)));
  }
  out->reasons.push_back(absl::StrFormat(
      "You set %s; with them free the best plan found is %s on %d GPUs with %s: %s tokens/s/GPU, %+.1f%% over the "
      "fastest plan that keeps your settings.",
      absl::StrJoin(names, ", "), PlanLabel(*unpinned.best), unpinned.world, absl::StrJoin(values, ", "),
      WithCommas(std::llround(unpinned.tokens_per_gpu)), 100 * gain));
}

}  // namespace parplan
