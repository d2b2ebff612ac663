// The memory peak's root cause (core/memory/memory_root_cause.h) and the
// allocator's fragmentation allowance (expandable segments, iteration 1 vs
// steady state; core/memory/memory_steps.h).
#include "core/memory/memory_root_cause.h"

#include <string>

#include "core/memory/memory_model.h"
#include "core/memory/memory_steps.h"
#include "gtest/gtest.h"
#include "tests/core/memory_case.h"

namespace parplan {
namespace {

using testing_util::MakeMemoryCase;

MemoryEstimate Estimate(const testing_util::MemoryCase& s, int64_t world, const MemoryOptions& o = MemoryOptions{}) {
  auto sys = Catalog::Get().FindSystem("h100-sxm");
  EXPECT_TRUE(sys.ok());
  return EstimateMemory(s.model, s.config, s.plan, world, &*sys, o);
}

bool AnyContains(const std::vector<std::string>& lines, const std::string& what) {
  for (const auto& l : lines) {
    if (l.find(what) != std::string::npos) return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(MemoryRootCauseTest, DpOfOneLeavesTheOptimizerUnsharded) {
  ResolvedConfig c;
  c.seq_length = 4096;
  c.gbs = 8;
  c.mbs = 1;
  c.distributed_optimizer = true;
  const auto s = MakeMemoryCase("llama3_8b", c);
  const MemoryEstimate e = Estimate(s, 1);  // DP = 1
  const MemoryRootCause r = ExplainMemoryPeak(s.model, s.config, e);
  ASSERT_FALSE(r.reasons.empty());
  EXPECT_EQ(r.terms.front().term, "optimizer state") << Joined(r.reasons);
  EXPECT_TRUE(AnyContains(r.reasons, "DP=1: the distributed optimizer has nothing to shard over")) << Joined(r.reasons);
  EXPECT_TRUE(AnyContains(r.reasons, "PP=1: all 32 layers' weights")) << Joined(r.reasons);
  double shares = 0;
  for (const auto& t : r.terms) shares += t.share;
  EXPECT_NEAR(shares, 1.0, 1e-9);
}

TEST(MemoryRootCauseTest, NamesActivationsOfALargeMicroBatch) {
  ResolvedConfig c;
  c.tp = 8;
  c.sp = true;
  c.seq_length = 8192;
  c.mbs = 8;
  c.gbs = 64;
  const auto s = MakeMemoryCase("llama3_8b", c);
  const MemoryEstimate e = Estimate(s, 8);
  const MemoryRootCause r = ExplainMemoryPeak(s.model, s.config, e);
  EXPECT_EQ(r.terms.front().term, "activations") << Joined(r.reasons);
  EXPECT_TRUE(AnyContains(r.reasons, "MBS 8 x seq 8192: activations are")) << Joined(r.reasons);
  EXPECT_TRUE(AnyContains(r.reasons, "no recompute")) << Joined(r.reasons);
}

TEST(MemoryRootCauseTest, DistributedOptimizerOffIsTheReason) {
  ResolvedConfig c;
  c.seq_length = 4096;
  c.gbs = 64;
  c.mbs = 1;
  c.distributed_optimizer = false;
  const auto s = MakeMemoryCase("llama3_8b", c);
  const MemoryRootCause r = ExplainMemoryPeak(s.model, s.config, Estimate(s, 8));
  EXPECT_TRUE(AnyContains(r.reasons, "The distributed optimizer is off: every one of the 8 DP ranks"))
      << Joined(r.reasons);
}

TEST(FragmentationTest, ExpandableSegmentsLowerTheAllowance) {
  ResolvedConfig c;
  c.seq_length = 8192;
  c.gbs = 64;
  c.mbs = 2;
  c.recompute = RecomputeGranularity::kFull;
  auto s = MakeMemoryCase("llama3_8b", c);
  const MemoryEstimate on = Estimate(s, 8);
  s.config.expandable_segments = false;
  const MemoryEstimate off = Estimate(s, 8);
  const StageMemory& a = on.stages[on.peak_pp_rank];
  const StageMemory& b = off.stages[off.peak_pp_rank];
  // With expandable segments: the fitted 3% of the other terms.
  EXPECT_NEAR(a.fragmentation_bytes, kDefaultAllocatorSlack * (a.total_bytes - a.overhead_bytes), 1);
  EXPECT_NEAR(a.overhead_bytes, kDefaultOverheadGiB * kGiB + a.fragmentation_bytes, 1);
  // Without: that plus the largest transient block (here the logits or the
  // recomputed layer), so strictly more.
  EXPECT_GT(b.fragmentation_bytes, a.fragmentation_bytes);
  EXPECT_NEAR(b.fragmentation_bytes - a.fragmentation_bytes,
              std::max({b.logits_bytes, b.attention_working_bytes, b.recompute_working_bytes}), 1);
  EXPECT_GT(off.peak_bytes, on.peak_bytes);
  EXPECT_TRUE(AnyContains(off.assumptions, "expandable_segments off")) << Joined(off.assumptions);
}

TEST(FragmentationTest, IterationOneHasNoFragmentationYet) {
  ResolvedConfig c;
  c.pp = 2;
  c.seq_length = 4096;
  c.gbs = 64;
  c.mbs = 1;
  const auto s = MakeMemoryCase("llama3_8b", c);
  const MemoryEstimate e = Estimate(s, 8);
  double expected = 0;
  for (const auto& st : e.stages) {
    EXPECT_GT(st.fragmentation_bytes, 0);
    expected = std::max(expected, st.total_bytes - st.fragmentation_bytes);
  }
  EXPECT_DOUBLE_EQ(e.first_iteration_peak_bytes, expected);
  EXPECT_LT(e.first_iteration_peak_bytes, e.peak_bytes);
  // A caller's fixed overhead has no separate fragmentation term.
  MemoryOptions fixed;
  fixed.overhead_gib = 3.0;
  const MemoryEstimate f = Estimate(s, 8, fixed);
  EXPECT_DOUBLE_EQ(f.first_iteration_peak_bytes, f.peak_bytes);
}

}  // namespace
}  // namespace parplan
