// The steps of the plan search (core/search/recommender.h), in order:
// which worlds, the fewest-GPUs probe, evaluate every candidate once, rank,
// select the plans, explain them. Each step states what it reads and fills;
// Recommend only calls them in order. Tests: tests/core/search_steps_test.cc.
#ifndef PARPLAN_CORE_SEARCH_SEARCH_STEPS_H_
#define PARPLAN_CORE_SEARCH_SEARCH_STEPS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/memory/memory_model.h"
#include "core/perf/perf_model.h"
#include "core/search/search_types.h"

namespace parplan {

// One candidate after its memory and performance estimates (Megatron's rules
// not yet run: they run only for the plans shown).
struct Scored {
  int64_t space = 0;  // index into Evaluated::spaces
  int64_t index = 0;  // index into that world's configs
  int64_t world = 0;  // GPUs
  bool fits = false;  // within HBM (and the request's max_memory_fraction)
  double tokens_per_gpu = 0;
  double headroom_fraction = 0;  // of HBM
  double peak_fraction = 0;      // peak / HBM
  bool tight = false;            // fits, with less free than the memory reserve
  // Its defaulted global batch is above 16M tokens (one microbatch per DP
  // rank already is): ranks below plans with a published batch size.
  bool oversized_batch = false;
  int dims = 0;  // parallel dimensions in use (simpler first among ties)
  // Settings it changes from SearchRequest::current (-1 = not counted):
  // counted by PreferFewerChanges for the candidates it compares.
  int changes = -1;
};

// The candidate configs of one world size.
struct WorldCandidates {
  int64_t world = 0;
  std::vector<ResolvedConfig> configs;
};

struct Estimates {
  MemoryEstimate memory;
  PerfEstimate perf;
};

// The estimates of the candidates a ranking can show, so that a plan reuses
// the estimates its candidate was scored with: the best `keep` fitting
// candidates by the objective's measure (speed; headroom for kHeadroom),
// the fastest that nearly fit (within 125% of HBM) and the one closest to
// fitting. Others are dropped: a plan shown from deeper in the ranking
// (behind many candidates that break a rule) is estimated again.
class EstimateStore {
 public:
  EstimateStore(size_t keep, Objective objective) : keep_(keep), objective_(objective) {}
  // `complete` false: the performance estimate was skipped (far over
  // memory); such estimates are ranked but never reused.
  void Offer(const Scored& s, Estimates estimates, bool complete = true);
  const Estimates* Find(const Scored& s) const;
  size_t size() const { return kept_.size(); }
  // Offers, in order, the candidates of `offered` that `other` still holds
  // (with their estimates when it kept them): the same store as if they had
  // been offered here directly, for candidates `other` alone ranked.
  void MergeFrom(EstimateStore&& other, const std::vector<Scored>& offered);

 private:
  using Key = std::pair<int64_t, int64_t>;  // (space, index)
  // Adds `key` to `best` (at most `limit`, largest values kept); false when
  // it does not make it.
  bool Hold(std::multimap<double, Key>* best, size_t limit, double value, const Key& key);
  size_t keep_;
  Objective objective_;
  std::map<Key, Estimates> kept_;
  std::map<Key, int> holders_;  // how many of the rankings below keep it
  std::multimap<double, Key> fitting_, nearly_fitting_, closest_;
};

// Everything the evaluation step produced.
struct Evaluated {
  explicit Evaluated(Objective objective) : store(kKeptEstimates, objective) {}
  static constexpr size_t kKeptEstimates = 64;
  std::vector<WorldCandidates> spaces;
  std::vector<Scored> scored;  // every candidate whose layer split is valid
  EstimateStore store;
  // SearchRequest::current as a candidate (AddCurrentCandidate): its space
  // (-1 = not added), its estimates, and why it is not a candidate when it
  // is not ("" = it is one, or an enumerated candidate is the same plan).
  int64_t current_space = -1;
  std::optional<Estimates> current_estimates;
  std::string current_excluded;
  const ResolvedConfig& ConfigOf(const Scored& s) const { return spaces[s.space].configs[s.index]; }
  // The estimates kept for `s` (the store's, or the current plan's), or null.
  const Estimates* Known(const Scored& s) const;
};

// The world sizes to search: the request's GPU count, or the candidate
// worlds of [min_gpus, max_gpus] (powers of two below a node, whole nodes
// above; at most kMaxSearchWorlds), starting no lower than the model states
// need when looking for the fewest GPUs. INVALID_ARGUMENT naming max_gpus
// when the range is empty.
absl::StatusOr<std::vector<int64_t>> WorldsToSearch(const SearchRequest& req);

// The system as `world` GPUs of it are placed: req.system when its GPUs per
// NVLink domain are set (given, or resolved for one world), else that
// world's even split (core/system/racks.h ChooseDomainUse), the placement
// every other method resolves for the same world.
SystemSpec SystemFor(const SearchRequest& req, int64_t world);

// What the fewest-GPUs probe found: the first world where a valid config
// fits with the memory reserve free (0 = none), and the first world where
// configs fit but all are tight (0 = none before `with_room`), with the most
// any of its configs leaves free.
struct FewestGpus {
  int64_t with_room = 0;
  int64_t tight = 0;
  double best_free_bytes = 0;  // at `tight`
};

// Fewest-GPUs mode: probes `worlds` in order with the lightest memory
// settings (MBS 1, the strongest recompute allowed) until a valid config
// fits with at least the request's memory reserve free; a fewer-GPU world
// where everything that fits is tight is remembered. Stops at the deadline
// (then `out` says so). Fills out->worlds_searched, evaluated, truncated.
FewestGpus FindFewestGpus(const SearchRequest& req, const std::vector<int64_t>& worlds, SearchResult* out);

// Enumerates and estimates every candidate of every world once, stopping at
// the candidate bound or the deadline (out->truncated says which). Fills
// the counts in `out` (candidates, evaluated, estimates, rejected.invalid for
// broken splits, does_not_fit for pruned ones) and, unless find_min_gpus
// already did, worlds_searched.
Evaluated EvaluateCandidates(const SearchRequest& req, const std::vector<int64_t>& worlds, SearchResult* out);

// One candidate's estimates and score: sets c->vpp from `plan`, estimates
// memory, and performance unless the peak is past 125% of HBM (*timed false:
// its speed ranks nothing). The returned Scored has world, fits, speed,
// memory shares, tight, oversized_batch and dims set; space and index are
// the caller's.
Scored ScoreConfig(const SearchRequest& req, const StagePlan& plan, int64_t world, const SystemSpec& sys,
                   ResolvedConfig* c, Estimates* est, bool* timed);

// Skips candidates of one split (mesh, CP type, pipeline split) before their
// estimates, in the enumeration's order (MBS ascending, each MBS's recompute
// variants lightest first, the strongest last):
//  - over memory: once the strongest recompute at some MBS is past 125% of
//    HBM, every larger MBS is too (activations grow with MBS, nothing else
//    shrinks);
//  - dominated (when enabled): once a recompute variant fits with the
//    memory reserve free at an MBS, the later (heavier) variants at that MBS
//    only add time: each recomputes a superset of the one before (none,
//    selective, MoE long-context modules, full; RecomputeVariants).
class SplitBound {
 public:
  enum Verdict { kEstimate, kOverMemory, kDominated };
  explicit SplitBound(bool dominance) : enabled_(dominance) {}
  // The verdict for the next candidate (a new split resets the bound).
  Verdict Check(const ResolvedConfig& c);
  // Records an estimated candidate's score; `strongest`: it is the search's
  // strongest recompute.
  void Learn(const ResolvedConfig& c, const Scored& s, bool strongest);
  // True when `c` has the split of the last candidate checked.
  bool SameSplitAs(const ResolvedConfig& c) const;

 private:
  bool enabled_;
  std::optional<ResolvedConfig> key_;
  int64_t over_mbs_ = 0;   // MBS whose strongest recompute is far over memory (0 = none)
  int64_t roomy_mbs_ = 0;  // MBS where a lighter variant fits with room (0 = none)
};

// True when some evaluated candidate fits.
bool AnyFits(const Evaluated& evaluated);

// The request with Megatron's optimizer CPU offload on (all of the
// distributed optimizer's state: optimizer_offload_fraction 1.0), or nullopt
// when the validator refuses it for the request's config (no distributed
// optimizer, an FP8 recipe other than delayed scaling) or it is on already.
std::optional<SearchRequest> WithOptimizerOffload(const SearchRequest& req);

// Orders `scored` best first for the objective: fitting first; throughput
// by tokens/s/GPU (ties within 1% put the simpler config first; a tight plan
// yields to one with room within the model's between-config error); fewest
// GPUs by world, then speed; headroom by headroom among plans within 85% of
// the best speed.
void RankCandidates(const SearchRequest& req, std::vector<Scored>* scored);

// Walks the ranking: validates candidates until top_k distinct meshes are
// found (each mesh once, with its best MBS, recompute and split; a plan that
// only extends a shown one without gain is redundant), reusing their
// estimates. Fills out->plans, the rejected counts and examples, feasible.
// Past req.deadline it stops once one plan is shown (out->truncated says why).
void SelectPlans(const SearchRequest& req, const Evaluated& evaluated, SearchResult* out);

// Reasons that compare each plan with its neighbours: the next plan's
// margin, and ties with plan 1 inside the model's measured error.
void ExplainRanking(SearchResult* out);

// The rule-of-thumb starting point on `world` GPUs, evaluated and compared
// with the top plan.
void CompareWithStartingPoint(const SearchRequest& req, int64_t world, SearchResult* out);

// The request `recommend --from` searches with: `req` with
// SearchRequest::current's settings as the base (BaseFromCurrent) and its
// own recompute setting tried (keep_base_recompute); `req` itself without
// a current plan.
SearchRequest WithCurrentAsBase(const SearchRequest& req);

// The GPUs the current plan runs on: req.current_gpus, else req.gpus, else
// the smallest of `worlds` its mesh divides (else the first).
int64_t CurrentWorld(const SearchRequest& req, const std::vector<int64_t>& worlds);

// SearchRequest::current evaluated once on `world` GPUs (rules, memory,
// performance with the request's params; tight set), counted in *estimates.
PlanEval EvaluateCurrent(const SearchRequest& req, int64_t world, int64_t* estimates);

// Adds the evaluated current plan to the candidates when it is valid, fits,
// runs on a world searched and keeps the request's constraints (else
// e->current_excluded says why), unless an enumerated candidate is already
// the same plan. Shown, it reuses `current`'s estimates.
void AddCurrentCandidate(const SearchRequest& req, const PlanEval& current, Evaluated* e);

// After RankCandidates, with a current plan (throughput and fewest GPUs):
// walking the first kChangeWindow places, each place takes, of the
// candidates as fast as the one there within the model's between-config
// error (same batch class; fewest GPUs: same world), the one with room that
// changes the fewest settings from `current` (a tight plan still yields to
// one with room; equal ones keep their order). Counts Scored::changes.
void PreferFewerChanges(const SearchRequest& req, const PlanEval& current, Evaluated* e);
inline constexpr size_t kChangeWindow = 256;
inline constexpr size_t kChangeScan = 1024;  // candidates compared per place

// Fills `changes` of every plan, the starting point and the rejected
// examples from out->current, a reason on a plan that is the current one,
// and out->current_comparison (with why the current plan was not a
// candidate, `excluded`, when it was not).
void CompareWithCurrent(const SearchRequest& req, const std::string& excluded, SearchResult* out);

// Why nothing was found (when so) and the search's summary line.
void ExplainOutcome(const SearchRequest& req, SearchResult* out);

// EvaluatePlan with the estimates already made for this config (or null:
// estimate now with `params`, counting it in *estimates).
PlanEval EvaluatePlanWith(const ModelSpec& model, const ResolvedConfig& config, int64_t world, const SystemSpec& system,
                          const PerfParams& params, const Estimates* known, int64_t* estimates);

// The step-time parameters of the request: req.params, or
// CalibratedPerfParams() when null.
const PerfParams& ParamsOf(const SearchRequest& req);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_SEARCH_STEPS_H_
