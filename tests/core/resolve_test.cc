#include "core/resolve/model_resolve.h"

#include "core/model/model_checks.h"
#include "core/model/param_count.h"
#include "core/util/field_error.h"
#include "core/util/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ResolveTest, InlineSpecGetsMegatronDefaults) {
  ModelSource s;
  s.kind = ModelSource::Kind::kSpec;
  s.spec.num_layers = 24;
  s.spec.hidden_size = 2048;
  s.spec.num_attention_heads = 16;
  s.spec.vocab_size = 50000;
  auto m = ResolveModel(s, "model");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->num_query_groups, 16);   // = heads
  EXPECT_EQ(m->kv_channels, 128);       // hidden / heads
  EXPECT_EQ(m->ffn_hidden_size, 8192);  // 4 * hidden
  EXPECT_EQ(m->kind, "dense");
  EXPECT_EQ(m->origin, "inline");
  EXPECT_TRUE(m->complete());
}

TEST(ResolveTest, InlineSpecNamesMissingFields) {
  ModelSource s;
  s.kind = ModelSource::Kind::kSpec;
  s.spec.num_layers = 24;
  s.spec.num_moe_experts = 64;  // MoE without top-k, width or vocabulary
  s.spec.hidden_size = 1024;
  s.spec.num_attention_heads = 8;
  auto m = ResolveModel(s, "model");
  ASSERT_TRUE(m.ok());
  EXPECT_THAT(m->missing_fields, ElementsAre("moe_ffn_hidden_size", "moe_router_topk", "vocab_size"));
  // Estimates still answer, with each unknown field assumed by a named rule.
  ModelSpec filled = *m;
  auto assumed = CompleteForEstimate(&filled, "model");
  ASSERT_TRUE(assumed.ok()) << assumed.status();
  EXPECT_TRUE(filled.complete());
  EXPECT_TRUE(filled.approximate);
  EXPECT_EQ(filled.moe_router_topk, 2);
  EXPECT_EQ(filled.moe_ffn_hidden_size, 2048);  // 4 * 1024 / top-2
  EXPECT_EQ(assumed->size(), 3u);
}

TEST(ResolveTest, InlineSpecBounds) {
  ModelSource s;
  s.kind = ModelSource::Kind::kSpec;
  s.spec.num_layers = 5000;
  s.spec.hidden_size = -1;
  s.spec.hybrid_layer_pattern = "M*Z";
  auto m = ResolveModel(s, "model");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("model.spec.num_layers = 5000"));
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("model.spec.hidden_size"));
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("'Z'"));
}

TEST(ResolveTest, InlineLocalAttentionAndSoftmaxChecks) {
  auto message = [](const ModelSpec& spec) {
    ModelSource s;
    s.kind = ModelSource::Kind::kSpec;
    s.spec = spec;
    auto m = ResolveModel(s, "model");
    EXPECT_FALSE(m.ok());
    return std::string(m.status().message());
  };
  ModelSpec base;
  base.num_layers = 4;
  base.hidden_size = 1024;
  base.num_attention_heads = 8;
  base.vocab_size = 1000;

  ModelSpec p = base;
  p.window_size = 127;
  p.window_attn_pattern = "SFX";
  EXPECT_THAT(message(p), HasSubstr("model.spec.window_attn_pattern: character 'X' at layer 2"));
  p.window_attn_pattern = "SFS";
  EXPECT_THAT(message(p), HasSubstr("pattern has 3 layers but num_layers = 4"));
  p.window_attn_pattern = "SFSF";
  p.window_attn_skip_freq = 2;
  EXPECT_THAT(message(p), HasSubstr("model.spec.window_attn_skip_freq: window_attn_skip_freq and "
                                    "window_attn_pattern are both set"));
  p.window_attn_skip_freq = 0;
  p.window_size = 0;
  EXPECT_THAT(message(p), HasSubstr("neither window_size nor attention_chunk_size"));

  ModelSpec c = base;
  c.window_size = 127;
  c.attention_chunk_size = 8192;
  EXPECT_THAT(message(c), HasSubstr("model.spec.attention_chunk_size: attention_chunk_size = 8192 and "
                                    "window_size = 127 are both set"));
  c.window_size = 0;
  c.attention_chunk_size = int64_t{1} << 30;
  EXPECT_THAT(message(c), HasSubstr("model.spec.attention_chunk_size"));

  ModelSpec t = base;
  t.softmax_type = "sparsemax";
  EXPECT_THAT(message(t), HasSubstr("model.spec.softmax_type: \"sparsemax\" is not a softmax type"));

  ModelSource ok;
  ok.kind = ModelSource::Kind::kSpec;
  ok.spec = base;
  ok.spec.attention_chunk_size = 8192;
  ok.spec.window_attn_pattern = "SSSF";
  ok.spec.softmax_type = "learnable";
  auto m = ResolveModel(ok, "model");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->complete());
}

// Llama 3 70B as an inline spec arrives from the proto door: a bool it
// leaves out reads false, a string it leaves out is empty.
ModelSpec Llama70bAsTheDoorSendsIt() {
  ModelSpec m;
  m.num_layers = 80;
  m.hidden_size = 8192;
  m.ffn_hidden_size = 28672;
  m.num_attention_heads = 64;
  m.num_query_groups = 8;
  m.vocab_size = 128256;
  m.seq_length = 8192;
  m.make_vocab_size_divisible_by = 0;
  m.gated_linear_unit = false;
  m.normalization = "RMSNorm";
  m.position_embedding_type = "rope";
  m.softmax_type = "";
  return m;
}

absl::StatusOr<ModelSpec> ResolveSpec(const ModelSpec& spec) {
  ModelSource s;
  s.kind = ModelSource::Kind::kSpec;
  s.spec = spec;
  return ResolveModel(s, "model");
}

// Without gated_linear_unit the 70B spec used to become a 51.8B plain-MLP
// model (Megatron's default for one field, Llama-style values for others).
// Now it is refused naming the field, its values and both counts; with it
// the spec is Llama 3 70B's 70.6B.
TEST(ResolveTest, InlineSpecWithoutGatedLinearUnitIsRefused) {
  const auto refused = ResolveSpec(Llama70bAsTheDoorSendsIt());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(refused.status().message());
  EXPECT_THAT(message, HasSubstr("model.spec.gated_linear_unit"));
  EXPECT_THAT(message, HasSubstr("allowed true"));
  EXPECT_THAT(message, HasSubstr("squared_relu"));
  ASSERT_EQ(FieldViolationsOf(refused.status()).size(), 1u);
  EXPECT_EQ(FieldViolationsOf(refused.status())[0].field, "model.spec.gated_linear_unit");

  ModelSpec gated = Llama70bAsTheDoorSendsIt();
  gated.gated_linear_unit = true;
  const auto m = ResolveSpec(gated);
  ASSERT_TRUE(m.ok()) << m.status();
  const int64_t total = CountParams(*m).total;
  EXPECT_NEAR(static_cast<double>(total), 70.6e9, 0.05e9);
  EXPECT_THAT(message, HasSubstr(absl::StrCat("true gives ", WithCommas(total))));
  ModelSpec plain = *m;
  plain.gated_linear_unit = false;
  const int64_t plain_total = CountParams(plain).total;
  EXPECT_NEAR(static_cast<double>(plain_total), 51.8e9, 0.05e9);
  EXPECT_THAT(message, HasSubstr(absl::StrCat("false gives ", WithCommas(plain_total))));

  // false stated with a plain activation is a plain MLP, not ambiguous.
  ModelSpec gelu = Llama70bAsTheDoorSendsIt();
  gelu.activation_func = "gelu";
  ASSERT_TRUE(ResolveSpec(gelu).ok());
  gelu.activation_func = "silu";  // plain SiLU reads as SwiGLU without its flag
  EXPECT_THAT(std::string(ResolveSpec(gelu).status().message()), HasSubstr("model.spec.gated_linear_unit"));
}

TEST(ResolveTest, InlineSpecMustSayNormAndPositionUnlessItsFamilyDoes) {
  ModelSpec open = Llama70bAsTheDoorSendsIt();
  open.gated_linear_unit = true;
  open.normalization = "";
  open.position_embedding_type = "";
  const auto refused = ResolveSpec(open);
  ASSERT_FALSE(refused.ok());
  std::vector<std::string> fields;
  for (const auto& v : FieldViolationsOf(refused.status())) fields.push_back(v.field);
  EXPECT_THAT(fields, ElementsAre("model.spec.normalization", "model.spec.position_embedding_type"));
  const std::string message(refused.status().message());
  EXPECT_THAT(message, HasSubstr("allowed RMSNorm"));
  EXPECT_THAT(message, HasSubstr("LayerNorm gives"));
  EXPECT_THAT(message, HasSubstr("learned_absolute gives"));

  // A RoPE scaling settles the position embedding.
  ModelSpec scaled = open;
  scaled.normalization = "RMSNorm";
  scaled.rope_scaling_type = "llama3";
  scaled.rope_scaling_factor = 8;
  scaled.rope_original_context = 8192;
  scaled.seq_length = 131072;
  const auto rope = ResolveSpec(scaled);
  ASSERT_TRUE(rope.ok()) << rope.status();
  EXPECT_EQ(rope->position_embedding_type, "rope");
  EXPECT_EQ(rope->field_sources.count("position_embedding_type"), 1u);

  // MLA settles both (MLATransformerConfig's RMSNorm; rotary by construction).
  ModelSpec mla = open;
  mla.multi_latent_attention = true;
  mla.kv_lora_rank = 512;
  mla.qk_head_dim = 128;
  mla.qk_pos_emb_head_dim = 64;
  mla.v_head_dim = 128;
  const auto settled = ResolveSpec(mla);
  ASSERT_TRUE(settled.ok()) << settled.status();
  EXPECT_EQ(settled->normalization, "RMSNorm");
  EXPECT_EQ(settled->position_embedding_type, "rope");
}

// Every field the spec left out is named with the value it got.
TEST(ResolveTest, InlineSpecNamesEveryFieldItDefaulted) {
  ModelSpec spec = Llama70bAsTheDoorSendsIt();
  spec.gated_linear_unit = true;
  const auto m = ResolveSpec(spec);
  ASSERT_TRUE(m.ok()) << m.status();
  for (const char* field : {"kv_channels", "make_vocab_size_divisible_by", "softmax_type", "activation_func",
                            "share_embeddings_and_output_weights", "add_bias_linear", "add_qkv_bias"}) {
    EXPECT_EQ(m->field_sources.count(field), 1u) << field;
  }
  // Given fields are not listed.
  for (const char* field : {"num_query_groups", "ffn_hidden_size", "normalization", "position_embedding_type"}) {
    EXPECT_EQ(m->field_sources.count(field), 0u) << field;
  }
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_THAT(m->notes[0], HasSubstr("kv_channels = 128 (Megatron-Core's default: hidden / heads)"));
  EXPECT_THAT(m->notes[0], HasSubstr("activation_func = silu"));
  EXPECT_EQ(m->kv_channels, 128);
  EXPECT_EQ(m->make_vocab_size_divisible_by, 128);
}

TEST(ResolveTest, HybridPatternSetsLayers) {
  ModelSource s;
  s.kind = ModelSource::Kind::kSpec;
  s.spec.hybrid_layer_pattern = "M-M*|M-M*";
  s.spec.hidden_size = 1024;
  s.spec.num_attention_heads = 8;
  s.spec.vocab_size = 1000;
  s.spec.mamba_num_heads = 16;
  s.spec.mamba_head_dim = 64;
  s.spec.mamba_state_dim = 128;
  s.spec.mamba_num_groups = 8;
  auto m = ResolveModel(s, "model");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->num_layers, 8);
  EXPECT_EQ(m->kind, "hybrid_mamba");
  EXPECT_TRUE(m->complete()) << m->missing_fields.size();
}

TEST(ResolveTest, OtherSources) {
  ModelSource none;
  EXPECT_EQ(ResolveModel(none, "model").status().code(), absl::StatusCode::kInvalidArgument);
  ModelSource id;
  id.kind = ModelSource::Kind::kId;
  id.text = "Qwen/Qwen3-235B-A22B";
  auto m = ResolveModel(id, "model");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->id, "qwen3_235b_a22b");
  id.text = std::string(300, 'a');
  EXPECT_EQ(ResolveModel(id, "model").status().code(), absl::StatusCode::kInvalidArgument);
  ModelSource size;
  size.kind = ModelSource::Kind::kSize;
  size.text = "8b";
  EXPECT_TRUE(ResolveModel(size, "model")->approximate);
}

}  // namespace
}  // namespace parplan
