#include "core/layout/rank_layout.h"

#include "gtest/gtest.h"

namespace parplan {
namespace {

// Megatron's docstring example (parallel_state.py): 16 GPUs, TP=2, PP=4 ->
// 8 TP groups [0,1] [2,3] ...; 4 PP groups [0,4,8,12] [1,5,9,13] ...
TEST(RankLayoutTest, MegatronDocstringExample) {
  const RankLayout layout(MeshDims{2, 4, 1, 1, 2}, 16);
  EXPECT_EQ(layout.GroupCount(GroupKind::kTp), 8);
  EXPECT_EQ(layout.Group(GroupKind::kTp, 0), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(layout.Group(GroupKind::kTp, 7), (std::vector<int64_t>{14, 15}));
  EXPECT_EQ(layout.Group(GroupKind::kPp, 0), (std::vector<int64_t>{0, 4, 8, 12}));
  EXPECT_EQ(layout.Group(GroupKind::kPp, 3), (std::vector<int64_t>{3, 7, 11, 15}));
  // DP = 16 / (2*4) = 2: dp groups [0,2] [1,3] [4,6] ...
  EXPECT_EQ(layout.Group(GroupKind::kDp, 0), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(layout.Group(GroupKind::kDp, 1), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(layout.Group(GroupKind::kDp, 2), (std::vector<int64_t>{4, 6}));
}

// generate_masked_orthogonal_rank_groups docstring: sizes [tp=2, dp=3, pp=4],
// dp groups [0,2,4], [1,3,5], ..., [19,21,23].
TEST(RankLayoutTest, MaskedOrthogonalDocstring) {
  const RankLayout layout(MeshDims{2, 4, 1, 1, 2}, 24);
  EXPECT_EQ(layout.Group(GroupKind::kDp, 0), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(layout.Group(GroupKind::kDp, 1), (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(layout.Group(GroupKind::kDp, 7), (std::vector<int64_t>{19, 21, 23}));
}

TEST(RankLayoutTest, ExpertGridFoldsOntoTheSameRanks) {
  // TP=2, EP=8, ETP=1 on 16 GPUs: DP=8, EDP=2. EP groups are 8 consecutive ranks.
  const RankLayout layout(MeshDims{2, 1, 1, 8, 1}, 16);
  EXPECT_EQ(layout.Group(GroupKind::kEp, 0), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(layout.Group(GroupKind::kEdp, 0), (std::vector<int64_t>{0, 8}));
  EXPECT_EQ(layout.GroupOfRank(GroupKind::kTp, 5), (std::vector<int64_t>{4, 5}));
  const RankCoords c = layout.Coords(13);
  EXPECT_EQ(c.tp, 1);
  EXPECT_EQ(c.dp, 6);
  EXPECT_EQ(c.ep, 5);
  EXPECT_EQ(c.edp, 1);
}

TEST(RankLayoutTest, CpSitsBetweenTpAndDp) {
  // TP=2, CP=2, PP=2 on 16: CP groups stride 2; DP groups stride 4.
  const RankLayout layout(MeshDims{2, 2, 2, 1, 2}, 16);
  EXPECT_EQ(layout.Group(GroupKind::kCp, 0), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(layout.Group(GroupKind::kDp, 0), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(layout.Group(GroupKind::kTpCp, 0), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(layout.Group(GroupKind::kDpCp, 0), (std::vector<int64_t>{0, 2, 4, 6}));
  EXPECT_EQ(layout.Group(GroupKind::kPp, 0), (std::vector<int64_t>{0, 8}));
}

TEST(RankLayoutTest, GroupOfRankAgreesWithEnumeration) {
  const RankLayout layout(MeshDims{4, 2, 2, 8, 2}, 64);
  for (GroupKind kind : kAllGroupKinds) {
    for (int64_t i = 0; i < layout.GroupCount(kind); ++i) {
      const auto group = layout.Group(kind, i);
      for (int64_t rank : group) EXPECT_EQ(layout.GroupOfRank(kind, rank), group) << GroupKindName(kind);
    }
  }
}

TEST(RankLayoutTest, CountCrossing) {
  // TP=16 on 8-GPU nodes: every TP group crosses a node.
  const RankLayout big_tp(MeshDims{16, 1, 1, 1, 16}, 64);
  EXPECT_EQ(big_tp.CountCrossing(GroupKind::kTp, 8), 4);
  // TP=16 on 72-GPU domains with 144 GPUs: only the group [64, 80) straddles.
  const RankLayout nvl(MeshDims{16, 1, 1, 1, 16}, 144);
  EXPECT_EQ(nvl.CountCrossing(GroupKind::kTp, 72), 1);
  // PP groups always cross nodes when stages sit on different nodes.
  const RankLayout pp(MeshDims{8, 4, 1, 1, 8}, 32);
  EXPECT_EQ(pp.CountCrossing(GroupKind::kPp, 8), 8);
  EXPECT_EQ(pp.CountCrossing(GroupKind::kTp, 8), 0);
}

}  // namespace
}  // namespace parplan
