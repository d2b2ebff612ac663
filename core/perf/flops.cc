#include "core/perf/flops.h"

#include "core/model/param_count.h"

namespace parplan {
namespace {

// Hybrid branch (flop_utils.py hybrid_flops), per token, forward only.
FlopsPerToken HybridForward(const ModelSpec& m, double s, double vocab, int64_t mtp) {
  const LayerCounts n = CountLayers(m);
  const double h = static_cast<double>(m.hidden_size);
  FlopsPerToken f;
  // Attention: 4 h p (h + h g / heads) + 2 h p s, p = kv_channels * heads / h.
  const double p = m.kv_channels > 0 ? static_cast<double>(m.kv_channels * m.num_attention_heads) / h : 1.0;
  const double g = static_cast<double>(m.num_query_groups) / m.num_attention_heads;
  const double attn_proj = 4 * h * p * (h + h * g);
  const double attn_core = 2 * h * p * s;
  // MLP: 4 F h (x1.5 when gated).
  const double gate = m.gated_linear_unit ? 1.5 : 1.0;
  const double mlp = 4 * m.ffn_hidden_size * h * gate;
  // Mamba with d_in = 2h (upstream's sizing), 7 d_in N for the scan.
  const double d_in = 2 * h;
  const double mamba = 2 * h * (2 * d_in + 2 * m.mamba_num_groups * m.mamba_state_dim + m.mamba_num_heads) +
                       7 * d_in * m.mamba_state_dim + 2 * d_in * h;
  // MoE: 4 h F_moe k (x1.5 gated) + shared 4 h F_shared (x1.5); latent: routed on the latent width.
  double routed = 4 * h * m.moe_ffn_hidden_size * m.moe_router_topk * gate;
  if (m.moe_latent_size > 0) routed = 4 * m.moe_latent_size * m.moe_ffn_hidden_size * m.moe_router_topk * gate + 4 * h * m.moe_latent_size;
  const double shared = 4 * h * m.moe_shared_expert_intermediate_size * gate;
  f.dense_gemm = n.attention * attn_proj + n.dense_mlp * mlp + n.mamba * mamba + n.moe * shared;
  f.attention_core = n.attention * attn_core;
  f.expert_gemm = n.moe * routed;
  f.logits = 2 * h * vocab * (1 + mtp);
  f.total = f.dense_gemm + f.attention_core + f.expert_gemm + f.logits;
  return f;
}

// Transformer branch (flop_utils.py transformer_flops), per token, fwd+bwd.
FlopsPerToken Transformer(const ModelSpec& m, double s, double vocab, int64_t mtp) {
  const double h = static_cast<double>(m.hidden_size);
  const LayerCounts counts = CountLayers(m);
  // MTP depths count as layers of the last layer's kind.
  const bool last_is_moe = m.num_moe_experts > 0 && counts.moe > 0;
  const double num_layers = static_cast<double>(m.num_layers + mtp);
  const double moe_layers = counts.moe + (last_is_moe ? mtp : 0);
  const double dense_layers = counts.dense_mlp + (last_is_moe ? 0 : mtp);
  const double expansion = m.gated_linear_unit ? 3 : 2;
  double routed = static_cast<double>(m.moe_ffn_hidden_size) * m.moe_router_topk * expansion;
  if (m.moe_latent_size > 0) routed = routed * m.moe_latent_size / h + 2.0 * m.moe_latent_size;
  FlopsPerToken f;
  f.dense_gemm = 6 * h * (m.ffn_hidden_size * expansion * dense_layers +
                          m.moe_shared_expert_intermediate_size * expansion * moe_layers);
  f.expert_gemm = 6 * h * routed * moe_layers;
  if (m.multi_latent_attention) {
    const double heads = static_cast<double>(m.num_attention_heads);
    const double qk = static_cast<double>(m.qk_head_dim + m.qk_pos_emb_head_dim);
    const double q = m.q_lora_rank > 0 ? m.q_lora_rank * (h + heads * qk + 1) : h * heads * qk;
    const double kv = m.kv_lora_rank * (h + heads * (m.qk_head_dim + m.v_head_dim) + 1) + h * m.qk_pos_emb_head_dim;
    const double out = heads * m.v_head_dim * h;
    const double core = s * heads * qk / 2 + s * heads * m.v_head_dim / 2;
    f.dense_gemm += 6 * num_layers * (q + kv + out);
    f.attention_core = 6 * num_layers * core;
  } else {
    const double qp = static_cast<double>(m.kv_channels * m.num_attention_heads);
    const double kvp = static_cast<double>(m.kv_channels * m.num_query_groups);
    const double proj = h * (qp + 2 * kvp) + qp * h;
    // Sliding-window layers see the average causal window instead of s/2.
    double full_layers = num_layers, swa_layers = 0, swa_context = s / 2;
    if (m.window_size > 0) {
      const double w = static_cast<double>(m.window_size) + 1;  // (left, 0) window: left + right + 1
      swa_context = w < s ? w - w * (w - 1) / (2 * s) : s / 2;
      if (m.window_attn_skip_freq > 0) {
        full_layers = 0;
        for (int64_t i = 0; i < m.num_layers + mtp; ++i) {
          if ((i + 1) % m.window_attn_skip_freq == 0) full_layers += 1;
        }
        swa_layers = num_layers - full_layers;
      } else {
        swa_layers = num_layers;
        full_layers = 0;
      }
    }
    f.dense_gemm += 6 * num_layers * proj;
    // Causal: QK^T and AV over s/2 keys on average, 2 FLOPs per MAC -> qp * s per layer and token.
    f.attention_core = 6 * (full_layers * qp * s + swa_layers * qp * swa_context * 2);
  }
  const double mtp_proj = 6 * mtp * (3 * h + 2 * h * h);
  f.dense_gemm += mtp_proj;
  f.logits = 6 * h * vocab * (1 + mtp);
  f.total = f.dense_gemm + f.expert_gemm + f.attention_core + f.logits;
  return f;
}

}  // namespace

FlopsPerToken ModelFlopsPerToken(const ModelSpec& m, int64_t seq_length, int64_t tp, int64_t mtp) {
  const double s = static_cast<double>(seq_length);
  const double vocab = static_cast<double>(PaddedVocab(m, tp));
  if (!m.hybrid_layer_pattern.empty()) {
    FlopsPerToken f = HybridForward(m, s, vocab, mtp);
    f.total *= 3;
    f.dense_gemm *= 3;
    f.attention_core *= 3;
    f.expert_gemm *= 3;
    f.logits *= 3;
    return f;
  }
  return Transformer(m, s, vocab, mtp);
}

}  // namespace parplan
