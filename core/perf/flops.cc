#include "core/perf/flops.h"

#include <cmath>

#include "core/model/param_count.h"
#include "core/pipeline/layout_builder.h"

namespace parplan {
namespace {

// Megatron's gated_linear_multiplier: 3/2 with SwiGLU (gated), 1 for a plain
// MLP such as GPT-3's GeLU (megatron/training/training.py
// num_floating_point_operations; Megatron Bridge training/utils/flop_utils.py).
// The formula has no term for the activation function itself, the
// normalization (LayerNorm or RMSNorm) or learned position embeddings: those
// are element-wise work and a table lookup, timed by the step-time model but
// not counted as model FLOPs (tests/core/gpt3_model_test.cc).
double Gate(const ModelSpec& m) { return m.gated_linear_unit ? 1.5 : 1.0; }

// Hybrid branch of flop_utils.py (hybrid_flops): forward FLOPs per token of one mixer.
FlopsPerToken HybridLayer(const ModelSpec& m, LayerKind kind, double s) {
  const double h = static_cast<double>(m.hidden_size);
  FlopsPerToken f;
  switch (kind) {
    case LayerKind::kAttentionOnly: {
      // 4 h p (h + h g / heads) + 2 h p s, p = kv_channels * heads / h.
      const double p = m.kv_channels > 0 ? static_cast<double>(m.kv_channels * m.num_attention_heads) / h : 1.0;
      const double g = static_cast<double>(m.num_query_groups) / m.num_attention_heads;
      f.dense_gemm = 4 * h * p * (h + h * g);
      f.attention_core = 2 * h * p * s;
      break;
    }
    case LayerKind::kMlpOnly:
      f.dense_gemm = 4 * m.ffn_hidden_size * h * Gate(m);
      break;
    case LayerKind::kMamba: {
      const double d_in = 2 * h;  // upstream sizes the mixer as 2h
      f.dense_gemm = 2 * h * (2 * d_in + 2 * m.mamba_num_groups * m.mamba_state_dim + m.mamba_num_heads) +
                     7 * d_in * m.mamba_state_dim + 2 * d_in * h;
      break;
    }
    default: {
      double routed = 4 * h * m.moe_ffn_hidden_size * m.moe_router_topk * Gate(m);
      if (m.moe_latent_size > 0) {
        routed =
            4.0 * m.moe_latent_size * m.moe_ffn_hidden_size * m.moe_router_topk * Gate(m) + 4 * h * m.moe_latent_size;
      }
      f.expert_gemm = routed;
      f.dense_gemm = 4 * h * m.moe_shared_expert_intermediate_size * Gate(m);
      break;
    }
  }
  f.dense_gemm *= 3;
  f.attention_core *= 3;
  f.expert_gemm *= 3;
  f.total = f.dense_gemm + f.attention_core + f.expert_gemm;
  return f;
}

// Keys one token of a local-attention layer sees on average, out of a
// sequence of s tokens. Sliding window of w = window_size + 1 tokens: the first
// w tokens see 1..w keys, the rest w. Chunked attention is causal attention
// within each chunk, counted like full attention (L^2 / 2 per chunk of L
// tokens), so a chunk as long as the sequence gives the full s / 2.
double LocalContext(const ModelSpec& m, double s) {
  if (m.attention_chunk_size > 0) {
    const double c = static_cast<double>(m.attention_chunk_size);
    if (c >= s) return s / 2;
    const double chunks = std::floor(s / c);
    const double rest = s - chunks * c;
    return (chunks * c * c + rest * rest) / (2 * s);
  }
  const double w = static_cast<double>(m.window_size) + 1;  // (left, 0) window
  return w < s ? w - w * (w - 1) / (2 * s) : s / 2;
}

// Transformer branch of flop_utils.py (transformer_flops), fwd + bwd per token of one layer.
FlopsPerToken TransformerLayer(const ModelSpec& m, LayerKind kind, int64_t index, double s) {
  const double h = static_cast<double>(m.hidden_size);
  const double expansion = m.gated_linear_unit ? 3 : 2;
  FlopsPerToken f;
  if (kind == LayerKind::kMoeTransformer) {
    double routed = static_cast<double>(m.moe_ffn_hidden_size) * m.moe_router_topk * expansion;
    if (m.moe_latent_size > 0) routed = routed * m.moe_latent_size / h + 2.0 * m.moe_latent_size;
    f.expert_gemm = 6 * h * routed;
    f.dense_gemm = 6 * h * m.moe_shared_expert_intermediate_size * expansion;
  } else {
    f.dense_gemm = 6 * h * m.ffn_hidden_size * expansion;
  }
  if (m.multi_latent_attention) {
    const double heads = static_cast<double>(m.num_attention_heads);
    const double qk = static_cast<double>(m.qk_head_dim + m.qk_pos_emb_head_dim);
    const double q = m.q_lora_rank > 0 ? m.q_lora_rank * (h + heads * qk + 1) : h * heads * qk;
    const double kv = m.kv_lora_rank * (h + heads * (m.qk_head_dim + m.v_head_dim) + 1) + h * m.qk_pos_emb_head_dim;
    const double out = heads * m.v_head_dim * h;
    f.dense_gemm += 6 * (q + kv + out);
    f.attention_core = 6 * (s * heads * qk / 2 + s * heads * m.v_head_dim / 2);
  } else {
    const double qp = static_cast<double>(m.kv_channels * m.num_attention_heads);
    const double kvp = static_cast<double>(m.kv_channels * m.num_query_groups);
    f.dense_gemm += 6 * (h * (qp + 2 * kvp) + qp * h);
    // Causal attention: QK^T and AV over s/2 keys on average -> qp * s per token.
    const double context = IsLocalAttentionLayer(m, index) ? LocalContext(m, s) : s / 2;
    f.attention_core = 6 * qp * context * 2;
  }
  f.total = f.dense_gemm + f.attention_core + f.expert_gemm;
  return f;
}

void Add(FlopsPerToken* sum, const FlopsPerToken& f) {
  sum->total += f.total;
  sum->dense_gemm += f.dense_gemm;
  sum->attention_core += f.attention_core;
  sum->expert_gemm += f.expert_gemm;
  sum->logits += f.logits;
}

}  // namespace

double KeysPerQuery(const ModelSpec& m, int64_t index, int64_t seq_length) {
  const double s = static_cast<double>(seq_length);
  return IsLocalAttentionLayer(m, index) ? LocalContext(m, s) : s / 2;
}

FlopsPerToken LayerFlopsPerToken(const ModelSpec& m, LayerKind kind, int64_t index, int64_t seq_length,
                                 bool mtp_depth) {
  const double s = static_cast<double>(seq_length);
  if (!m.hybrid_layer_pattern.empty()) return mtp_depth ? FlopsPerToken{} : HybridLayer(m, kind, s);
  FlopsPerToken f = TransformerLayer(m, kind, index, s);
  if (mtp_depth) {
    const double h = static_cast<double>(m.hidden_size);
    const double projection = 6 * (3 * h + 2 * h * h);  // eh norms + eh projection
    f.dense_gemm += projection;
    f.total += projection;
  }
  return f;
}

FlopsPerToken ModelFlopsPerToken(const ModelSpec& m, int64_t seq_length, int64_t tp, int64_t mtp) {
  FlopsPerToken sum;
  for (int64_t i = 0; i < m.num_layers; ++i) Add(&sum, LayerFlopsPerToken(m, KindOfLayer(m, i), i, seq_length, false));
  const bool hybrid = !m.hybrid_layer_pattern.empty();
  if (!hybrid) {
    for (int64_t d = 0; d < mtp; ++d) {
      Add(&sum, LayerFlopsPerToken(m, MtpLayerKind(m), m.num_layers + d, seq_length, true));
    }
  }
  const double vocab = static_cast<double>(PaddedVocab(m, tp));
  FlopsPerToken logits;
  logits.logits = 6.0 * m.hidden_size * vocab * (1 + mtp);
  logits.total = logits.logits;
  Add(&sum, logits);
  return sum;
}

int64_t LastStageEndUnits(const ModelSpec& m, int64_t seq_length, int64_t tp, int64_t mtp) {
  if (m.num_layers <= 0 || seq_length <= 0) return 1;
  const FlopsPerToken f = ModelFlopsPerToken(m, seq_length, tp, mtp);
  return EndUnits(f.logits, (f.total - f.logits) / static_cast<double>(m.num_layers + mtp), mtp);
}

}  // namespace parplan
