// The fixes for a config that does not fit in memory: every lever Megatron
// offers (a smaller micro-batch, selective or full recompute, optimizer CPU
// offload, the distributed optimizer, TP/PP/CP/EP on the same GPUs, Megatron
// FSDP), alone and combined, each validated, estimated for memory and for
// step time, and the fitting ones ranked by predicted step time.
#ifndef PARPLAN_CORE_SEARCH_MEMORY_FIXES_H_
#define PARPLAN_CORE_SEARCH_MEMORY_FIXES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/memory/memory_model.h"
#include "core/model/model_spec.h"
#include "core/perf/perf_model.h"

namespace parplan {

struct MemoryFix {
  std::string change;  // "MBS 4 -> 2 + selective recompute (layernorm, moe_act)"
  ResolvedConfig config;
  int levers = 0;  // how many levers it combines (1..3)
  double peak_bytes = 0;
  bool fits = false;
  // Predicted step time and its cost against the current config (0 when no
  // system gives a step time).
  double step_time_s = 0;
  double step_time_delta_s = 0;
  double step_time_delta_pct = 0;
  std::string note;  // what each lever costs, in words
};

struct MemoryFixSearch {
  // Fixes that fit, cheapest predicted step time first (ties: lower peak);
  // when none fits, the largest improvements (lowest peak first), fits=false.
  std::vector<MemoryFix> fixes;
  double current_step_time_s = 0;  // the config as given (0 without a system)
  int64_t evaluated = 0;           // configs estimated
  bool capped = false;             // kMaxMemoryFixEvaluations stopped the search
};

// Searches every single lever and every pair of levers from different
// families, then triples of the cheapest memory-saving levers, up to
// kMaxMemoryFixEvaluations estimates; the GPU count stays
// `placement.gpus` (the caller resolves it). A change is kept only when
// Validate finds no error (a PP change whose layers do not split takes the
// nearest valid split, as recommend does). Returns at most `max` fixes.
// Preconditions: `model` complete; `config` has an estimate
// (AnswerMemory); `max` >= 0.
MemoryFixSearch SearchMemoryFixes(const ModelSpec& model, const ResolvedConfig& config,
                                  const ResolvedPlacement& placement, const MemoryOptions& options,
                                  const PerfParams& params, int max);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_MEMORY_FIXES_H_
