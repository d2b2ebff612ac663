#include "core/model/param_count.h"

namespace parplan {

int64_t PaddedVocab(const ModelSpec& m, int64_t tp) {
  int64_t multiple = (m.make_vocab_size_divisible_by > 0 ? m.make_vocab_size_divisible_by : 1) * tp;
  return (m.vocab_size + multiple - 1) / multiple * multiple;
}

int64_t NormParams(const ModelSpec& m) { return (m.layer_norm() ? 2 : 1) * m.hidden_size; }

int64_t PositionEmbeddingParams(const ModelSpec& m) { return m.learned_positions() ? m.seq_length * m.hidden_size : 0; }

int64_t AttentionParams(const ModelSpec& m) {
  const int64_t h = m.hidden_size;
  if (m.multi_latent_attention) {
    const int64_t qk = m.qk_head_dim + m.qk_pos_emb_head_dim;
    int64_t q = m.q_lora_rank > 0 ? h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * m.num_attention_heads * qk
                                  : h * m.num_attention_heads * qk;
    int64_t kv_down = h * (m.kv_lora_rank + m.qk_pos_emb_head_dim) + m.kv_lora_rank;
    int64_t kv_up = m.kv_lora_rank * m.num_attention_heads * (m.qk_head_dim + m.v_head_dim);
    int64_t out = m.num_attention_heads * m.v_head_dim * h;
    return q + kv_down + kv_up + out + NormParams(m);  // + input layernorm
  }
  const int64_t kv = m.kv_channels;
  const int64_t qkv_width = kv * (m.num_attention_heads + 2 * m.num_query_groups);
  const int64_t qkv = h * qkv_width + (m.add_bias_linear || m.add_qkv_bias ? qkv_width : 0);
  const int64_t out = m.num_attention_heads * kv * h + (m.add_bias_linear ? h : 0);
  // softmax_type "learnable": one offset (sink logit) per head (Megatron's core_attention.softmax_offset).
  const int64_t sinks = m.softmax_type == "learnable" ? m.num_attention_heads : 0;
  return qkv + out + sinks + NormParams(m);  // + input layernorm
}

namespace {

// fc1 (two matrices when gated) and fc2 of one MLP `width` -> `ffn` -> `width`,
// with their biases when add_bias_linear.
int64_t MlpMatrices(const ModelSpec& m, int64_t width, int64_t ffn) {
  const int64_t fc1 = (m.gated_linear_unit ? 2 : 1) * ffn;
  const int64_t weights = width * fc1 + ffn * width;
  return weights + (m.add_bias_linear ? fc1 + width : 0);
}

}  // namespace

int64_t DenseMlpParams(const ModelSpec& m, int64_t ffn) { return MlpMatrices(m, m.hidden_size, ffn) + NormParams(m); }

int64_t ExpertParams(const ModelSpec& m) {
  const int64_t width = m.moe_latent_size > 0 ? m.moe_latent_size : m.hidden_size;
  return MlpMatrices(m, width, m.moe_ffn_hidden_size);
}

int64_t MambaParams(const ModelSpec& m) {
  const int64_t h = m.hidden_size;
  const int64_t d_inner = m.mamba_num_heads * m.mamba_head_dim;
  const int64_t bc = 2 * m.mamba_num_groups * m.mamba_state_dim;
  const int64_t in_proj = h * (2 * d_inner + bc + m.mamba_num_heads);
  const int64_t conv = (d_inner + bc) * (4 + 1);  // depthwise conv, width 4, with bias
  const int64_t out_proj = d_inner * h;
  return in_proj + conv + out_proj + 3 * m.mamba_num_heads + d_inner + NormParams(m);
}

namespace {

// One MoE block: router + all routed experts + shared experts (+ latent
// projections for LatentMoE), and the active share of it.
struct MoeBlock {
  int64_t total = 0;
  int64_t active = 0;
  int64_t routed = 0;
};

MoeBlock MoeParams(const ModelSpec& m) {
  MoeBlock b;
  const int64_t expert = ExpertParams(m);
  b.routed = m.num_moe_experts * expert;
  b.total = b.routed + MoeSharedParams(m);
  b.active = m.moe_router_topk * expert + MoeSharedParams(m);
  return b;
}

}  // namespace

int64_t MoeSharedParams(const ModelSpec& m) {
  const int64_t shared = m.moe_shared_expert_intermediate_size > 0
                             ? MlpMatrices(m, m.hidden_size, m.moe_shared_expert_intermediate_size)
                             : 0;
  const int64_t router = (m.hidden_size + (m.add_bias_linear ? 1 : 0)) * m.num_moe_experts;
  const int64_t latent = m.moe_latent_size > 0 ? 2 * m.hidden_size * m.moe_latent_size : 0;
  return shared + router + latent + NormParams(m);
}

ParamCounts CountParams(const ModelSpec& m) {
  ParamCounts c;
  const LayerCounts layers = CountLayers(m);
  const int64_t attention = AttentionParams(m);
  const int64_t dense = m.ffn_hidden_size > 0 ? DenseMlpParams(m, m.ffn_hidden_size) : 0;
  const MoeBlock moe = m.num_moe_experts > 0 ? MoeParams(m) : MoeBlock{};
  const int64_t mamba = layers.mamba > 0 ? MambaParams(m) : 0;

  int64_t total =
      layers.attention * attention + layers.dense_mlp * dense + layers.moe * moe.total + layers.mamba * mamba;
  int64_t active =
      layers.attention * attention + layers.dense_mlp * dense + layers.moe * moe.active + layers.mamba * mamba;
  int64_t routed = layers.moe * moe.routed;

  // MTP: each depth is a projection of [h; h] -> h plus one transformer layer
  // with the model's last-layer MLP (MoE when the model is MoE).
  if (m.mtp_num_layers > 0) {
    const int64_t proj = 2 * m.hidden_size * m.hidden_size + 2 * m.hidden_size;
    const bool moe_mlp = m.num_moe_experts > 0;
    const int64_t block_total = attention + (moe_mlp ? moe.total : dense);
    const int64_t block_active = attention + (moe_mlp ? moe.active : dense);
    total += m.mtp_num_layers * (proj + block_total);
    active += m.mtp_num_layers * (proj + block_active);
    if (moe_mlp) routed += m.mtp_num_layers * moe.routed;
  }

  c.embedding = PaddedVocab(m, 1) * m.hidden_size;
  c.position_embedding = PositionEmbeddingParams(m);
  c.output_layer = m.share_embeddings_and_output_weights ? 0 : c.embedding;
  const int64_t final_norm = NormParams(m);
  c.total = total + c.embedding + c.position_embedding + c.output_layer + final_norm;
  c.active = active + c.embedding + c.position_embedding + c.output_layer + final_norm;
  c.routed_experts = routed;
  return c;
}

}  // namespace parplan
