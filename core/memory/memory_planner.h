// Memory answers for a request: validates the config and estimates its
// memory when the pipeline split and the world size allow. (The changes that
// would make it fit: core/search/memory_fixes.h.)
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

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_MEMORY_PLANNER_H_
