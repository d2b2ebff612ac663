#include "core/pipeline/stage_plan.h"

#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

ResolvedConfig Config(int64_t pp, int64_t vpp = 1) {
  ResolvedConfig c;
  c.pp = pp;
  c.vpp = vpp;
  c.vpp_given = vpp > 1;
  return c;
}

TEST(StagePlanTest, EvenSplitWithVpp) {
  ModelSpec m = CatalogModel("llama3_70b");  // 80 layers
  std::vector<Violation> v;
  auto plan = PlanStages(m, Config(4, 5), &v);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->decoder_layers[0], (std::vector<int64_t>{4, 4, 4, 4, 4}));
  EXPECT_TRUE(plan->has_embedding[0]);
  EXPECT_TRUE(plan->has_loss[3]);
}

TEST(StagePlanTest, UnevenFirstAndLast) {
  ModelSpec m = CatalogModel("deepseek_v3");  // 61 layers
  ResolvedConfig c = Config(16);
  c.first_stage_layers = 1;
  c.last_stage_layers = 0;
  c.mtp_num_layers = 1;
  std::vector<Violation> v;
  // 60 layers over 15 middle/last stages = 4 each.
  auto plan = PlanStages(m, c, &v);
  ASSERT_TRUE(plan.has_value()) << (v.empty() ? "" : v[0].message);
  EXPECT_EQ(plan->decoder_layers[0][0], 1);
  EXPECT_EQ(plan->decoder_layers[15][0], 4);
  EXPECT_EQ(plan->mtp_layers[15], 1);
}

TEST(StagePlanTest, UnevenMiddleNotDivisible) {
  ModelSpec m = CatalogModel("deepseek_v3");
  ResolvedConfig c = Config(8);
  c.first_stage_layers = 4;
  c.last_stage_layers = 4;  // 53 middle layers over 6 stages
  std::vector<Violation> v;
  EXPECT_FALSE(PlanStages(m, c, &v).has_value());
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].rule, "pp.uneven_middle_divisible");
}

TEST(StagePlanTest, LayoutDefinesVppAndPlacement) {
  ModelSpec m = CatalogModel("deepseek_v3");
  ResolvedConfig c = Config(4);
  c.pipeline_layout = "Et*4|(t*4|)*14tmL";
  c.mtp_num_layers = 1;
  std::vector<Violation> v;
  auto plan = PlanStages(m, c, &v);
  ASSERT_TRUE(plan.has_value()) << (v.empty() ? "" : v[0].message);
  EXPECT_EQ(plan->vpp, 4);
  // Stage i -> rank i % 4, chunk i / 4: rank 0 holds stages 0,4,8,12 = 4+4+4+4.
  EXPECT_EQ(plan->decoder_layers[0], (std::vector<int64_t>{4, 4, 4, 4}));
  // Rank 3 holds stages 3,7,11,15; stage 15 is "tmL" -> 1 decoder.
  EXPECT_EQ(plan->decoder_layers[3], (std::vector<int64_t>{4, 4, 4, 1}));
  EXPECT_EQ(plan->mtp_layers[3], 1);
  EXPECT_TRUE(plan->has_loss[3]);
  EXPECT_TRUE(plan->has_embedding[0]);
}

TEST(StagePlanTest, LayoutVppConflict) {
  ModelSpec m = CatalogModel("deepseek_v3");
  ResolvedConfig c = Config(4, 2);
  c.pipeline_layout = "Et*4|(tttt|)*14tmL";
  c.mtp_num_layers = 1;
  std::vector<Violation> v;
  EXPECT_FALSE(PlanStages(m, c, &v).has_value());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, "layout.vpp_conflict");
  EXPECT_NE(v[0].message.find("16 stages"), std::string::npos);
}

TEST(StagePlanTest, LayoutCountsChecked) {
  ModelSpec m = CatalogModel("llama3_8b");  // 32 layers, no MTP
  ResolvedConfig c = Config(2);
  c.pipeline_layout = "Et*15|t*15mL";  // 30 decoders, stray MTP
  std::vector<Violation> v;
  EXPECT_FALSE(PlanStages(m, c, &v).has_value());
  std::vector<std::string> rules;
  for (const auto& x : v) rules.push_back(x.rule);
  EXPECT_NE(std::find(rules.begin(), rules.end(), "layout.decoder_count"), rules.end());
  EXPECT_NE(std::find(rules.begin(), rules.end(), "layout.mtp_count"), rules.end());
}

TEST(StagePlanTest, HybridPatternWithoutPipesRefusesVpp) {
  ModelSpec m = CatalogModel("nemotronh_8b");  // 52 layers
  std::vector<Violation> v;
  EXPECT_TRUE(PlanStages(m, Config(4), &v).has_value());
  EXPECT_FALSE(PlanStages(m, Config(4, 13), &v).has_value());
  EXPECT_EQ(v.back().rule, "hybrid.vpp_needs_pipes");
}

TEST(StagePlanTest, HybridPatternWithPipes) {
  ModelSpec m = CatalogModel("nemotronh_8b");
  m.hybrid_layer_pattern = "M-M-|M*M-|M-M-|M-M*";
  m.num_layers = 16;
  std::vector<Violation> v;
  auto plan = PlanStages(m, Config(2), &v);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->vpp, 2);
  EXPECT_EQ(plan->decoder_layers[0], (std::vector<int64_t>{4, 4}));
}

}  // namespace
}  // namespace parplan

namespace parplan {
namespace {

using testing_util::CatalogModel;

ResolvedConfig Accounted(int64_t pp, int64_t vpp, bool embedding, bool loss) {
  ResolvedConfig c;
  c.pp = pp;
  c.vpp = vpp;
  c.vpp_given = vpp > 1;
  c.account_for_embedding = embedding;
  c.account_for_loss = loss;
  return c;
}

const Violation* Find(const std::vector<Violation>& v, const std::string& rule) {
  for (const auto& x : v) {
    if (x.rule == rule) return &x;
  }
  return nullptr;
}

// Llama-3.1 405B as NVIDIA's recipe sets it: 126 + 2 = 128 = PP 16 x VPP 8 x 1.
TEST(StagePlanAccountingTest, Llama405bPp16Vpp8) {
  ModelSpec m = CatalogModel("llama31_405b");
  std::vector<Violation> v;
  auto plan = PlanStages(m, Accounted(16, 8, true, true), &v);
  ASSERT_TRUE(plan.has_value()) << (v.empty() ? "" : v[0].message);
  EXPECT_EQ(plan->source, StagePlan::Source::kAccounted);
  EXPECT_EQ(plan->decoder_layers[0][0], 0);  // the embedding's unit
  EXPECT_EQ(plan->decoder_layers[0][1], 1);
  EXPECT_EQ(plan->decoder_layers[15][7], 0);  // the loss's unit
  EXPECT_EQ(plan->decoder_layers[15][6], 1);
  int64_t total = 0;
  for (const auto& rank : plan->decoder_layers) {
    for (int64_t n : rank) total += n;
  }
  EXPECT_EQ(total, 126);
  // Megatron's offsets (transformer_layer.py get_transformer_layer_offset):
  // chunk v of rank r starts at (v * PP + r) * 1 - 1 except rank 0 chunk 0.
  auto first = FirstLayerIndices(*plan);
  EXPECT_EQ(first[0][0], 0);
  EXPECT_EQ(first[1][0], 0);
  EXPECT_EQ(first[2][0], 1);
  EXPECT_EQ(first[0][1], 15);
  EXPECT_EQ(first[15][7], 126);
}

// Qwen3-235B-A22B: 94 + 2 = 96 = PP 8 x 12 per rank = VPP 4 x 3.
TEST(StagePlanAccountingTest, Qwen3_235bPp8Vpp4) {
  ModelSpec m = CatalogModel("qwen3_235b_a22b");
  std::vector<Violation> v;
  auto plan = PlanStages(m, Accounted(8, 4, true, true), &v);
  ASSERT_TRUE(plan.has_value()) << (v.empty() ? "" : v[0].message);
  EXPECT_EQ(plan->decoder_layers[0], (std::vector<int64_t>{2, 3, 3, 3}));
  EXPECT_EQ(plan->decoder_layers[7], (std::vector<int64_t>{3, 3, 3, 2}));
  EXPECT_EQ(plan->decoder_layers[3], (std::vector<int64_t>{3, 3, 3, 3}));
  EXPECT_TRUE(plan->has_embedding[0]);
  EXPECT_TRUE(plan->has_loss[7]);
}

TEST(StagePlanAccountingTest, LossOnlyWithoutVpp) {
  ModelSpec m = CatalogModel("llama31_405b");  // 126 + 1 = 127: prime, PP 127 only
  std::vector<Violation> v;
  EXPECT_FALSE(PlanStages(m, Accounted(2, 1, false, true), &v).has_value());
  const Violation* e = Find(v, "pp.layers_divisible");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("126 + 1 (loss) = 127"), std::string::npos) << e->message;
  // 126 + 2 = 128 divides by 2: the fix names both switches with the arithmetic.
  EXPECT_NE(e->fix.find("126 + 2 = 128 = PP 2 x 64 per rank"), std::string::npos) << e->fix;
}

TEST(StagePlanAccountingTest, WithoutTheFlagsTheFixNamesThem) {
  ModelSpec m = CatalogModel("qwen3_235b_a22b");
  std::vector<Violation> v;
  ResolvedConfig c;
  c.pp = 8;
  c.vpp = 4;
  c.vpp_given = true;
  EXPECT_FALSE(PlanStages(m, c, &v).has_value());
  const Violation* e = Find(v, "pp.layers_divisible");
  ASSERT_NE(e, nullptr);
  // Computed from the numbers: no PP splits 94 layers into 4 chunks, the
  // accounted 96 does for these PPs, and keeping PP=8 needs a layout (94 is
  // not a multiple of VPP=4, so no uneven first/last split exists).
  EXPECT_NE(e->fix.find("PPs that split 94 layers into VPP=4 chunks evenly: none above 1"), std::string::npos)
      << e->fix;
  EXPECT_NE(e->fix.find("(96, account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split): 2, 3, "
                        "4, 6, 8, 12, 24"),
            std::string::npos)
      << e->fix;
  EXPECT_NE(e->fix.find("to keep PP=8: a pipeline layout"), std::string::npos) << e->fix;
  EXPECT_NE(e->fix.find("--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split"),
            std::string::npos)
      << e->fix;
  EXPECT_NE(e->fix.find("94 + 2 = 96 = PP 8 x 12 per rank = 4 chunks of 3"), std::string::npos) << e->fix;
}

TEST(StagePlanAccountingTest, VppMustDivideAccountedPerRank) {
  ModelSpec m = CatalogModel("qwen3_235b_a22b");  // 96 / 8 = 12, VPP 5 does not divide
  std::vector<Violation> v;
  EXPECT_FALSE(PlanStages(m, Accounted(8, 5, true, true), &v).has_value());
  ASSERT_NE(Find(v, "vpp.layers_divisible"), nullptr);
}

TEST(StagePlanAccountingTest, ConflictsMegatronRejects) {
  ModelSpec m = CatalogModel("llama31_405b");
  std::vector<Violation> v;
  ResolvedConfig c = Accounted(16, 1, true, true);
  c.first_stage_layers = 6;
  EXPECT_FALSE(PlanStages(m, c, &v).has_value());
  EXPECT_NE(Find(v, "pp.accounting_conflicts_uneven"), nullptr);

  v.clear();
  c = Accounted(2, 1, false, true);
  c.pipeline_layout = "Et*63|t*63L";
  EXPECT_FALSE(PlanStages(m, c, &v).has_value());
  EXPECT_NE(Find(v, "layout.conflicts_accounting"), nullptr);

  v.clear();
  ModelSpec hybrid = CatalogModel("nemotronh_8b");
  EXPECT_FALSE(PlanStages(hybrid, Accounted(2, 1, true, false), &v).has_value());
  EXPECT_NE(Find(v, "hybrid.accounting_unsupported"), nullptr);
}

TEST(StagePlanAccountingTest, EndChunksMayHoldNoDecoderLayer) {
  // 2 layers + 2 = 4 units over PP 2 x VPP 2 = 1 unit each: the first and
  // last chunks hold only the embedding and the loss.
  ModelSpec m = CatalogModel("llama32_1b");  // 16 layers
  m.num_layers = 2;
  std::vector<Violation> v;
  auto plan = PlanStages(m, Accounted(2, 2, true, true), &v);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->decoder_layers[0], (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(plan->decoder_layers[1], (std::vector<int64_t>{1, 0}));
  // PP 1: the switches change nothing.
  auto single = PlanStages(m, Accounted(1, 1, true, true), &v);
  ASSERT_TRUE(single.has_value());
  EXPECT_EQ(single->decoder_layers[0][0], 2);
}

}  // namespace
}  // namespace parplan
