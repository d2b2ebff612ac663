// Estimates for incomplete models: each unknown field gets a named rule, the
// model is marked approximate, and only fields without a rule still refuse.
#include "core/model/assume_missing.h"

#include "core/model/model_checks.h"
#include "core/model/param_count.h"
#include "core/resolve/model_resolve.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

bool Mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines) {
    if (l.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(AssumeMissingTest, MegatronDefaultsForAPartialDenseSpec) {
  ModelSpec m;
  m.num_layers = 32;
  m.hidden_size = 4096;
  m.missing_fields = MissingFields(m);
  ASSERT_FALSE(m.complete());
  const auto lines = AssumeMissingFields(&m);
  EXPECT_TRUE(m.complete());
  EXPECT_TRUE(m.approximate);
  EXPECT_EQ(m.num_attention_heads, 32);
  EXPECT_EQ(m.num_query_groups, 32);
  EXPECT_EQ(m.kv_channels, 128);
  EXPECT_EQ(m.ffn_hidden_size, 4 * 4096);
  EXPECT_EQ(m.vocab_size, 131072);
  EXPECT_TRUE(Mentions(lines, "num_query_groups = 32 (Megatron-Core's default"));
  EXPECT_NE(m.approximation_note.find("vocab_size = 131072"), std::string::npos);
}

TEST(AssumeMissingTest, LayersSolvedFromThePublishedSize) {
  // A Llama-3-70B-like shape without its layer count: 70B published.
  ModelSpec m;
  m.hidden_size = 8192;
  m.ffn_hidden_size = 28672;
  m.num_attention_heads = 64;
  m.num_query_groups = 8;
  m.kv_channels = 128;
  m.vocab_size = 128256;
  m.published_total_params = "70B";
  m.missing_fields = MissingFields(m);
  const auto lines = AssumeMissingFields(&m);
  ASSERT_TRUE(m.complete());
  // 80 layers make 70.55B; the published "70B" solves to 79.4 -> 79.
  EXPECT_EQ(m.num_layers, 79);
  EXPECT_TRUE(Mentions(lines, "solved from the published 70B"));
}

TEST(AssumeMissingTest, CompleteModelsAreLeftAlone) {
  ModelSpec m;
  m.num_layers = 2;
  m.hidden_size = 256;
  m.num_attention_heads = 2;
  m.num_query_groups = 2;
  m.kv_channels = 128;
  m.ffn_hidden_size = 1024;
  m.vocab_size = 1000;
  m.missing_fields = MissingFields(m);
  ASSERT_TRUE(m.complete());
  EXPECT_TRUE(AssumeMissingFields(&m).empty());
  EXPECT_FALSE(m.approximate);
}

TEST(AssumeMissingTest, AHybridModelWithoutItsPatternStillNamesTheField) {
  ModelSpec m;
  m.id = "x";
  m.kind = "hybrid_mamba";
  m.hidden_size = 4096;
  m.missing_fields = MissingFields(m);
  auto r = CompleteForEstimate(&m, "model");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("hybrid_layer_pattern"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace parplan
