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
#include "core/memory/runtime_buffers.h"

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
  const SystemSpec* system = nullptr;                           // may be null
  DispatcherBuffers dispatcher;                                 // per GPU of a stage with MoE layers
};

// Preconditions as EstimateMemory. The pointers must outlive the result.
MemoryInputs PrepareMemory(const ModelSpec& model, const ResolvedConfig& config, const StagePlan& plan, int64_t world,
                           const SystemSpec* system = nullptr);

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
// optimizer, Megatron FSDP with its two gathered layers, LoRA). With
// optimizer CPU offload, the Adam moments of OffloadedOptimizerShare() of the
// dense and expert optimizer state leave the optimizer fields (the fp32
// master shard stays) and optimizer_host_bytes holds that share's host
// copies: master weights and moments.
void AddModelState(const MemoryInputs& in, const StageParams& params, StageMemory* out);

// CUDA-graph memory of stage `stage`: static buffers of the captured graphs
// (per chunk, times the in-flight microbatches AddActivations put in `st`'s
// chunks) and the private pool's working set.
struct CudaGraphStage {
  double static_bytes = 0, pool_bytes = 0;
  int64_t captured_layers = 0;  // decoder layers with at least one captured graph
  double total() const { return static_bytes + pool_bytes; }
};
CudaGraphStage GraphStageBytes(const MemoryInputs& in, int64_t stage, const StageMemory& st);

// One attention call of decoder layer `index` (MTP layers: the last decoder
// layer's shape) on one GPU: the bytes unfused attention keeps for backward
// (its softmax probabilities, `saved_scores`, counted with the activations)
// and the call's transient buffers (`cp_working`: CP's K/V buffers,
// `unfused_working`: the raw s x s scores). All zero for a layer without
// attention.
struct AttentionCallBytes {
  double saved_scores = 0, cp_working = 0, unfused_working = 0;
  double working() const { return cp_working + unfused_working; }
};
AttentionCallBytes AttentionCallBytesOf(const MemoryInputs& in, int64_t index);

// The largest AttentionCallBytesOf(...).working() over stage `stage`'s
// attention layers (decoder and MTP) into `out`'s attention_working_bytes.
void AddAttentionWorking(const MemoryInputs& in, int64_t stage, StageMemory* out);

// The dispatcher's buffers (stages holding MoE layers) and the CUDA-graph
// memory of stage `stage`; call after AddActivations.
void AddRuntimeBuffers(const MemoryInputs& in, int64_t stage, StageMemory* out);

// The fixed overhead (CUDA context, NCCL, workspaces) and the allocator's
// fragmentation allowance (by config.expandable_segments), or the caller's
// figure; sets fragmentation_bytes and total_bytes.
void AddOverhead(const MemoryOptions& options, const ResolvedConfig& config, StageMemory* out);

// The steady-state fragmentation allowance of a stage whose other terms are
// `st` (overhead not yet added): kDefaultAllocatorSlack of their sum with
// expandable segments; without them, that plus the stage's largest
// transient block (core/memory/README.md section 5).
double FragmentationAllowance(const StageMemory& st, bool expandable_segments);

// The peak stage, and capacity, fit and headroom against `system`'s HBM
// (none when `system` is null).
void FindPeak(const SystemSpec* system, MemoryEstimate* estimate);

// The sentences the answer states about bytes per parameter, activations,
// offloading and overhead.
std::vector<std::string> MemoryAssumptions(const MemoryInputs& in, const MemoryOptions& options);

// The lines that give the dispatcher buffers and the CUDA-graph memory of
// `estimate`'s peak stage with their numbers (none when there are none).
std::vector<std::string> RuntimeBufferNotes(const MemoryInputs& in, const MemoryEstimate& estimate);

// The lines that give, for `estimate`'s peak stage, the optimizer state
// offloaded to host memory (per GPU and per node), unfused attention's s x s
// scores, and CP's working buffers with which buffer it is (none when the
// config has none of them).
std::vector<std::string> AttentionAndOffloadNotes(const MemoryInputs& in, const MemoryEstimate& estimate);

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_MEMORY_STEPS_H_
