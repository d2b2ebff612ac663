#include "core/resolve/model_resolve.h"

#include "core/model/model_checks.h"
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
