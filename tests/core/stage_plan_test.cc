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
