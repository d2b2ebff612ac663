// Why a config's memory peaks where it does: which term dominates the peak
// stage (weights, gradients, optimizer state, activations, buffers) and the
// structural reason behind it, in sentences with the numbers.
#ifndef PARPLAN_CORE_MEMORY_MEMORY_ROOT_CAUSE_H_
#define PARPLAN_CORE_MEMORY_MEMORY_ROOT_CAUSE_H_

#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/memory/memory_model.h"
#include "core/model/model_spec.h"

namespace parplan {

struct MemoryTermShare {
  std::string term;  // "weights", "gradients", "optimizer state", "activations", "buffers", "overhead"
  double bytes = 0;
  double share = 0;  // of the peak stage's total
};

struct MemoryRootCause {
  std::vector<MemoryTermShare> terms;  // the peak stage's terms, largest first
  // Largest term first, then the structural reasons that make the large
  // terms large: "DP=1: the distributed optimizer has nothing to shard
  // over", "MBS 4 x seq 4096: activations are 60% of the peak", "PP=1: all
  // 48 layers' weights on every GPU".
  std::vector<std::string> reasons;
};

// Precondition: `estimate` is EstimateMemory(model, config, ...) with at
// least one stage. Pure.
MemoryRootCause ExplainMemoryPeak(const ModelSpec& model, const ResolvedConfig& config, const MemoryEstimate& estimate);

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_MEMORY_ROOT_CAUSE_H_
