// What selective recompute costs the host and what it frees, per module and
// implementation: counts from core/perf/recompute_host.h, the layer's
// max(GPU, host) in core/perf/perf_steps.cc, the separate norms of
// core/model/norm_modules.h.
#include "core/perf/recompute_host.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/memory/activation_model.h"
#include "core/model/norm_modules.h"
#include "core/perf/host_launches.h"
#include "core/perf/layer_time.h"
#include "core/perf/perf_model.h"
#include "core/perf/perf_steps.h"
#include "core/pipeline/stage_plan.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

// Moonlight 16B as Bridge's 8-H100 recipe runs it (TP2 SP, EP8, bf16,
// alltoall, no graphs), one 1024-token microbatch: a host-bound MoE layer.
ResolvedConfig Moonlight(std::vector<std::string> modules) {
  ResolvedConfig c;
  c.tp = 2;
  c.sp = true;
  c.ep = 8;
  c.etp = 1;
  c.mbs = 1;
  c.gbs = 4;
  c.seq_length = 1024;
  if (!modules.empty()) {
    c.recompute = RecomputeGranularity::kSelective;
    c.recompute_modules = std::move(modules);
  }
  return c;
}

TEST(RecomputeHostTest, EachModuleCountsItsReplayedLaunchesAndCheckpoints) {
  const ModelSpec m = CatalogModel("moonlight_16b");
  const LayerKind moe = LayerKind::kMoeTransformer;
  // mla_up_proj: q projection and kv_up (bf16: no quantize), 2 x 12 RoPE
  // kernels, 3 concatenations / copies (RoPE unfused: the recipe's DeepSeek
  // bridge clears apply_rope_fusion).
  RecomputeHost h = SelectiveRecomputeHost(m, Moonlight({"mla_up_proj"}), moe);
  EXPECT_EQ(h.launches, 2 + 24 + 3);
  EXPECT_EQ(h.checkpoints, 1);
  // Fused (Bridge's perf recipes): one kernel for Q, one for K and V.
  ResolvedConfig fused = Moonlight({"mla_up_proj"});
  fused.apply_rope_fusion = true;
  EXPECT_EQ(SelectiveRecomputeHost(m, fused, moe).launches, 2 + 2);
  h = SelectiveRecomputeHost(m, Moonlight({"moe_act"}), moe);
  EXPECT_EQ(h.launches, 3);
  EXPECT_EQ(h.checkpoints, 1);
  h = SelectiveRecomputeHost(m, Moonlight({"core_attn"}), moe);
  EXPECT_EQ(h.launches, 2);
  EXPECT_EQ(h.te_attention_calls, 1);  // TEDotProductAttention
  EXPECT_EQ(h.te_norm_calls, 0);
  // layernorm: MLA's input norm and the MoE block's pre-MLP norm are TENorms.
  h = SelectiveRecomputeHost(m, Moonlight({"layernorm", "moe_act"}), moe);
  EXPECT_EQ(h.launches, 2 + 3);
  EXPECT_EQ(h.checkpoints, 3);
  EXPECT_EQ(h.te_norm_calls, 2);  // the two TENorms
  EXPECT_EQ(h.te_attention_calls, 0);
  // mlp recomputes dense MLPs only: nothing on a MoE layer.
  EXPECT_EQ(SelectiveRecomputeHost(m, Moonlight({"mlp"}), moe).checkpoints, 0);
  EXPECT_EQ(SelectiveRecomputeHost(m, Moonlight({"mlp"}), LayerKind::kDenseTransformer).checkpoints, 1);
  // Full recompute is priced as the whole forward again, not here.
  ResolvedConfig full = Moonlight({});
  full.recompute = RecomputeGranularity::kFull;
  EXPECT_EQ(SelectiveRecomputeHost(m, full, moe).checkpoints, 0);
}

TEST(RecomputeHostTest, GraphsReplayTheRecomputeWithTheirRegion) {
  const ModelSpec m = CatalogModel("moonlight_16b");
  ResolvedConfig c = Moonlight({"mla_up_proj", "moe_act", "layernorm"});
  c.cuda_graph_impl = "transformer_engine";
  c.cuda_graph_modules = {"attn"};
  // The attention graph holds mla_up_proj and the input norm; the experts
  // and the pre-MLP norm stay eager.
  RecomputeHost h = SelectiveRecomputeHost(m, c, LayerKind::kMoeTransformer);
  EXPECT_EQ(h.launches, 3 + 1);
  EXPECT_EQ(h.checkpoints, 2);
  c.cuda_graph_impl = "full_iteration";
  c.cuda_graph_modules.clear();
  h = SelectiveRecomputeHost(m, c, LayerKind::kMoeTransformer);
  EXPECT_EQ(h.launches, 0);
  EXPECT_EQ(h.checkpoints, 0);
}

TEST(RecomputeHostTest, HostBoundLayerPaysForEveryRecomputedLaunch) {
  const ModelSpec m = CatalogModel("moonlight_16b");
  const SystemSpec sys = *Catalog::Get().FindSystem("h100-sxm");
  const PerfParams& p = CalibratedPerfParams();
  auto share = [&](const ResolvedConfig& c) {
    std::vector<Violation> v;
    const StagePlan plan = *PlanStages(m, c, &v);
    const StepInputs in = PrepareStep(m, c, plan, 8, sys, p);
    return ShareOfLayer(in, LayerKind::kMoeTransformer, 5, false, false);
  };
  const LayerShare none = share(Moonlight({}));
  const LayerTime& t = none.layer;
  ASSERT_GT(t.host_s, t.Forward() + t.Backward());  // host-bound
  ASSERT_GT(t.sync_s, 0);                           // reads its token counts on the host
  for (const std::string module : {"mla_up_proj", "moe_act", "core_attn"}) {
    const LayerShare with = share(Moonlight({module}));
    const RecomputeHost h = SelectiveRecomputeHost(m, Moonlight({module}), LayerKind::kMoeTransformer);
    EXPECT_NEAR(with.layer.recompute_host_s, p.host_launch_us * h.launches * 1e-6, 1e-12);
    EXPECT_NEAR(with.layer.recompute_checkpoint_s,
                (p.recompute_checkpoint_us * h.checkpoints + p.recompute_te_norm_us * h.te_norm_calls +
                 p.recompute_te_attention_us * h.te_attention_calls) *
                    1e-6,
                1e-12);
    // Still host-bound after the recompute: the layer takes every added
    // launch and checkpoint longer; its kernels fill GPU time that waited anyway.
    ASSERT_GT(t.host_s + with.layer.recompute_host_s, t.Forward() + t.Backward() + with.time.recompute) << module;
    EXPECT_NEAR(with.time.Compute() - none.time.Compute(),
                with.layer.recompute_host_s + with.layer.recompute_checkpoint_s, 1e-9)
        << module;
  }
}

TEST(RecomputeHostTest, GpuBoundLayerPaysForTheKernelsOnly) {
  // Llama 3 70B at TP4, 8192 tokens: the GPU is far behind the host.
  const ModelSpec m = CatalogModel("llama3_70b");
  const SystemSpec sys = *Catalog::Get().FindSystem("h100-sxm");
  ResolvedConfig c;
  c.tp = 4;
  c.sp = true;
  c.etp = 1;
  c.seq_length = 8192;
  c.gbs = 8;
  std::vector<Violation> v;
  const StagePlan plan = *PlanStages(m, c, &v);
  const StepInputs none = PrepareStep(m, c, plan, 4, sys, CalibratedPerfParams());
  const LayerShare base = ShareOfLayer(none, LayerKind::kDenseTransformer, 0, false, false);
  c.recompute = RecomputeGranularity::kSelective;
  c.recompute_modules = {"mlp"};
  const StepInputs mlp = PrepareStep(m, c, plan, 4, sys, CalibratedPerfParams());
  const LayerShare with = ShareOfLayer(mlp, LayerKind::kDenseTransformer, 0, false, false);
  EXPECT_GT(with.layer.recompute_host_s, 0);
  const double kernels = with.layer.forward[static_cast<int>(LayerPart::kMlp)] +
                         with.layer.forward[static_cast<int>(LayerPart::kMlpActivation)];
  EXPECT_NEAR(with.time.Compute() - base.time.Compute(), kernels, 1e-9);
}

// A MoE layer that reads its token counts on the host cannot run ahead of
// the GPU: even where its kernels outlast its launches, the checkpoints and
// the launches a recompute replays add to the step. A whole-MoE replay's
// launches, issued before its own sync, stay hidden behind the GPU.
TEST(RecomputeHostTest, HostTiedLayerShowsReplayedLaunchesEvenWhenGpuBound) {
  const ModelSpec m = CatalogModel("moonlight_16b");
  const SystemSpec sys = *Catalog::Get().FindSystem("h100-sxm");
  const PerfParams& p = CalibratedPerfParams();
  auto share = [&](ResolvedConfig c) {
    c.seq_length = 32768;
    c.tp = 1;
    c.sp = false;
    std::vector<Violation> v;
    const StagePlan plan = *PlanStages(m, c, &v);
    const StepInputs in = PrepareStep(m, c, plan, 8, sys, p);
    return ShareOfLayer(in, LayerKind::kMoeTransformer, 5, false, false);
  };
  const LayerShare none = share(Moonlight({}));
  ASSERT_LT(none.layer.host_s, none.layer.Forward() + none.layer.Backward());  // GPU-bound
  ASSERT_GT(none.layer.sync_s, 0);                                             // host-tied
  const LayerShare up = share(Moonlight({"mla_up_proj"}));
  ASSERT_GT(up.layer.recompute_host_s, 0);
  EXPECT_NEAR(up.time.Compute() - none.time.Compute(),
              up.time.recompute + up.layer.recompute_host_s + up.layer.recompute_checkpoint_s, 1e-9);
  const LayerShare moe = share(Moonlight({"moe"}));
  ASSERT_GT(moe.layer.recompute_moe_host_s, 0);
  EXPECT_DOUBLE_EQ(moe.layer.recompute_moe_host_s, moe.layer.recompute_host_s);
  EXPECT_NEAR(moe.time.Compute() - none.time.Compute(), moe.time.recompute + moe.layer.recompute_checkpoint_s, 1e-9);
}

TEST(RecomputeHostTest, WholeMoeRecomputeReplaysTheBlocksEagerLaunches) {
  const ModelSpec m = CatalogModel("moonlight_16b");
  const ResolvedConfig c = Moonlight({"moe"});
  double forward = 0;
  for (const RegionLaunches& r : LayerLaunches(m, c, LayerKind::kMoeTransformer, false)) {
    if (r.region != HostRegion::kAttention) forward += r.forward;
  }
  const RecomputeHost h = SelectiveRecomputeHost(m, c, LayerKind::kMoeTransformer);
  EXPECT_EQ(h.launches, forward);
  EXPECT_EQ(h.checkpoints, 1);
  // moe_act inside a recomputed moe block is not a second checkpoint.
  EXPECT_EQ(SelectiveRecomputeHost(m, Moonlight({"moe", "moe_act"}), LayerKind::kMoeTransformer).checkpoints, 1);
}

// What "layernorm" frees depends on the implementation: Transformer Engine
// fuses standard attention's and a dense MLP's norms into the next GEMM
// (nothing to discard), while MLA and MoE blocks have separate TENorms whose
// outputs (the next GEMMs' saved inputs) recompute frees.
TEST(RecomputeHostTest, LayernormFreesOnlySeparateNormOutputs) {
  const ModelSpec llama = CatalogModel("llama3_8b");
  const ModelSpec moonlight = CatalogModel("moonlight_16b");
  const ModelSpec nano = CatalogModel("nemotron_3_nano");
  EXPECT_EQ(RecomputableNorms(llama, LayerKind::kDenseTransformer), 0);
  EXPECT_EQ(RecomputableNorms(moonlight, LayerKind::kDenseTransformer), 1);
  EXPECT_EQ(RecomputableNorms(moonlight, LayerKind::kMoeTransformer), 2);
  EXPECT_EQ(RecomputableNorms(nano, LayerKind::kMamba), 0);
  EXPECT_EQ(RecomputableNorms(nano, LayerKind::kAttentionOnly), 0);
  EXPECT_EQ(RecomputableNorms(nano, LayerKind::kMoeOnly), 1);

  ResolvedConfig none = Moonlight({});
  ResolvedConfig ln = Moonlight({"layernorm"});
  // Dense GQA (Llama): no change.
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(llama, LayerKind::kDenseTransformer, ln),
                   LayerActivationBytesPerToken(llama, LayerKind::kDenseTransformer, none));
  // Moonlight MoE layer: two norm outputs of h bf16 values, sequence-parallel over TP 2.
  const double h = static_cast<double>(moonlight.hidden_size);
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(moonlight, LayerKind::kMoeTransformer, none) -
                       LayerActivationBytesPerToken(moonlight, LayerKind::kMoeTransformer, ln),
                   2 * 2.0 * h / 2);
  // Its dense first layer: the MLA input norm only.
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(moonlight, LayerKind::kDenseTransformer, none) -
                       LayerActivationBytesPerToken(moonlight, LayerKind::kDenseTransformer, ln),
                   2.0 * h / 2);
  // Nemotron 3 Nano: Mamba and attention layers keep theirs; MoE layers free one.
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(nano, LayerKind::kMamba, ln),
                   LayerActivationBytesPerToken(nano, LayerKind::kMamba, none));
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(nano, LayerKind::kMoeOnly, none) -
                       LayerActivationBytesPerToken(nano, LayerKind::kMoeOnly, ln),
                   2.0 * nano.hidden_size / 2);
}

}  // namespace
}  // namespace parplan
