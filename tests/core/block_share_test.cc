#include "core/layout/block_share.h"

#include <algorithm>
#include <map>
#include <random>

#include "gtest/gtest.h"

namespace parplan {
namespace {

// Every group visited: its members per block, the crossing ones counted and
// the fewest members of one group in one block kept.
BlockShare BruteForce(const RankLayout& layout, GroupKind kind, int64_t block) {
  BlockShare out;
  out.groups = layout.GroupCount(kind);
  out.size = layout.GroupSize(kind);
  out.fewest_local = out.size;
  for (int64_t i = 0; i < out.groups; ++i) {
    std::map<int64_t, int64_t> per_block;
    for (int64_t rank : layout.Group(kind, i)) ++per_block[rank / block];
    if (per_block.size() > 1) ++out.crossing;
    for (const auto& [b, n] : per_block) out.fewest_local = std::min(out.fewest_local, n);
  }
  return out;
}

// The Done-when case: EP=64 on 256 GB200 NVL72 GPUs. With 64 GPUs used per
// rack the four EP groups are the four racks; with all 72 the last three
// straddle two racks, and the worst (ranks 64..127) has only 8 of its 64 in
// rack 0.
TEST(BlockShareTest, Ep64On256Nvl72) {
  const RankLayout layout(MeshDims{1, 1, 1, 64, 1}, 256);
  const BlockShare racks64 = ShareOfBlocks(layout, GroupKind::kEp, 64);
  EXPECT_EQ(racks64.groups, 4);
  EXPECT_EQ(racks64.crossing, 0);
  EXPECT_EQ(racks64.fewest_local, 64);
  const BlockShare racks72 = ShareOfBlocks(layout, GroupKind::kEp, 72);
  EXPECT_EQ(racks72.crossing, 3);
  EXPECT_EQ(racks72.fewest_local, 8);
  EXPECT_EQ(layout.CountCrossing(GroupKind::kEp, 72), 3);
}

TEST(BlockShareTest, NoBlockOrSingletonGroups) {
  const RankLayout layout(MeshDims{8, 2, 1, 1, 1}, 64);
  EXPECT_EQ(ShareOfBlocks(layout, GroupKind::kTp, 0).crossing, 0);
  EXPECT_EQ(ShareOfBlocks(layout, GroupKind::kTp, 0).fewest_local, 8);
  EXPECT_EQ(ShareOfBlocks(layout, GroupKind::kCp, 3).fewest_local, 1);
  EXPECT_EQ(ShareOfBlocks(layout, GroupKind::kCp, 3).crossing, 0);
  // Strided wider than the block: every member alone.
  EXPECT_EQ(ShareOfBlocks(layout, GroupKind::kPp, 8).fewest_local, 1);
  EXPECT_EQ(ShareOfBlocks(layout, GroupKind::kPp, 8).crossing, 32);
}

// Random meshes, worlds and block sizes (dividing or not, smaller or larger
// than the groups): the residue walk and the direct visit agree with every
// group enumerated.
TEST(BlockShareTest, MatchesBruteForceOnRandomMeshes) {
  std::mt19937 rng(23);
  const std::vector<int64_t> tps = {1, 2, 3, 4, 8}, cps = {1, 2, 3}, pps = {1, 2, 3, 4, 5};
  const std::vector<int64_t> eps = {1, 2, 4, 6, 8, 16, 64}, etps = {1, 2, 4};
  const std::vector<int64_t> blocks = {1, 2, 3, 4, 7, 8, 12, 36, 64, 68, 72, 100, 144};
  auto pick = [&rng](const std::vector<int64_t>& v) { return v[rng() % v.size()]; };
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    MeshDims d;
    d.tp = pick(tps);
    d.cp = pick(cps);
    d.pp = pick(pps);
    d.ep = pick(eps);
    d.etp = pick(etps);
    const int64_t unit = ComputeMinGpus(d).min_gpus;
    const int64_t world = unit * (1 + static_cast<int64_t>(rng() % 8));
    if (world > 8192) continue;
    const RankLayout layout(d, world);
    const int64_t block = trial % 3 == 0 ? 1 + static_cast<int64_t>(rng() % 150) : pick(blocks);
    for (GroupKind kind : kAllGroupKinds) {
      const BlockShare fast = ShareOfBlocks(layout, kind, block);
      const BlockShare slow = BruteForce(layout, kind, block);
      ASSERT_EQ(fast.groups, slow.groups);
      ASSERT_EQ(fast.size, slow.size);
      ASSERT_EQ(fast.crossing, slow.crossing)
          << GroupKindName(kind) << " tp" << d.tp << " cp" << d.cp << " pp" << d.pp << " ep" << d.ep << " etp" << d.etp
          << " world " << world << " block " << block;
      ASSERT_EQ(fast.fewest_local, slow.fewest_local)
          << GroupKindName(kind) << " tp" << d.tp << " cp" << d.cp << " pp" << d.pp << " ep" << d.ep << " etp" << d.etp
          << " world " << world << " block " << block;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

// At a million ranks the residue walk still counts what a visit of every
// group's first and last rank counts.
TEST(BlockShareTest, MillionRanksAgreeWithSpans) {
  const MeshDims d{8, 16, 2, 64, 1};
  const int64_t world = int64_t{1} << 20;
  const RankLayout layout(d, world);
  for (GroupKind kind : {GroupKind::kDp, GroupKind::kDpCp, GroupKind::kEp, GroupKind::kPp, GroupKind::kEdp}) {
    for (int64_t block : {64, 72}) {
      int64_t crossing = 0;
      for (int64_t i = 0; i < layout.GroupCount(kind); ++i) {
        const auto span = layout.GroupSpan(kind, i);
        crossing += span.first / block != span.second / block;
      }
      EXPECT_EQ(ShareOfBlocks(layout, kind, block).crossing, crossing) << GroupKindName(kind) << " " << block;
    }
  }
}

}  // namespace
}  // namespace parplan
