// Stage-level memory with hand-derived numbers (the arithmetic is written in
// each test).
#include "core/memory/memory_model.h"

#include "core/memory/memory_planner.h"
#include "gtest/gtest.h"
#include "tests/core/memory_case.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

using Case = testing_util::MemoryCase;
using testing_util::EstimateMemoryTerms;
using testing_util::MakeMemoryCase;

// Llama 3 8B, TP=2 PP=2 on 8 GPUs (DP=2), seq 4096, MBS 1, GBS 8 (4 microbatches).
// One layer: attention 4096*128*(32+16) + 4096*4096 + 4096 = 41,947,136;
// MLP 3*4096*14336 + 4096 = 176,164,864; layer 218,112,000.
// Embedding 128256*4096 = 525,336,576 (128256 is a multiple of 128*TP=256).
// PP rank 0: (16 layers + embedding) / TP = 2,007,564,288 parameters.
TEST(MemoryModelTest, DenseGqaWithAndWithoutDistributedOptimizer) {
  ResolvedConfig c;
  c.tp = 2;
  c.etp = 2;
  c.pp = 2;
  c.sp = true;
  c.seq_length = 4096;
  c.gbs = 8;
  Case s = MakeMemoryCase("llama3_8b", c);
  const double params0 = (16.0 * 218112000 + 525336576) / 2;
  MemoryEstimate e = EstimateMemoryTerms(s, 8);
  ASSERT_EQ(e.stages.size(), 2u);
  const StageMemory& r0 = e.stages[0];
  EXPECT_DOUBLE_EQ(r0.dense_params, params0);
  EXPECT_DOUBLE_EQ(r0.weight_bytes, 2 * params0);
  EXPECT_DOUBLE_EQ(r0.grad_bytes, 4 * params0);
  EXPECT_DOUBLE_EQ(r0.optimizer_dense_bytes, 12 * params0 / 2);  // sharded over DP*CP = 2
  // Activations: 69,632 B/token/layer (see activation_model_test) * 4096 tokens * 16 layers,
  // 2 microbatches in flight on rank 0 (1F1B: min(PP - 0, 4)); token ids 8 B/token.
  EXPECT_DOUBLE_EQ(r0.activation_bytes, 69632.0 * 4096 * 16 * 2);
  EXPECT_DOUBLE_EQ(r0.embedding_bytes, 8.0 * 4096 * 2);
  EXPECT_DOUBLE_EQ(r0.in_flight_microbatches, 2.0);
  // Last rank: 1 microbatch in flight, the output layer, the final norm (replicated on
  // every TP rank), bf16 logits 2*4096*128256/2.
  const StageMemory& r1 = e.stages[1];
  EXPECT_DOUBLE_EQ(r1.dense_params, (16.0 * 218112000 + 525336576) / 2 + 4096);
  EXPECT_DOUBLE_EQ(r1.logits_bytes, 2.0 * 4096 * 128256 / 2);
  EXPECT_DOUBLE_EQ(r1.activation_bytes, (69632.0 * 16 + 2 * 2 * 4096 / 2) * 4096);

  s.config.distributed_optimizer = false;
  e = EstimateMemoryTerms(s, 8);
  EXPECT_DOUBLE_EQ(e.stages[0].optimizer_dense_bytes, 12 * params0);  // not sharded: 18 B/param in all
}

// Qwen3-30B-A3B with TP=2 but EP=4, ETP=1 on 8 GPUs: DP = 8/2 = 4 shards dense
// optimizer state, EDP = 8/4 = 2 shards expert state (the sharding groups upstream
// estimators conflated). Experts per layer 128 * 3*2048*768 = 603,979,776; per GPU /4.
TEST(MemoryModelTest, MoeExpertStateShardsOverEdp) {
  ResolvedConfig c;
  c.tp = 2;
  c.etp = 1;
  c.ep = 4;
  c.sp = true;
  c.seq_length = 4096;
  c.gbs = 32;
  Case s = MakeMemoryCase("qwen3_30b_a3b", c);
  MemoryEstimate e = EstimateMemoryTerms(s, 8);
  EXPECT_EQ(e.dp, 4);
  EXPECT_EQ(e.edp, 2);
  const StageMemory& st = e.stages[0];
  EXPECT_DOUBLE_EQ(st.expert_params, 48.0 * 603979776 / 4);
  EXPECT_DOUBLE_EQ(st.optimizer_expert_bytes, 12 * st.expert_params / 2);
  EXPECT_DOUBLE_EQ(st.optimizer_dense_bytes, 12 * st.dense_params / 4);
  // 32 / (1 * 4) = 8 microbatches; PP=1 keeps one in flight.
  EXPECT_EQ(e.microbatches, 8);
  EXPECT_DOUBLE_EQ(st.in_flight_microbatches, 1.0);
}

// Interleaved 1F1B, PP=4, VPP=2, 8 microbatches: rank r runs (4-r-1)*2 + (2-1)*4 + 1
// forward steps before its first backward; step k belongs to chunk (k/4) % 2.
// Rank 0: 11 steps -> chunk 0: 4+3 = 7, chunk 1: 4. Rank 3: 5 steps -> 4 and 1.
TEST(MemoryModelTest, InterleavedInFlightCounts) {
  ResolvedConfig c;
  c.pp = 4;
  c.vpp = 2;
  c.vpp_given = true;
  c.seq_length = 2048;
  c.gbs = 8;
  Case s = MakeMemoryCase("llama3_8b", c);
  MemoryEstimate e = EstimateMemoryTerms(s, 4);
  EXPECT_EQ(e.stages[0].chunks[0].in_flight, 7);
  EXPECT_EQ(e.stages[0].chunks[1].in_flight, 4);
  EXPECT_EQ(e.stages[3].chunks[0].in_flight, 4);
  EXPECT_EQ(e.stages[3].chunks[1].in_flight, 1);
  // Rank 0 equals PP + (PP-1)/VPP = 5.5 stage-microbatches (chunks are equal here:
  // 4 layers each, plus token ids on chunk 0 that the equivalence ignores).
  EXPECT_NEAR(e.stages[0].in_flight_microbatches, 5.5, 0.01);
  // Fewer microbatches than stages (1F1B): rank 0 holds min(PP, m) = 2.
  c.vpp = 1;
  c.vpp_given = false;
  c.gbs = 2;
  e = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", c), 4);
  EXPECT_EQ(e.stages[0].chunks[0].in_flight, 2);
}

// Full recompute, uniform 1: each layer keeps its input (2h = 8192 B/token at TP=1),
// one layer's full activations (139,264 B/token) are rebuilt at a time.
// Block 4: the first 4 layers keep inputs, the other 28 keep everything.
TEST(MemoryModelTest, FullRecomputeUniformAndBlock) {
  ResolvedConfig c;
  c.seq_length = 4096;
  c.gbs = 8;
  c.recompute = RecomputeGranularity::kFull;
  Case s = MakeMemoryCase("llama3_8b", c);
  MemoryEstimate e = EstimateMemoryTerms(s, 8);
  const double tokens = 4096;
  EXPECT_DOUBLE_EQ(e.stages[0].activation_bytes, (32 * 8192.0 + 2 * 2 * 4096) * tokens);
  EXPECT_DOUBLE_EQ(e.stages[0].recompute_working_bytes, 139264.0 * tokens);
  s.config.recompute_method = RecomputeMethod::kBlock;
  s.config.recompute_num_layers = 4;
  e = EstimateMemoryTerms(s, 8);
  EXPECT_DOUBLE_EQ(e.stages[0].activation_bytes, (4 * 8192.0 + 28 * 139264.0 + 2 * 2 * 4096) * tokens);
  s.config.recompute = RecomputeGranularity::kNone;
  e = EstimateMemoryTerms(s, 8);
  EXPECT_DOUBLE_EQ(e.stages[0].activation_bytes, (32 * 139264.0 + 2 * 2 * 4096) * tokens);
  EXPECT_DOUBLE_EQ(e.stages[0].recompute_working_bytes, 0);
}

// DeepSeek-V3 with the recipe layout "Et*4|(t*4|)*14tmL" on PP=4 (VPP=4 from the layout).
// Rank 0 holds stages 0,4,8,12 = layers 0-3, 16-19, 32-35, 48-51: 3 dense + 13 MoE, plus
// the embedding. Rank 3 holds stages 3,7,11,15 = layers 12-15, 28-31, 44-47, 60 (13 MoE)
// plus the MTP depth (a MoE layer), the output layer and the loss.
TEST(MemoryModelTest, UnevenLayoutPlacesLayersLikeMegatron) {
  ResolvedConfig c;
  c.pp = 4;
  c.ep = 64;
  c.etp = 1;
  c.seq_length = 4096;
  c.gbs = 4096;
  c.pipeline_layout = "Et*4|(t*4|)*14tmL";
  Case s = MakeMemoryCase("deepseek_v3", c);
  MemoryEstimate e = EstimateMemoryTerms(s, 256, "gb200-nvl72");
  ASSERT_EQ(e.stages.size(), 4u);
  const double experts_per_layer = 256.0 * 3 * 7168 * 2048 / 64;
  EXPECT_DOUBLE_EQ(e.stages[0].expert_params, 13 * experts_per_layer);
  EXPECT_DOUBLE_EQ(e.stages[3].expert_params, 14 * experts_per_layer);
  EXPECT_EQ(e.stages[3].decoder_layers, (std::vector<int64_t>{4, 4, 4, 1}));
  EXPECT_GT(e.stages[3].logits_bytes, 0);
  EXPECT_EQ(e.stages[0].logits_bytes, 0);
  EXPECT_GT(e.stages[0].embedding_bytes, 0);
  // Logits for the main head and the MTP head: 2 * 4096 * 129280 * 2 bytes.
  EXPECT_DOUBLE_EQ(e.stages[3].logits_bytes, 2.0 * 4096 * 129280 * 2);
}

// Nemotron-H 8B (hybrid): 24 Mamba, 4 attention and 24 MLP positions on one GPU.
TEST(MemoryModelTest, HybridMambaStage) {
  ResolvedConfig c;
  c.seq_length = 8192;
  c.gbs = 8;
  Case s = MakeMemoryCase("nemotronh_8b", c);
  MemoryEstimate e = EstimateMemoryTerms(s, 8);
  // Activations per token: 24 Mamba * 123,136 + 4 attention (norm 16384 + 2*(4096+2*1024+4096) = 36864)
  // + 24 MLP (norm 16384 + non-gated fc1 2*21504 + act 2*21504 = 102400) + final norm 2*2*4096.
  const double per_token = 24 * 123136.0 + 4 * 36864.0 + 24 * 102400.0 + 16384;
  EXPECT_DOUBLE_EQ(e.stages[0].activation_bytes, per_token * 8192);
}

TEST(MemoryModelTest, LoraTrainsOnlyAdapters) {
  ResolvedConfig c;
  c.pp = 4;
  c.seq_length = 4096;
  c.gbs = 32;
  c.lora = true;
  Case s = MakeMemoryCase("llama3_70b", c);
  MemoryEstimate e = EstimateMemoryTerms(s, 8);
  const StageMemory& st = e.stages[1];  // 20 layers, no embedding
  // Rank-32 adapters per layer: 32*((8192+10240) + (8192+8192) + (8192+57344) + (28672+8192)) = 4,390,912.
  EXPECT_DOUBLE_EQ(st.grad_bytes, 4.0 * 20 * 4390912);
  EXPECT_DOUBLE_EQ(st.weight_bytes, 2.0 * st.dense_params + 2.0 * 20 * 4390912);
  EXPECT_DOUBLE_EQ(st.optimizer_dense_bytes, 12.0 * 20 * 4390912 / 2);  // DP = 8/4 = 2
}

TEST(MemoryModelTest, FsdpShardsEverything) {
  ResolvedConfig c;
  c.seq_length = 8192;
  c.gbs = 64;
  c.fsdp = true;
  Case s = MakeMemoryCase("llama3_70b", c);
  MemoryEstimate e = EstimateMemoryTerms(s, 32, "gb200-nvl72");
  const StageMemory& st = e.stages[0];
  EXPECT_NEAR(st.weight_bytes, 2.0 * st.dense_params / 32, 1.0);
  EXPECT_NEAR(st.grad_bytes, 4.0 * st.dense_params / 32, 1.0);
  EXPECT_NEAR(st.optimizer_dense_bytes, 12.0 * st.dense_params / 32, 1.0);
  // Two gathered layers with their gradients: 2 * (2 + 4) * 855,654,400.
  EXPECT_DOUBLE_EQ(st.fsdp_working_bytes,
                   2.0 * 6 * (8192.0 * 128 * 80 + 64.0 * 128 * 8192 + 8192 + 3.0 * 8192 * 28672 + 8192));
}

TEST(MemoryModelTest, DefaultOverheadAndFit) {
  ResolvedConfig c;
  c.tp = 8;
  c.etp = 8;
  c.pp = 4;
  c.vpp = 5;
  c.vpp_given = true;
  c.sp = true;
  c.seq_length = 8192;
  c.gbs = 256;
  Case s = MakeMemoryCase("llama3_70b", c);
  auto sys = Catalog::Get().FindSystem("h100-sxm");
  const MemoryEstimate e = EstimateMemory(s.model, s.config, s.plan, 64, &*sys, MemoryOptions{});
  const StageMemory& st = e.stages[e.peak_pp_rank];
  const double rest = st.total_bytes - st.overhead_bytes;
  EXPECT_DOUBLE_EQ(st.overhead_bytes, kDefaultOverheadGiB * kGiB + kDefaultAllocatorSlack * rest);
  EXPECT_DOUBLE_EQ(e.capacity_bytes, 80 * kGiB);
  EXPECT_TRUE(e.fits);
  EXPECT_DOUBLE_EQ(e.headroom_bytes, e.capacity_bytes - e.peak_bytes);
}

}  // namespace
}  // namespace parplan
