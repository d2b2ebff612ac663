// Megatron's "model FLOPs": the analytic count Megatron Bridge reports as
// model TFLOP/s (src/megatron/bridge/training/utils/flop_utils.py,
// num_floating_point_operations; Megatron-LM training.py has the same
// formula). Forward + backward = 3x the forward matmul FLOPs; causal
// attention counted at half; logits on the TP-padded vocabulary; MTP depths
// counted as extra layers of the last layer's type plus their projections.
// Local-attention layers (IsLocalAttentionLayer: sliding window or Llama 4
// chunks) count only the keys they see; the MLP of each layer follows its
// kind (dense or MoE, per first_k_dense_layers / moe_layer_freq).
// Hybrid (Mamba) models use the hybrid branch, which sizes the Mamba mixer as
// d_in = 2h as the upstream code does.
#ifndef PARPLAN_CORE_PERF_FLOPS_H_
#define PARPLAN_CORE_PERF_FLOPS_H_

#include <cstdint>

#include "core/model/layer_kind.h"
#include "core/model/model_spec.h"

namespace parplan {

struct FlopsPerToken {
  double total = 0;           // model FLOPs per token (fwd + bwd)
  double attention_core = 0;  // of which QK^T and AV (quadratic in sequence)
  double logits = 0;          // of which output layer (+ MTP heads)
  double dense_gemm = 0;      // of which dense-layer and attention projection GEMMs
  double expert_gemm = 0;     // of which routed-expert GEMMs
};

// Model FLOPs (fwd + bwd) per token of one decoder layer (`index` matters for
// local-attention layers), split as above (logits 0). MTP depths: pass
// index = num_layers + depth with kind MtpLayerKind; the projection is added.
FlopsPerToken LayerFlopsPerToken(const ModelSpec& model, LayerKind kind, int64_t index, int64_t seq_length,
                                 bool mtp_depth);

// Keys one query of layer `index` attends to on average in a sequence of
// `seq_length` tokens: s/2 for causal attention, less for sliding-window and
// chunked layers (IsLocalAttentionLayer).
double KeysPerQuery(const ModelSpec& model, int64_t index, int64_t seq_length);

// Precondition: model complete. `seq_length` tokens per sequence, `tp` for
// vocabulary padding, `mtp_num_layers` the run's MTP depth.
FlopsPerToken ModelFlopsPerToken(const ModelSpec& model, int64_t seq_length, int64_t tp, int64_t mtp_num_layers);

// How many decoder layers' worth of work the last pipeline stage's MTP
// depths and output layer make (EndUnits of core/pipeline/layout_builder.h,
// from this model's FLOPs); 1 without layers or a sequence length.
int64_t LastStageEndUnits(const ModelSpec& model, int64_t seq_length, int64_t tp, int64_t mtp_num_layers);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_FLOPS_H_
