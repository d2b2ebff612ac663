// ModelSpec: a model architecture under Megatron-Core field names, plus where
// it came from and what is unknown about it.
#ifndef PARPLAN_CORE_MODEL_MODEL_SPEC_H_
#define PARPLAN_CORE_MODEL_MODEL_SPEC_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace parplan {

struct ModelSpec {
  // Identity.
  std::string id;
  std::string name;
  std::string hf_id;
  std::vector<std::string> aliases;
  std::string kind;    // dense | moe | mla_moe | hybrid_mamba | hybrid_mamba_moe | ...
  std::string origin;  // catalog | inline | hf_config | size

  // Architecture (0 / empty = unknown or not applicable; see missing_fields).
  int64_t num_layers = 0;
  int64_t hidden_size = 0;
  int64_t ffn_hidden_size = 0;
  int64_t num_attention_heads = 0;
  int64_t num_query_groups = 0;
  int64_t kv_channels = 0;
  int64_t vocab_size = 0;
  int64_t make_vocab_size_divisible_by = 128;
  int64_t seq_length = 0;           // native context (max_position_embeddings)
  int64_t pretrain_seq_length = 0;  // the length its published pretraining recipe uses; 0 = none known
  bool gated_linear_unit = true;
  bool share_embeddings_and_output_weights = false;
  bool multi_latent_attention = false;
  int64_t q_lora_rank = 0;
  int64_t kv_lora_rank = 0;
  int64_t qk_head_dim = 0;
  int64_t qk_pos_emb_head_dim = 0;
  int64_t v_head_dim = 0;
  int64_t num_moe_experts = 0;
  int64_t moe_router_topk = 0;
  int64_t moe_ffn_hidden_size = 0;
  int64_t moe_shared_expert_intermediate_size = 0;
  int64_t first_k_dense_layers = 0;
  int64_t moe_layer_freq = 1;
  int64_t moe_latent_size = 0;
  int64_t mtp_num_layers = 0;
  std::string hybrid_layer_pattern;
  int64_t mamba_state_dim = 0;
  int64_t mamba_head_dim = 0;
  int64_t mamba_num_heads = 0;
  int64_t mamba_num_groups = 0;
  int64_t window_size = 0;            // Megatron's (left, 0) window: a local layer sees window_size + 1 tokens
  int64_t window_attn_skip_freq = 0;  // every n-th layer (1-based) uses full attention
  // Megatron's list form of window_attn_skip_freq, one character per decoder
  // layer: 'S' = local attention (sliding window, or a chunk when
  // attention_chunk_size is set), 'F' = full. Empty = window_attn_skip_freq decides.
  std::string window_attn_pattern;
  // Chunked local attention (Llama 4; Megatron Bridge's Llama4 provider field):
  // a local layer attends causally within its own chunk of this many tokens.
  int64_t attention_chunk_size = 0;
  bool add_bias_linear = false;  // biases on QKV, output projection, MLP/expert fc1+fc2 and the router
  bool add_qkv_bias = false;     // bias on the QKV projection only
  // "vanilla" | "off-by-one" | "learnable" (one learned softmax offset, an
  // attention sink, per head and attention layer).
  std::string softmax_type = "vanilla";
  // Megatron-Core position_embedding_type: "rope" (rotary, no parameters;
  // "yarn" is RoPE with YaRN scaling),
  // "learned_absolute" (a seq_length x hidden_size table added to the
  // token embedding on the first stage, GPT-2/GPT-3/OPT) or "none" (NoPE).
  // parplan's default is "rope" (Megatron's GPTModel defaults to
  // learned_absolute; every catalog model but GPT-3 uses RoPE).
  std::string position_embedding_type = "rope";
  // RoPE scaling as the model's config states it (Hugging Face rope_scaling):
  // its type ("yarn", "llama3", "linear", "dynamic", ...; "" = none), factor,
  // and the context trained before scaling (original_max_position_embeddings).
  // The native context (seq_length) is the scaled one, max_position_embeddings.
  std::string rope_scaling_type;
  double rope_scaling_factor = 0;
  int64_t rope_original_context = 0;
  // Megatron-Core normalization: "RMSNorm" (a weight per channel) or
  // "LayerNorm" (weight and bias, and the mean subtracted). parplan's
  // default is RMSNorm (Megatron's TransformerConfig defaults to LayerNorm).
  std::string normalization = "RMSNorm";
  // Megatron-Core activation_func of the MLP, by name: "silu", "gelu",
  // "quick_gelu", "relu", "squared_relu". gated_linear_unit decides the
  // form: gated silu = SwiGLU, gated gelu = GeGLU, plain gelu = GPT's MLP.
  // Empty = "silu" when gated, else "gelu" (ResolvedActivation).
  std::string activation_func;

  // Set by ApplyMegatronDefaults when it filled the field (so the rules can
  // say what Megatron says about the default).
  bool kv_channels_defaulted = false;
  bool moe_ffn_defaulted = false;

  // Provenance.
  std::string published_total_params;
  std::string published_active_params;
  bool approximate = false;
  std::string approximation_note;
  std::vector<std::string> missing_fields;  // empty = complete
  std::map<std::string, std::string> field_sources;
  std::map<std::string, std::string> completions;
  std::vector<std::string> notes;

  bool complete() const { return missing_fields.empty(); }
  // The sequence length a plan uses when none is given: the published
  // pretraining recipe's length when known, else the native context capped
  // at 8192 (pretraining recipes run 4K-8K; longer contexts come from a
  // later extension stage). 0 when the model says nothing.
  int64_t DefaultSeqLength() const {
    if (pretrain_seq_length > 0) return pretrain_seq_length;
    return seq_length > 8192 ? 8192 : seq_length;
  }
  // activation_func with its default filled: "silu" when gated, else "gelu".
  std::string ResolvedActivation() const {
    if (!activation_func.empty()) return activation_func;
    return gated_linear_unit ? "silu" : "gelu";
  }
  bool learned_positions() const { return position_embedding_type == "learned_absolute"; }
  bool layer_norm() const { return normalization == "LayerNorm"; }
  bool is_moe() const { return num_moe_experts > 0 || kind.find("moe") != std::string::npos; }
  bool is_hybrid() const { return !hybrid_layer_pattern.empty() || kind.find("hybrid") != std::string::npos; }
};

// How many layers of each type a model has (hybrid patterns counted by symbol).
struct LayerCounts {
  int64_t attention = 0;  // layers with self-attention
  int64_t dense_mlp = 0;  // layers with a dense MLP
  int64_t moe = 0;        // layers with routed experts
  int64_t mamba = 0;      // Mamba layers
};

// Counts layers by type: a transformer layer has attention plus one MLP
// (dense for the first_k_dense_layers and when moe_layer_freq skips it, MoE
// otherwise); a hybrid pattern counts 'M', '*', '-', 'E' (and 'G'/'D' as
// attention variants). MTP layers are not included.
LayerCounts CountLayers(const ModelSpec& model);

// Layers in a hybrid pattern's main part: every symbol before the first '/'
// except the '|' stage breaks.
int64_t HybridPatternLayers(const std::string& pattern);

// A hybrid pattern's main part (the decoder, before the first '/') and its
// MTP parts (one per depth, after each '/'): Megatron's unified
// hybrid_layer_pattern "M*M*/MM/MM" (megatron/core/models/hybrid/
// hybrid_layer_allocation.py parse_hybrid_pattern).
std::string MainHybridPattern(const std::string& pattern);
std::vector<std::string> MtpHybridPatterns(const std::string& pattern);

// The model's RoPE scaling in words, e.g. "YaRN factor 40 on 4,096" (the
// factor and the context trained before scaling); "" when it has none.
std::string RopeScalingText(const ModelSpec& model);

// Whether decoder layer `index` (0-based) attends locally (a sliding window of
// window_size + 1 tokens, or a chunk of attention_chunk_size tokens) rather
// than over the whole causal prefix. Layers past the pattern (MTP) are full.
bool IsLocalAttentionLayer(const ModelSpec& model, int64_t index);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_MODEL_SPEC_H_
