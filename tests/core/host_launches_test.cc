#include "core/perf/host_launches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "core/catalog/catalog.h"
#include "core/perf/layer_time.h"
#include "core/perf/perf_model.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

// Qwen3-30B-A3B with EP=8 on 8 H100 (16 local experts), bf16, alltoall, a
// 512-token microbatch.
ResolvedConfig Qwen3OnEightH100(const std::string& impl, std::vector<std::string> modules) {
  ResolvedConfig c;
  c.ep = 8;
  c.etp = 1;
  c.mbs = 1;
  c.seq_length = 512;
  c.cuda_graph_impl = impl;
  c.cuda_graph_modules = std::move(modules);
  return c;
}

std::map<std::string, RegionLaunches> ByName(const std::vector<RegionLaunches>& regions) {
  std::map<std::string, RegionLaunches> out;
  for (const RegionLaunches& r : regions) out[r.name] = r;
  return out;
}

TEST(HostLaunchesTest, EagerMoeLayerCountsAsMegatronIssuesThem) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  const auto r = ByName(LayerLaunches(m, Qwen3OnEightH100("none", {}), LayerKind::kMoeTransformer, false));
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r.at("attention").forward, 13);
  EXPECT_EQ(r.at("attention").backward, 20);
  EXPECT_EQ(r.at("moe_router").forward, 10);
  EXPECT_EQ(r.at("moe_preprocess").forward, 11);
  EXPECT_EQ(r.at("moe_dispatch").forward, 14);
  for (const auto& [name, region] : r) EXPECT_FALSE(region.captured) << name;
  // Without experts, whose launches wait behind the token-count sync: 77 - 33
  // forward and the 4 device-to-host copies of the counts, 106 - 65 backward.
  double forward = 0, backward = 0;
  for (const auto& [name, region] : r) forward += region.forward, backward += region.backward;
  EXPECT_EQ(forward, 77 - 33 + 4);
  EXPECT_EQ(backward, 106 - 65);
}

// Which launches each scope removes, as NVIDIA's Qwen3-30B-A3B recipes use them.
TEST(HostLaunchesTest, EachScopeRemovesItsRegionsLaunches) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  const auto eager = ByName(LayerLaunches(m, Qwen3OnEightH100("none", {}), LayerKind::kMoeTransformer, false));
  const auto router = ByName(LayerLaunches(m, Qwen3OnEightH100("transformer_engine", {"moe_router", "moe_preprocess"}),
                                           LayerKind::kMoeTransformer, false));
  // moe_router + moe_preprocess: the router's 24 and the preprocess's 12 become one replay (2 + 8).
  EXPECT_FALSE(router.at("attention").captured);
  EXPECT_TRUE(router.at("moe_router").captured);
  EXPECT_TRUE(router.at("moe_preprocess").captured);
  EXPECT_FALSE(router.at("moe_dispatch").captured);
  EXPECT_EQ(router.at("moe_router").Removed() + router.at("moe_preprocess").Removed(), 24 + 12 - (2 + 8));
  // Adding attn removes the attention's 33 but for its replay's 15.
  const auto attn =
      ByName(LayerLaunches(m, Qwen3OnEightH100("transformer_engine", {"attn", "moe_router", "moe_preprocess"}),
                           LayerKind::kMoeTransformer, false));
  EXPECT_TRUE(attn.at("attention").captured);
  EXPECT_EQ(attn.at("attention").Removed(), 33 - 15);
  // The dropless dispatch stays eager under every per-layer scope.
  EXPECT_EQ(attn.at("moe_dispatch").Issued(), eager.at("moe_dispatch").Issued());
  // Full iteration: nothing left for the host.
  EXPECT_EQ(IssuedLaunches(LayerLaunches(m, Qwen3OnEightH100("full_iteration", {}), LayerKind::kMoeTransformer, false)),
            0);
  // The drop-and-pad 'moe' scope captures the dispatch too.
  EXPECT_TRUE(GraphCaptures(Qwen3OnEightH100("transformer_engine", {"moe"}), HostRegion::kMoeDispatch));
  EXPECT_FALSE(GraphCaptures(Qwen3OnEightH100("transformer_engine", {}), HostRegion::kMoeDispatch));
  // Which graph runs each region (GraphOf, also read by the graphs' memory):
  // the whole-layer graph stops before the dropless dispatch; local graphs
  // capture moe_router and moe_preprocess together (transformer_config.py:2807).
  EXPECT_EQ(GraphOf(Qwen3OnEightH100("transformer_engine", {}), HostRegion::kMoePreprocess), CapturingGraph::kLayer);
  EXPECT_EQ(GraphOf(Qwen3OnEightH100("transformer_engine", {"moe"}), HostRegion::kMoeRouter), CapturingGraph::kMoe);
  EXPECT_EQ(GraphOf(Qwen3OnEightH100("local", {"moe_router"}), HostRegion::kMoePreprocess), CapturingGraph::kMoeRouter);
  EXPECT_EQ(GraphOf(Qwen3OnEightH100("transformer_engine", {"moe_router"}), HostRegion::kMoePreprocess),
            CapturingGraph::kNone);
  const auto local =
      ByName(LayerLaunches(m, Qwen3OnEightH100("local", {"moe_router"}), LayerKind::kMoeTransformer, false));
  EXPECT_TRUE(local.at("moe_preprocess").captured);
  EXPECT_EQ(local.at("moe_router").Issued(), 2 + 4);  // replayed with the preprocess
}

// On 8 H100 with 512-token microbatches the small MoE layer is host-bound
// eagerly: the router and preprocess graphs bring the host under the GPU,
// attn lowers the host time further, and only full-iteration graphs remove
// the token-count sync and the expert launches waiting behind it.
TEST(HostLaunchesTest, ScopedGraphsLowerHostBoundTimeOfSmallMoe) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  const Device d = MakeDevice(*Catalog::Get().FindSystem("h100-sxm"), Precision::kBf16);
  const PerfParams p = CalibratedPerfParams();
  auto layer = [&](const std::string& impl, std::vector<std::string> modules) {
    return TimeLayer(m, Qwen3OnEightH100(impl, std::move(modules)), LayerKind::kMoeTransformer, 0, false, false, d, p);
  };
  // What the host adds beyond the GPU's kernels.
  auto host_bound = [](const LayerTime& t) { return std::max(0.0, t.host_s - (t.Forward() + t.Backward())); };
  const LayerTime eager = layer("none", {});
  const LayerTime router = layer("transformer_engine", {"moe_router", "moe_preprocess"});
  const LayerTime attn = layer("transformer_engine", {"attn", "moe_router", "moe_preprocess"});
  const LayerTime full = layer("full_iteration", {});
  EXPECT_GT(host_bound(eager), 0);
  EXPECT_EQ(host_bound(router), 0);
  EXPECT_GT(eager.host_s, router.host_s);
  EXPECT_GT(router.host_s, attn.host_s);
  EXPECT_GT(attn.host_s, 0);
  EXPECT_EQ(full.host_s, 0);
  // Launch for launch: the host time falls by the removed launches.
  EXPECT_NEAR(eager.host_s - router.host_s, (24 + 12 - 10) * p.host_launch_us * 1e-6, 1e-12);
  EXPECT_NEAR(router.host_s - attn.host_s, (33 - 15) * p.host_launch_us * 1e-6, 1e-12);
  // The sync and the expert launches behind it stay under per-layer scopes.
  EXPECT_EQ(router.sync_s, eager.sync_s);
  EXPECT_EQ(attn.sync_s, eager.sync_s);
  EXPECT_GT(eager.sync_s, 0);
  EXPECT_EQ(full.sync_s, 0);
}

TEST(HostLaunchesTest, Fp8AddsQuantizeKernelsPerGemm) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  ResolvedConfig c = Qwen3OnEightH100("none", {});
  const auto bf16 = ByName(LayerLaunches(m, c, LayerKind::kMoeTransformer, false));
  c.precision = Precision::kFp8Cs;
  const auto fp8 = ByName(LayerLaunches(m, c, LayerKind::kMoeTransformer, false));
  // Two attention GEMMs, 4 kernels per current-scaling quantize, each pass.
  EXPECT_EQ(fp8.at("attention").forward - bf16.at("attention").forward, 8);
  EXPECT_EQ(fp8.at("attention").backward - bf16.at("attention").backward, 8);
  // The router GEMM stays in bf16.
  EXPECT_EQ(fp8.at("moe_router").forward, bf16.at("moe_router").forward);
}

TEST(HostLaunchesTest, DescriptionNamesRegionsAndReplays) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  const std::string text = DescribeLaunches(LayerLaunches(
      m, Qwen3OnEightH100("transformer_engine", {"moe_router", "moe_preprocess"}), LayerKind::kMoeTransformer, false));
  EXPECT_NE(text.find("attention 33"), std::string::npos) << text;
  EXPECT_NE(text.find("moe_router 24 (graphed: 6 for the replay)"), std::string::npos) << text;
}

}  // namespace
}  // namespace parplan
