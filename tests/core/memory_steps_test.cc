#include "core/memory/memory_steps.h"

#include <gtest/gtest.h>

#include "core/catalog/catalog.h"
#include "core/pipeline/stage_plan.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

struct Case {
  ModelSpec model;
  ResolvedConfig config;
  StagePlan plan;
};

Case Make(const char* id, int64_t tp, int64_t pp, int64_t gbs) {
  Case c{CatalogModel(id), {}, {}};
  c.config.tp = tp;
  c.config.etp = 1;
  c.config.sp = tp > 1;
  c.config.pp = pp;
  c.config.gbs = gbs;
  c.config.seq_length = 8192;
  std::vector<Violation> v;
  c.plan = *PlanStages(c.model, c.config, &v);
  return c;
}

TEST(MemoryStepsTest, NoUsableBatchAssumesAFullPipeline) {
  const Case c = Make("llama3_70b", 4, 4, 0);
  const MemoryInputs in = PrepareMemory(c.model, c.config, c.plan, 64);
  EXPECT_TRUE(in.microbatches_assumed);
  EXPECT_EQ(in.microbatches, 16);
  EXPECT_EQ(MemoryAssumptions(in, MemoryOptions{}).front().rfind("No usable GBS", 0), 0u);
}

TEST(MemoryStepsTest, StageParamsSplitOverTpAndHoldTheEnds) {
  const Case c = Make("llama3_70b", 4, 4, 256);
  const MemoryInputs in = PrepareMemory(c.model, c.config, c.plan, 64);
  const StageParams first = CountStageParams(in, 0);
  const StageParams middle = CountStageParams(in, 1);
  // 20 layers of about 0.86B parameters over TP=4, plus the embedding on the first stage.
  EXPECT_NEAR(middle.dense, 20 * 0.856e9 / 4, 0.05 * middle.dense);
  EXPECT_GT(first.dense, middle.dense);
  EXPECT_EQ(middle.expert, 0);
}

TEST(MemoryStepsTest, TheFirstStageHoldsTheMostMicrobatches) {
  const Case c = Make("llama3_70b", 4, 4, 256);
  const MemoryInputs in = PrepareMemory(c.model, c.config, c.plan, 64);
  StageMemory first, last;
  AddActivations(in, 0, &first);
  AddActivations(in, 3, &last);
  EXPECT_DOUBLE_EQ(first.in_flight_microbatches, 4);  // 1F1B: PP - rank
  EXPECT_DOUBLE_EQ(last.in_flight_microbatches, 1);
  EXPECT_GT(last.logits_bytes, 0);
  EXPECT_EQ(first.logits_bytes, 0);
}

TEST(MemoryStepsTest, TheDistributedOptimizerShardsOptimizerState) {
  Case c = Make("llama3_8b", 1, 1, 64);
  c.config.distributed_optimizer = true;
  const MemoryInputs in = PrepareMemory(c.model, c.config, c.plan, 8);
  StageMemory sharded;
  AddModelState(in, CountStageParams(in, 0), &sharded);
  c.config.distributed_optimizer = false;
  const MemoryInputs whole_in = PrepareMemory(c.model, c.config, c.plan, 8);
  StageMemory whole;
  AddModelState(whole_in, CountStageParams(whole_in, 0), &whole);
  EXPECT_NEAR(whole.optimizer_dense_bytes / sharded.optimizer_dense_bytes, 8.0, 1e-9);
  EXPECT_DOUBLE_EQ(whole.weight_bytes, sharded.weight_bytes);
}

TEST(MemoryStepsTest, OverheadIsTheCallersWhenGiven) {
  StageMemory st;
  st.weight_bytes = 10 * kGiB;
  MemoryOptions options;
  options.overhead_gib = 3.0;
  AddOverhead(options, ResolvedConfig{}, &st);
  EXPECT_DOUBLE_EQ(st.overhead_bytes, 3 * kGiB);
  EXPECT_DOUBLE_EQ(st.fragmentation_bytes, 0);
  EXPECT_DOUBLE_EQ(st.total_bytes, 13 * kGiB);
}

}  // namespace
}  // namespace parplan
