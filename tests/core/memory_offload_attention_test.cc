// Memory terms of issue 24 with hand-derived numbers: optimizer CPU offload
// (the offloaded share of the optimizer state leaves HBM), unfused
// attention's s x s scores, and the working buffers each cp_comm_type holds
// during one attention call.
#include <algorithm>
#include <string>

#include "core/memory/activation_model.h"
#include "core/memory/memory_model.h"
#include "core/model/attention_scores.h"
#include "gtest/gtest.h"
#include "tests/core/memory_case.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using Case = testing_util::MemoryCase;
using testing_util::EstimateMemoryTerms;
using testing_util::MakeMemoryCase;

bool Says(const MemoryEstimate& e, const std::string& text) {
  return std::any_of(e.assumptions.begin(), e.assumptions.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

// Llama 3 8B at 4096 tokens, TP=2 (SP) PP=2, GBS 8: the offload tests' mesh.
ResolvedConfig Llama8bTp2Pp2() {
  ResolvedConfig c;
  c.tp = 2;
  c.etp = 2;
  c.pp = 2;
  c.sp = true;
  c.seq_length = 4096;
  c.gbs = 8;
  return c;
}

// Llama 3 8B, TP=2 PP=2 on 8 GPUs, distributed optimizer (DP*CP = 2): each
// stage's optimizer state is 12 B x its dense parameters / 2. Offloading a
// fraction f moves f of it to the host, and takes f of the two fp32 moments
// (8 of the 12 B) off every stage's total: the distributed optimizer's fp32
// master shard stays in HBM (Megatron Bridge's sweep measured 8.0 B freed per
// offloaded parameter, tests/data/optimizer_offload_ab.csv).
TEST(MemoryOffloadTest, OptimizerOffloadLowersTheAnswerByTheOffloadedBytes) {
  ResolvedConfig c = Llama8bTp2Pp2();
  const MemoryEstimate base = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", c), 8);
  for (const double fraction : {1.0, 0.5}) {
    ResolvedConfig o = c;
    o.optimizer_cpu_offload = true;
    o.optimizer_offload_fraction = fraction;
    const MemoryEstimate e = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", o), 8);
    ASSERT_EQ(e.stages.size(), base.stages.size());
    for (size_t r = 0; r < e.stages.size(); ++r) {
      const StageMemory& b = base.stages[r];
      const StageMemory& st = e.stages[r];
      const double state = 12.0 * b.dense_params / 2;
      EXPECT_DOUBLE_EQ(b.optimizer_dense_bytes, state);
      EXPECT_DOUBLE_EQ(st.optimizer_host_bytes, fraction * state);
      const double moments = 8.0 / 12.0 * state;
      EXPECT_NEAR(st.optimizer_dense_bytes, state - fraction * moments, 1.0);
      EXPECT_NEAR(b.total_bytes - st.total_bytes, fraction * moments, 1.0);
    }
    EXPECT_NEAR(base.peak_bytes - e.peak_bytes, 8.0 / 12.0 * e.stages[e.peak_pp_rank].optimizer_host_bytes, 1.0);
    EXPECT_TRUE(Says(e, "sit in host memory")) << e.assumptions.back();
    EXPECT_TRUE(Says(e, "master shard stays in HBM"));
    EXPECT_TRUE(Says(e, "per 8-GPU node"));
  }
  // The fraction alone, without optimizer_cpu_offload, moves nothing.
  ResolvedConfig off = c;
  off.optimizer_offload_fraction = 1.0;
  const MemoryEstimate same = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", off), 8);
  EXPECT_DOUBLE_EQ(same.peak_bytes, base.peak_bytes);
  EXPECT_FALSE(Says(same, "host memory, not HBM"));
}

// With the precision-aware optimizer's bf16 moments asked for, offload still
// runs fp32 moments on both sides (Megatron-Core's offload branch builds its
// Adams without the moment dtypes): 12 B of state per parameter, 8 of them
// moments, against 8 B without offload.
TEST(MemoryOffloadTest, OffloadRunsFp32MomentsEvenWhenBf16AreAsked) {
  ResolvedConfig c = Llama8bTp2Pp2();
  c.optimizer_bf16 = true;
  const MemoryEstimate base = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", c), 8);
  c.optimizer_cpu_offload = true;
  c.optimizer_offload_fraction = 0.5;
  const MemoryEstimate e = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", c), 8);
  for (size_t r = 0; r < e.stages.size(); ++r) {
    const double params = base.stages[r].dense_params / 2;  // sharded over DP*CP = 2
    EXPECT_NEAR(base.stages[r].optimizer_dense_bytes, 8.0 * params, 1.0);
    EXPECT_NEAR(e.stages[r].optimizer_dense_bytes, (4.0 + 0.5 * 8.0) * params, 1.0);
    EXPECT_NEAR(e.stages[r].optimizer_host_bytes, 0.5 * 12.0 * params, 1.0);
  }
  EXPECT_TRUE(Says(e, "builds Adam without the bf16 moment dtypes"));
}

// DeepSeek-V3 on 256 GB200 (EP 64, PP 4): routed-expert state is sharded
// over EDP, dense state over DP*CP; offload takes the same share of both
// (the moments of that share; the fp32 master shard stays).
TEST(MemoryOffloadTest, OptimizerOffloadTakesExpertStateToo) {
  ResolvedConfig c;
  c.pp = 4;
  c.ep = 64;
  c.etp = 1;
  c.seq_length = 4096;
  c.gbs = 4096;
  c.pipeline_layout = "Et*4|(t*4|)*14tmL";
  const MemoryEstimate base = EstimateMemoryTerms(MakeMemoryCase("deepseek_v3", c), 256, "gb200-nvl72");
  c.optimizer_cpu_offload = true;
  c.optimizer_offload_fraction = 0.5;
  const MemoryEstimate e = EstimateMemoryTerms(MakeMemoryCase("deepseek_v3", c), 256, "gb200-nvl72");
  for (size_t r = 0; r < e.stages.size(); ++r) {
    const StageMemory& b = base.stages[r];
    const StageMemory& st = e.stages[r];
    EXPECT_GT(b.optimizer_expert_bytes, 0);
    // 12 B of state per parameter, 8 of them the moments: half of those leave.
    const double kept = 1 - 0.5 * 8.0 / 12.0;
    EXPECT_NEAR(st.optimizer_expert_bytes, kept * b.optimizer_expert_bytes, 1.0);
    EXPECT_NEAR(st.optimizer_dense_bytes, kept * b.optimizer_dense_bytes, 1.0);
    EXPECT_NEAR(b.total_bytes - st.total_bytes, 8.0 / 12.0 * st.optimizer_host_bytes, 1.0);
  }
  EXPECT_NEAR(base.peak_bytes - e.peak_bytes, 8.0 / 12.0 * e.stages[e.peak_pp_rank].optimizer_host_bytes, 1.0);
  EXPECT_TRUE(Says(e, "per 4-GPU node"));
}

// Llama 3 8B at 8192 tokens, TP=2 PP=2, MBS 1: unfused attention keeps the
// bf16 softmax probabilities of every layer, 2 B x 16 heads per TP rank x
// 8192 x 8192 = 2 GiB per layer and microbatch, and one more such matrix
// (the raw scores) while a layer runs. Rank 0: 16 layers, 2 microbatches in
// flight (1F1B, min(PP - 0, 4)).
TEST(MemoryUnfusedAttentionTest, UnfusedHoldsTheScores) {
  ResolvedConfig c;
  c.tp = 2;
  c.etp = 2;
  c.pp = 2;
  c.sp = true;
  c.seq_length = 8192;
  c.gbs = 8;
  const MemoryEstimate fused = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", c), 8);
  const double scores = 2.0 * 16 * 8192 * 8192;
  for (const char* backend : {"unfused", "local"}) {
    ResolvedConfig u = c;
    u.attention_backend = backend;
    u.unfused_attention = true;
    const MemoryEstimate e = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", u), 8);
    const StageMemory& st = e.stages[0];
    ASSERT_EQ(st.chunks.size(), 1u);
    EXPECT_EQ(st.chunks[0].in_flight, 2);
    EXPECT_DOUBLE_EQ(st.activation_bytes - fused.stages[0].activation_bytes, 16 * 2 * scores);
    EXPECT_DOUBLE_EQ(st.attention_working_bytes, scores);
    EXPECT_EQ(fused.stages[0].attention_working_bytes, 0);
    EXPECT_NEAR(st.total_bytes - fused.stages[0].total_bytes, 33 * scores, 1.0);
    EXPECT_GT(e.peak_bytes, fused.peak_bytes);
    EXPECT_TRUE(Says(e, "materialises the s x s scores")) << backend;
    EXPECT_TRUE(Says(e, "2.00 GiB per layer and microbatch"));
  }
  EXPECT_FALSE(Says(fused, "s x s scores"));

  // Selective recompute of core_attn keeps Q, K, V only: the probabilities
  // are rebuilt in the backward (transient, two matrices in the call).
  ResolvedConfig r = c;
  r.attention_backend = "unfused";
  r.unfused_attention = true;
  r.recompute = RecomputeGranularity::kSelective;
  r.recompute_modules = {"core_attn"};
  const MemoryEstimate rec = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", r), 8);
  EXPECT_DOUBLE_EQ(rec.stages[0].activation_bytes, fused.stages[0].activation_bytes);
  EXPECT_DOUBLE_EQ(rec.stages[0].attention_working_bytes, 2 * scores);
}

// The attention backend decides what core_attn recompute saves, in
// `validate` and `memory` alike, from one function
// (core/model/attention_scores.h). Llama 3 8B at 8192 tokens, TP=2 PP=2 on 8
// GPUs, selective recompute of core_attn: unfused attention frees the kept
// softmax probabilities (2 B x 16 heads per TP rank x 8192 x 8192 = 2 GiB per
// layer and microbatch; rank 0 holds 16 layers x 2 microbatches in flight),
// and the validator says nothing; with the fused kernels (auto, flash,
// fused) memory is unchanged and the validator warns.
TEST(MemoryUnfusedAttentionTest, CoreAttnRecomputeSavingFollowsTheBackend) {
  const ModelSpec model = testing_util::CatalogModel("llama3_8b");
  for (const char* backend : {"unfused", "local", "auto", "flash", "fused"}) {
    ParallelConfig p;
    p.tp = 2;
    p.pp = 2;
    p.seq_length = 8192;
    p.gbs = 8;
    p.attention_backend = backend;
    p.recompute_granularity = "selective";
    p.recompute_modules = {"mlp"};
    auto kept = ResolveConfig(p, &model, "config");
    ASSERT_TRUE(kept.ok()) << kept.status();
    p.recompute_modules = {"core_attn"};
    auto recomputed = ResolveConfig(p, &model, "config");
    ASSERT_TRUE(recomputed.ok()) << recomputed.status();
    const bool unfused = std::string(backend) == "unfused" || std::string(backend) == "local";
    EXPECT_EQ(recomputed->unfused_attention, unfused) << backend;

    // memory: the saving is what the one function says, 16 x 2 of them.
    const double per_layer = CoreAttnRecomputeSavedBytesPerToken(model, AttentionScoreInputsOf(*recomputed)) * 8192;
    EXPECT_EQ(CoreAttnRecomputeSavesMemory(recomputed->unfused_attention), unfused) << backend;
    EXPECT_DOUBLE_EQ(per_layer, unfused ? 2.0 * 16 * 8192 * 8192 : 0.0) << backend;
    // Both recompute mlp's internals the same way; only core_attn differs.
    ResolvedConfig both = *recomputed;
    both.recompute_modules = {"core_attn", "mlp"};
    const MemoryEstimate without = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", *kept), 8);
    const MemoryEstimate with = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", both), 8);
    const double saved = without.stages[0].activation_bytes - with.stages[0].activation_bytes;
    EXPECT_DOUBLE_EQ(saved, 16 * 2 * per_layer) << backend;
    if (unfused) {
      EXPECT_GT(saved, 0.0);
    } else {
      EXPECT_EQ(saved, 0.0);
    }

    // validate: the warning exactly where the function says nothing is saved.
    const ValidationResult v = testing_util::ValidateConfigFor(model, p);
    EXPECT_EQ(testing_util::HasRule(v, "recompute.core_attn_fused"), !unfused) << backend;
  }
}

// Llama 3 8B at 131,072 tokens, TP=2 CP=8 on 16 GPUs. Per TP rank: 16 query
// heads, 4 KV groups of 128, so K and V are 1,024 elements a token.
//  - p2p: the chunk sent and the chunk arriving, 2 x 16,384 x 1,024 x 2 B = 64 MiB;
//  - all_gather: gathered K/V and their gradients, 2 x 131,072 x 1,024 x 2 B = 512 MiB;
//  - a2a: Q, K, V copies 16,384 x (2,048 + 1,024) x 2 B + O 16,384 x 2,048 x 2 B = 160 MiB.
TEST(MemoryCpWorkingTest, AllGatherHoldsMoreThanP2p) {
  ResolvedConfig c;
  c.tp = 2;
  c.etp = 2;
  c.cp = 8;
  c.sp = true;
  c.seq_length = 131072;
  c.gbs = 1;
  const double mib = 1024.0 * 1024.0;
  auto working = [&](const char* type, std::string* note) {
    ResolvedConfig t = c;
    t.cp_comm_type = type;
    const MemoryEstimate e = EstimateMemoryTerms(MakeMemoryCase("llama3_8b", t), 16);
    for (const auto& line : e.assumptions) {
      if (line.find("Context parallelism") != std::string::npos) *note = line;
    }
    return e.stages[0].attention_working_bytes;
  };
  std::string p2p_note, gather_note, a2a_note;
  const double p2p = working("p2p", &p2p_note);
  const double gather = working("all_gather", &gather_note);
  const double a2a = working("a2a", &a2a_note);
  EXPECT_DOUBLE_EQ(p2p, 64 * mib);
  EXPECT_DOUBLE_EQ(gather, 512 * mib);
  EXPECT_DOUBLE_EQ(a2a, 160 * mib);
  EXPECT_GT(gather, p2p);
  EXPECT_NE(p2p_note.find("p2p ring's K/V chunk"), std::string::npos) << p2p_note;
  EXPECT_NE(gather_note.find("K/V all-gathered from 8 ranks"), std::string::npos) << gather_note;
  EXPECT_NE(a2a_note.find("a2a copies of Q, K, V and O"), std::string::npos) << a2a_note;
  EXPECT_NE(gather_note.find("0.50 GiB"), std::string::npos) << gather_note;

  // Without CP there are no CP buffers.
  ResolvedConfig none = c;
  none.cp = 1;
  none.seq_length = 8192;
  EXPECT_EQ(EstimateMemoryTerms(MakeMemoryCase("llama3_8b", none), 2).stages[0].attention_working_bytes, 0);
}

}  // namespace
}  // namespace parplan
