#include "core/search/recommender.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/memory/memory_margin.h"
#include "core/memory/memory_model.h"
#include "core/search/knob_refinement.h"
#include "core/search/search_steps.h"
#include "core/util/limits.h"
#include "core/util/text.h"

namespace parplan {

const std::vector<std::string>& ObjectiveNames() {
  static const auto* names = new std::vector<std::string>{"throughput", "fewest-gpus", "headroom"};
  return *names;
}

PlanEval EvaluatePlan(const ModelSpec& m, const ResolvedConfig& config, int64_t world, const SystemSpec& sys,
                      const PerfParams& params) {
  int64_t estimates = 0;
  return EvaluatePlanWith(m, config, world, sys, params, nullptr, &estimates);
}

absl::StatusOr<SearchResult> Recommend(const SearchRequest& request) {
  if (request.model == nullptr || !request.model->complete()) {
    return absl::InvalidArgumentError("model: Recommend needs a complete model architecture");
  }
  // With a current plan its fixed settings are the base (recommend --from).
  const SearchRequest with_current = WithCurrentAsBase(request);
  const SearchRequest& req = with_current;
  if (req.base.seq_length <= 0) return absl::InvalidArgumentError("config.seq_length: no sequence length");
  if (req.top_k < 1 || req.top_k > kMaxTopK) {
    return absl::InvalidArgumentError(
        absl::StrCat("top_k: top_k = ", req.top_k, " is out of range; allowed 1..", kMaxTopK));
  }
  if (req.current_gpus < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("current_gpus: ", req.current_gpus, " is negative; allowed 0 (the request's GPUs) or more"));
  }
  absl::StatusOr<std::vector<int64_t>> worlds = WorldsToSearch(req);
  if (!worlds.ok()) return worlds.status();
  SearchResult out;
  if (req.find_min_gpus) {
    const FewestGpus fewest = FindFewestGpus(req, *worlds, &out);
    const int64_t found = fewest.with_room > 0 ? fewest.with_room : fewest.tight;
    if (found == 0) {
      out.infeasible_reason = out.truncated
                                  ? out.truncated_reason
                                  : absl::StrCat("no valid config fits on ", worlds->front(), "..", worlds->back(),
                                                 " GPUs of ", HumanGiB(req.system.hbm_gb * kGiB), ".");
      if (req.current.has_value()) {
        out.current = EvaluateCurrent(req, CurrentWorld(req, *worlds), &out.estimates);
        CompareWithCurrent(req, "", &out);
      }
      return out;
    }
    const std::string reserve = absl::StrFormat("%.0f%% of HBM", 100 * req.memory_reserve);
    if (fewest.with_room > 0 && fewest.tight > 0) {
      out.reasons.push_back(absl::StrCat(
          "Fewest GPUs with room: ", fewest.with_room, " (", reserve, " kept free for the memory model's error). ",
          fewest.tight, " GPUs also fit, but every config there is tight (at most ", HumanGiB(fewest.best_free_bytes),
          " free): plan on ", fewest.tight, " only with memory_reserve lowered and a measured first step."));
    } else if (fewest.with_room > 0) {
      out.reasons.push_back(absl::StrCat("Fewest GPUs: ", found, " (", out.worlds_searched.size(),
                                         " world sizes probed from ", out.worlds_searched.front(),
                                         ", with MBS 1 and the strongest recompute allowed)."));
    } else {
      out.reasons.push_back(absl::StrCat("Fewest GPUs: ", found, ", tight: no world up to ", out.worlds_searched.back(),
                                         " leaves ", reserve, " free (at most ", HumanGiB(fewest.best_free_bytes),
                                         " free on ", found, " GPUs)."));
    }
    *worlds = {found};
  }
  Evaluated evaluated = EvaluateCandidates(req, *worlds, &out);
  UnpinnedGain unpinned = RefineExecutionKnobs(req, &evaluated, &out);
  // The current plan, evaluated once; it is a candidate like the others.
  int64_t current_estimates = 0;
  std::optional<PlanEval> current;
  if (req.current.has_value()) current = EvaluateCurrent(req, CurrentWorld(req, *worlds), &current_estimates);
  const bool current_fits = current.has_value() && current->valid && current->memory.fits &&
                            current->memory.peak_bytes <= req.max_memory_fraction * current->memory.capacity_bytes;
  // Optimizer CPU offload only when nothing fits without it: it costs host
  // traffic and a CPU optimizer step every iteration (the memory and
  // performance estimates price both), so the search first looks without.
  std::optional<SearchRequest> offloaded;
  if (!req.find_min_gpus && !AnyFits(evaluated) && !current_fits && !out.truncated &&
      out.evaluated < req.max_candidates) {
    offloaded = WithOptimizerOffload(req);
  }
  if (offloaded.has_value()) {
    offloaded->max_candidates = req.max_candidates - out.evaluated;
    SearchResult first = std::move(out);
    out = SearchResult{};
    Evaluated second = EvaluateCandidates(*offloaded, *worlds, &out);
    UnpinnedGain second_unpinned = RefineExecutionKnobs(*offloaded, &second, &out);
    out.reasons.push_back(absl::StrCat(
        "Nothing fits without optimizer CPU offload (", first.candidates, " configurations, ", first.evaluated,
        " evaluated, none within memory): the search turned on optimizer_cpu_offload with "
        "optimizer_offload_fraction 1.0 (the Adam moments in host memory, the step on the CPU over host copies "
        "of the fp32 master weights; each step moves the gradients and weights over the host link)."));
    if (AnyFits(second)) {
      evaluated = std::move(second);
      unpinned = std::move(second_unpinned);
    } else {
      // Offload does not make anything fit either: answer without it.
      offloaded.reset();
      out = std::move(first);
    }
  }
  const SearchRequest& search = offloaded.has_value() ? *offloaded : req;
  if (current.has_value()) AddCurrentCandidate(search, *current, &evaluated);
  RankCandidates(search, &evaluated.scored);
  if (current.has_value()) PreferFewerChanges(search, *current, &evaluated);
  SelectPlans(search, evaluated, &out);
  CompareWithStartingPoint(search, out.feasible ? out.plans.front().world : worlds->front(), &out);
  if (current.has_value()) {
    out.current = std::move(current);
    out.estimates += current_estimates;
    CompareWithCurrent(search, evaluated.current_excluded, &out);
  }
  ExplainExecutionKnobs(search, unpinned, &out);
  ExplainRanking(&out);
  ExplainOutcome(search, &out);
  return out;
}

}  // namespace parplan
