#include "core/search/recommender.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/model/param_count.h"
#include "core/perf/uncertainty.h"
#include "core/pipeline/stage_plan.h"
#include "core/rules/validate.h"
#include "core/search/candidate_space.h"
#include "core/search/plan_explain.h"
#include "core/search/starting_point.h"
#include "core/util/text.h"
#include "core/util/limits.h"

namespace parplan {

const std::vector<std::string>& ObjectiveNames() {
  static const auto* names = new std::vector<std::string>{"throughput", "fewest-gpus", "headroom"};
  return *names;
}
namespace {

constexpr int64_t kDeadlineCheckEvery = 16;
constexpr double kHeadroomThroughputBand = 0.85;
constexpr double kTieBand = 0.01;
constexpr double kHeadroomResolution = 0.01;  // of HBM
constexpr double kNearlyFits = 1.25;  // "fastest not fitting" looks at peaks up to 125% of HBM first

// One candidate after memory and performance (rules not yet run).
struct Scored {
  int64_t index = 0;     // into the world's candidate list
  int64_t world = 0;
  bool planned = false;  // the pipeline split is valid
  bool fits = false;
  double tokens_per_gpu = 0;
  double headroom_fraction = 0;
  double peak_fraction = 0;  // peak / capacity
  bool tight = false;        // fits, with less headroom than the reserve
  int dims = 0;
};

struct WorldCandidates {
  int64_t world = 0;
  std::vector<ResolvedConfig> configs;
};

// World sizes in [lo, hi]: powers of two below a node, multiples of a node above.
std::vector<int64_t> CandidateWorlds(int64_t lo, int64_t hi, int64_t per_node) {
  std::vector<int64_t> out;
  for (int64_t w = 1; w < per_node && w <= hi; w *= 2) {
    if (w >= lo) out.push_back(w);
  }
  for (int64_t w = std::max<int64_t>(per_node, (lo + per_node - 1) / per_node * per_node); w <= hi; w += per_node) {
    out.push_back(w);
    if (static_cast<int64_t>(out.size()) >= kMaxSearchWorlds) break;
  }
  return out;
}

// Fewest GPUs the model states alone could fit on: 1 B weights + 2 B
// gradients + 12 B Adam state per parameter, all perfectly sharded.
int64_t ModelStateLowerBound(const ModelSpec& m, const SystemSpec& sys) {
  const double capacity = sys.hbm_gb * kGiB;
  if (capacity <= 0) return 1;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(CountParams(m).total * 15.0 / capacity)));
}

bool FitsWithin(const MemoryEstimate& mem, const SearchRequest& req) {
  return mem.fits && mem.peak_bytes <= req.max_memory_fraction * mem.capacity_bytes;
}

bool Better(const Scored& a, const Scored& b, Objective objective, double band_floor) {
  if (a.fits != b.fits) return a.fits;  // fitting candidates first, so runs of ties are contiguous
  if (objective == Objective::kFewestGpus && a.world != b.world) return a.world < b.world;
  if (objective == Objective::kHeadroom) {
    const bool ea = a.tokens_per_gpu >= band_floor, eb = b.tokens_per_gpu >= band_floor;
    if (ea != eb) return ea;
    if (ea && a.headroom_fraction != b.headroom_fraction) return a.headroom_fraction > b.headroom_fraction;
  }
  if (a.tokens_per_gpu != b.tokens_per_gpu) return a.tokens_per_gpu > b.tokens_per_gpu;
  if (a.dims != b.dims) return a.dims < b.dims;
  if (a.world != b.world) return a.world < b.world;
  return a.index < b.index;
}

// A plan is redundant next to one already shown that it only extends (see
// ExtendsMesh; e.g. CP=2 with twice the MBS at 8K tokens) when it is neither
// faster beyond the model's resolution nor leaves more memory headroom.
bool Redundant(const Scored& candidate, const ResolvedConfig& candidate_config, const Scored& shown,
               const ResolvedConfig& shown_config) {
  return candidate.world == shown.world && ExtendsMesh(candidate_config, shown_config) &&
         candidate.tokens_per_gpu <= shown.tokens_per_gpu * (1 + kTieBand) &&
         candidate.headroom_fraction <= shown.headroom_fraction + kHeadroomResolution;
}

}  // namespace

PlanEval EvaluatePlan(const ModelSpec& m, const ResolvedConfig& config, int64_t world, const SystemSpec& sys) {
  PlanEval p;
  p.config = config;
  p.world = world;
  ValidationInput in;
  in.model = &m;
  in.config = config;
  in.placement = PlacementOn(sys, world);
  ValidationResult v = Validate(in);
  p.valid = v.valid;
  for (auto& violation : v.violations) {
    if (violation.severity == Severity::kError || (v.valid && violation.severity == Severity::kWarning)) {
      p.violations.push_back(std::move(violation));
    }
  }
  if (!v.stages.has_value() || world % (config.tp * config.pp * config.cp) != 0 ||
      world % (config.pp * config.ep * config.etp) != 0) {
    p.valid = false;
    return p;
  }
  p.config.vpp = v.stages->vpp;
  p.dp = world / (config.tp * config.pp * config.cp);
  p.edp = world / (config.pp * config.ep * config.etp);
  p.memory = EstimateMemory(m, p.config, *v.stages, world, &sys, MemoryOptions{});
  p.perf = EstimatePerformance(m, p.config, *v.stages, world, sys, CalibratedPerfParams());
  AddPlanReasons(m, sys, &p);
  return p;
}

absl::StatusOr<SearchResult> Recommend(const SearchRequest& req) {
  if (req.model == nullptr || !req.model->complete()) {
    return absl::InvalidArgumentError("model: Recommend needs a complete model architecture");
  }
  if (req.base.seq_length <= 0) return absl::InvalidArgumentError("config.seq_length: no sequence length");
  if (req.top_k < 1 || req.top_k > 100) {
    return absl::InvalidArgumentError(absl::StrCat("top_k: top_k = ", req.top_k, " is out of range; allowed 1..100"));
  }
  const ModelSpec& m = *req.model;
  const SystemSpec& sys = req.system;
  SearchResult out;

  // Which world sizes.
  std::vector<int64_t> worlds;
  const int64_t per_node = std::max(1, sys.gpus_per_node);
  if (req.gpus > 0) {
    worlds = {req.gpus};
  } else {
    const int64_t hi = req.max_gpus > 0 ? req.max_gpus : kDefaultMaxSearchGpus;
    int64_t lo = std::max<int64_t>(1, req.min_gpus);
    if (req.find_min_gpus) lo = std::max(lo, ModelStateLowerBound(m, sys));
    if (lo > hi) {
      return absl::InvalidArgumentError(
          absl::StrCat("max_gpus: the range ", lo, "..", hi, " is empty (the model states alone need at least ",
                       ModelStateLowerBound(m, sys), " GPUs of ", sys.hbm_gb, " GB)"));
    }
    worlds = CandidateWorlds(lo, hi, per_node);
    if (worlds.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("max_gpus: no world size in ", lo, "..", hi));
    }
  }

  auto base_for = [&](int64_t world) {
    ResolvedConfig b = req.base;
    if (b.gbs <= 0) b.gbs = SearchGlobalBatch(b.seq_length, world);
    return b;
  };
  auto out_of_time = [&]() { return absl::Now() > req.deadline; };
  auto cut = [&](const std::string& why) {
    if (!out.truncated) {
      out.truncated = true;
      out.truncated_reason = why;
    }
  };

  // Fewest-GPUs mode: the first world where some valid config fits.
  if (req.find_min_gpus) {
    int64_t found = 0;
    for (int64_t w : worlds) {
      if (out_of_time()) {
        cut(absl::StrCat("deadline reached while probing ", w, " GPUs"));
        break;
      }
      out.worlds_searched.push_back(w);
      const auto probes = EnumerateCandidates(m, base_for(w), w, sys, req.constraints, /*memory_probe=*/true);
      for (const ResolvedConfig& c : probes) {
        std::vector<Violation> ignored;
        const auto plan = PlanStages(m, c, &ignored);
        ++out.evaluated;
        if (!plan.has_value()) continue;
        const MemoryEstimate mem = EstimateMemory(m, c, *plan, w, &sys, MemoryOptions{});
        if (FitsWithin(mem, req) && EvaluatePlan(m, c, w, sys).valid) {
          found = w;
          break;
        }
      }
      if (found > 0) break;
    }
    if (found == 0) {
      out.feasible = false;
      out.infeasible_reason =
          out.truncated ? out.truncated_reason
                        : absl::StrCat("no valid config fits on ", worlds.front(), "..", worlds.back(), " GPUs of ",
                                       HumanGiB(sys.hbm_gb * kGiB), ".");
      return out;
    }
    worlds = {found};
    out.reasons.push_back(absl::StrCat("Fewest GPUs: ", found, " (", out.worlds_searched.size(),
                                       " world sizes probed from ", out.worlds_searched.front(),
                                       ", with MBS 1 and the strongest recompute allowed)."));
  }

  // Enumerate and score every candidate of every world.
  std::vector<WorldCandidates> spaces;
  std::vector<Scored> scored;
  bool stop = false;
  for (int64_t w : worlds) {
    if (stop) break;
    if (!req.find_min_gpus) out.worlds_searched.push_back(w);
    int64_t pruned = 0;
    WorldCandidates space{w, EnumerateCandidates(m, base_for(w), w, sys, req.constraints, false, &pruned)};
    out.candidates += static_cast<int64_t>(space.configs.size()) + pruned;
    out.rejected.does_not_fit += pruned;
    out.pruned_by_memory += pruned;
    const int64_t wi = static_cast<int64_t>(spaces.size());
    for (int64_t i = 0; i < static_cast<int64_t>(space.configs.size()); ++i) {
      if (out.evaluated >= req.max_candidates) {
        cut(absl::StrCat("candidate bound of ", req.max_candidates, " evaluations reached"));
        stop = true;
        break;
      }
      if (i % kDeadlineCheckEvery == 0 && out_of_time()) {
        cut(absl::StrCat("deadline reached after ", out.evaluated, " evaluations"));
        stop = true;
        break;
      }
      ResolvedConfig& c = space.configs[i];
      std::vector<Violation> ignored;
      const auto plan = PlanStages(m, c, &ignored);
      ++out.evaluated;
      Scored s;
      s.index = i;
      s.world = wi;  // position in spaces; replaced by the GPU count when comparing worlds
      if (!plan.has_value()) {
        ++out.rejected.invalid;
        continue;
      }
      c.vpp = plan->vpp;
      s.planned = true;
      const MemoryEstimate mem = EstimateMemory(m, c, *plan, w, &sys, MemoryOptions{});
      const PerfEstimate perf = EstimatePerformance(m, c, *plan, w, sys, CalibratedPerfParams());
      s.fits = FitsWithin(mem, req);
      s.tokens_per_gpu = perf.tokens_per_s_per_gpu;
      s.headroom_fraction = mem.capacity_bytes > 0 ? mem.headroom_bytes / mem.capacity_bytes : 0;
      s.peak_fraction = mem.capacity_bytes > 0 ? mem.peak_bytes / mem.capacity_bytes : 0;
      s.tight = IsTight(mem, req.memory_reserve);
      s.dims = DimensionsInUse(c);
      scored.push_back(s);
    }
    spaces.push_back(std::move(space));
  }
  // Compare across worlds by GPU count.
  for (Scored& s : scored) s.world = spaces[s.world].world;
  auto space_of = [&](const Scored& s) -> const WorldCandidates& {
    for (const auto& sp : spaces) {
      if (sp.world == s.world) return sp;
    }
    return spaces.front();
  };

  double best_fitting = 0;
  for (const Scored& s : scored) {
    if (s.fits) best_fitting = std::max(best_fitting, s.tokens_per_gpu);
  }
  const double band = kHeadroomThroughputBand * best_fitting;
  std::stable_sort(scored.begin(), scored.end(),
                   [&](const Scored& a, const Scored& b) { return Better(a, b, req.objective, band); });
  // Predictions within kTieBand of each other are ties (the model is not
  // that precise): inside each run of ties, simpler configs go first.
  if (req.objective == Objective::kThroughput) {
    for (size_t begin = 0; begin < scored.size();) {
      size_t end = begin + 1;
      while (end < scored.size() && scored[end].fits == scored[begin].fits &&
             scored[end].tokens_per_gpu >= scored[begin].tokens_per_gpu * (1 - kTieBand)) {
        ++end;
      }
      std::stable_sort(scored.begin() + begin, scored.begin() + end,
                       [](const Scored& a, const Scored& b) { return a.dims < b.dims; });
      begin = end;
    }
    // A tight plan yields to a plan with room that is as fast within the
    // model's between-config error (the first few hundred places suffice).
    const double band_up = 1 + CalibratedUncertainty().between_configs.median;
    const size_t limit = std::min<size_t>(scored.size(), 512);
    for (size_t i = 0; i < limit; ++i) {
      if (!scored[i].fits || !scored[i].tight) continue;
      for (size_t j = i + 1; j < scored.size() && scored[j].fits; ++j) {
        if (scored[j].tokens_per_gpu * band_up < scored[i].tokens_per_gpu) break;
        if (!scored[j].tight) {
          std::rotate(scored.begin() + i, scored.begin() + j, scored.begin() + j + 1);
          break;
        }
      }
    }
  }

  // The example of "does not fit": the fastest that is nearly within memory,
  // else the one closest to fitting.
  const Scored* not_fitting = nullptr;
  for (const Scored& s : scored) {
    if (s.fits) continue;
    const bool near = s.peak_fraction <= kNearlyFits;
    if (not_fitting == nullptr) {
      not_fitting = &s;
      continue;
    }
    const bool best_near = not_fitting->peak_fraction <= kNearlyFits;
    if (near && !best_near) not_fitting = &s;
    if (!near && !best_near && s.peak_fraction < not_fitting->peak_fraction) not_fitting = &s;
  }
  if (not_fitting != nullptr) {
    out.rejected.best_not_fitting =
        EvaluatePlan(m, space_of(*not_fitting).configs[not_fitting->index], not_fitting->world, sys);
  }

  // Walk the ranking: fitting candidates are validated until top_k distinct
  // meshes (TP, PP, VPP, CP, EP, ETP) are found; each mesh appears once,
  // with its best MBS, recompute and layer split.
  std::vector<std::string> meshes;
  std::vector<const Scored*> shown;
  for (const Scored& s : scored) {
    const ResolvedConfig& c = space_of(s).configs[s.index];
    if (!s.fits) {
      ++out.rejected.does_not_fit;
      continue;
    }
    const std::string mesh =
        absl::StrCat(s.world, "/", c.tp, "/", c.pp, "/", c.vpp, "/", c.cp, "/", c.ep, "/", c.etp);
    const bool repeat = std::find(meshes.begin(), meshes.end(), mesh) != meshes.end() ||
                        std::any_of(shown.begin(), shown.end(), [&](const Scored* p) {
                          return Redundant(s, c, *p, space_of(*p).configs[p->index]);
                        });
    if (repeat || static_cast<int>(out.plans.size()) >= req.top_k) {
      ++out.rejected.dominated;
      if (!repeat && !out.rejected.best_dominated.has_value()) {
        PlanEval d = EvaluatePlan(m, c, s.world, sys);
        if (d.valid) {
          out.rejected.best_dominated = std::move(d);
        } else {
          --out.rejected.dominated;
          ++out.rejected.invalid;
          if (!out.rejected.best_invalid.has_value()) out.rejected.best_invalid = std::move(d);
        }
      }
      continue;
    }
    PlanEval p = EvaluatePlan(m, c, s.world, sys);
    if (!p.valid) {
      ++out.rejected.invalid;
      if (!out.rejected.best_invalid.has_value()) out.rejected.best_invalid = std::move(p);
      continue;
    }
    p.tight = IsTight(p.memory, req.memory_reserve);
    if (p.tight) p.reasons.push_back(TightReason(p.memory, req.memory_reserve));
    meshes.push_back(mesh);
    shown.push_back(&s);
    out.plans.push_back(std::move(p));
  }
  // Candidates that failed the split have no score; keep the first as the example.
  if (!out.rejected.best_invalid.has_value() && out.rejected.invalid > 0) {
    for (const auto& sp : spaces) {
      for (const ResolvedConfig& c : sp.configs) {
        std::vector<Violation> v;
        if (!PlanStages(m, c, &v).has_value()) {
          out.rejected.best_invalid = EvaluatePlan(m, c, sp.world, sys);
          break;
        }
      }
      if (out.rejected.best_invalid.has_value()) break;
    }
  }
  out.feasible = !out.plans.empty();

  // Rank-relative reasons. Plans closer to the top than the model's measured
  // error between two configs of one model are ties: the ranking among them
  // is not what the prediction can tell.
  const ErrorSpread& resolution = CalibratedUncertainty().between_configs;
  for (size_t i = 1; i < out.plans.size() && out.plans[0].memory.fits; ++i) {
    const double behind = 1 - out.plans[i].perf.tokens_per_s_per_gpu / out.plans[0].perf.tokens_per_s_per_gpu;
    if (behind <= resolution.median && out.plans[i].memory.fits) {
      out.plans[i].reasons.push_back(absl::StrFormat(
          "A tie with plan 1: %.1f%% behind it, inside the model's ±%.0f%% typical error between two configs of one "
          "model (measured on published runs); try both if the difference matters.",
          100 * behind, 100 * resolution.median));
    }
  }
  for (size_t i = 0; i + 1 < out.plans.size(); ++i) {
    const double gain = out.plans[i].perf.tokens_per_s_per_gpu / out.plans[i + 1].perf.tokens_per_s_per_gpu - 1;
    out.plans[i].reasons.insert(
        out.plans[i].reasons.begin() + 1,
        gain < kTieBand ? absl::StrCat("Within ", Percent(kTieBand), " of plan ", i + 2,
                                       ": near-equal predictions rank the simpler config first.")
                        : absl::StrCat(Percent(gain), " faster than plan ", i + 2, "."));
  }

  // The rule-of-thumb starting point on the first world searched (or the top plan's).
  const int64_t sp_world = out.feasible ? out.plans.front().world : worlds.front();
  const StartingPoint start = RuleOfThumbConfig(m, base_for(sp_world), sp_world, sys);
  out.starting_point = EvaluatePlan(m, start.config, sp_world, sys);
  const PlanEval& st = *out.starting_point;
  out.starting_point_comparison =
      CompareWithStartingPoint(start.rule, st, out.feasible ? &out.plans.front() : nullptr);

  if (!out.feasible && !out.truncated) {
    if (out.rejected.does_not_fit > 0) {
      out.infeasible_reason = absl::StrCat(
          "No valid config fits on ", absl::StrJoin(out.worlds_searched, ", "), " GPUs of ",
          HumanGiB(sys.hbm_gb * kGiB), ": ", out.rejected.does_not_fit, " configs are over memory (",
          out.pruned_by_memory, " by weights and gradients alone)",
          out.rejected.invalid > 0 ? absl::StrCat(" and ", out.rejected.invalid, " break a rule") : "",
          out.rejected.best_not_fitting.has_value()
              ? absl::StrCat("; the closest, ", PlanLabel(out.rejected.best_not_fitting->config), ", needs ",
                             HumanGiB(out.rejected.best_not_fitting->memory.peak_bytes))
              : "",
          "; the model states alone need at least ", ModelStateLowerBound(m, sys), " GPUs.");
    } else {
      out.infeasible_reason =
          absl::StrCat("No configuration of ", m.id, " is valid on ", absl::StrJoin(out.worlds_searched, ", "),
                       " GPUs under the constraints given (", out.candidates, " candidates).");
    }
  } else if (!out.feasible) {
    out.infeasible_reason = absl::StrCat("The search was cut before a plan was found: ", out.truncated_reason, ".");
  }
  out.reasons.push_back(absl::StrCat(out.candidates, " configurations on ", out.worlds_searched.size(),
                                     " world size(s); ", out.evaluated, " evaluated (", out.pruned_by_memory,
                                     " skipped: weights and gradients alone exceed memory); ", out.rejected.invalid,
                                     " invalid, ", out.rejected.does_not_fit, " over memory, ",
                                     out.rejected.dominated,
                                     " ranked below the plans shown or redundant with a simpler one."));
  if (out.truncated) out.reasons.push_back(absl::StrCat("Search cut short: ", out.truncated_reason, "."));
  return out;
}

}  // namespace parplan
