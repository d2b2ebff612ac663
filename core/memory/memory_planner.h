// Memory answers for a request: validates the config, estimates its memory
// when the pipeline split and the world size allow, and searches the
// cheapest single (then paired) changes that would make it fit.
#ifndef PARPLAN_CORE_MEMORY_MEMORY_PLANNER_H_
#define PARPLAN_CORE_MEMORY_MEMORY_PLANNER_H_

#include <optional>
#include <string>
#include <vector>

#include "core/memory/memory_model.h"
#include "core/rules/validate.h"

namespace parplan {

struct MemoryAnswer {
  ValidationResult validation;
  std::optional<MemoryEstimate> estimate;  // absent when the split or world is impossible
  int64_t world = 0;
  bool world_assumed = false;      // no GPU count: the smallest valid world
  std::string unavailable_reason;  // why there is no estimate
};

// Precondition: `model` is complete.
MemoryAnswer AnswerMemory(const ModelSpec& model, const ResolvedConfig& config, const ResolvedPlacement& placement,
                          const MemoryOptions& options);

struct MemorySuggestion {
  std::string change;  // "PP 4 -> 8", "selective recompute (mlp)", ...
  ResolvedConfig config;
  double peak_bytes = 0;
  bool fits = false;
  std::string note;  // its cost
};

// Changes tried, cheapest first: distributed optimizer, smaller MBS,
// selective recompute of cheap modules, then of whole MLPs, EP x2, PP x2,
// TP x2 (inside NVLink), CP x2, full recompute, Megatron FSDP; invalid
// results are skipped. Returns up to `max` changes that fit, cheapest first;
// when none fits alone, pairs of the best changes; failing that, the best
// improvements marked fits=false.
std::vector<MemorySuggestion> SuggestMemoryChanges(const ModelSpec& model, const ResolvedConfig& config,
                                                   const ResolvedPlacement& placement, const MemoryOptions& options,
                                                   int max);

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_MEMORY_PLANNER_H_
