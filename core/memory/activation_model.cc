#include "core/memory/activation_model.h"

#include <algorithm>

#include "core/model/norm_modules.h"

namespace parplan {
namespace {

constexpr double kBf16 = 2.0;

struct Split {
  double tp;       // divisor of TP-split regions
  double outside;  // divisor of regions outside TP GEMMs (TP with SP, else 1)
};

Split SplitOf(const ResolvedConfig& c) { return {static_cast<double>(c.tp), c.sp ? static_cast<double>(c.tp) : 1.0}; }

// True when "layernorm" recompute discards this norm's output: only a
// separate TENorm is checkpointed; a norm Transformer Engine fuses into the
// next GEMM keeps its output there (core/model/norm_modules.h).
bool NormOutputRecomputed(const ResolvedConfig& c, bool separate) { return separate && c.Recomputes("layernorm"); }

// Pre-norm: the norm input (residual stream, bf16) and, unless "layernorm"
// recompute discards it (`separate` norms only), the norm output saved by
// the next GEMM.
double NormBytes(const ModelSpec& m, const ResolvedConfig& c, const char* offload_name, bool separate) {
  const Split s = SplitOf(c);
  if (c.Offloads(offload_name)) return 0;
  double bytes = kBf16 * m.hidden_size / s.outside;
  if (!NormOutputRecomputed(c, separate)) bytes += GemmInputBytes(c.precision) * m.hidden_size / s.outside;
  return bytes;
}

// A GEMM input that another kernel also keeps in bf16: the quantized copy is
// extra under FP8/FP4, free (shared) under bf16.
double ExtraGemmCopy(double elements, const ResolvedConfig& c) {
  const double q = GemmInputBytes(c.precision);
  return q < kBf16 ? q * elements : 0.0;
}

double AttentionBytes(const ModelSpec& m, const ResolvedConfig& c) {
  const Split s = SplitOf(c);
  const double q_bytes = GemmInputBytes(c.precision);
  const bool separate_norm = SeparateAttentionNorm(m, LayerKind::kAttentionOnly);
  double bytes = NormBytes(m, c, "attn_norm", separate_norm);
  // Unfused attention's softmax probabilities, less what core_attn recompute
  // frees (Megatron checkpoints core attention, keeping only Q, K, V).
  bytes += UnfusedScoreBytesPerToken(m, c);
  if (c.Recomputes("core_attn")) bytes -= CoreAttnRecomputeSavedBytesPerToken(m, c);
  if (c.Offloads("qkv_linear") && !c.Offloads("attn_norm") && !NormOutputRecomputed(c, separate_norm)) {
    bytes -= q_bytes * m.hidden_size / s.outside;  // the QKV GEMM's saved input went to host
  }
  if (m.multi_latent_attention) {
    const double heads = static_cast<double>(m.num_attention_heads);
    const double qk = static_cast<double>(m.qk_head_dim + m.qk_pos_emb_head_dim);
    // Down projections are not TP-split: their outputs (q/kv norm inputs, bf16)
    // and the norm outputs (up-projection GEMM inputs) sit on every rank.
    double down = 0;
    if (m.q_lora_rank > 0) down += kBf16 * m.q_lora_rank + q_bytes * m.q_lora_rank;
    down += kBf16 * (m.kv_lora_rank + m.qk_pos_emb_head_dim) + q_bytes * m.kv_lora_rank;
    bytes += down / s.outside;
    // Attention output O (bf16, kept by fused attention) and its GEMM copy.
    double up = (c.Offloads("core_attn") ? 0 : kBf16 * heads * m.v_head_dim) +
                (c.Offloads("attn_proj") ? 0 : ExtraGemmCopy(heads * m.v_head_dim, c));
    // Q and K after RoPE and V made contiguous: the outputs of mla_up_proj's
    // checkpoint, saved by fused attention; the up projections' own outputs
    // are split into views and concatenated into new tensors, so nothing
    // keeps them (multi_latent_attention.py qkv_up_proj_and_rope_apply).
    // Recompute discards exactly these three.
    if (!c.Recomputes("mla_up_proj") && !c.Offloads("core_attn")) up += kBf16 * heads * (2 * qk + m.v_head_dim);
    return bytes + up / s.tp;
  }
  const double d = static_cast<double>(m.kv_channels);
  const double q = static_cast<double>(m.num_attention_heads) * d;
  // KV heads are replicated when TP exceeds the groups.
  const double kv = static_cast<double>(std::max<int64_t>(m.num_query_groups, c.tp)) * d;
  // Q, K, V and O kept by fused attention (bf16), O's copy for the output projection.
  const double core = c.Offloads("core_attn") ? 0 : kBf16 * (q + 2 * kv + q);
  const double proj = c.Offloads("attn_proj") ? 0 : ExtraGemmCopy(q, c);
  return bytes + (core + proj) / s.tp;
}

// One MLP of width ffn split over `width_split` ranks; its input is counted
// by the caller. fc1 output (two matrices when gated) is kept in bf16 by the
// activation function; the activation output is fc2's saved input.
double MlpInternals(const ModelSpec& m, const ResolvedConfig& c, double ffn, double width_split,
                    bool recompute_activation) {
  double bytes = kBf16 * (m.gated_linear_unit ? 2.0 : 1.0) * ffn;
  if (!recompute_activation) bytes += GemmInputBytes(c.precision) * ffn;
  return bytes / width_split;
}

double DenseMlpBytes(const ModelSpec& m, const ResolvedConfig& c) {
  double bytes = NormBytes(m, c, "mlp_norm", SeparateMlpNorm(LayerKind::kDenseTransformer));
  if (!c.Recomputes("mlp")) bytes += MlpInternals(m, c, static_cast<double>(m.ffn_hidden_size), c.tp, false);
  return bytes;
}

double MoeBytes(const ModelSpec& m, const ResolvedConfig& c) {
  const Split s = SplitOf(c);
  double bytes = NormBytes(m, c, "mlp_norm", SeparateMlpNorm(LayerKind::kMoeTransformer));
  if (c.Recomputes("moe")) return bytes;
  // Router logits and probabilities in fp32.
  bytes += 2 * 4.0 * m.num_moe_experts / s.outside;
  // Routed tokens: each token visits top-k experts; with ETP the expert GEMMs
  // are split and their tokens gathered, so a GPU holds topk*ETP/TP pairs per
  // local token (balanced routing).
  const double pairs = static_cast<double>(m.moe_router_topk) * c.etp / s.outside;
  const double io = static_cast<double>(m.moe_latent_size > 0 ? m.moe_latent_size : m.hidden_size);
  // Permuted tokens saved by fc1, then fc1 output and activation output. The
  // router probabilities are applied inside the activation
  // (weighted_bias_swiglu_impl in megatron/core/transformer/moe/experts.py),
  // so the combine keeps no expert outputs.
  double per_pair = c.Offloads("expert_fc1") || c.Offloads("fused_group_mlp") ? 0 : GemmInputBytes(c.precision) * io;
  if (!c.Offloads("fused_group_mlp")) {
    const bool act_gone = c.Recomputes("moe_act") || c.Offloads("moe_act");
    per_pair += MlpInternals(m, c, static_cast<double>(m.moe_ffn_hidden_size), c.etp, act_gone);
  }
  bytes += pairs * per_pair;
  if (m.moe_latent_size > 0) bytes += 2 * kBf16 * m.moe_latent_size / s.outside;  // latent down/up
  if (m.moe_shared_expert_intermediate_size > 0 && !c.Recomputes("shared_experts")) {
    bytes += MlpInternals(m, c, static_cast<double>(m.moe_shared_expert_intermediate_size), c.tp, false);
  }
  return bytes;
}

double MambaBytes(const ModelSpec& m, const ResolvedConfig& c) {
  const Split s = SplitOf(c);
  const double di = static_cast<double>(m.mamba_num_heads * m.mamba_head_dim);
  const double bc = 2.0 * m.mamba_num_groups * m.mamba_state_dim;
  double bytes = NormBytes(m, c, "attn_norm", false);        // fused into in_proj; no layernorm recompute
  double split = kBf16 * (2 * di + bc + m.mamba_num_heads);  // in_proj output (z, x, B, C, dt)
  split += kBf16 * (di + bc);                                // conv1d output
  // Chunked scan: fp32 states at chunk boundaries (chunk 256 tokens).
  split += 4.0 * m.mamba_num_heads * m.mamba_head_dim * m.mamba_state_dim / 256.0;
  split += kBf16 * di + GemmInputBytes(c.precision) * di;  // scan output y (gated-norm input), out_proj input
  return bytes + split / s.tp;
}

}  // namespace

double GemmInputBytes(Precision precision) {
  switch (precision) {
    case Precision::kBf16:
      return kBf16;
    case Precision::kFp8Cs:
    case Precision::kFp8Ds:
    case Precision::kFp8Sc:
      return 1.0;
    case Precision::kFp8Mx:
      return 1.0 + 1.0 / 32;  // E8M0 scale per 32 elements
    case Precision::kNvfp4:
      return 0.5 + 1.0 / 16;  // FP8 scale per 16 elements
  }
  return kBf16;
}

double LayerActivationBytesPerToken(const ModelSpec& m, LayerKind kind, const ResolvedConfig& c) {
  switch (kind) {
    case LayerKind::kDenseTransformer:
      return AttentionBytes(m, c) + DenseMlpBytes(m, c);
    case LayerKind::kMoeTransformer:
      return AttentionBytes(m, c) + MoeBytes(m, c);
    case LayerKind::kMamba:
      return MambaBytes(m, c);
    case LayerKind::kAttentionOnly:
      return AttentionBytes(m, c);
    case LayerKind::kMlpOnly:
      return DenseMlpBytes(m, c);
    case LayerKind::kMoeOnly:
      return MoeBytes(m, c);
  }
  return 0;
}

AttentionScoreInputs AttentionScoreInputsOf(const ResolvedConfig& c) {
  AttentionScoreInputs in;
  in.unfused_attention = c.unfused_attention;
  in.tp = c.tp;
  in.seq_length = c.seq_length;
  return in;
}

double UnfusedScoreBytesPerToken(const ModelSpec& m, const ResolvedConfig& c) {
  return UnfusedScoreBytesPerToken(m, AttentionScoreInputsOf(c));
}

double CoreAttnRecomputeSavedBytesPerToken(const ModelSpec& m, const ResolvedConfig& c) {
  return CoreAttnRecomputeSavedBytesPerToken(m, AttentionScoreInputsOf(c));
}

double LayerInputBytesPerToken(const ModelSpec& m, const ResolvedConfig& c) {
  return kBf16 * m.hidden_size / SplitOf(c).outside;
}

double MtpActivationBytesPerToken(const ModelSpec& m, const ResolvedConfig& c) {
  const Split s = SplitOf(c);
  const LayerKind last = m.num_moe_experts > 0 ? LayerKind::kMoeTransformer : LayerKind::kDenseTransformer;
  // Two norms (hidden state, next-token embedding), the concatenated projection input.
  const double projection = 4 * kBf16 * m.hidden_size / s.outside;
  return projection + LayerActivationBytesPerToken(m, last, c);
}

}  // namespace parplan
