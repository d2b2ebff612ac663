#include "core/search/search_steps.h"

#include "core/system/racks.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/memory/memory_margin.h"
#include "core/model/param_count.h"
#include "core/perf/uncertainty.h"
#include "core/pipeline/stage_plan.h"
#include "core/rules/validate.h"
#include "core/search/candidate_space.h"
#include "core/search/current_plan.h"
#include "core/search/plan_explain.h"
#include "core/search/scale_checks.h"
#include "core/search/starting_point.h"
#include "core/system/racks.h"
#include "core/util/limits.h"
#include "core/util/text.h"

namespace parplan {
namespace {

constexpr int64_t kDeadlineCheckEvery = 16;
constexpr size_t kParallelFrom = 2048;  // candidates of one world worth a second thread
constexpr double kHeadroomThroughputBand = 0.85;
constexpr double kTieBand = 0.01;
constexpr double kHeadroomResolution = 0.01;  // of HBM
constexpr double kNearlyFits = 1.25;          // "fastest not fitting" looks at peaks up to 125% of HBM first
constexpr size_t kTightYieldWindow = 512;     // places of the ranking where a tight plan may yield

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

ResolvedConfig BaseFor(const SearchRequest& req, int64_t world) {
  ResolvedConfig b = req.base;
  if (b.gbs <= 0) b.gbs = SearchGlobalBatch(b.seq_length, world);
  return b;
}

void Cut(SearchResult* out, const std::string& why) {
  if (out->truncated) return;
  out->truncated = true;
  out->truncated_reason = why;
}

// Megatron's rules for `c` on `world` GPUs of `sys`.
ValidationResult ValidateOn(const ModelSpec& m, const ResolvedConfig& c, int64_t world, const SystemSpec& sys) {
  ValidationInput in;
  in.model = &m;
  in.config = c;
  in.placement = PlacementOn(sys, world);
  return Validate(in);
}

// True when Megatron's rules accept `c` on `world` GPUs (no estimates).
bool ValidOn(const ModelSpec& m, const ResolvedConfig& c, int64_t world, const SystemSpec& sys) {
  const ValidationResult v = ValidateOn(m, c, world, sys);
  return v.valid && v.stages.has_value() && SizeWorld(MeshOf(c), world, 0, 0, 0).valid;
}

bool Better(const Scored& a, const Scored& b, Objective objective, double band_floor) {
  if (a.fits != b.fits) return a.fits;  // fitting candidates first, so runs of ties are contiguous
  // A defaulted batch above 16M tokens is no published run's: such plans last.
  if (a.oversized_batch != b.oversized_batch) return !a.oversized_batch;
  if (objective == Objective::kFewestGpus && a.world != b.world) return a.world < b.world;
  // Fewest GPUs honours the memory reserve: on one world, plans with room first.
  if (objective == Objective::kFewestGpus && a.fits && a.tight != b.tight) return !a.tight;
  if (objective == Objective::kHeadroom) {
    const bool ea = a.tokens_per_gpu >= band_floor, eb = b.tokens_per_gpu >= band_floor;
    if (ea != eb) return ea;
    if (ea && a.headroom_fraction != b.headroom_fraction) return a.headroom_fraction > b.headroom_fraction;
  }
  if (a.tokens_per_gpu != b.tokens_per_gpu) return a.tokens_per_gpu > b.tokens_per_gpu;
  if (a.dims != b.dims) return a.dims < b.dims;
  if (a.world != b.world) return a.world < b.world;
  if (a.space != b.space) return a.space < b.space;
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

// The candidate shown as "the fastest that does not fit": the fastest that
// is nearly within memory, else the one closest to fitting.
const Scored* NotFittingExample(const std::vector<Scored>& ranked) {
  // The same choice the EstimateStore keeps (so its estimates are reused):
  // the fastest within kNearlyFits, else the closest to fitting; ties go to
  // the candidate evaluated first. Ranked order alone is not enough: inside
  // a tie band the ranking orders by mesh, not speed.
  auto better = [](const Scored& a, const Scored& b) {
    const bool a_near = a.peak_fraction <= kNearlyFits, b_near = b.peak_fraction <= kNearlyFits;
    if (a_near != b_near) return a_near;
    if (a_near && a.tokens_per_gpu != b.tokens_per_gpu) return a.tokens_per_gpu > b.tokens_per_gpu;
    if (!a_near && a.peak_fraction != b.peak_fraction) return a.peak_fraction < b.peak_fraction;
    return std::make_pair(a.space, a.index) < std::make_pair(b.space, b.index);
  };
  const Scored* pick = nullptr;
  for (const Scored& s : ranked) {
    if (!s.fits && (pick == nullptr || better(s, *pick))) pick = &s;
  }
  return pick;
}

// Keeps `plan` (invalid) as the example of a rule-breaking candidate unless
// one is kept already.
void KeepInvalidExample(PlanEval plan, SearchResult* out) {
  ++out->rejected.invalid;
  if (!out->rejected.best_invalid.has_value()) out->rejected.best_invalid = std::move(plan);
}

}  // namespace

void EstimateStore::Offer(const Scored& s, Estimates estimates, bool complete) {
  const Key key{s.space, s.index};
  bool kept = false;
  if (s.fits) {
    kept = Hold(&fitting_, keep_, objective_ == Objective::kHeadroom ? s.headroom_fraction : s.tokens_per_gpu, key);
  } else {
    if (s.peak_fraction <= kNearlyFits) kept |= Hold(&nearly_fitting_, 1, s.tokens_per_gpu, key);
    kept |= Hold(&closest_, 1, -s.peak_fraction, key);
  }
  if (kept && complete) kept_[key] = std::move(estimates);
}

bool EstimateStore::Hold(std::multimap<double, Key>* best, size_t limit, double value, const Key& key) {
  if (limit == 0 || (best->size() >= limit && value <= best->begin()->first)) return false;
  best->emplace(value, key);
  ++holders_[key];
  while (best->size() > limit) {
    const Key dropped = best->begin()->second;
    best->erase(best->begin());
    if (--holders_[dropped] == 0) {
      holders_.erase(dropped);
      kept_.erase(dropped);
    }
  }
  return holders_.count(key) > 0;
}

const Estimates* EstimateStore::Find(const Scored& s) const {
  const auto it = kept_.find({s.space, s.index});
  return it == kept_.end() ? nullptr : &it->second;
}

const Estimates* Evaluated::Known(const Scored& s) const {
  if (const Estimates* kept = store.Find(s); kept != nullptr) return kept;
  return s.space == current_space && current_estimates.has_value() ? &*current_estimates : nullptr;
}

const PerfParams& ParamsOf(const SearchRequest& req) {
  return req.params != nullptr ? *req.params : CalibratedPerfParams();
}

PlanEval EvaluatePlanWith(const ModelSpec& m, const ResolvedConfig& config, int64_t world, const SystemSpec& sys,
                          const PerfParams& params, const Estimates* known, int64_t* estimates) {
  PlanEval p;
  p.config = config;
  p.world = world;
  p.gpus_per_nvlink_domain = RanksPerDomain(sys);
  ValidationResult v = ValidateOn(m, config, world, sys);
  p.valid = v.valid;
  for (auto& violation : v.violations) {
    if (violation.severity == Severity::kError || (v.valid && violation.severity == Severity::kWarning)) {
      p.violations.push_back(std::move(violation));
    }
  }
  const WorldSizing sizing = SizeWorld(MeshOf(config), world, 0, 0, 0);
  if (!v.stages.has_value() || !sizing.valid) {
    p.valid = false;
    return p;
  }
  p.config.vpp = v.stages->vpp;
  p.dp = sizing.dp;
  p.edp = sizing.edp;
  if (known != nullptr) {
    p.memory = known->memory;
    p.perf = known->perf;
  } else {
    p.memory = EstimateMemory(m, p.config, *v.stages, world, &sys, MemoryOptions{});
    p.perf = EstimatePerformance(m, p.config, *v.stages, world, sys, params);
    ++*estimates;
  }
  AddPlanReasons(m, sys, params, &p);
  AddScaleWarnings(&p);
  return p;
}

SystemSpec SystemFor(const SearchRequest& req, int64_t world) {
  SystemSpec sys = req.system;
  ChooseDomainUse(world, &sys);
  return sys;
}

absl::StatusOr<std::vector<int64_t>> WorldsToSearch(const SearchRequest& req) {
  if (req.gpus > 0) return std::vector<int64_t>{req.gpus};
  const ModelSpec& m = *req.model;
  const int64_t hi = req.max_gpus > 0 ? req.max_gpus : kDefaultMaxSearchGpus;
  int64_t lo = std::max<int64_t>(1, req.min_gpus);
  if (req.find_min_gpus) lo = std::max(lo, ModelStateLowerBound(m, req.system));
  if (lo > hi) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_gpus: the range ", lo, "..", hi, " is empty (the model states alone need at least ",
                     ModelStateLowerBound(m, req.system), " GPUs of ", req.system.hbm_gb, " GB)"));
  }
  std::vector<int64_t> worlds = CandidateWorlds(lo, hi, std::max(1, req.system.gpus_per_node));
  if (worlds.empty()) return absl::InvalidArgumentError(absl::StrCat("max_gpus: no world size in ", lo, "..", hi));
  return worlds;
}

FewestGpus FindFewestGpus(const SearchRequest& req, const std::vector<int64_t>& worlds, SearchResult* out) {
  const ModelSpec& m = *req.model;
  FewestGpus found;
  for (int64_t w : worlds) {
    const SystemSpec sys = SystemFor(req, w);
    if (absl::Now() > req.deadline) {
      Cut(out, absl::StrCat("deadline reached while probing ", w, " GPUs"));
      break;
    }
    out->worlds_searched.push_back(w);
    bool tight_here = false;
    for (const ResolvedConfig& c :
         EnumerateCandidates(m, BaseFor(req, w), w, sys, req.constraints, true, ParamsOf(req))) {
      const auto plan = PlanStages(m, c);
      ++out->evaluated;
      if (!plan.has_value()) continue;
      const MemoryEstimate mem = EstimateMemory(m, c, *plan, w, &sys, MemoryOptions{});
      if (!FitsWithin(mem, req) || !ValidOn(m, c, w, sys)) continue;
      if (!IsTight(mem, req.memory_reserve)) {
        found.with_room = w;
        if (found.tight == w) found.tight = 0;  // not a fewer-GPU world
        return found;
      }
      if (!tight_here) {
        tight_here = true;
        if (found.tight == 0) found.tight = w;
        found.best_free_bytes = 0;
      }
      found.best_free_bytes = std::max(found.best_free_bytes, mem.headroom_bytes);
    }
  }
  return found;
}

Scored ScoreConfig(const SearchRequest& req, const StagePlan& plan, int64_t world, const SystemSpec& sys,
                   ResolvedConfig* c, Estimates* est, bool* timed) {
  const ModelSpec& m = *req.model;
  c->vpp = plan.vpp;
  est->memory = EstimateMemory(m, *c, plan, world, &sys, MemoryOptions{});
  est->perf = PerfEstimate{};
  const double capacity = est->memory.capacity_bytes;
  // Far over memory (past what "the fastest that nearly fits" looks at):
  // its speed ranks nothing, so it is not estimated.
  *timed = capacity <= 0 || est->memory.peak_bytes <= kNearlyFits * capacity;
  if (*timed) est->perf = EstimatePerformance(m, *c, plan, world, sys, ParamsOf(req));
  Scored s;
  s.world = world;
  s.fits = FitsWithin(est->memory, req);
  s.tokens_per_gpu = est->perf.tokens_per_s_per_gpu;
  s.headroom_fraction = capacity > 0 ? est->memory.headroom_bytes / capacity : 0;
  s.peak_fraction = capacity > 0 ? est->memory.peak_bytes / capacity : 0;
  s.tight = IsTight(est->memory, req.memory_reserve);
  s.oversized_batch = req.base.gbs <= 0 && c->gbs * c->seq_length > kMaxDefaultTokensPerStep;
  s.dims = DimensionsInUse(*c);
  return s;
}

namespace {

// What one range of a world's candidates produced.
struct RangeResult {
  std::vector<Scored> scored;
  EstimateStore store;
  int64_t evaluated = 0, estimates = 0, invalid = 0, does_not_fit = 0, dominated = 0, pruned_by_bound = 0;
  bool deadline = false;
  explicit RangeResult(Objective objective) : store(Evaluated::kKeptEstimates, objective) {}
};

// Estimates configs [begin, end) of `space` in order, with a split bound of
// its own (each range starts at a split's first candidate).
void EvaluateRange(const SearchRequest& req, const SystemSpec& sys, const ResolvedConfig& strongest_recompute,
                   int64_t space_index, WorldCandidates* space, size_t begin, size_t end, RangeResult* r) {
  const ModelSpec& m = *req.model;
  SplitBound bound(req.objective != Objective::kHeadroom);
  for (size_t i = begin; i < end; ++i) {
    if ((i - begin) % kDeadlineCheckEvery == 0 && absl::Now() > req.deadline) {
      r->deadline = true;
      return;
    }
    ResolvedConfig& c = space->configs[i];
    const SplitBound::Verdict verdict = bound.Check(c);
    if (verdict != SplitBound::kEstimate) {
      ++(verdict == SplitBound::kOverMemory ? r->does_not_fit : r->dominated);
      ++r->pruned_by_bound;
      continue;
    }
    const bool strongest = SameRecompute(c, strongest_recompute);
    const auto plan = PlanStages(m, c);
    ++r->evaluated;
    if (!plan.has_value()) {
      ++r->invalid;
      continue;
    }
    Estimates est;
    bool timed = false;
    Scored s = ScoreConfig(req, *plan, space->world, sys, &c, &est, &timed);
    ++r->estimates;
    bound.Learn(c, s, strongest);
    s.space = space_index;
    s.index = static_cast<int64_t>(i);
    r->store.Offer(s, std::move(est), timed);
    r->scored.push_back(s);
  }
}

// Where a second thread takes over: the first candidate of a new split at
// or after the middle (SplitBound::SameSplit's fields), or `size` when the
// space is too small to be worth a thread.
size_t SecondHalf(const std::vector<ResolvedConfig>& configs) {
  if (configs.size() < kParallelFrom || std::thread::hardware_concurrency() < 2) return configs.size();
  SplitBound split(false);
  size_t i = configs.size() / 2;
  split.Check(configs[i - 1]);  // takes that candidate's split as its own
  while (i < configs.size() && split.SameSplitAs(configs[i])) ++i;
  return i;
}

}  // namespace

void EstimateStore::MergeFrom(EstimateStore&& other, const std::vector<Scored>& offered) {
  for (const Scored& s : offered) {
    const Key key{s.space, s.index};
    if (other.holders_.count(key) == 0) continue;
    auto kept = other.kept_.find(key);
    if (kept == other.kept_.end()) {
      Offer(s, Estimates{}, false);
    } else {
      Offer(s, std::move(kept->second), true);
    }
  }
}

Evaluated EvaluateCandidates(const SearchRequest& req, const std::vector<int64_t>& worlds, SearchResult* out) {
  const ModelSpec& m = *req.model;
  Evaluated e(req.objective);
  bool stop = false;
  for (int64_t w : worlds) {
    if (stop) break;
    const SystemSpec sys = SystemFor(req, w);
    const ResolvedConfig base = BaseFor(req, w);
    if (!req.find_min_gpus) out->worlds_searched.push_back(w);
    int64_t pruned = 0;
    WorldCandidates space{w, EnumerateCandidates(m, base, w, sys, req.constraints, false, ParamsOf(req), &pruned)};
    out->candidates += static_cast<int64_t>(space.configs.size()) + pruned;
    out->rejected.does_not_fit += pruned;
    out->pruned_by_memory += pruned;
    // Hold only the configs the candidate bound lets this world evaluate:
    // memory follows the bound, not the enumeration.
    const auto room = static_cast<size_t>(std::max<int64_t>(1, req.max_candidates - out->evaluated));
    if (space.configs.size() > room) {
      space.configs.resize(room);
      space.configs.shrink_to_fit();
      Cut(out, absl::StrCat("candidate bound of ", req.max_candidates, " evaluations reached"));
      stop = true;
    }
    const int64_t space_index = static_cast<int64_t>(e.spaces.size());
    const ResolvedConfig strongest_recompute = SearchedRecompute(m, base, req.constraints, false).back();
    // Two threads over two halves of the world's candidates (each
    // estimate reads only shared constants; every write is to its own
    // config, list and store), merged in order: the same answer as one.
    const size_t middle = SecondHalf(space.configs);
    RangeResult first(req.objective), second(req.objective);
    std::thread helper;
    if (middle < space.configs.size()) {
      helper = std::thread(EvaluateRange, std::cref(req), std::cref(sys), std::cref(strongest_recompute), space_index,
                           &space, middle, space.configs.size(), &second);
    }
    EvaluateRange(req, sys, strongest_recompute, space_index, &space, 0, middle, &first);
    if (helper.joinable()) helper.join();
    for (RangeResult* r : {&first, &second}) {
      out->evaluated += r->evaluated;
      out->estimates += r->estimates;
      out->rejected.invalid += r->invalid;
      out->rejected.does_not_fit += r->does_not_fit;
      out->rejected.dominated += r->dominated;
      out->pruned_by_bound += r->pruned_by_bound;
      if (r->deadline && !stop) {
        Cut(out, absl::StrCat("deadline reached after ", out->evaluated, " evaluations"));
        stop = true;
      }
    }
    e.scored.insert(e.scored.end(), first.scored.begin(), first.scored.end());
    e.scored.insert(e.scored.end(), second.scored.begin(), second.scored.end());
    e.store.MergeFrom(std::move(first.store), first.scored);
    e.store.MergeFrom(std::move(second.store), second.scored);
    e.spaces.push_back(std::move(space));
  }
  return e;
}

SplitBound::Verdict SplitBound::Check(const ResolvedConfig& c) {
  if (!SameSplitAs(c)) {
    key_ = c;
    over_mbs_ = 0;
    roomy_mbs_ = 0;
    return kEstimate;
  }
  if (over_mbs_ > 0 && c.mbs > over_mbs_) return kOverMemory;
  if (enabled_ && roomy_mbs_ == c.mbs) return kDominated;
  return kEstimate;
}

void SplitBound::Learn(const ResolvedConfig& c, const Scored& s, bool strongest) {
  if (strongest && !s.fits && s.peak_fraction > kNearlyFits && (over_mbs_ == 0 || c.mbs < over_mbs_)) {
    over_mbs_ = c.mbs;
  }
  if (s.fits && !s.tight) roomy_mbs_ = c.mbs;
}

bool SplitBound::SameSplitAs(const ResolvedConfig& c) const {
  if (!key_.has_value()) return false;
  const ResolvedConfig& k = *key_;
  return k.tp == c.tp && k.cp == c.cp && k.pp == c.pp && k.ep == c.ep && k.etp == c.etp && k.vpp_given == c.vpp_given &&
         k.pipeline_layout == c.pipeline_layout && k.account_for_embedding == c.account_for_embedding &&
         k.account_for_loss == c.account_for_loss && k.cp_comm_type == c.cp_comm_type &&
         k.hierarchical_cp_sizes == c.hierarchical_cp_sizes && (k.vpp == c.vpp || !c.pipeline_layout.empty());
}

bool AnyFits(const Evaluated& e) {
  return std::any_of(e.scored.begin(), e.scored.end(), [](const Scored& s) { return s.fits; });
}

std::optional<SearchRequest> WithOptimizerOffload(const SearchRequest& req) {
  if (req.base.optimizer_cpu_offload || req.model == nullptr) return std::nullopt;
  SearchRequest with = req;
  with.base.optimizer_cpu_offload = true;
  with.base.optimizer_offload_fraction = 1.0;
  with.base.offload_fraction_given = true;
  // Megatron's checks on the offload (core/rules/context_parallel_rules.cc).
  ValidationInput in;
  in.model = req.model;
  in.config = with.base;
  const ValidationResult v = Validate(in);
  for (const Violation& x : v.violations) {
    if (x.severity == Severity::kError && absl::StartsWith(x.rule, "optimizer.offload")) return std::nullopt;
  }
  return with;
}

void RankCandidates(const SearchRequest& req, std::vector<Scored>* scored) {
  double best_fitting = 0;
  for (const Scored& s : *scored) {
    if (s.fits) best_fitting = std::max(best_fitting, s.tokens_per_gpu);
  }
  const double band = kHeadroomThroughputBand * best_fitting;
  std::stable_sort(scored->begin(), scored->end(),
                   [&](const Scored& a, const Scored& b) { return Better(a, b, req.objective, band); });
  if (req.objective != Objective::kThroughput) return;
  // Predictions within kTieBand of each other are ties (the model is not
  // that precise): inside each run of ties, simpler configs go first.
  std::vector<Scored>& r = *scored;
  for (size_t begin = 0; begin < r.size();) {
    size_t end = begin + 1;
    while (end < r.size() && r[end].fits == r[begin].fits && r[end].oversized_batch == r[begin].oversized_batch &&
           r[end].tokens_per_gpu >= r[begin].tokens_per_gpu * (1 - kTieBand)) {
      ++end;
    }
    std::stable_sort(r.begin() + begin, r.begin() + end,
                     [](const Scored& a, const Scored& b) { return a.dims < b.dims; });
    begin = end;
  }
  // A tight plan yields to a plan with room that is as fast within the
  // model's between-config error.
  const double band_up = 1 + CalibratedUncertainty().between_configs.median;
  for (size_t i = 0; i < std::min(r.size(), kTightYieldWindow); ++i) {
    if (!r[i].fits || !r[i].tight) continue;
    for (size_t j = i + 1; j < r.size() && r[j].fits; ++j) {
      if (r[j].oversized_batch != r[i].oversized_batch) break;
      // Ties are ordered by mesh, not speed: look past a slower plan while
      // a tie band could still hide a faster one behind it.
      if (r[j].tokens_per_gpu * band_up * (1 + kTieBand) < r[i].tokens_per_gpu) break;
      if (r[j].tokens_per_gpu * band_up < r[i].tokens_per_gpu) continue;
      if (!r[j].tight) {
        std::rotate(r.begin() + i, r.begin() + j, r.begin() + j + 1);
        break;
      }
    }
  }
}

void SelectPlans(const SearchRequest& req, const Evaluated& e, SearchResult* out) {
  const ModelSpec& m = *req.model;
  auto evaluate = [&](const Scored& s) {
    return EvaluatePlanWith(m, e.ConfigOf(s), s.world, SystemFor(req, s.world), ParamsOf(req), e.Known(s),
                            &out->estimates);
  };
  if (const Scored* unfit = NotFittingExample(e.scored); unfit != nullptr) {
    out->rejected.best_not_fitting = evaluate(*unfit);
  }
  std::vector<const Scored*> shown;
  for (const Scored& s : e.scored) {
    if (!s.fits) {
      ++out->rejected.does_not_fit;
      continue;
    }
    if (s.oversized_batch) {  // never shown: core/search/scale_checks.h
      ++out->rejected.invalid;
      ++out->rejected.over_batch_cap;
      continue;
    }
    const ResolvedConfig& c = e.ConfigOf(s);
    const bool repeat = std::any_of(shown.begin(), shown.end(), [&](const Scored* p) {
      const ResolvedConfig& q = e.ConfigOf(*p);
      const bool same_mesh = p->world == s.world && q.tp == c.tp && q.pp == c.pp && q.vpp == c.vpp && q.cp == c.cp &&
                             q.ep == c.ep && q.etp == c.etp;
      return same_mesh || Redundant(s, c, *p, q);
    });
    // Explaining a plan validates its layout (O(world)); at the deadline keep
    // the plans explained so far.
    if (!out->plans.empty() && absl::Now() > req.deadline) {
      Cut(out, absl::StrCat("deadline reached while explaining plan ", out->plans.size() + 1));
      break;
    }
    if (repeat || static_cast<int>(out->plans.size()) >= req.top_k) {
      ++out->rejected.dominated;
      if (repeat || out->rejected.best_dominated.has_value()) continue;
      PlanEval d = evaluate(s);
      if (d.valid) {
        out->rejected.best_dominated = std::move(d);
      } else {
        --out->rejected.dominated;
        KeepInvalidExample(std::move(d), out);
      }
      continue;
    }
    PlanEval p = evaluate(s);
    if (!p.valid) {
      KeepInvalidExample(std::move(p), out);
      continue;
    }
    p.tight = IsTight(p.memory, req.memory_reserve);
    if (p.tight) p.reasons.push_back(TightReason(p.memory, req.memory_reserve));
    shown.push_back(&s);
    out->plans.push_back(std::move(p));
  }
  // Candidates whose split failed have no score; keep the first as the example.
  if (!out->rejected.best_invalid.has_value() && out->rejected.invalid > 0) {
    for (const auto& space : e.spaces) {
      for (const ResolvedConfig& c : space.configs) {
        if (PlanStages(m, c).has_value()) continue;
        out->rejected.best_invalid =
            EvaluatePlanWith(m, c, space.world, SystemFor(req, space.world), ParamsOf(req), nullptr, &out->estimates);
        break;
      }
      if (out->rejected.best_invalid.has_value()) break;
    }
  }
  out->feasible = !out->plans.empty();
}

void ExplainRanking(SearchResult* out) {
  // Plans closer to the top than the model's measured error between two
  // configs of one model are ties: the ranking among them is not what the
  // prediction can tell.
  std::vector<PlanEval>& plans = out->plans;
  const ErrorSpread& resolution = CalibratedUncertainty().between_configs;
  // With a current plan, ties rank the plan changing fewer of its settings first.
  auto fewer_changes = [&](size_t a, size_t b) {
    return out->current.has_value() && plans[a].changes.size() < plans[b].changes.size();
  };
  for (size_t i = 1; i < plans.size() && plans[0].memory.fits; ++i) {
    const double behind = 1 - plans[i].perf.tokens_per_s_per_gpu / plans[0].perf.tokens_per_s_per_gpu;
    if (behind < 0 && plans[i].memory.fits) {
      // Ranked below a slower plan: it is tight, plan 1 changes fewer of the
      // current plan's settings, or plan 1 is the simpler tie.
      plans[i].reasons.push_back(absl::StrFormat(
          "%.1f%% faster than plan 1 but ranked below it: %s.", -100 * behind,
          plans[i].tight ? "it leaves less than the memory reserve free, and plan 1 has room within the model's "
                           "error"
          : fewer_changes(0, i)
              ? absl::StrFormat("within the model's error the plan changing fewer settings of your current plan "
                                "ranks first (%d vs %d)",
                                static_cast<int>(plans[0].changes.size()), static_cast<int>(plans[i].changes.size()))
              : "within the model's error the simpler config ranks first"));
    } else if (behind <= resolution.median && plans[i].memory.fits) {
      plans[i].reasons.push_back(absl::StrFormat(
          "A tie with plan 1: %.1f%% behind it, inside the model's ±%.0f%% typical error between two configs of one "
          "model (measured on published runs); try both if the difference matters.",
          100 * behind, 100 * resolution.median));
    }
  }
  for (size_t i = 0; i + 1 < plans.size(); ++i) {
    const double gain = plans[i].perf.tokens_per_s_per_gpu / plans[i + 1].perf.tokens_per_s_per_gpu - 1;
    const std::string next = std::to_string(i + 2);
    std::string reason;
    if (gain < 0) {
      reason = absl::StrCat("Ranked above plan ", next, " though ", Percent(-gain), " slower: ",
                            plans[i + 1].tight ? "plan " + next + " is tight (under the memory reserve)."
                            : fewer_changes(i, i + 1)
                                ? "it changes fewer settings of your current plan, within the model's error."
                                : "near-equal predictions rank the simpler config first.");
    } else if (gain < kTieBand) {
      reason = absl::StrCat(
          "Within ", Percent(kTieBand), " of plan ", next, ": near-equal predictions rank the ",
          fewer_changes(i, i + 1) ? "plan changing fewer settings of your current plan" : "simpler config", " first.");
    } else {
      reason = absl::StrCat(Percent(gain), " faster than plan ", next, ".");
    }
    plans[i].reasons.insert(plans[i].reasons.begin() + 1, reason);
  }
}

void CompareWithStartingPoint(const SearchRequest& req, int64_t world, SearchResult* out) {
  const SystemSpec sys = SystemFor(req, world);
  const StartingPoint start = RuleOfThumbConfig(*req.model, BaseFor(req, world), world, sys);
  out->starting_point = EvaluatePlanWith(*req.model, start.config, world, sys, ParamsOf(req), nullptr, &out->estimates);
  out->starting_point_comparison =
      CompareWithStartingPoint(start.rule, *out->starting_point, out->feasible ? &out->plans.front() : nullptr) +
      StartingPointBatchNote(req, *out->starting_point);
}

SearchRequest WithCurrentAsBase(const SearchRequest& req) {
  if (!req.current.has_value()) return req;
  SearchRequest with = req;
  with.base = BaseFromCurrent(*req.current, req.base);
  with.constraints.keep_base_recompute = true;
  return with;
}

int64_t CurrentWorld(const SearchRequest& req, const std::vector<int64_t>& worlds) {
  if (req.current_gpus > 0) return req.current_gpus;
  if (req.gpus > 0) return req.gpus;
  for (int64_t w : worlds) {
    if (SizeWorld(MeshOf(*req.current), w, 0, 0, 0).valid) return w;
  }
  return worlds.empty() ? 1 : worlds.front();
}

PlanEval EvaluateCurrent(const SearchRequest& req, int64_t world, int64_t* estimates) {
  ResolvedConfig c = *req.current;
  if (c.gbs <= 0) c.gbs = req.base.gbs > 0 ? req.base.gbs : BaseFor(req, world).gbs;
  if (c.gbs <= 0) c.gbs = DefaultGlobalBatch(c, std::max<int64_t>(1, SizeWorld(MeshOf(c), world, 0, 0, 0).dp));
  PlanEval p = EvaluatePlanWith(*req.model, c, world, SystemFor(req, world), ParamsOf(req), nullptr, estimates);
  p.tight = p.valid && IsTight(p.memory, req.memory_reserve);
  return p;
}

void AddCurrentCandidate(const SearchRequest& req, const PlanEval& current, Evaluated* e) {
  const SystemSpec sys = SystemFor(req, current.world);
  if (!current.valid || !current.memory.fits) return;  // CompareWithCurrent says why
  if (!FitsWithin(current.memory, req)) {
    e->current_excluded = absl::StrFormat("its peak is above the request's max_memory_fraction (%.0f%% of HBM)",
                                          100 * req.max_memory_fraction);
    return;
  }
  const auto space = std::find_if(e->spaces.begin(), e->spaces.end(),
                                  [&](const WorldCandidates& w) { return w.world == current.world; });
  if (space == e->spaces.end()) {
    e->current_excluded = absl::StrCat("it runs on ", current.world, " GPUs, which the search did not compare");
    return;
  }
  if (!KeepsConstraints(current.config, req.constraints, std::max(1, sys.nvlink_domain_size))) {
    e->current_excluded = "it breaks the request's constraints";
    return;
  }
  // An enumerated candidate that is the same plan represents it.
  const ResolvedConfig& c = current.config;
  const std::vector<ResolvedSetting> settings = PlanSettings(*req.model, c, current.world, sys);
  for (const ResolvedConfig& x : space->configs) {
    if (x.tp != c.tp || x.pp != c.pp || x.cp != c.cp || x.ep != c.ep || x.etp != c.etp || x.mbs != c.mbs ||
        x.recompute != c.recompute || x.pipeline_layout != c.pipeline_layout) {
      continue;
    }
    if (SettingChanges(settings, PlanSettings(*req.model, x, current.world, sys)).empty()) return;
  }
  Scored s;
  s.space = static_cast<int64_t>(e->spaces.size());
  s.index = 0;
  s.world = current.world;
  s.fits = true;
  s.tokens_per_gpu = current.perf.tokens_per_s_per_gpu;
  const double capacity = current.memory.capacity_bytes;
  s.headroom_fraction = capacity > 0 ? current.memory.headroom_bytes / capacity : 0;
  s.peak_fraction = capacity > 0 ? current.memory.peak_bytes / capacity : 0;
  s.tight = IsTight(current.memory, req.memory_reserve);
  s.dims = DimensionsInUse(c);
  s.changes = 0;
  e->spaces.push_back({current.world, {c}});
  e->current_space = s.space;
  e->current_estimates = Estimates{current.memory, current.perf};
  e->scored.push_back(s);
}

void PreferFewerChanges(const SearchRequest& req, const PlanEval& current, Evaluated* e) {
  if (req.objective == Objective::kHeadroom) return;
  const ModelSpec& m = *req.model;
  const std::vector<ResolvedSetting> from =
      PlanSettings(m, current.config, current.world, SystemFor(req, current.world));
  std::map<int64_t, SystemSpec> systems;
  auto count = [&](Scored& s) {
    if (s.changes < 0) {
      auto it = systems.find(s.world);
      if (it == systems.end()) it = systems.emplace(s.world, SystemFor(req, s.world)).first;
      s.changes = static_cast<int>(SettingChanges(from, PlanSettings(m, e->ConfigOf(s), s.world, it->second)).size());
    }
    return std::make_pair(s.tight, s.changes);
  };
  const double band_up = 1 + CalibratedUncertainty().between_configs.median;
  std::vector<Scored>& r = e->scored;
  for (size_t i = 0; i < std::min(r.size(), kChangeWindow) && r[i].fits; ++i) {
    size_t best = i;
    auto best_key = count(r[i]);
    for (size_t j = i + 1; j < r.size() && j <= i + kChangeScan && r[j].fits; ++j) {
      if (r[j].oversized_batch != r[i].oversized_batch) break;
      if (req.objective == Objective::kFewestGpus && r[j].world != r[i].world) break;
      // Ties are ordered by mesh, not speed: look past a slower plan while
      // a tie band could still hide a faster one behind it.
      if (r[j].tokens_per_gpu * band_up * (1 + kTieBand) < r[i].tokens_per_gpu) break;
      if (r[j].tokens_per_gpu * band_up < r[i].tokens_per_gpu) continue;
      const auto key = count(r[j]);
      if (key < best_key) {
        best = j;
        best_key = key;
      }
    }
    if (best != i) std::rotate(r.begin() + i, r.begin() + best, r.begin() + best + 1);
  }
}

void CompareWithCurrent(const SearchRequest& req, const std::string& excluded, SearchResult* out) {
  if (!out->current.has_value()) return;
  const PlanEval& current = *out->current;
  const ModelSpec& m = *req.model;
  const std::vector<ResolvedSetting> from =
      PlanSettings(m, current.config, current.world, SystemFor(req, current.world));
  auto fill = [&](PlanEval* p) {
    p->changes = SettingChanges(from, PlanSettings(m, p->config, p->world, SystemFor(req, p->world)));
  };
  for (PlanEval& p : out->plans) {
    fill(&p);
    if (p.changes.empty()) p.reasons.push_back("Your current plan: it changes nothing.");
  }
  if (out->starting_point.has_value()) fill(&*out->starting_point);
  for (std::optional<PlanEval>* example :
       {&out->rejected.best_invalid, &out->rejected.best_not_fitting, &out->rejected.best_dominated}) {
    if (example->has_value()) fill(&**example);
  }
  out->current_comparison = CurrentComparison(current, out->feasible ? &out->plans.front() : nullptr,
                                              CalibratedUncertainty().between_configs.median, req.objective);
  if (!excluded.empty() && current.valid && current.memory.fits) {
    absl::StrAppend(&out->current_comparison, " Your current plan was not ranked with them: ", excluded, ".");
  }
}

void ExplainOutcome(const SearchRequest& req, SearchResult* out) {
  const SystemSpec& sys = req.system;
  const RejectedSummary& r = out->rejected;
  const std::string worlds = absl::StrJoin(out->worlds_searched, ", ");
  if (!out->feasible && out->truncated && out->evaluated == 0) {
    out->infeasible_reason = absl::StrCat("Not searched: ", out->truncated_reason,
                                          " before any configuration was evaluated; this says nothing about whether "
                                          "the model fits: retry with a longer deadline.");
  } else if (!out->feasible && out->truncated) {
    out->infeasible_reason = absl::StrCat("The search was cut before a plan was found: ", out->truncated_reason, ".");
  } else if (!out->feasible && r.over_batch_cap > 0) {
    out->infeasible_reason = BatchCapReason(worlds, r.over_batch_cap, req.base.seq_length);
  } else if (!out->feasible && r.does_not_fit > 0) {
    out->infeasible_reason = absl::StrCat(
        "No valid config fits on ", worlds, " GPUs of ", HumanGiB(sys.hbm_gb * kGiB), ": ", r.does_not_fit,
        " configs are over memory (", out->pruned_by_memory, " by weights and gradients alone)",
        r.invalid > 0 ? absl::StrCat(" and ", r.invalid, " break a rule") : "",
        r.best_not_fitting.has_value() ? absl::StrCat("; the closest, ", PlanLabel(r.best_not_fitting->config),
                                                      ", needs ", HumanGiB(r.best_not_fitting->memory.peak_bytes))
                                       : "",
        "; the model states alone need at least ", ModelStateLowerBound(*req.model, sys), " GPUs.");
  } else if (!out->feasible) {
    out->infeasible_reason = absl::StrCat("No configuration of ", req.model->id, " is valid on ", worlds,
                                          " GPUs under the constraints given (", out->candidates, " candidates).");
  }
  out->reasons.push_back(absl::StrCat(out->candidates, " configurations on ", out->worlds_searched.size(),
                                      " world size(s); ", out->evaluated, " evaluated (", out->pruned_by_memory,
                                      " skipped: weights and gradients alone exceed memory; ", out->pruned_by_bound,
                                      " skipped by bounds: a larger MBS of a split already over memory, or recompute "
                                      "heavier than one that fits with room at the same MBS); ",
                                      r.invalid, " invalid, ", r.does_not_fit, " over memory, ", r.dominated,
                                      " ranked below the plans shown or redundant with a simpler one."));
  if (out->truncated) out->reasons.push_back(absl::StrCat("Search cut short: ", out->truncated_reason, "."));
}

}  // namespace parplan
