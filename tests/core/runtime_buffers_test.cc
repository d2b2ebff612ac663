// The MoE dispatcher's buffers and CUDA-graph memory, with the arithmetic
// written out (core/memory/README.md section 6).
#include "core/memory/runtime_buffers.h"

#include <string>
#include <vector>

#include "core/memory/memory_model.h"
#include "core/memory/memory_steps.h"
#include "core/perf/host_launches.h"
#include "gtest/gtest.h"
#include "tests/core/memory_case.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

using Case = testing_util::MemoryCase;
using testing_util::EstimateMemoryTerms;
using testing_util::MakeMemoryCase;

bool Mentions(const MemoryEstimate& e, const std::string& text) {
  for (const auto& a : e.assumptions) {
    if (a.find(text) != std::string::npos) return true;
  }
  return false;
}

// DeepEP's hints (csrc/config.hpp) for DeepSeek-V3 rows (7168 x 2 B = 14,336 B)
// on 32 ranks, 20 SMs = 10 channels, 8 NVLink peers, 4 RDMA ranks; dispatch
// config (32: 32, 288, 32, 128), combine (32: 1, 288, 8, 128).
// NVLink: 10*8*(2*4+3)*4 + 10*8*288*(14336 + 8 + 128*8 + 128*4 + 128*4)
//       = 3,520 + 23,040 * 16,392 = 377,675,200 -> rounded up to 128: 377,675,264.
// RDMA (recv 128, a multiple of both send chunks): 10*4*18*2*4 + 10*4*128 * 2*(14336 + 8 + 1024 + 512 + 512 + 16)
//       = 5,760 + 5,120 * 32,816 = 168,023,680 (already a multiple of 128).
TEST(RuntimeBuffersTest, DeepEpSizeHintsByHand) {
  const DeepEpSizes s = DeepEpBufferSizes(7168 * 2, 32);
  ASSERT_TRUE(s.supported);
  EXPECT_DOUBLE_EQ(s.nvl_bytes, 377675264.0);
  EXPECT_DOUBLE_EQ(s.rdma_bytes, 168023680.0);
  // Within one NVLink group of 8 there is no RDMA buffer:
  // 10*8*(2*1+3)*4 + 10*8*256*(14336 + 2056) = 1,600 + 20,480 * 16,392 = 335,709,760 -> 335,709,824.
  const DeepEpSizes eight = DeepEpBufferSizes(7168 * 2, 8);
  EXPECT_DOUBLE_EQ(eight.nvl_bytes, 335709824.0);
  EXPECT_DOUBLE_EQ(eight.rdma_bytes, 0.0);
  // DeepEP has no config for 12 ranks.
  EXPECT_FALSE(DeepEpBufferSizes(7168 * 2, 12).supported);
}

// DeepSeek-V3 on EP 32 (ETP 1) with flex + deepep: every stage holding MoE
// layers carries NVLink + RDMA + the 32 MiB workspace = 579,253,376 B; the
// first stage of PP 2 holds only the three dense layers and carries none;
// alltoall adds none of it.
TEST(RuntimeBuffersTest, DeepEpBufferOnMoeStagesOnly) {
  ResolvedConfig c;
  c.ep = 32;
  c.etp = 1;
  c.pp = 2;
  c.first_stage_layers = 3;
  c.seq_length = 4096;
  c.gbs = 64;
  c.moe_token_dispatcher_type = "flex";
  c.moe_flex_dispatcher_backend = "deepep";
  const Case s = MakeMemoryCase("deepseek_v3", c);
  const MemoryEstimate e = EstimateMemoryTerms(s, 64, "b200");
  ASSERT_EQ(e.stages.size(), 2u);
  const double expected = 377675264.0 + 168023680.0 + 32.0 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(e.stages[0].dispatcher_buffer_bytes, 0.0);
  EXPECT_DOUBLE_EQ(e.stages[1].dispatcher_buffer_bytes, expected);
  EXPECT_TRUE(Mentions(e, "DeepEP buffers"));
  EXPECT_TRUE(Mentions(e, "PP rank(s) holding MoE layers: 1"));

  Case a2a = s;
  a2a.config.moe_token_dispatcher_type = "alltoall";
  const MemoryEstimate plain = EstimateMemoryTerms(a2a, 64, "b200");
  EXPECT_DOUBLE_EQ(plain.stages[1].dispatcher_buffer_bytes, 0.0);
  // The buffer is its own term of the total (overhead fixed at 0 here).
  EXPECT_DOUBLE_EQ(e.stages[1].total_bytes - plain.stages[1].total_bytes, expected);
  // The alltoall answer states its staging and that it is transient:
  // 4,096 tokens x top-8 x 7168 x 2 B = 469,762,048 B = 448.0 MiB.
  EXPECT_TRUE(Mentions(plain, "no persistent buffers"));
  EXPECT_TRUE(Mentions(plain, "448.0 MiB"));
}

// HybridEP, DeepSeek-V3 on 64 GB200 ranks of one NVL72 domain, 4,096 tokens
// per rank: M = 4,096 * 64 = 262,144 rows; rows 262,144*7168*2 = 3,758,096,384;
// probabilities 262,144 * (256/64 experts * 64 ranks) * 4 = 268,435,456;
// FP8 scales 262,144 * 56 * 4 = 58,720,256; routing-map all-gather
// 256 * 4,096 * 64 = 67,108,864 -> 4,152,360,960 B (3.87 GiB).
TEST(RuntimeBuffersTest, HybridEpSizedForTheWholeGroup) {
  ResolvedConfig c;
  c.ep = 64;
  c.etp = 1;
  c.seq_length = 4096;
  c.moe_token_dispatcher_type = "flex";
  c.moe_flex_dispatcher_backend = "hybridep";
  const ModelSpec m = CatalogModel("deepseek_v3");
  auto gb200 = Catalog::Get().FindSystem("gb200-nvl72");
  ASSERT_TRUE(gb200.ok());
  const DispatcherBuffers b = DispatcherBufferBytes(m, c, &*gb200, true);
  EXPECT_DOUBLE_EQ(b.intra_bytes, 3758096384.0 + 268435456.0 + 58720256.0);
  EXPECT_DOUBLE_EQ(b.other_bytes, 67108864.0);
  EXPECT_DOUBLE_EQ(b.inter_bytes, 0.0);
  EXPECT_NE(b.reason.find("64 per NVLink domain"), std::string::npos) << b.reason;
  // On 8-GPU H100 nodes the same group spans 8 domains: the NVLink part is the
  // same size, the probabilities cover the domain's 8 ranks, and the
  // inter-domain buffers appear.
  auto h100 = Catalog::Get().FindSystem("h100-sxm");
  ASSERT_TRUE(h100.ok());
  const DispatcherBuffers split = DispatcherBufferBytes(m, c, &*h100);
  EXPECT_DOUBLE_EQ(split.intra_bytes, 3758096384.0 + 262144.0 * 4 * 8 * 4 + 58720256.0);
  EXPECT_GT(split.inter_bytes, 0.0);
  // A dense model has no dispatcher.
  EXPECT_DOUBLE_EQ(DispatcherBufferBytes(CatalogModel("llama3_8b"), c, &*gb200).total(), 0.0);
}

// CUDA graphs on Qwen3-30B-A3B (48 MoE layers, hidden 2048), TP 1, EP 8, PP 1,
// 4,096 tokens: one microbatch in flight, hidden buffer 4,096*2048*2 =
// 16,777,216 B. A graph's output held besides the next graph's saved copy
// costs one buffer per hand-off; the backward's gradient-output buffer is
// shared (one buffer).
TEST(RuntimeBuffersTest, GraphStaticBuffersCountHandOffs) {
  ResolvedConfig c;
  c.ep = 8;
  c.etp = 1;
  c.seq_length = 4096;
  c.gbs = 8;
  Case s = MakeMemoryCase("qwen3_30b_a3b", c);
  EXPECT_DOUBLE_EQ(EstimateMemoryTerms(s, 8, "h100-sxm").stages[0].cuda_graph_bytes, 0.0);
  const double buffer = 4096.0 * 2048 * 2;
  auto graphs = [&s](std::vector<std::string> modules, const char* impl = "transformer_engine") {
    s.config.cuda_graph_impl = impl;
    s.config.cuda_graph_modules = std::move(modules);
    const MemoryEstimate e = EstimateMemoryTerms(s, 8, "h100-sxm");
    const CudaGraphStage g = GraphStageBytes(PrepareMemory(s.model, s.config, s.plan, 8), 0, e.stages[0]);
    EXPECT_DOUBLE_EQ(e.stages[0].cuda_graph_bytes, g.total());
    return g;
  };
  // attn graphs hand their output to the eager MoE block: no hand-off.
  const CudaGraphStage attn = graphs({"attn"});
  EXPECT_DOUBLE_EQ(attn.static_bytes, buffer);
  EXPECT_EQ(attn.captured_layers, 48);
  EXPECT_GT(attn.pool_bytes, 0.0);
  // attn -> moe_router is a hand-off in each of the 48 layers.
  const CudaGraphStage routed = graphs({"attn", "moe_router", "moe_preprocess"});
  EXPECT_DOUBLE_EQ(routed.static_bytes, 48 * buffer + buffer);
  EXPECT_DOUBLE_EQ(routed.pool_bytes, attn.pool_bytes);  // the same layers, the same working set
  // Whole layers of a dropless MoE model: each layer's graph ends before the
  // dispatch, which stays eager (the host-launch model's GraphOf, which both
  // read), so no graph hands its output to the next graph. These two used
  // to disagree: memory chained 47 hand-offs between 48 whole-layer graphs
  // while the launch count kept the dispatch eager.
  ResolvedConfig whole = s.config;
  whole.cuda_graph_impl = "transformer_engine";
  whole.cuda_graph_modules = {};
  EXPECT_FALSE(GraphCaptures(whole, HostRegion::kMoeDispatch));
  EXPECT_TRUE(GraphCaptures(whole, HostRegion::kMoeRouter));
  const CudaGraphStage whole_layers = graphs({});
  EXPECT_DOUBLE_EQ(whole_layers.static_bytes, buffer);
  EXPECT_EQ(whole_layers.captured_layers, 48);
  s.config.cuda_graph_modules = {};
  EXPECT_TRUE(Mentions(EstimateMemoryTerms(s, 8, "h100-sxm"), "whole layers but the dropless MoE dispatch"));
  // Local graphs capture moe_router and moe_preprocess together
  // (transformer_config.py:2807): one graph up to the dispatch, in the
  // buffers as in the launches.
  whole.cuda_graph_impl = "local";
  whole.cuda_graph_modules = {"attn", "moe_router"};
  EXPECT_TRUE(GraphCaptures(whole, HostRegion::kMoePreprocess));
  EXPECT_DOUBLE_EQ(graphs({"attn", "moe_router"}, "local").static_bytes, 48 * buffer + buffer);
  // The full-iteration graph keeps every microbatch's batch: 28 B x 4,096
  // tokens x 1 microbatch (GBS 8 over DP 8).
  EXPECT_DOUBLE_EQ(graphs({}, "full_iteration").static_bytes, 28.0 * 4096);
}

// Graph memory grows with the layers the scope captures and the microbatches
// in flight. Llama 3 8B (dense, hidden 4096: buffer 4,096*4096*2 B): attn and
// mlp hand off twice a layer (attn -> mlp, mlp -> the next attn), but for the
// chunk's last mlp; mlp alone never hands off; DeepSeek-V3's mlp scope
// captures only its 3 dense layers.
TEST(RuntimeBuffersTest, GraphMemoryGrowsWithTheCapturedLayers) {
  const double buffer = 4096.0 * 4096 * 2;
  ResolvedConfig c;
  c.seq_length = 4096;
  c.gbs = 8;
  c.cuda_graph_impl = "transformer_engine";
  c.cuda_graph_modules = {"attn", "mlp"};
  Case s = MakeMemoryCase("llama3_8b", c);
  MemoryEstimate e = EstimateMemoryTerms(s, 8, "h100-sxm");
  EXPECT_DOUBLE_EQ(GraphStageBytes(PrepareMemory(s.model, s.config, s.plan, 8), 0, e.stages[0]).static_bytes,
                   (2 * 32 - 1) * buffer + buffer);
  const double both = e.stages[0].cuda_graph_bytes;
  s.config.cuda_graph_modules = {"mlp"};
  e = EstimateMemoryTerms(s, 8, "h100-sxm");
  EXPECT_DOUBLE_EQ(GraphStageBytes(PrepareMemory(s.model, s.config, s.plan, 8), 0, e.stages[0]).static_bytes, buffer);
  EXPECT_LT(e.stages[0].cuda_graph_bytes, both);

  // PP 2, 16 microbatches over DP 4: rank 0 holds 2 in flight, rank 1 one;
  // whole-layer graphs: 15 hand-offs per microbatch in flight.
  c.pp = 2;
  c.gbs = 16;
  c.cuda_graph_modules = {};
  s = MakeMemoryCase("llama3_8b", c);
  e = EstimateMemoryTerms(s, 8, "h100-sxm");
  const MemoryInputs in = PrepareMemory(s.model, s.config, s.plan, 8);
  EXPECT_DOUBLE_EQ(GraphStageBytes(in, 0, e.stages[0]).static_bytes, 15 * buffer * 2 + buffer);
  EXPECT_DOUBLE_EQ(GraphStageBytes(in, 1, e.stages[1]).static_bytes, 15 * buffer + buffer);
  EXPECT_TRUE(Mentions(e, "CUDA graphs (transformer_engine, whole layers)"));

  ResolvedConfig d;
  d.ep = 8;
  d.etp = 1;
  d.seq_length = 4096;
  d.gbs = 8;
  d.cuda_graph_impl = "transformer_engine";
  d.cuda_graph_modules = {"mlp"};
  const Case ds = MakeMemoryCase("deepseek_v3", d);
  const MemoryEstimate de = EstimateMemoryTerms(ds, 8, "b200");
  EXPECT_EQ(GraphStageBytes(PrepareMemory(ds.model, ds.config, ds.plan, 8), 0, de.stages[0]).captured_layers, 3);
}

}  // namespace
}  // namespace parplan
