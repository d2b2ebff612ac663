// Maps the text of a Hugging Face config.json onto a ModelSpec.
//
// Field mapping (HF -> Megatron), first present key wins:
//   num_hidden_layers -> num_layers          hidden_size -> hidden_size
//   intermediate_size -> ffn_hidden_size     num_attention_heads -> num_attention_heads
//   num_key_value_heads -> num_query_groups (default: heads)
//   head_dim -> kv_channels (default: hidden / heads)
//   vocab_size -> vocab_size                 tie_word_embeddings -> share_embeddings_and_output_weights (default false)
//   max_position_embeddings -> seq_length, the native context (at most 16,777,216)
//   rope_scaling | rope_parameters -> rope_scaling_type, rope_scaling_factor, rope_original_context
//        (hf_families.h ApplyRopeScaling; YaRN with max_position_embeddings at the original
//        length -> seq_length = original x factor)
//   hidden_act: gated (SwiGLU) unless "relu2"/"gelu" without a gate (Nemotron-H, GPT-2 style)
//   MoE: num_local_experts (Mixtral) | num_experts (Qwen-MoE, OLMoE) | n_routed_experts (DeepSeek)
//        -> num_moe_experts; num_experts_per_tok -> moe_router_topk;
//        moe_intermediate_size -> moe_ffn_hidden_size (Mixtral: intermediate_size);
//        n_shared_experts * moe_intermediate_size | shared_expert_intermediate_size
//        -> moe_shared_expert_intermediate_size; first_k_dense_replace -> first_k_dense_layers;
//        moe_layer_freq / decoder_sparse_step -> moe_layer_freq
//   MLA (DeepSeek-V2/V3, Kimi, Moonlight): kv_lora_rank, q_lora_rank, qk_nope_head_dim -> qk_head_dim,
//        qk_rope_head_dim -> qk_pos_emb_head_dim, v_head_dim
//   num_nextn_predict_layers -> mtp_num_layers
//   Nemotron-H: hybrid_override_pattern -> hybrid_layer_pattern, mamba_num_heads, mamba_head_dim,
//        ssm_state_size -> mamba_state_dim, n_groups -> mamba_num_groups
//   attention_bias -> add_qkv_bias, mlp_bias -> add_bias_linear (Megatron Bridge CONFIG_MAPPING)
//   experts_per_token (older GPT-OSS configs) -> moe_router_topk
//   Local attention (hf_families.h): sliding_window (when use_sliding_window is not false)
//        -> window_size = sliding_window - 1; which layers use it from layer_types, else the
//        family rule (Gemma 2 and GPT-OSS alternate, Gemma 3 sliding_window_pattern, Llama 4
//        chunked attention_chunk_size on its no_rope_layers), else every layer;
//        -> window_attn_skip_freq when periodic in Megatron's sense, else window_attn_pattern
//   Llama 4: moe_layers | interleave_moe_layer_step -> first_k_dense_layers + moe_layer_freq,
//        intermediate_size -> moe_ffn_hidden_size and the shared expert, intermediate_size_mlp
//        -> ffn_hidden_size
//   GPT-OSS: add_bias_linear, softmax_type "learnable" (sinks); Gemma: GeGLU, tied embeddings
//   hidden_act | hidden_activation | activation_function -> activation_func (silu, gelu, quick_gelu,
//        relu, squared_relu) and gated_linear_unit (gelu/gelu_new/relu/relu2: plain MLP);
//        layer_norm_epsilon | layer_norm_eps without rms_norm_eps -> normalization LayerNorm;
//        ffn_dim (OPT) -> ffn_hidden_size
//   GPT-2, OPT, GPT-NeoX (hf_families.h): LayerNorm, biases, plain MLP; learned_absolute
//        positions for GPT-2 and OPT (n_positions / max_position_embeddings rows), RoPE for NeoX
//   Read by nothing (no effect on parameters or model FLOPs): partial_rotary_factor, rope_theta,
//        use_qk_norm (GLM-4.5's and Gemma 3's q/k norm vectors are not counted), softcapping.
// A nested "text_config" (multimodal checkpoints) is read instead of the top level; only
// the language model is counted.
#ifndef PARPLAN_CORE_MODEL_HF_CONFIG_H_
#define PARPLAN_CORE_MODEL_HF_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/model/model_spec.h"
#include "core/util/limits.h"

namespace parplan {

// Parses `text` (at most 1 MiB of JSON). Errors are INVALID_ARGUMENT on
// `field` naming the HF key that is malformed or absent. The result has
// Megatron's defaults applied and missing_fields set; origin "hf_config".
absl::StatusOr<ModelSpec> ParseHfConfig(absl::string_view text, const std::string& field);

// True when `text` carries a key only a Hugging Face config.json has
// (num_hidden_layers, model_type, architectures, text_config); an inline
// spec uses Megatron's names instead.
bool HasHfConfigKeys(absl::string_view text);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_HF_CONFIG_H_
