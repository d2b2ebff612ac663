// Parameter counts from an architecture, following the module shapes of
// Megatron-Core (GPT layer: QKV + output projection, MLP with 2 or 3
// matrices, MoE router + routed + shared experts, MLA down/up projections,
// Mamba-2 in/out projections) -- the same terms as Megatron-LM
// megatron/training/theoretical_memory_usage.py, extended to MLA and Mamba.
#ifndef PARPLAN_CORE_MODEL_PARAM_COUNT_H_
#define PARPLAN_CORE_MODEL_PARAM_COUNT_H_

#include <cstdint>

#include "core/model/model_spec.h"

namespace parplan {

struct ParamCounts {
  int64_t total = 0;      // every parameter, embeddings and MTP included
  int64_t active = 0;     // parameters one token touches (top-k experts)
  int64_t embedding = 0;  // input embedding (padded vocabulary)
  // learned absolute position table (seq_length x hidden; 0 for RoPE/NoPE):
  // Megatron's LanguageModelEmbedding.position_embeddings, on the first
  // stage, not split over TP.
  int64_t position_embedding = 0;
  int64_t output_layer = 0;    // untied output projection (0 when tied)
  int64_t routed_experts = 0;  // all routed-expert weights
};

// Vocabulary padded as Megatron does: up to a multiple of
// make_vocab_size_divisible_by * tp (megatron/training/tokenizer, _vocab_size_with_padding).
int64_t PaddedVocab(const ModelSpec& model, int64_t tp);

// Parameters of one attention block, one dense MLP, one MoE block (all
// experts) and one Mamba mixer; used by the counts below and by later models.
// Biases follow add_bias_linear (every linear layer, experts and router
// included) and add_qkv_bias (QKV only); softmax_type "learnable" adds one
// sink per head to each attention block. Norms follow `normalization`
// (LayerNorm: weight and bias).
int64_t AttentionParams(const ModelSpec& model);
// One norm: hidden_size weights (RMSNorm), twice that with LayerNorm's bias.
int64_t NormParams(const ModelSpec& model);
// The learned absolute position table, seq_length x hidden_size (0 unless
// position_embedding_type is learned_absolute).
int64_t PositionEmbeddingParams(const ModelSpec& model);
int64_t DenseMlpParams(const ModelSpec& model, int64_t ffn);
int64_t ExpertParams(const ModelSpec& model);  // one routed expert
int64_t MambaParams(const ModelSpec& model);
// The non-routed part of one MoE block: router, shared experts, LatentMoE
// projections and the pre-MLP norm (all TP-split except the router).
int64_t MoeSharedParams(const ModelSpec& model);

// Counts for a complete model (tp = 1 padding). Precondition: model.complete().
ParamCounts CountParams(const ModelSpec& model);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_PARAM_COUNT_H_
