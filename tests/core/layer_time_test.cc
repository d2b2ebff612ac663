#include "core/perf/layer_time.h"

#include <gtest/gtest.h>

#include "core/catalog/catalog.h"
#include "core/perf/flops.h"
#include "core/perf/perf_model.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

ResolvedConfig Config(int64_t tp, int64_t ep = 1) {
  ResolvedConfig c;
  c.tp = tp;
  c.etp = 1;
  c.ep = ep;
  c.sp = tp > 1;
  c.mbs = 1;
  c.seq_length = 8192;
  return c;
}

Device H100() { return MakeDevice(*Catalog::Get().FindSystem("h100-sxm"), Precision::kBf16); }

TEST(LayerTimeTest, DenseLayerIsMostlyGemmsAndSplitsOverTp) {
  const ModelSpec m = CatalogModel("llama3_70b");
  const PerfParams p;
  const LayerTime one = TimeLayer(m, Config(1), LayerKind::kDenseTransformer, 0, false, false, H100(), p);
  const LayerTime four = TimeLayer(m, Config(4), LayerKind::kDenseTransformer, 0, false, false, H100(), p);
  double gemm = 0;
  for (int i = 0; i < kLayerParts; ++i) {
    if (KindOfPart(static_cast<LayerPart>(i)) == ComputeKind::kGemm) gemm += one.forward[i] + one.backward[i];
  }
  EXPECT_GT(gemm, 0.6 * (one.Forward() + one.Backward()));
  // The backward is about twice the forward (two gradient GEMMs per GEMM).
  EXPECT_NEAR(one.Backward() / one.Forward(), 2.0, 0.5);
  // TP=4 cuts the per-GPU work by about 4 and adds 4 collectives per pass.
  EXPECT_NEAR((one.Forward() + one.Backward()) / (four.Forward() + four.Backward()), 4.0, 0.8);
  EXPECT_EQ(one.tp_collectives, 0);
  EXPECT_EQ(four.tp_collectives, 4);
  EXPECT_DOUBLE_EQ(four.tp_buffer_bytes, 8192.0 * 8192 * 2);
}

TEST(LayerTimeTest, GemmTimeTracksModelFlops) {
  // At the ceiling, the dense GEMM FLOPs of a layer take FLOPs / (ceiling x
  // peak): the GEMM parts of a Llama-3 70B layer (large, well-shaped GEMMs)
  // come within 10% of that.
  const ModelSpec m = CatalogModel("llama3_70b");
  const PerfParams p;
  const Device d = H100();
  const LayerTime t = TimeLayer(m, Config(1), LayerKind::kDenseTransformer, 0, false, false, d, p);
  double gemm = 0;
  for (LayerPart part : {LayerPart::kAttentionProjections, LayerPart::kMlp}) {
    gemm += t.forward[static_cast<int>(part)] + t.backward[static_cast<int>(part)];
  }
  const double flops = LayerFlopsPerToken(m, LayerKind::kDenseTransformer, 0, 8192, false).dense_gemm * 8192;
  EXPECT_NEAR(gemm, flops / (d.gemm_ceiling * d.peak_flops), 0.1 * gemm);
}

TEST(LayerTimeTest, MoeLayerHasRoutingExpertsAndAllToAll) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  const PerfParams p;
  const LayerTime t = TimeLayer(m, Config(1, 8), LayerKind::kMoeTransformer, 0, false, false, H100(), p);
  EXPECT_TRUE(t.moe);
  EXPECT_GT(t.forward[static_cast<int>(LayerPart::kExpertGemms)], 0);
  EXPECT_GT(t.forward[static_cast<int>(LayerPart::kMoeRouting)], 0);
  EXPECT_EQ(t.forward[static_cast<int>(LayerPart::kMlp)], 0);
  EXPECT_EQ(t.ep_all_to_alls, 2);
  EXPECT_DOUBLE_EQ(t.ep_bytes, 8192.0 * m.moe_router_topk * m.hidden_size * 2);
  // 128 experts over EP=8: the host issues 16 experts' GEMMs after the sync.
  EXPECT_NEAR(t.sync_s, (p.moe_sync_us + p.expert_launch_us * 6 * 16) * 1e-6, 1e-12);
}

TEST(LayerTimeTest, TpOverlapTakesSmsFromTheGemmsBesideIt) {
  const ModelSpec m = CatalogModel("llama3_70b");
  const PerfParams p;
  const LayerTime plain = TimeLayer(m, Config(4), LayerKind::kDenseTransformer, 0, false, false, H100(), p);
  const LayerTime overlapped = TimeLayer(m, Config(4), LayerKind::kDenseTransformer, 0, false, true, H100(), p);
  // The row-parallel forward GEMMs (projection, fc2) lose the most SMs; a
  // smaller grid can land on a better last wave, so compare whole parts.
  const int mlp = static_cast<int>(LayerPart::kMlp);
  const int proj = static_cast<int>(LayerPart::kAttentionProjections);
  EXPECT_GT(overlapped.forward[mlp], plain.forward[mlp]);
  EXPECT_GT(overlapped.forward[proj], plain.forward[proj]);
  EXPECT_GT(overlapped.Forward() + overlapped.Backward(), plain.Forward() + plain.Backward());
  EXPECT_LT(overlapped.forward[mlp], 1.25 * plain.forward[mlp]);
  const int attn = static_cast<int>(LayerPart::kCoreAttention);
  EXPECT_DOUBLE_EQ(overlapped.forward[attn], plain.forward[attn]);
}

TEST(LayerTimeTest, ContextParallelRingKeepsTheAttentionWork) {
  // CP=4: the rank's own chunks causally plus three half-size unmasked
  // steps: about a quarter of the CP=1 attention, a little more for the
  // shorter calls.
  const ModelSpec m = CatalogModel("llama3_8b");
  const PerfParams p;
  ResolvedConfig c = Config(1);
  c.seq_length = 32768;
  const LayerTime one = TimeLayer(m, c, LayerKind::kDenseTransformer, 0, false, false, H100(), p);
  c.cp = 4;
  const LayerTime four = TimeLayer(m, c, LayerKind::kDenseTransformer, 0, false, false, H100(), p);
  const int a = static_cast<int>(LayerPart::kCoreAttention);
  EXPECT_GT(four.forward[a], 0.25 * one.forward[a]);
  EXPECT_LT(four.forward[a], 0.35 * one.forward[a]);
}

TEST(LayerTimeTest, MambaLayerPaysItsScanAndItsPythonLaunches) {
  const ModelSpec m = CatalogModel("nemotron_3_nano");
  const PerfParams p;
  ResolvedConfig c = Config(1);
  const LayerTime t = TimeLayer(m, c, LayerKind::kMamba, 0, false, false, H100(), p);
  EXPECT_GT(t.forward[static_cast<int>(LayerPart::kMambaScan)], 0);
  // 19 launches of the mixer besides the SSD, whose measured Python launches come on top.
  EXPECT_NEAR(t.host_s, (19 * p.host_launch_us + H100().rates.ssd_host_us) * 1e-6, 1e-12);
  // Graphed, only the replay's 8 host operations remain.
  c.cuda_graph_impl = "transformer_engine";
  EXPECT_NEAR(TimeLayer(m, c, LayerKind::kMamba, 0, false, false, H100(), p).host_s, 8 * p.host_launch_us * 1e-6,
              1e-12);
}

TEST(LayerTimeTest, CudaGraphsRemoveHostTime) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  const PerfParams p;
  ResolvedConfig c = Config(1, 8);
  const LayerTime eager = TimeLayer(m, c, LayerKind::kMoeTransformer, 0, false, false, H100(), p);
  c.cuda_graph_impl = "transformer_engine";
  c.cuda_graph_modules = {"attn", "moe_router", "moe_preprocess"};
  const LayerTime partial = TimeLayer(m, c, LayerKind::kMoeTransformer, 0, false, false, H100(), p);
  c.cuda_graph_impl = "full_iteration";
  const LayerTime full = TimeLayer(m, c, LayerKind::kMoeTransformer, 0, false, false, H100(), p);
  EXPECT_GT(eager.host_s, partial.host_s);
  EXPECT_GT(partial.host_s, 0);
  EXPECT_EQ(full.host_s, 0);
  EXPECT_EQ(full.sync_s, 0);
  EXPECT_GT(eager.sync_s, 0);
}

TEST(LayerTimeTest, SelectiveModulesNameTheirParts) {
  EXPECT_TRUE(RecomputedBy(LayerPart::kCoreAttention, "core_attn"));
  EXPECT_FALSE(RecomputedBy(LayerPart::kMlp, "core_attn"));
  EXPECT_TRUE(RecomputedBy(LayerPart::kExpertGemms, "moe"));
  EXPECT_TRUE(RecomputedBy(LayerPart::kMoeActivation, "moe_act"));
  EXPECT_TRUE(RecomputedBy(LayerPart::kMlaUpProjections, "mla_up_proj"));
  EXPECT_TRUE(RecomputedBy(LayerPart::kNorms, "layernorm"));
  EXPECT_FALSE(RecomputedBy(LayerPart::kNorms, "mlp"));
}

TEST(LayerTimeTest, UnfusedAttentionComputesTheWholeScoreMatrix) {
  const ModelSpec m = CatalogModel("llama3_8b");
  const PerfParams p;
  ResolvedConfig c = Config(1);
  const LayerTime flash = TimeLayer(m, c, LayerKind::kDenseTransformer, 0, false, false, H100(), p);
  c.unfused_attention = true;
  const LayerTime unfused = TimeLayer(m, c, LayerKind::kDenseTransformer, 0, false, false, H100(), p);
  const int a = static_cast<int>(LayerPart::kCoreAttention);
  EXPECT_GT(unfused.forward[a], 1.5 * flash.forward[a]);
}

}  // namespace
}  // namespace parplan
