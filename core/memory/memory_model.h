// Per-GPU training memory of a config, per pipeline rank and VPP chunk.
// Every term, its source and where it departs from upstream estimators is
// derived in core/memory/README.md.
#ifndef PARPLAN_CORE_MEMORY_MEMORY_MODEL_H_
#define PARPLAN_CORE_MEMORY_MEMORY_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/pipeline/stage_plan.h"
#include "core/system/system_spec.h"

namespace parplan {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kDefaultOverheadGiB = 2.0;  // CUDA context, NCCL, cuBLAS/TE workspaces
// Caching-allocator fragmentation with expandable segments, a share of the
// stage's other terms: fitted on NVIDIA's tuned configs (bench/memory_fit),
// which all run with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (the
// env_vars of Megatron Bridge's recipes, core/import/bridge_recipe_data.cc).
inline constexpr double kDefaultAllocatorSlack = 0.03;

struct MemoryOptions {
  // Replaces the default overhead (2 GiB + 3% of everything else).
  std::optional<double> overhead_gib;
};

struct ChunkMemory {
  int64_t vpp_chunk = 0;
  int64_t decoder_layers = 0;
  double activation_bytes_per_microbatch = 0;
  int64_t in_flight = 0;
};

struct StageMemory {
  int64_t pp_rank = 0;
  std::vector<int64_t> decoder_layers;  // per chunk
  double dense_params = 0;              // on one GPU (after TP)
  double expert_params = 0;             // on one GPU (after EP*ETP)
  double weight_bytes = 0;
  double low_precision_weight_bytes = 0;
  double grad_bytes = 0;
  double optimizer_dense_bytes = 0;
  double optimizer_expert_bytes = 0;
  // Optimizer CPU offload: the fp32 master copies and Adam moments the
  // HybridDeviceOptimizer keeps in host memory (the moments among them are
  // taken out of the two optimizer fields above; not part of total_bytes).
  double optimizer_host_bytes = 0;
  double activation_bytes = 0;
  double in_flight_microbatches = 0;  // stage-equivalent
  double recompute_working_bytes = 0;
  double logits_bytes = 0;
  double embedding_bytes = 0;
  double fsdp_working_bytes = 0;
  // The MoE dispatcher's persistent communication buffers (DeepEP / HybridEP;
  // none for alltoall and allgather) on stages holding MoE layers.
  double dispatcher_buffer_bytes = 0;
  // CUDA graphs: static input/output buffers of the captured graphs and the
  // private pool's working set (core/memory/README.md section 5).
  double cuda_graph_bytes = 0;
  // One attention call's transient buffers, the largest over the stage's
  // attention layers (one call runs at a time): CP's gathered K/V, ring
  // buffers or a2a copies (core/perf/context_parallel.h working_bytes) and
  // unfused attention's s x s scores before the softmax.
  double attention_working_bytes = 0;
  double overhead_bytes = 0;
  // The part of overhead_bytes allowed for the caching allocator's
  // fragmentation in steady state (core/memory/README.md section 5); 0 when
  // the caller fixed overhead_gib.
  double fragmentation_bytes = 0;
  double total_bytes = 0;
  std::vector<ChunkMemory> chunks;
};

struct MemoryEstimate {
  std::vector<StageMemory> stages;
  int64_t peak_pp_rank = 0;
  double peak_bytes = 0;  // steady state (after the allocator has fragmented)
  // Iteration 1: the same terms before fragmentation builds up (the largest
  // stage total less its fragmentation allowance).
  double first_iteration_peak_bytes = 0;
  double capacity_bytes = 0;  // 0 when no system
  bool fits = false;
  double headroom_bytes = 0;
  int64_t dp = 0, edp = 0;
  int64_t microbatches = 0;
  bool microbatches_assumed = false;
  std::vector<std::string> assumptions;
};

// Preconditions: `model` is complete; `plan` is the valid split of `config`;
// `world` is divisible by TP*PP*CP and PP*EP*ETP. `system` may be null (no
// capacity). Pure and deterministic.
MemoryEstimate EstimateMemory(const ModelSpec& model, const ResolvedConfig& config, const StagePlan& plan,
                              int64_t world, const SystemSpec* system, const MemoryOptions& options);

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_MEMORY_MODEL_H_
