// How a model's layers land on pipeline ranks and virtual chunks, following
// Megatron-Core exactly, and the pipeline rules a config breaks.
//
// Sources (NVIDIA/Megatron-LM):
//   even / uneven split: megatron/core/transformer/transformer_config.py
//     (__post_init__, "Uneven PP") and megatron/training/arguments.py
//   embedding / loss accounted as layers: transformer_config.py (the
//     account_for_*_in_pipeline_split checks) and transformer_block.py
//     (get_num_layers_to_build: the first virtual stage of rank 0 builds one
//     layer less for the embedding, the last of the last rank one less for the loss)
//   layouts: megatron/core/transformer/pipeline_parallel_layer_layout.py
//     (validate_layer_layout) and the VPP-conflict check in transformer_config.py
//   hybrid patterns: megatron/core/models/hybrid/hybrid_layer_allocation.py
//     (select_pipeline_segment)
#ifndef PARPLAN_CORE_PIPELINE_STAGE_PLAN_H_
#define PARPLAN_CORE_PIPELINE_STAGE_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/diagnostics/violation.h"

namespace parplan {

struct StagePlan {
  enum class Source { kEven, kUneven, kLayout, kHybridPattern, kAccounted };
  Source source = Source::kEven;
  int64_t pp = 1;
  int64_t vpp = 1;                                   // as used (layouts define it)
  std::vector<std::vector<int64_t>> decoder_layers;  // [pp_rank][vpp_chunk]
  std::vector<bool> has_embedding;                   // per pp rank
  std::vector<bool> has_loss;                        // per pp rank
  std::vector<int64_t> mtp_layers;                   // per pp rank
};

// Index of the first decoder layer of each [pp_rank][vpp_chunk], in
// Megatron's order (virtual stage i = chunk * PP + rank holds the i-th run
// of layers).
std::vector<std::vector<int64_t>> FirstLayerIndices(const StagePlan& plan);

// Plans the split of `model` (num_layers known) under `config`. Appends every
// broken pipeline rule to `violations` (ids pp.*, vpp.*, layout.*, hybrid.*)
// and returns nullopt when any of them is an error.
std::optional<StagePlan> PlanStages(const ModelSpec& model, const ResolvedConfig& config,
                                    std::vector<Violation>* violations);

// The same, when only the split matters and not why it fails.
std::optional<StagePlan> PlanStages(const ModelSpec& model, const ResolvedConfig& config);

}  // namespace parplan

#endif  // PARPLAN_CORE_PIPELINE_STAGE_PLAN_H_
