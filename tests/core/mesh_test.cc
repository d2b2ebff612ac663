#include "core/mesh/mesh.h"

#include "gtest/gtest.h"

namespace parplan {
namespace {

struct Row {
  int64_t pp, tp, cp, ep, etp, naive, min;
};

// Reference section 2 worked examples.
class MinGpusTableTest : public ::testing::TestWithParam<Row> {};

TEST_P(MinGpusTableTest, MatchesReference) {
  const Row& r = GetParam();
  MeshDims d{r.tp, r.pp, r.cp, r.ep, r.etp};
  const MinGpusResult m = ComputeMinGpus(d);
  EXPECT_EQ(m.min_gpus, r.min);
  EXPECT_EQ(m.naive_product, r.naive);
  EXPECT_EQ(m.step, r.min);
}

INSTANTIATE_TEST_SUITE_P(Reference, MinGpusTableTest,
                         ::testing::Values(Row{1, 2, 1, 8, 1, 16, 8}, Row{1, 4, 1, 8, 1, 32, 8},
                                           Row{1, 2, 2, 8, 1, 32, 8}, Row{1, 2, 4, 8, 1, 64, 8},
                                           Row{2, 2, 1, 8, 1, 32, 16}, Row{1, 2, 1, 4, 2, 16, 8},
                                           Row{4, 1, 1, 32, 1, 128, 128}));

TEST(MinGpusTest, UsesLcmWhenNeitherMeshDividesTheOther) {
  // TP*CP = 6, EP*ETP = 4: lcm 12, max would be 6 (wrong).
  const MinGpusResult m = ComputeMinGpus(MeshDims{3, 2, 2, 4, 1});
  EXPECT_EQ(m.min_gpus, 24);
  EXPECT_EQ(m.naive_product, 3 * 2 * 2 * 4);
  bool mentions_lcm = false;
  for (const auto& r : m.reasons) mentions_lcm |= r.find("not their max") != std::string::npos;
  EXPECT_TRUE(mentions_lcm);
}

TEST(MinGpusTest, ReasonsExplainTheNaiveProduct) {
  const MinGpusResult m = ComputeMinGpus(MeshDims{2, 1, 1, 8, 1});
  ASSERT_GE(m.reasons.size(), 2u);
  EXPECT_NE(m.reasons[1].find("(16) is wrong"), std::string::npos) << m.reasons[1];
}

// A dense model at EP = 1 with ETP unset (= TP): no expert mesh of its own,
// so the product of the dimensions is TP*PP*CP (not x ETP) and the reasons
// name no EP, ETP or EDP. An explicit ETP other than TP is a folding again.
TEST(MinGpusTest, DenseMeshHasNoExpertDimensions) {
  const MeshDims dense{8, 4, 1, 1, 8};
  EXPECT_FALSE(ExpertMeshInPlay(dense));
  const MinGpusResult m = ComputeMinGpus(dense);
  EXPECT_EQ(m.min_gpus, 32);
  EXPECT_EQ(m.naive_product, 32);
  EXPECT_EQ(m.expert_mesh, 0);
  for (const auto& r : m.reasons) {
    for (const char* word : {"EP", "ETP", "EDP", "expert"}) EXPECT_EQ(r.find(word), std::string::npos) << r;
  }
  const MeshDims cp{2, 2, 4, 1, 2};
  EXPECT_EQ(ComputeMinGpus(cp).naive_product, 16);
  EXPECT_TRUE(ExpertMeshInPlay(MeshDims{8, 4, 1, 1, 1}));  // ETP 1 given on TP 8: experts unsplit
  EXPECT_EQ(ComputeMinGpus(MeshDims{8, 4, 1, 1, 1}).expert_mesh, 1);
  EXPECT_TRUE(ExpertMeshInPlay(MeshDims{8, 4, 1, 8, 8}));
}

TEST(SizeWorldTest, ReferenceDpEdpExamples) {
  const MeshDims d{2, 1, 1, 8, 1};
  for (auto [gpus, dp, edp] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{8, 4, 1}, {16, 8, 2}, {32, 16, 4}}) {
    const WorldSizing w = SizeWorld(d, gpus, 8, 0, 1);
    EXPECT_TRUE(w.valid) << gpus;
    EXPECT_EQ(w.dp, dp) << gpus;
    EXPECT_EQ(w.edp, edp) << gpus;
    EXPECT_EQ(w.nodes, gpus / 8);
    EXPECT_FALSE(w.partial_node);
  }
}

TEST(SizeWorldTest, ReportsEachDivisibilityProblem) {
  const WorldSizing w = SizeWorld(MeshDims{4, 2, 1, 16, 1}, 24, 8, 0, 1);
  EXPECT_FALSE(w.valid);
  EXPECT_EQ(w.dp, 3);   // 24 / (4*2)
  EXPECT_EQ(w.edp, 0);  // 24 % 32 != 0
  ASSERT_EQ(w.problems.size(), 1u);
  EXPECT_NE(w.problems[0].find("PP*EP*ETP = 2*16*1 = 32"), std::string::npos);
}

TEST(SizeWorldTest, MicrobatchesAndBatchDivisibility) {
  const MeshDims d{8, 4, 1, 1, 8};
  // 64 GPUs: DP = 64 / 32 = 2; GBS 256 / (MBS 1 * 2) = 128 microbatches.
  WorldSizing w = SizeWorld(d, 64, 8, 256, 1);
  EXPECT_TRUE(w.valid);
  EXPECT_EQ(w.microbatches, 128);
  // GBS 255 is odd: not divisible by MBS*DP = 2.
  w = SizeWorld(d, 64, 8, 255, 1);
  EXPECT_FALSE(w.valid);
  EXPECT_EQ(w.microbatches, 0);
}

TEST(SizeWorldTest, PartialNode) {
  const WorldSizing w = SizeWorld(MeshDims{1, 1, 1, 1, 1}, 12, 8, 0, 1);
  EXPECT_TRUE(w.valid);
  EXPECT_EQ(w.nodes, 2);
  EXPECT_TRUE(w.partial_node);
}

TEST(NextValidWorldSizesTest, MultiplesOfTheStep) {
  EXPECT_EQ(NextValidWorldSizes(MeshDims{1, 4, 1, 32, 1}, 128, 3, 0, 1), (std::vector<int64_t>{128, 256, 384}));
  EXPECT_EQ(NextValidWorldSizes(MeshDims{2, 1, 1, 8, 1}, 20, 2, 0, 1), (std::vector<int64_t>{24, 32}));
}

TEST(NextValidWorldSizesTest, FiltersByBatch) {
  // TP=8: DP = W/8. GBS 48, MBS 1: DP must divide 48 -> W in {8,16,24,32,48,64,96,...}.
  EXPECT_EQ(NextValidWorldSizes(MeshDims{8, 1, 1, 1, 8}, 8, 6, 48, 1), (std::vector<int64_t>{8, 16, 24, 32, 48, 64}));
  // Stops once DP*MBS exceeds GBS.
  EXPECT_EQ(NextValidWorldSizes(MeshDims{8, 1, 1, 1, 8}, 8, 64, 4, 1).size(), 3u);
}

}  // namespace
}  // namespace parplan
