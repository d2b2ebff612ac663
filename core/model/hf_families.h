// Per-family rules of Hugging Face config.json parsing, on top of the common
// keys read by ParseHfConfig (hf_config.cc):
//   * which layers attend locally and how far (layer_types; Gemma 2's and
//     GPT-OSS's alternation; Gemma 3's sliding_window_pattern; Llama 4's
//     chunked attention on its RoPE layers), mapped onto Megatron's
//     window_size / window_attn_skip_freq (or its list form) /
//     attention_chunk_size;
//   * Llama 4's interleaved MoE layers with a shared expert;
//   * GPT-OSS's biases and attention sinks;
//   * Gemma's GeGLU MLP, tied embeddings and Gemma 3's text defaults;
//   * GPT-2 / GPT-NeoX / OPT: LayerNorm, biases, plain GeLU/ReLU MLP,
//     learned absolute positions (GPT-2, OPT).
// Each follows the Megatron Bridge model bridge of the family, cited below.
#ifndef PARPLAN_CORE_MODEL_HF_FAMILIES_H_
#define PARPLAN_CORE_MODEL_HF_FAMILIES_H_

#include <string>

#include "core/model/hf_reader.h"
#include "core/model/model_spec.h"

namespace parplan {

bool IsLlama4(const std::string& model_type);
bool IsGemma(const std::string& model_type);

// Sets window_size (HF sliding_window - 1), attention_chunk_size and which
// layers use them. Precondition: num_layers set. Hybrid models are left alone.
void ApplyAttentionLayout(HfReader& r, const std::string& model_type, ModelSpec* model);

// Llama 4: MoE layers from moe_layers or interleave_moe_layer_step, as
// first_k_dense_layers + moe_layer_freq; expert and shared-expert widths
// intermediate_size, dense layers intermediate_size_mlp. No MoE layers make
// the model dense.
void ApplyLlama4Moe(HfReader& r, ModelSpec* model);

// GPT-OSS: add_bias_linear (experts and router too), add_qkv_bias from
// attention_bias, softmax_type "learnable" (one sink per head), gated MLP.
void ApplyGptOss(HfReader& r, ModelSpec* model);

// Gemma 1/2/3: gated (GeGLU) MLP, tie_word_embeddings defaulting to true, and
// Gemma3TextConfig's vocab_size / max_position_embeddings when absent.
void ApplyGemma(HfReader& r, const std::string& model_type, ModelSpec* model);

// RoPE scaling: rope_scaling (transformers v4; its type under "rope_type" or
// the older "type") or rope_parameters (v5; rope_type "default" = none, and a
// per-layer-type form whose "full_attention" entry is read) ->
// rope_scaling_type (yarn, llama3, linear, dynamic, longrope), its factor and
// original_max_position_embeddings -> rope_original_context. seq_length
// (max_position_embeddings) becomes the scaled native context where the
// config gives the pre-scaling length there (YaRN, below). Other types
// ("default", "mrope") are no context scaling and leave the fields empty.
// Errors name "rope_scaling.<key>" on `r`'s field.
void ApplyRopeScaling(HfReader& r, ModelSpec* model);

// HF activation names (hidden_act / activation_function) -> Megatron's
// activation_func: silu/swish -> silu; gelu, gelu_new, gelu_fast,
// gelu_pytorch_tanh -> gelu; quick_gelu; relu; relu2 -> squared_relu.
// Unknown names -> "" (the default by gating).
std::string MegatronActivation(const std::string& hf_activation);
// True for activations HF configs use with a plain (not gated) MLP:
// gelu, gelu_new, gelu_fast, gelu_pytorch_tanh (GPT-2, GPT-NeoX), relu (OPT), relu2.
bool IsPlainMlpActivation(const std::string& hf_activation);

// GPT-2, GPT-NeoX and OPT: LayerNorm, biases on every linear layer, a plain
// MLP; learned absolute positions for GPT-2 and OPT (GPT-NeoX is rotary),
// tied embeddings by default for GPT-2 and OPT (PretrainedConfig's default).
bool IsGptStyle(const std::string& model_type);
void ApplyGptStyle(HfReader& r, const std::string& model_type, ModelSpec* model);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_HF_FAMILIES_H_
