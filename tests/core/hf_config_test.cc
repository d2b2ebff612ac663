#include "core/model/hf_config.h"

#include "core/model/param_count.h"
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
  "max_position_embeddings": 163840, "tie_word_embeddings": false})";

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

TEST(HfConfigTest, Errors) {
  auto bad_json = ParseHfConfig("{not json", "model.hf_config_json");
  EXPECT_EQ(bad_json.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_json.status().message()), ::testing::HasSubstr("model.hf_config_json"));
  auto missing = ParseHfConfig(R"({"model_type":"llama","hidden_size":4096})", "f");
  EXPECT_THAT(std::string(missing.status().message()), ::testing::HasSubstr("num_hidden_layers"));
  auto wrong_type = ParseHfConfig(R"({"num_hidden_layers":"eighty","hidden_size":1,"num_attention_heads":1,"vocab_size":1})", "f");
  EXPECT_THAT(std::string(wrong_type.status().message()), ::testing::HasSubstr("non-negative integer"));
  auto huge = ParseHfConfig(R"({"num_hidden_layers":1099511627776,"hidden_size":1,"num_attention_heads":1,"vocab_size":1})", "f");
  EXPECT_FALSE(huge.ok());
  EXPECT_FALSE(ParseHfConfig("[1,2,3]", "f").ok());
  EXPECT_FALSE(ParseHfConfig(std::string(2 << 20, ' '), "f").ok());
}

}  // namespace
}  // namespace parplan
