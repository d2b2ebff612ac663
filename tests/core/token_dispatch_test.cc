#include "core/perf/token_dispatch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/perf/perf_model.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

SystemSpec System(const std::string& id) { return *Catalog::Get().FindSystem(id); }

ResolvedConfig MoeConfig(int64_t tp, int64_t ep, const std::string& dispatcher, const std::string& backend = "") {
  ResolvedConfig c;
  c.tp = tp;
  c.etp = 1;
  c.ep = ep;
  c.sp = tp > 1;
  c.mbs = 1;
  c.seq_length = 4096;
  c.moe_token_dispatcher_type = dispatcher;
  c.moe_flex_dispatcher_backend = backend;
  c.moe_permute_fusion = true;
  return c;
}

// Brute force over every k-subset of E experts: the mean number of distinct
// blocks hit, experts split evenly over the blocks.
double BruteDistinctBlocks(int experts, int k, int blocks) {
  const int per_block = experts / blocks;
  double total = 0;
  double subsets = 0;
  std::vector<int> pick(k);
  for (int i = 0; i < k; ++i) pick[i] = i;
  while (true) {
    std::vector<bool> hit(blocks, false);
    for (int e : pick) hit[e / per_block] = true;
    int n = 0;
    for (bool b : hit) n += b;
    total += n;
    subsets += 1;
    int i = k - 1;
    while (i >= 0 && pick[i] == experts - k + i) --i;
    if (i < 0) break;
    ++pick[i];
    for (int j = i + 1; j < k; ++j) pick[j] = pick[j - 1] + 1;
  }
  return total / subsets;
}

TEST(TokenDispatchTest, ExpectedDistinctBlocksMatchesEnumeration) {
  for (int blocks : {2, 4, 8}) {
    for (int k : {1, 2, 3, 4}) {
      EXPECT_NEAR(ExpectedDistinctBlocks(16, k, blocks), BruteDistinctBlocks(16, k, blocks), 1e-9)
          << "blocks " << blocks << " k " << k;
    }
  }
  // One block, or one expert per token, hits exactly one.
  EXPECT_DOUBLE_EQ(ExpectedDistinctBlocks(256, 8, 1), 1);
  EXPECT_DOUBLE_EQ(ExpectedDistinctBlocks(256, 1, 32), 1);
  // Never more than k nor more than the blocks.
  EXPECT_LE(ExpectedDistinctBlocks(256, 8, 4), 4);
  EXPECT_LE(ExpectedDistinctBlocks(256, 8, 256), 8);
}

TEST(TokenDispatchTest, KindFollowsDispatcherAndBackend) {
  EXPECT_EQ(DispatchKindOf(MoeConfig(1, 8, "alltoall")), DispatchKind::kAllToAll);
  EXPECT_EQ(DispatchKindOf(MoeConfig(1, 8, "allgather")), DispatchKind::kAllGather);
  EXPECT_EQ(DispatchKindOf(MoeConfig(1, 8, "flex", "deepep")), DispatchKind::kDeepEp);
  EXPECT_EQ(DispatchKindOf(MoeConfig(1, 8, "flex", "hybridep")), DispatchKind::kHybridEp);
  EXPECT_EQ(DispatchKindOf(MoeConfig(1, 8, "flex", "ncclep")), DispatchKind::kNcclEp);
  // flex without a backend is DeepEP (Megatron-Core's default backend).
  EXPECT_EQ(DispatchKindOf(MoeConfig(1, 8, "flex")), DispatchKind::kDeepEp);
}

// DeepSeek-V3 with EP=32 over 4 H100 nodes of 8: the all-to-all sends each
// of a token's 8 expert copies on its own, (32-8)/32 of them off the node;
// DeepEP sends one copy per other node hit.
TEST(TokenDispatchTest, DeepEpSendsFewerCopiesOffTheNodeThanAllToAll) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  const SystemSpec s = System("h100-sxm");
  const PerfParams p;
  const GroupSpread ep = AlignedSpread(s, 32, 1);
  ASSERT_EQ(ep.domain_local, 8);
  const double tokens = 4096;
  const DispatchCost a2a = DispatchCostOf(m, MoeConfig(1, 32, "alltoall"), tokens, ep, s, p, 132);
  const DispatchCost deep = DispatchCostOf(m, MoeConfig(1, 32, "flex", "deepep"), tokens, ep, s, p, 132);
  const double h = 7168 * 2.0;
  // All-to-all: 8 copies, 24/32 of them leave the node.
  EXPECT_NEAR(a2a.copies_per_token, 8 * 24.0 / 32, 1e-9);
  EXPECT_NEAR(a2a.network_bytes, tokens * 8 * h * 24 / 32, 1);
  // DeepEP: the expected number of the 3 other nodes hit by 8 of 256 experts.
  const double other_nodes = ExpectedDistinctBlocks(256, 8, 4) * 3 / 4;
  EXPECT_NEAR(deep.copies_per_token, other_nodes, 1e-9);
  EXPECT_GT(deep.copies_per_token, 2.0);
  EXPECT_LT(deep.copies_per_token, 3.0);
  EXPECT_NEAR(deep.network_bytes, tokens * h * other_nodes, 1);
  EXPECT_LT(deep.one_way_s, a2a.one_way_s);
  // DeepEP runs on 20 SMs taken from compute; NCCL's all-to-all on none counted here.
  EXPECT_NEAR(deep.sm_share, 20.0 / 132, 1e-12);
  EXPECT_EQ(a2a.sm_share, 0);
}

TEST(TokenDispatchTest, HybridEpDeduplicatesPerNvlinkDomain) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  SystemSpec s = System("gb200-nvl72");
  const PerfParams p;
  // EP=64 in one rack: nothing leaves the domain.
  const GroupSpread one_rack{64, 64, 64};
  const DispatchCost in_rack = DispatchCostOf(m, MoeConfig(1, 64, "flex", "hybridep"), 4096, one_rack, s, p, 148);
  EXPECT_EQ(in_rack.network_bytes, 0);
  EXPECT_NEAR(in_rack.sm_share, 24.0 / 148, 1e-12);
  // EP=128 over two racks: one copy per token to the other rack when hit.
  const GroupSpread two_racks{128, 64, 64};
  const DispatchCost across = DispatchCostOf(m, MoeConfig(1, 128, "flex", "hybridep"), 4096, two_racks, s, p, 148);
  EXPECT_NEAR(across.copies_per_token, ExpectedDistinctBlocks(256, 8, 2) / 2, 1e-9);
  EXPECT_NEAR(across.sm_share, 8.0 / 148, 1e-12);
}

TEST(TokenDispatchTest, AllGatherMovesEveryTokenOfTheGroup) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  const SystemSpec s = System("h100-sxm");
  const PerfParams p;
  const GroupSpread ep = AlignedSpread(s, 8, 1);
  const DispatchCost g = DispatchCostOf(m, MoeConfig(1, 8, "allgather"), 4096, ep, s, p, 132);
  const double per_token = m.hidden_size * 2.0 + m.num_moe_experts * 5.0;
  EXPECT_NEAR(g.nvlink_bytes, 7 * 4096 * per_token, 1);
  EXPECT_EQ(g.network_bytes, 0);
}

TEST(TokenDispatchTest, NoExpertParallelismCostsNothing) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  const SystemSpec s = System("h100-sxm");
  const DispatchCost c = DispatchCostOf(m, MoeConfig(1, 1, "alltoall"), 4096, GroupSpread{}, s, PerfParams{}, 132);
  EXPECT_EQ(c.one_way_s, 0);
  EXPECT_EQ(c.network_bytes + c.nvlink_bytes, 0);
}

TEST(TokenDispatchTest, HostSyncsFollowTheDispatcherPath) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");  // 128 experts: 16 per GPU at EP=8
  ResolvedConfig fused = MoeConfig(1, 8, "alltoall");
  EXPECT_EQ(DispatchHostSyncs(m, fused), 1);
  ResolvedConfig unfused = fused;
  unfused.moe_permute_fusion = false;
  EXPECT_EQ(DispatchHostSyncs(m, unfused), 2);
  ResolvedConfig hybrid = MoeConfig(1, 8, "flex", "hybridep");
  hybrid.cuda_graph_impl = "none";
  EXPECT_EQ(DispatchHostSyncs(m, hybrid), 2);  // Bridge's eager HybridEP padding
  hybrid.cuda_graph_impl = "transformer_engine";
  EXPECT_EQ(DispatchHostSyncs(m, hybrid), 1);
  EXPECT_EQ(DispatchHostSyncs(m, MoeConfig(1, 8, "flex", "deepep")), 4);
}

// The eager (unfused) permutation and unpermutation run at the rates
// measured on an H200 (moe_permute.csv); the fused kernels only stream the
// bytes, so they are faster but no faster than reading and writing them at
// HBM peak.
TEST(TokenDispatchTest, FusedPermutationIsFasterThanEagerAndBoundedByHbm) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  const Device d = MakeDevice(System("h200-sxm"), Precision::kBf16);
  ResolvedConfig fused = MoeConfig(1, 1, "alltoall");
  ResolvedConfig eager = fused;
  eager.moe_permute_fusion = false;
  const double tokens = 8192;
  const PassSeconds f = PermuteSeconds(m, fused, tokens, d);
  const PassSeconds e = PermuteSeconds(m, eager, tokens, d);
  EXPECT_LT(f.forward, e.forward);
  EXPECT_LT(f.backward, e.backward);
  const double pairs = tokens * m.moe_router_topk;
  const double bytes = 2 * (tokens + pairs) * m.hidden_size * 2.0;
  EXPECT_GT(f.forward, bytes / d.hbm_peak_bytes_per_s);
  // Eager: at least the measured route sort plus the scatter at its measured rate.
  EXPECT_GT(e.forward, d.rates.route_sort_us * 1e-6 +
                           3 * pairs * m.hidden_size * 2.0 / (d.hbm_peak_bytes_per_s * d.rates.scatter_efficiency));
  // HybridEP fuses the permutation into its transfer when EP > 1.
  const PassSeconds h = PermuteSeconds(m, MoeConfig(1, 8, "flex", "hybridep"), tokens, d);
  EXPECT_EQ(h.forward + h.backward, 0);
}

TEST(TokenDispatchTest, DescriptionNamesDispatcherBytesAndSyncs) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  const SystemSpec s = System("h100-sxm");
  const ResolvedConfig c = MoeConfig(1, 32, "flex", "deepep");
  const DispatchCost cost = DispatchCostOf(m, c, 4096, AlignedSpread(s, 32, 1), s, PerfParams{}, 132);
  const std::string text = DescribeDispatch(cost, c, 132);
  EXPECT_NE(text.find("flex/deepep"), std::string::npos) << text;
  EXPECT_NE(text.find("20 of the 132 SMs"), std::string::npos) << text;
  EXPECT_NE(text.find("MB per GPU per dispatch"), std::string::npos) << text;
  // DeepEP's receive-count wait and the three boolean-mask syncs of its multihot conversion.
  EXPECT_NE(text.find("4 times per MoE layer"), std::string::npos) << text;
}

}  // namespace
}  // namespace parplan
