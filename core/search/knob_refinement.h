// The search's second step: the execution settings (core/search/
// execution_knobs.h) of the best candidates. The first step ranks every
// mesh, split, MBS and recompute with the request's own execution settings;
// this one takes the best of them (a few per mesh, and the fastest that
// nearly fit, whom optimizer offload may fit) and walks each free axis in
// turn (dispatcher, EP overlap, TP overlap, CUDA graphs, optimizer offload),
// keeping a value when it is faster or makes the plan fit, until a pass
// changes nothing. Every variant estimated joins the candidates, so ranking
// and selection see them like the others. Axes the caller set stay as set;
// the same walk with them free says what freeing them would gain.
#ifndef PARPLAN_CORE_SEARCH_KNOB_REFINEMENT_H_
#define PARPLAN_CORE_SEARCH_KNOB_REFINEMENT_H_

#include <optional>
#include <string>
#include <vector>

#include "core/search/execution_knobs.h"
#include "core/search/search_steps.h"

namespace parplan {

inline constexpr size_t kKnobSeeds = 24;         // fitting candidates refined (best first)
inline constexpr size_t kKnobSeedsPerMesh = 2;   // of them, per mesh and world
inline constexpr size_t kKnobNearlyFitting = 6;  // candidates over memory refined (fastest first)
inline constexpr int kKnobPasses = 2;            // walks over the axes per seed
// A value replaces the seed's only when it is faster by this share (or
// makes it fit): smaller differences are inside the model's error, and the
// request's own setting is what the user runs.
inline constexpr double kKnobMinGain = 0.01;

// What freeing the pinned axes would gain: the best variant found with
// every axis free, when it beats every candidate that keeps the pins.
struct UnpinnedGain {
  std::vector<KnobAxis> pinned;  // the axes the caller set (empty: nothing to report)
  std::optional<ResolvedConfig> best;
  int64_t world = 0;
  double tokens_per_gpu = 0;      // of `best`
  double best_pinned_tokens = 0;  // the fastest fitting candidate that keeps the pins
};

// Refines the execution axes of the best candidates of `e` (after
// EvaluateCandidates; `e` not yet ranked). Adds the variants as new
// candidates (a space per world; counted in out->candidates, evaluated and
// estimates), within req.max_candidates and the deadline. Returns what
// freeing the pinned axes would gain.
UnpinnedGain RefineExecutionKnobs(const SearchRequest& req, Evaluated* e, SearchResult* out);

// A reason line per plan: for plan 1 each execution axis's value and, per
// other value, its tokens/s/GPU change on the plan's own mesh and the step
// term it moves, or the rule refusing it (a value refused only by another
// axis's setting is priced with that one reset); for later plans their
// values. For pinned axes, what freeing them would gain, in out->reasons.
void ExplainExecutionKnobs(const SearchRequest& req, const UnpinnedGain& unpinned, SearchResult* out);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_KNOB_REFINEMENT_H_
