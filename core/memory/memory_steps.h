// The named steps EstimateMemory composes, each readable and testable on its
// own: what every step reads, one stage's parameters, its activations (per
// chunk, with the schedule's in-flight microbatches, recompute and CPU
// offloading), the weight / gradient / optimizer state those parameters
// need, the overhead, the peak against HBM, and the stated assumptions.
#ifndef PARPLAN_CORE_MEMORY_MEMORY_STEPS_H_
#define PARPLAN_CORE_MEMORY_MEMORY_STEPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/memory/memory_model.h"

namespace parplan {

// What every step reads: the request and what follows from it once.
struct MemoryInputs {
  const ModelSpec* model = nullptr;
  const ResolvedConfig* config = nullptr;
  const StagePlan* plan = nullptr;
  int64_t dp = 0, edp = 0;
  int64_t microbatches = 0;
  bool microbatches_assumed = false;
  double dense_shards = 1, expert_shards = 1;                   // optimizer (and FSDP) sharding
  double tokens = 0;                                            // tokens of one microbatch on one CP rank
  double vocab = 0;                                             // padded vocabulary
  double gemm_bytes = 2, grad_bytes = 4, optimizer_bytes = 12;  // per parameter
  std::vector<std::vector<int64_t>> first_layers;               // first decoder layer of each (stage, chunk)
};

// Preconditions as EstimateMemory. The pointers must outlive the result.
MemoryInputs PrepareMemory(const ModelSpec& model, const ResolvedConfig& config, const StagePlan& plan, int64_t world);

// Parameters one GPU of stage `stage` holds: dense (after TP) and routed
// experts (after EP x ETP), those in GEMMs, the largest layer (FSDP's unit),
// and LoRA adapters.
struct StageParams {
  double dense = 0, expert = 0, gemm = 0, largest_layer = 0, adapters = 0;
};
StageParams CountStageParams(const MemoryInputs& in, int64_t stage);

// Activations of stage `stage`: per chunk and microbatch, times the
// schedule's in-flight microbatches (1F1B or interleaved), under full
// recompute (the kept inputs plus one rebuilt group) and CPU offloading;
// the first stage's token ids and the last stage's logits. Fills the
// activation fields of `out` (chunks, activation, working, logits,
// embedding, in-flight).
void AddActivations(const MemoryInputs& in, int64_t stage, StageMemory* out);

// Weights (GEMM weights in the recipe's format, the rest bf16), gradients
// and optimizer state of `params`, sharded as the config says (distributed
// optimizer, Megatron FSDP with its two gathered layers, LoRA).
void AddModelState(const MemoryInputs& in, const StageParams& params, StageMemory* out);

// The fixed overhead (CUDA context, NCCL, workspaces) and allocator slack,
// or the caller's figure; sets total_bytes.
void AddOverhead(const MemoryOptions& options, StageMemory* out);

// The peak stage, and capacity, fit and headroom against `system`'s HBM
// (none when `system` is null).
void FindPeak(const SystemSpec* system, MemoryEstimate* estimate);

// The sentences the answer states about bytes per parameter, activations,
// offloading and overhead.
std::vector<std::string> MemoryAssumptions(const MemoryInputs& in, const MemoryOptions& options);

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_MEMORY_STEPS_H_
