// Layer-split arithmetic: the PPs that divide, balanced uneven stages, and
// the fix text computed from the numbers (DeepSeek-V3's 61 layers is prime).
#include "core/pipeline/split_options.h"

#include <vector>

#include "gtest/gtest.h"

namespace parplan {
namespace {

TEST(SplitOptionsTest, EvenPpsDivideLayersTimesVpp) {
  EXPECT_EQ(EvenPps(61, 1, 61), std::vector<int64_t>({61}));
  EXPECT_EQ(EvenPps(63, 1, 61), std::vector<int64_t>({3, 7, 9, 21}));
  EXPECT_EQ(EvenPps(80, 2, 16), std::vector<int64_t>({2, 4, 5, 8, 10}));  // 80 / (10 x 2) = 4
  EXPECT_TRUE(EvenPps(94, 4, 94).empty());
}

TEST(SplitOptionsTest, BalancedUnevenStagesAreNoWorseThanAnEvenSpread) {
  // 61 over 16: 14 middle stages of 4, first 3, last 2 (largest 4 = ceil(61/16)).
  auto u = BalancedUnevenStages(61, 16, 1);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->first, 3);
  EXPECT_EQ(u->last, 2);
  EXPECT_EQ(u->middle_per_stage, 4);
  EXPECT_EQ(u->first + u->last + 14 * u->middle_per_stage, 61);
  // 80 over 3: 27 + 27 + 26.
  u = BalancedUnevenStages(80, 3, 1);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->first, 27);
  EXPECT_EQ(u->last, 26);
  // With VPP every stage is a multiple of VPP: 60 over PP 4 x VPP 2, the
  // largest stage at most ceil(60/4) = 15 rounded up to 16.
  u = BalancedUnevenStages(60, 4, 2);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->first % 2, 0);
  EXPECT_EQ(u->last % 2, 0);
  EXPECT_EQ(u->first + u->last + 2 * u->middle_per_stage, 60);
  EXPECT_LE(std::max(u->first, u->middle_per_stage), 16);
  // Layers not a multiple of VPP, or too few layers: none.
  EXPECT_FALSE(BalancedUnevenStages(61, 4, 2).has_value());
  EXPECT_FALSE(BalancedUnevenStages(3, 4, 1).has_value());
  EXPECT_FALSE(BalancedUnevenStages(10, 1, 1).has_value());
}

TEST(SplitOptionsTest, FixTextIsComputed) {
  const std::string fix = LayerSplitFix(61, 16, 1, /*hybrid=*/false);
  EXPECT_NE(fix.find("PPs that split 61 layers evenly: 61"), std::string::npos) << fix;
  EXPECT_NE(fix.find("counting the loss as a layer (62, account_for_loss_in_pipeline_split): 2, 31"), std::string::npos)
      << fix;
  EXPECT_NE(fix.find("(63, account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split): 3, 7, "
                     "9, 21"),
            std::string::npos)
      << fix;
  EXPECT_NE(fix.find("to keep PP=16: num_layers_in_first_pipeline_stage=3, num_layers_in_last_pipeline_stage=2 "
                     "(14 middle stages of 4)"),
            std::string::npos)
      << fix;
  EXPECT_EQ(fix.find("use a PP that divides 61"), std::string::npos) << fix;
  // Hybrid models: no accounting switches, stage breaks instead of layouts.
  const std::string hybrid = LayerSplitFix(52, 3, 1, /*hybrid=*/true);
  EXPECT_EQ(hybrid.find("account_for"), std::string::npos) << hybrid;
  EXPECT_NE(hybrid.find("'|' stage breaks"), std::string::npos) << hybrid;
}

}  // namespace
}  // namespace parplan
