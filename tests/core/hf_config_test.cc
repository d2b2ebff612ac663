#include "core/model/hf_config.h"

#include <string>
#include <vector>

#include "core/model/layer_kind.h"
#include "core/model/param_count.h"
#include "core/perf/flops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

constexpr char kLlama70b[] = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
  "hidden_size": 8192, "intermediate_size": 28672, "num_attention_heads": 64,
  "num_hidden_layers": 80, "num_key_value_heads": 8, "vocab_size": 128256,
  "max_position_embeddings": 8192, "tie_word_embeddings": false, "rope_theta": 500000.0})";

constexpr char kDeepSeekV3[] = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
  "intermediate_size": 18432, "moe_intermediate_size": 2048, "n_routed_experts": 256,
  "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3, "moe_layer_freq": 1,
  "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
  "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
  "v_head_dim": 128, "vocab_size": 129280, "num_nextn_predict_layers": 1,
  "max_position_embeddings": 163840, "tie_word_embeddings": false,
  "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
    "original_max_position_embeddings": 4096, "type": "yarn"}, "rope_theta": 10000})";

constexpr char kQwen3Moe[] = R"({"model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144,
  "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8, "decoder_sparse_step": 1,
  "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
  "vocab_size": 151936, "tie_word_embeddings": false})";

constexpr char kMixtral[] = R"({"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
  "num_local_experts": 8, "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_attention_heads": 32,
  "num_key_value_heads": 8, "vocab_size": 32000})";

constexpr char kNemotronH[] = R"({"model_type": "nemotron_h", "hidden_size": 4096, "intermediate_size": 21504,
  "num_hidden_layers": 52, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
  "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
  "mamba_num_heads": 128, "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8,
  "hidden_act": "relu2", "vocab_size": 131072})";

TEST(HfConfigTest, Llama) {
  auto m = ParseHfConfig(kLlama70b, "model.hf_config_json");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->num_layers, 80);
  EXPECT_EQ(m->num_query_groups, 8);
  EXPECT_EQ(m->kv_channels, 128);
  EXPECT_EQ(m->kind, "dense");
  EXPECT_TRUE(m->complete());
  EXPECT_EQ(m->origin, "hf_config");
  EXPECT_NEAR(CountParams(*m).total / 70.55e9, 1.0, 0.005);
}

TEST(HfConfigTest, DeepSeekV3) {
  auto m = ParseHfConfig(kDeepSeekV3, "f");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->multi_latent_attention);
  EXPECT_EQ(m->num_moe_experts, 256);
  EXPECT_EQ(m->moe_shared_expert_intermediate_size, 2048);
  EXPECT_EQ(m->first_k_dense_layers, 3);
  EXPECT_EQ(m->ffn_hidden_size, 18432);
  EXPECT_EQ(m->qk_pos_emb_head_dim, 64);
  EXPECT_EQ(m->mtp_num_layers, 1);
  EXPECT_EQ(m->kind, "mla_moe");
  EXPECT_TRUE(m->complete()) << m->missing_fields.size();
  // YaRN factor 40 on 4,096 positions: the native context is the scaled
  // max_position_embeddings, 163,840 (no longer cut at 131,072).
  EXPECT_EQ(m->seq_length, 163840);
  EXPECT_EQ(m->rope_scaling_type, "yarn");
  EXPECT_EQ(m->rope_scaling_factor, 40);
  EXPECT_EQ(m->rope_original_context, 4096);
  EXPECT_EQ(RopeScalingText(*m), "YaRN factor 40 on 4,096");
  EXPECT_EQ(m->DefaultSeqLength(), 8192);
}

TEST(HfConfigTest, Qwen3MoeAndMixtral) {
  auto q = ParseHfConfig(kQwen3Moe, "f");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->moe_ffn_hidden_size, 768);
  EXPECT_EQ(q->num_query_groups, 4);
  auto x = ParseHfConfig(kMixtral, "f");
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->moe_ffn_hidden_size, 14336);
  EXPECT_EQ(x->moe_router_topk, 2);
  EXPECT_NEAR(CountParams(*x).total / 46.7e9, 1.0, 0.01);
}

TEST(HfConfigTest, NemotronHHybrid) {
  auto m = ParseHfConfig(kNemotronH, "f");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->kind, "hybrid_mamba");
  EXPECT_FALSE(m->gated_linear_unit);
  EXPECT_EQ(m->mamba_num_groups, 8);
  EXPECT_TRUE(m->complete());
}

TEST(HfConfigTest, MultimodalTextConfig) {
  std::string wrapped = std::string(R"({"model_type":"llava","text_config":)") + kLlama70b + "}";
  auto m = ParseHfConfig(wrapped, "f");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->hidden_size, 8192);
}

// ---------------------------------------------------------------------------
// Families added with local attention, interleaved MoE, biases and sinks.
// Each fixture below was transcribed by hand from the model's published
// config.json on the Hugging Face Hub (repo id in its comment); long lists
// (layer_types, no_rope_layers, moe_layers) are rebuilt with Repeated() and
// keys that cannot change the shape (token ids, quantization, rope scaling)
// may be left out.

// A JSON list of `unit` repeated `times` times.
std::string Repeated(const std::vector<std::string>& unit, int times) {
  std::string out = "[";
  for (int t = 0; t < times; ++t) {
    for (const std::string& u : unit) out += (out.size() > 1 ? ", " : "") + u;
  }
  return out + "]";
}

// 0, 1, ..., n - 1 as a JSON list.
std::string Range(int n) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) out += (i > 0 ? ", " : "") + std::to_string(i);
  return out + "]";
}

// openai/gpt-oss-120b (layers 36, experts 128) and openai/gpt-oss-20b
// (layers 24, experts 32) config.json; the two differ only in those keys.
std::string GptOss(int layers, int experts) {
  return R"({"architectures": ["GptOssForCausalLM"], "attention_bias": true, "attention_dropout": 0.0,
  "eos_token_id": 200002, "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu",
  "hidden_size": 2880, "initial_context_length": 4096, "initializer_range": 0.02,
  "intermediate_size": 2880, "layer_types": )" +
         Repeated({"\"sliding_attention\"", "\"full_attention\""}, layers / 2) + R"(,
  "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": 64,
  "num_experts_per_tok": 4, "num_hidden_layers": )" +
         std::to_string(layers) + R"(,
  "num_key_value_heads": 8, "num_local_experts": )" +
         std::to_string(experts) + R"(,
  "output_router_logits": false, "pad_token_id": 199999,
  "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn",
    "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"},
  "rms_norm_eps": 1e-05, "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
    "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": false},
  "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0,
  "tie_word_embeddings": false, "use_cache": true, "vocab_size": 201088})";
}

// meta-llama/Llama-4-Scout-17B-16E config.json (text_config as published;
// vision_config abbreviated).
std::string Llama4Scout() {
  return R"({"architectures": ["Llama4ForConditionalGeneration"], "boi_token_index": 200080,
  "eoi_token_index": 200081, "image_token_index": 200092, "model_type": "llama4",
  "text_config": {"attention_bias": false, "attention_chunk_size": 8192, "attention_dropout": 0.0,
    "attn_scale": 0.1, "attn_temperature_tuning": 4, "bos_token_id": 200000, "floor_scale": 8192,
    "for_llm_compressor": false, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
    "initializer_range": 0.02, "interleave_moe_layer_step": 1, "intermediate_size": 8192,
    "intermediate_size_mlp": 16384, "max_position_embeddings": 262144, "model_type": "llama4_text",
    "moe_layers": )" +
         Range(48) + R"(, "no_rope_layers": )" + Repeated({"1", "1", "1", "0"}, 12) + R"(,
    "num_attention_heads": 40, "num_experts_per_tok": 1, "num_hidden_layers": 48,
    "num_key_value_heads": 8, "num_local_experts": 16, "output_router_logits": false,
    "pad_token_id": 200018, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
      "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "router_aux_loss_coef": 0.001, "router_jitter_noise": 0.0,
    "use_cache": true, "use_qk_norm": true, "vocab_size": 202048},
  "tie_word_embeddings": false,
  "vision_config": {"hidden_size": 1408, "image_size": 336, "intermediate_size": 5632,
    "model_type": "llama4_vision_model", "num_attention_heads": 16, "num_hidden_layers": 34,
    "patch_size": 14, "vision_output_dim": 4096}})";
}

// meta-llama/Llama-4-Maverick-17B-128E config.json, text_config. Its
// moe_layers / no_rope_layers lists could not be confirmed and are left out:
// HF then derives them (every interleave_moe_layer_step-th layer from step - 1;
// a NoPE full-attention layer every no_rope_layer_interval = 4), which is the
// published layout (Megatron Bridge's old Llama4Experts128ModelProvider:
// moe_layer_freq = [0, 1] * 24).
constexpr char kLlama4Maverick[] = R"({"architectures": ["Llama4ForConditionalGeneration"],
  "model_type": "llama4", "tie_word_embeddings": false,
  "text_config": {"attention_bias": false, "attention_chunk_size": 8192, "attention_dropout": 0.0,
    "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "interleave_moe_layer_step": 2, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
    "max_position_embeddings": 1048576, "model_type": "llama4_text", "num_attention_heads": 40,
    "num_experts_per_tok": 1, "num_hidden_layers": 48, "num_key_value_heads": 8,
    "num_local_experts": 128, "output_router_logits": false, "pad_token_id": 200018,
    "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 500000.0,
    "router_aux_loss_coef": 0.001, "router_jitter_noise": 0.0, "use_qk_norm": false,
    "vocab_size": 202048}})";

// zai-org/GLM-4.5 config.json. num_nextn_predict_layers is taken from the
// same-architecture GLM-4.7 config (one MTP layer, as the GLM-4.5 report says).
constexpr char kGlm45[] = R"({"architectures": ["Glm4MoeForCausalLM"], "attention_bias": true,
  "attention_dropout": 0.0, "eos_token_id": [151329, 151336, 151338], "first_k_dense_replace": 3,
  "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
  "intermediate_size": 12288, "max_position_embeddings": 131072, "model_type": "glm4_moe",
  "moe_intermediate_size": 1536, "n_group": 1, "n_routed_experts": 160, "n_shared_experts": 1,
  "norm_topk_prob": true, "num_attention_heads": 96, "num_experts_per_tok": 8,
  "num_hidden_layers": 92, "num_key_value_heads": 8, "num_nextn_predict_layers": 1,
  "pad_token_id": 151329, "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-05, "rope_scaling": null,
  "rope_theta": 1000000, "routed_scaling_factor": 2.5, "tie_word_embeddings": false, "topk_group": 1,
  "use_cache": true, "use_qk_norm": true, "vocab_size": 151552})";

// zai-org/GLM-4.5-Air config.json.
constexpr char kGlm45Air[] = R"({"architectures": ["Glm4MoeForCausalLM"], "attention_bias": true,
  "attention_dropout": 0.0, "eos_token_id": [151329, 151336, 151338], "first_k_dense_replace": 1,
  "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 10944, "max_position_embeddings": 131072, "model_type": "glm4_moe",
  "moe_intermediate_size": 1408, "n_group": 1, "n_routed_experts": 128, "n_shared_experts": 1,
  "norm_topk_prob": true, "num_attention_heads": 96, "num_experts_per_tok": 8,
  "num_hidden_layers": 46, "num_key_value_heads": 8, "num_nextn_predict_layers": 1,
  "pad_token_id": 151329, "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-05, "rope_scaling": null,
  "rope_theta": 1000000, "routed_scaling_factor": 1.0, "tie_word_embeddings": false, "topk_group": 1,
  "use_cache": true, "use_qk_norm": false, "vocab_size": 151552})";

// google/gemma-2-9b and google/gemma-2-27b config.json (no tie_word_embeddings
// key: Gemma2Config ties them).
constexpr char kGemma2_9b[] = R"({"architectures": ["Gemma2ForCausalLM"], "attention_bias": false,
  "attention_dropout": 0.0, "attn_logit_softcapping": 50.0, "bos_token_id": 2,
  "cache_implementation": "hybrid", "eos_token_id": 1, "final_logit_softcapping": 30.0,
  "head_dim": 256, "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 14336,
  "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 16,
  "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0, "query_pre_attn_scalar": 256,
  "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096, "sliding_window_size": 4096,
  "torch_dtype": "float32", "use_cache": true, "vocab_size": 256000})";

constexpr char kGemma2_27b[] = R"({"architectures": ["Gemma2ForCausalLM"], "attention_bias": false,
  "attention_dropout": 0.0, "attn_logit_softcapping": 50.0, "bos_token_id": 2,
  "cache_implementation": "hybrid", "eos_token_id": 1, "final_logit_softcapping": 30.0,
  "head_dim": 128, "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 4608, "initializer_range": 0.02, "intermediate_size": 36864,
  "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 32,
  "num_hidden_layers": 46, "num_key_value_heads": 16, "pad_token_id": 0, "query_pre_attn_scalar": 144,
  "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096, "sliding_window_size": 4096,
  "torch_dtype": "float32", "use_cache": true, "vocab_size": 256000})";

// google/gemma-3-27b-it config.json: its text_config has neither vocab_size
// nor sliding_window_pattern nor max_position_embeddings (Gemma3TextConfig
// defaults 262208, 6, 131072 apply).
constexpr char kGemma3_27b[] = R"({"architectures": ["Gemma3ForConditionalGeneration"],
  "boi_token_index": 255999, "eoi_token_index": 256000, "eos_token_id": [1, 106],
  "image_token_index": 262144, "initializer_range": 0.02, "mm_tokens_per_image": 256,
  "model_type": "gemma3",
  "text_config": {"head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504,
    "model_type": "gemma3_text", "num_attention_heads": 32, "num_hidden_layers": 62,
    "num_key_value_heads": 16, "query_pre_attn_scalar": 168,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024},
  "torch_dtype": "bfloat16",
  "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
    "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27,
    "patch_size": 14, "vision_use_head": false}})";

// google/gemma-3-1b-it config.json as re-saved by recent transformers (explicit
// layer_types, "_sliding_window_pattern"), transcribed from a copy of it.
std::string Gemma3_1b() {
  const std::string s = "\"sliding_attention\"";
  std::string types = Repeated({s, s, s, s, s, "\"full_attention\""}, 4);  // layers 0..23
  types.insert(types.size() - 1, ", " + s + ", " + s);                     // layers 24, 25
  return R"({"_sliding_window_pattern": 6, "architectures": ["Gemma3ForCausalLM"],
  "attention_bias": false, "attention_dropout": 0.0, "attn_logit_softcapping": null,
  "final_logit_softcapping": null, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 1152, "initializer_range": 0.02, "intermediate_size": 6912, "layer_types": )" +
         types + R"(, "max_position_embeddings": 32768, "model_type": "gemma3_text", "num_attention_heads": 4,
  "num_hidden_layers": 26, "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 256,
  "rms_norm_eps": 1e-06, "sliding_window": 512, "vocab_size": 262144})";
}

// mistralai/Mistral-7B-v0.1, mistralai/Mistral-Nemo-Base-2407 and
// mistralai/Ministral-8B-Instruct-2410 config.json.
constexpr char kMistral7b[] = R"({"architectures": ["MistralForCausalLM"], "bos_token_id": 1,
  "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mistral",
  "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
  "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "use_cache": true, "vocab_size": 32000})";

constexpr char kMistralNemo[] = R"({"architectures": ["MistralForCausalLM"], "attention_dropout": 0.0,
  "bos_token_id": 1, "eos_token_id": 2, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
  "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 1024000,
  "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 40,
  "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true, "vocab_size": 131072})";

constexpr char kMinistral8b[] = R"({"architectures": ["MistralForCausalLM"], "attention_dropout": 0.0,
  "bos_token_id": 1, "eos_token_id": 2, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
  "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 32768,
  "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 36,
  "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 100000000.0,
  "sliding_window": 32768, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "use_cache": true, "vocab_size": 131072})";

ModelSpec Parse(const std::string& text) {
  auto m = ParseHfConfig(text, "model.hf_config_json");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : ModelSpec{};
}

// The same model without its MTP depths (published totals leave them out).
ParamCounts CountWithoutMtp(ModelSpec m) {
  m.mtp_num_layers = 0;
  return CountParams(m);
}

TEST(HfConfigTest, GptOss) {
  const ModelSpec m = Parse(GptOss(36, 128));
  EXPECT_EQ(m.kind, "moe");
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.num_layers, 36);
  EXPECT_EQ(m.kv_channels, 64);  // head_dim 64 != 2880 / 64
  EXPECT_EQ(m.num_query_groups, 8);
  EXPECT_EQ(m.num_moe_experts, 128);
  EXPECT_EQ(m.moe_router_topk, 4);
  EXPECT_EQ(m.moe_ffn_hidden_size, 2880);
  EXPECT_EQ(m.moe_shared_expert_intermediate_size, 0);
  EXPECT_EQ(m.first_k_dense_layers, 0);
  EXPECT_TRUE(m.gated_linear_unit);
  EXPECT_TRUE(m.add_bias_linear);
  EXPECT_TRUE(m.add_qkv_bias);
  EXPECT_EQ(m.softmax_type, "learnable");
  EXPECT_FALSE(m.share_embeddings_and_output_weights);
  // layer_types alternate sliding/full from layer 0: Megatron's window_attn_skip_freq = 2
  // with window (127, 0), as Megatron Bridge's gpt_oss_bridge.py sets them.
  EXPECT_EQ(m.window_size, 127);
  EXPECT_EQ(m.window_attn_skip_freq, 2);
  EXPECT_TRUE(m.window_attn_pattern.empty());
  EXPECT_TRUE(IsLocalAttentionLayer(m, 0));
  EXPECT_FALSE(IsLocalAttentionLayer(m, 1));

  // By hand, per layer: attention QKV 2880*64*(64+2*8) + bias 5120, output 4096*2880 + bias 2880,
  // 64 sinks, input norm 2880 = 26,553,024; one expert 2880*5760 + 2880*2880 + biases 5760 + 2880
  // = 24,891,840; router 2880*128 + bias 128 = 368,768; pre-MLP norm 2880. Embedding and output
  // 201088*2880 = 579,133,440 each, final norm 2880.
  const ParamCounts c = CountParams(m);
  const int64_t layer = 26553024 + 128LL * 24891840 + 368768 + 2880;
  EXPECT_EQ(c.total, 36 * layer + 2 * 579133440LL + 2880);
  // OpenAI model card (arXiv 2508.10925, Table 1): 116.83B total; 5.13B active, which
  // counts the unembedding but not the embedding lookup.
  EXPECT_NEAR(c.total / 116.83e9, 1.0, 0.02);
  EXPECT_NEAR((c.active - c.embedding) / 5.13e9, 1.0, 0.02);

  const ParamCounts small = CountParams(Parse(GptOss(24, 32)));
  EXPECT_NEAR(small.total / 20.91e9, 1.0, 0.02);  // gpt-oss-20b: 20.91B / 3.61B
  EXPECT_NEAR((small.active - small.embedding) / 3.61e9, 1.0, 0.02);
}

// Sliding-window FLOPs by hand, gpt-oss-120b at 4096 tokens (Megatron's model
// FLOPs: 6 x forward matmul FLOPs per token, causal attention counted at half):
//   attention projections 6*(2880*(4096+2*512) + 4096*2880) = 159,252,480 per layer;
//   experts 6*2880*2880*4*3 (top-4, gated) = 597,196,800 per layer;
//   core attention 12*4096*context: full layers context 4096/2 = 2048 -> 100,663,296;
//   sliding layers see w = 128 tokens: 128 - 128*127/(2*4096) = 126.015625 -> 6,193,920;
//   logits 6*2880*201088 = 3,474,800,640.
// Total 36*(159,252,480 + 597,196,800) + 18*100,663,296 + 18*6,193,920 + 3,474,800,640
//     = 32,630,404,608.
TEST(HfConfigTest, GptOssSlidingWindowFlopsByHand) {
  const FlopsPerToken f = ModelFlopsPerToken(Parse(GptOss(36, 128)), 4096, 1, 0);
  EXPECT_DOUBLE_EQ(f.attention_core, 18 * 100663296.0 + 18 * 6193920.0);
  EXPECT_DOUBLE_EQ(f.expert_gemm, 36 * 597196800.0);
  EXPECT_DOUBLE_EQ(f.total, 32630404608.0);
}

TEST(HfConfigTest, Llama4Scout) {
  const ModelSpec m = Parse(Llama4Scout());
  EXPECT_EQ(m.kind, "moe");
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.num_moe_experts, 16);
  EXPECT_EQ(m.moe_router_topk, 1);
  EXPECT_EQ(m.first_k_dense_layers, 0);
  EXPECT_EQ(m.moe_layer_freq, 1);
  EXPECT_EQ(m.moe_ffn_hidden_size, 8192);
  EXPECT_EQ(m.moe_shared_expert_intermediate_size, 8192);
  EXPECT_EQ(m.ffn_hidden_size, 16384);
  EXPECT_EQ(CountLayers(m).dense_mlp, 0);
  // Chunked attention on the RoPE layers, full attention on every 4th (NoPE) layer.
  EXPECT_EQ(m.attention_chunk_size, 8192);
  EXPECT_EQ(m.window_size, 0);
  EXPECT_EQ(m.window_attn_skip_freq, 4);
  EXPECT_FALSE(m.add_bias_linear);
  EXPECT_FALSE(m.add_qkv_bias);
  // Meta model card: 109B total, 17B active for the multimodal checkpoint. We count the
  // text model only (no vision encoder), 107.8B, within 2% of the 109B.
  const ParamCounts c = CountParams(m);
  EXPECT_NEAR(c.total / 109e9, 1.0, 0.02);
  EXPECT_NEAR(c.active / 17e9, 1.0, 0.02);
}

TEST(HfConfigTest, Llama4MaverickInterleavesDenseAndMoeLayers) {
  const ModelSpec m = Parse(kLlama4Maverick);
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.num_moe_experts, 128);
  // HF: moe_layers = range(1, 48, 2) -> Megatron first_k_dense_layers 1, moe_layer_freq 2.
  EXPECT_EQ(m.first_k_dense_layers, 1);
  EXPECT_EQ(m.moe_layer_freq, 2);
  const LayerCounts layers = CountLayers(m);
  EXPECT_EQ(layers.moe, 24);
  EXPECT_EQ(layers.dense_mlp, 24);
  EXPECT_EQ(KindOfLayer(m, 0), LayerKind::kDenseTransformer);
  EXPECT_EQ(KindOfLayer(m, 1), LayerKind::kMoeTransformer);
  EXPECT_EQ(KindOfLayer(m, 47), LayerKind::kMoeTransformer);
  EXPECT_EQ(m.ffn_hidden_size, 16384);
  EXPECT_EQ(m.moe_shared_expert_intermediate_size, 8192);
  EXPECT_EQ(m.window_attn_skip_freq, 4);
  // Meta model card: 400B total, 17B active (text model counted as for Scout).
  const ParamCounts c = CountParams(m);
  EXPECT_NEAR(c.total / 400e9, 1.0, 0.02);
  EXPECT_NEAR(c.active / 17e9, 1.0, 0.02);
}

// Interleaved-MoE and chunked-attention FLOPs by hand, Llama 4 Maverick at 16384 tokens:
//   attention projections 6*(5120*(5120+2*1024) + 5120*5120) = 377,487,360 per layer (48);
//   core attention 12*5120*context: the 12 full (NoPE) layers see 16384/2 = 8192 keys
//   -> 503,316,480; the 36 chunked layers see two causal chunks of 8192,
//   (2*8192^2/2)/16384 = 4096 keys -> 251,658,240;
//   the 24 dense layers (even) 6*5120*16384*3 = 1,509,949,440;
//   the 24 MoE layers (odd) top-1 expert 6*5120*8192*3 = 754,974,720 plus the shared
//   expert 754,974,720;
//   logits 6*5120*202112 (vocabulary padded to 128) = 6,208,880,640.
// Total 48*377,487,360 + 12*503,316,480 + 36*251,658,240 + 24*1,509,949,440
//     + 24*2*754,974,720 + 6,208,880,640 = 111,905,341,440.
TEST(HfConfigTest, Llama4MaverickFlopsByHand) {
  const FlopsPerToken f = ModelFlopsPerToken(Parse(kLlama4Maverick), 16384, 1, 0);
  EXPECT_DOUBLE_EQ(f.attention_core, 12 * 503316480.0 + 36 * 251658240.0);
  EXPECT_DOUBLE_EQ(f.expert_gemm, 24 * 754974720.0);
  EXPECT_DOUBLE_EQ(f.total, 111905341440.0);
  // At 8192 tokens a chunk is the whole sequence: every layer counts full attention.
  const FlopsPerToken g = ModelFlopsPerToken(Parse(kLlama4Maverick), 8192, 1, 0);
  EXPECT_DOUBLE_EQ(g.attention_core, 48 * 12 * 5120 * 4096.0);
}

TEST(HfConfigTest, Glm45) {
  const ModelSpec m = Parse(kGlm45);
  EXPECT_EQ(m.kind, "moe");
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.num_attention_heads, 96);
  EXPECT_EQ(m.kv_channels, 128);  // head_dim 128 with 96 heads at hidden 5120
  EXPECT_EQ(m.num_query_groups, 8);
  EXPECT_TRUE(m.add_qkv_bias);
  EXPECT_FALSE(m.add_bias_linear);
  EXPECT_EQ(m.first_k_dense_layers, 3);
  EXPECT_EQ(m.ffn_hidden_size, 12288);
  EXPECT_EQ(m.num_moe_experts, 160);
  EXPECT_EQ(m.moe_ffn_hidden_size, 1536);
  EXPECT_EQ(m.moe_shared_expert_intermediate_size, 1536);
  EXPECT_EQ(m.mtp_num_layers, 1);
  EXPECT_EQ(m.window_size, 0);
  // QKV bias by hand: 128*(96+2*8) = 14,336 per layer on top of the weights.
  ModelSpec no_bias = m;
  no_bias.add_qkv_bias = false;
  EXPECT_EQ(AttentionParams(m) - AttentionParams(no_bias), 14336);
  // zai-org model card / arXiv 2508.06471: 355B total, 32B active. Both leave out the MTP
  // layer; the active count also leaves out the embedding and output layer.
  const ParamCounts c = CountWithoutMtp(m);
  EXPECT_NEAR(c.total / 355e9, 1.0, 0.02);
  EXPECT_NEAR((c.active - c.embedding - c.output_layer) / 32e9, 1.0, 0.02);

  const ModelSpec air = Parse(kGlm45Air);
  EXPECT_EQ(air.first_k_dense_layers, 1);
  const ParamCounts a = CountWithoutMtp(air);
  EXPECT_NEAR(a.total / 106e9, 1.0, 0.02);  // GLM-4.5-Air: 106B total, 12B active
  EXPECT_NEAR((a.active - a.embedding - a.output_layer) / 12e9, 1.0, 0.02);
}

TEST(HfConfigTest, Gemma2) {
  const ModelSpec m = Parse(kGemma2_9b);
  EXPECT_EQ(m.kind, "dense");
  EXPECT_TRUE(m.complete());
  EXPECT_TRUE(m.gated_linear_unit);  // gelu_pytorch_tanh in a gated MLP: GeGLU
  EXPECT_TRUE(m.share_embeddings_and_output_weights);
  EXPECT_EQ(m.kv_channels, 256);  // head_dim 256 != 3584 / 16
  // Gemma 2 alternates local (even layers) and global (odd layers) attention.
  EXPECT_EQ(m.window_size, 4095);
  EXPECT_EQ(m.window_attn_skip_freq, 2);
  // Gemma 2 report (arXiv 2408.00118, Table 1): 9B = 917,504,000 embedding +
  // 8,324,201,984 non-embedding; 27B = 1,179,648,000 + 26,047,480,320.
  const ParamCounts c = CountParams(m);
  EXPECT_EQ(c.embedding, 917504000);
  EXPECT_NEAR(c.total / 9.2417e9, 1.0, 0.02);
  const ParamCounts big = CountParams(Parse(kGemma2_27b));
  EXPECT_NEAR(big.total / 27.2271e9, 1.0, 0.02);
}

TEST(HfConfigTest, Gemma3) {
  const ModelSpec m = Parse(kGemma3_27b);
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.num_layers, 62);
  EXPECT_EQ(m.vocab_size, 262208);  // Gemma3TextConfig default; absent from text_config
  EXPECT_EQ(m.seq_length, 131072);
  EXPECT_TRUE(m.share_embeddings_and_output_weights);
  EXPECT_TRUE(m.gated_linear_unit);
  // 5 local : 1 global: layers 5, 11, ..., 59 are global.
  EXPECT_EQ(m.window_size, 1023);
  EXPECT_EQ(m.window_attn_skip_freq, 6);
  EXPECT_FALSE(IsLocalAttentionLayer(m, 5));
  EXPECT_TRUE(IsLocalAttentionLayer(m, 60));
  // Gemma 3 report (arXiv 2503.19786, Table 1), 27B: 417M vision encoder (not counted here),
  // 1,416M embedding, 25,600M non-embedding: a 27.0B text model.
  const ParamCounts c = CountParams(m);
  EXPECT_NEAR((c.total - c.embedding) / 25600e6, 1.0, 0.02);
  EXPECT_NEAR(c.total / 27.016e9, 1.0, 0.02);

  // gemma-3-1b with explicit layer_types: the same 5:1 rule, 26 layers.
  const ModelSpec small = Parse(Gemma3_1b());
  EXPECT_EQ(small.window_size, 511);
  EXPECT_EQ(small.window_attn_skip_freq, 6);
  EXPECT_NEAR(CountParams(small).total / 1.0e9, 1.0, 0.02);  // report: 302M + 698M
}

TEST(HfConfigTest, MistralFamily) {
  const ModelSpec m = Parse(kMistral7b);
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.window_size, 4095);  // every layer slides over 4096 tokens
  EXPECT_EQ(m.window_attn_skip_freq, 0);
  EXPECT_TRUE(IsLocalAttentionLayer(m, 31));
  EXPECT_NEAR(CountParams(m).total / 7.24e9, 1.0, 0.02);  // Mistral 7B: 7.24B

  const ModelSpec nemo = Parse(kMistralNemo);
  EXPECT_EQ(nemo.kv_channels, 128);  // head_dim 128 at hidden 5120 with 32 heads
  EXPECT_EQ(nemo.window_size, 0);
  EXPECT_NEAR(CountParams(nemo).total / 12.2e9, 1.0, 0.02);  // Mistral NeMo: 12.2B

  const ModelSpec ministral = Parse(kMinistral8b);
  EXPECT_EQ(ministral.window_size, 32767);
  EXPECT_NEAR(CountParams(ministral).total / 8.02e9, 1.0, 0.02);  // Ministral-8B: 8.02B
}

// Sliding-window FLOPs by hand, Mistral 7B at 8192 tokens, every layer local over
// w = 4096 tokens (HF sliding_window; Megatron window_size 4095):
//   MLP 6*4096*14336*3 = 1,056,964,608; projections 6*(4096*(4096+2*1024) + 4096*4096)
//   = 251,658,240; keys seen 4096 - 4096*4095/(2*8192) = 3072.25, core 12*4096*3072.25
//   = 151,007,232; logits 6*4096*32000 = 786,432,000.
// Total 32*(1,056,964,608 + 251,658,240 + 151,007,232) + 786,432,000 = 47,494,594,560.
TEST(HfConfigTest, MistralSlidingWindowFlopsByHand) {
  const FlopsPerToken f = ModelFlopsPerToken(Parse(kMistral7b), 8192, 1, 0);
  EXPECT_DOUBLE_EQ(f.attention_core, 32 * 151007232.0);
  EXPECT_DOUBLE_EQ(f.total, 47494594560.0);
}

// Ministral's interleaved pattern (transformers' "ministral" model type: one full
// layer, then three sliding) cannot be written as Megatron's integer frequency,
// whose full layer ends each group; it becomes the explicit list. This config is
// built from that description, not transcribed.
TEST(HfConfigTest, NonPeriodicLayerTypesBecomeAPattern) {
  std::string config = std::string(kMinistral8b);
  config.replace(
      config.find("\"model_type\": \"mistral\""), 23,
      "\"model_type\": \"ministral\", \"layer_types\": " +
          Repeated({"\"full_attention\"", "\"sliding_attention\"", "\"sliding_attention\"", "\"sliding_attention\""},
                   9));
  const ModelSpec m = Parse(config);
  EXPECT_EQ(m.window_attn_skip_freq, 0);
  EXPECT_EQ(m.window_attn_pattern.size(), 36u);
  EXPECT_EQ(m.window_attn_pattern.substr(0, 8), "FSSSFSSS");
  EXPECT_FALSE(IsLocalAttentionLayer(m, 0));
  EXPECT_TRUE(IsLocalAttentionLayer(m, 3));
  const FlopsPerToken f = ModelFlopsPerToken(m, 65536, 1, 0);
  // 9 full layers over 32768 keys, 27 local ones over 32768 - 32768*32767/(2*65536) keys.
  const double local = 32768 - 32768.0 * 32767 / (2 * 65536);
  EXPECT_DOUBLE_EQ(f.attention_core, 12 * 4096 * (9 * 32768.0 + 27 * local));
}

TEST(HfConfigTest, Llama4WithoutMoeLayersIsDense) {
  // Synthetic llama4_text config: interleave_moe_layer_step 0 gives no MoE layers (as in
  // small dense Llama 4 checkpoints), and an explicit all-full layer_types disables chunks.
  const ModelSpec m = Parse(R"({"model_type": "llama4_text", "hidden_size": 1536, "head_dim": 64,
    "num_hidden_layers": 4, "num_attention_heads": 24, "num_key_value_heads": 6,
    "intermediate_size": 8192, "intermediate_size_mlp": 6144, "interleave_moe_layer_step": 0,
    "num_local_experts": 16, "num_experts_per_tok": 0, "moe_layers": [], "vocab_size": 128256,
    "attention_chunk_size": 32768, "layer_types": ["full_attention", "full_attention",
    "full_attention", "full_attention"]})");
  EXPECT_EQ(m.kind, "dense");
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.ffn_hidden_size, 6144);
  EXPECT_EQ(m.attention_chunk_size, 0);
}

TEST(HfConfigTest, FamilyErrorsNameTheKey) {
  auto message = [](const std::string& text) {
    auto m = ParseHfConfig(text, "model.hf_config_json");
    EXPECT_FALSE(m.ok());
    return std::string(m.status().message());
  };
  const std::string base = R"("model_type": "mistral", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 4, "vocab_size": 100, "sliding_window": 16)";
  EXPECT_THAT(message("{" + base + R"(, "layer_types": "sliding_attention"})"),
              ::testing::HasSubstr("\"layer_types\" must be a list of strings"));
  EXPECT_THAT(message("{" + base + R"(, "layer_types": ["full_attention"]})"),
              ::testing::HasSubstr("\"layer_types\" has 1 entries but num_hidden_layers = 4"));
  EXPECT_THAT(message("{" + base + R"(, "attention_chunk_size": 8, "layer_types": ["sliding_attention",
    "chunked_attention", "full_attention", "full_attention"]})"),
              ::testing::HasSubstr("mixes sliding_attention and chunked_attention"));
  const std::string llama4 = R"("model_type": "llama4_text", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 4, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 1)";
  EXPECT_THAT(message("{" + llama4 + R"(, "moe_layers": [0, 1, 3]})"),
              ::testing::HasSubstr("\"moe_layers\" lists 3 layers"));
  EXPECT_THAT(message("{" + llama4 + R"(, "moe_layers": [0, "one"]})"),
              ::testing::HasSubstr("\"moe_layers\" must be a non-negative integer"));
  EXPECT_THAT(message("{" + llama4 + R"(, "no_rope_layers": [1, 1]})"),
              ::testing::HasSubstr("\"no_rope_layers\" has 2 entries"));
  EXPECT_THAT(message("{" + llama4 + R"(, "interleave_moe_layer_step": -2})"),
              ::testing::HasSubstr("\"interleave_moe_layer_step\" = -2 is out of range"));
  EXPECT_THAT(message(R"({"model_type": "gpt_oss", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 100, "num_local_experts": 4, "experts_per_token": 2,
    "attention_bias": "yes"})"),
              ::testing::HasSubstr("\"attention_bias\" must be true or false"));
}

TEST(HfConfigTest, UnknownLayerKindsAreNotedNotFatal) {
  // Qwen3-Next style layer_types: linear-attention layers are not modelled.
  const ModelSpec m = Parse(R"({"model_type": "qwen3_next", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 100, "intermediate_size": 128, "sliding_window": 16,
    "layer_types": ["linear_attention", "full_attention"], "some_future_key": {"x": [1, 2]}})");
  EXPECT_EQ(m.window_size, 0);
  EXPECT_THAT(m.notes, ::testing::Contains(::testing::HasSubstr("linear_attention")));
}

// RoPE scaling: the type under rope_type or the older "type", factor and
// original_max_position_embeddings; the native context is
// max_position_embeddings unless a YaRN config leaves it at the original
// length (transformers then runs original x factor positions).
TEST(HfConfigTest, RopeScaling) {
  const std::string base = R"("model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 100, "intermediate_size": 128)";
  // GPT-OSS: rope_type yarn, max_position_embeddings already 4,096 x 32.
  const ModelSpec oss = Parse(GptOss(36, 128));
  EXPECT_EQ(oss.seq_length, 131072);
  EXPECT_EQ(oss.rope_scaling_type, "yarn");
  EXPECT_EQ(oss.rope_scaling_factor, 32);
  EXPECT_EQ(oss.rope_original_context, 4096);
  // Llama 4 Scout (text_config): llama3 scaling states the scaled length itself.
  const ModelSpec scout = Parse(Llama4Scout());
  EXPECT_EQ(scout.seq_length, 262144);
  EXPECT_EQ(scout.rope_scaling_type, "llama3");
  EXPECT_EQ(scout.rope_scaling_factor, 8);
  EXPECT_EQ(scout.rope_original_context, 8192);
  // Maverick's 1,048,576 positions, no scaling.
  const ModelSpec maverick = Parse(kLlama4Maverick);
  EXPECT_EQ(maverick.seq_length, 1048576);
  EXPECT_EQ(maverick.rope_scaling_type, "");
  // Qwen's YaRN recipe: factor 4 with max_position_embeddings left at the original 32,768.
  const ModelSpec qwen = Parse("{" + base + R"(, "max_position_embeddings": 32768, "rope_scaling":
    {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}})");
  EXPECT_EQ(qwen.seq_length, 131072);
  EXPECT_EQ(qwen.rope_original_context, 32768);
  EXPECT_THAT(qwen.notes, ::testing::Contains(::testing::HasSubstr("native context 131072 = 32768 x factor 4")));
  // YaRN without original_max_position_embeddings: max_position_embeddings is the pre-YaRN length.
  const ModelSpec no_original = Parse("{" + base + R"(, "max_position_embeddings": 40960,
    "rope_scaling": {"rope_type": "yarn", "factor": 2}})");
  EXPECT_EQ(no_original.seq_length, 81920);
  EXPECT_EQ(no_original.rope_original_context, 40960);
  // transformers v5 rope_parameters; "default" is no scaling.
  const ModelSpec v5 = Parse("{" + base + R"(, "max_position_embeddings": 131072, "rope_parameters":
    {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, "low_freq_factor": 1.0,
     "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}})");
  EXPECT_EQ(v5.seq_length, 131072);
  EXPECT_EQ(RopeScalingText(v5), "llama3 factor 32 on 8,192");
  const ModelSpec plain = Parse("{" + base + R"(, "max_position_embeddings": 4096,
    "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0}})");
  EXPECT_EQ(plain.seq_length, 4096);
  EXPECT_EQ(plain.rope_scaling_type, "");
  EXPECT_EQ(RopeScalingText(plain), "");
  // Gemma 3: linear factor 8 on its default 131,072 positions.
  const ModelSpec gemma = Parse(kGemma3_27b);
  EXPECT_EQ(gemma.seq_length, 131072);
  EXPECT_EQ(gemma.rope_scaling_type, "linear");
  EXPECT_EQ(gemma.rope_scaling_factor, 8);
  // An unknown type is noted, not read.
  const ModelSpec su = Parse("{" + base + R"(, "max_position_embeddings": 4096,
    "rope_scaling": {"type": "su", "factor": 2.0}})");
  EXPECT_EQ(su.rope_scaling_type, "");
  EXPECT_EQ(su.seq_length, 4096);
  EXPECT_THAT(su.notes, ::testing::Contains(::testing::HasSubstr("rope_scaling type \"su\" is not read")));
  // Malformed values name the key.
  auto message = [&base](const std::string& extra) {
    auto m = ParseHfConfig("{" + base + ", " + extra + "}", "model.hf_config_json");
    EXPECT_FALSE(m.ok()) << extra;
    return std::string(m.status().message());
  };
  EXPECT_THAT(message(R"("rope_scaling": 5)"), ::testing::HasSubstr("\"rope_scaling\" must be an object"));
  EXPECT_THAT(message(R"("rope_scaling": {"type": "yarn", "factor": "forty"})"),
              ::testing::HasSubstr("\"rope_scaling\" \"factor\" must be a number in 0..1e6"));
  EXPECT_THAT(message(R"("rope_scaling": {"type": "yarn", "factor": 4, "original_max_position_embeddings": -1})"),
              ::testing::HasSubstr("\"original_max_position_embeddings\""));
  EXPECT_THAT(message(R"("rope_scaling": {"rope_type": "linear", "factor": 5000})"),
              ::testing::HasSubstr("rope_scaling_factor = 5000 is out of range; allowed 0..1024"));
}

TEST(HfConfigTest, Errors) {
  auto bad_json = ParseHfConfig("{not json", "model.hf_config_json");
  EXPECT_EQ(bad_json.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_json.status().message()), ::testing::HasSubstr("model.hf_config_json"));
  auto missing = ParseHfConfig(R"({"model_type":"llama","hidden_size":4096})", "f");
  EXPECT_THAT(std::string(missing.status().message()), ::testing::HasSubstr("num_hidden_layers"));
  auto wrong_type =
      ParseHfConfig(R"({"num_hidden_layers":"eighty","hidden_size":1,"num_attention_heads":1,"vocab_size":1})", "f");
  EXPECT_THAT(std::string(wrong_type.status().message()), ::testing::HasSubstr("non-negative integer"));
  auto huge = ParseHfConfig(
      R"({"num_hidden_layers":1099511627776,"hidden_size":1,"num_attention_heads":1,"vocab_size":1})", "f");
  EXPECT_FALSE(huge.ok());
  EXPECT_FALSE(ParseHfConfig("[1,2,3]", "f").ok());
  EXPECT_FALSE(ParseHfConfig(std::string(2 << 20, ' '), "f").ok());
}

}  // namespace
}  // namespace parplan
