#include "core/perf/perf_steps.h"

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
  SystemSpec system;
};

Case Make(const char* id, int64_t tp, int64_t pp, int64_t gbs, const char* system = "h100-sxm") {
  Case c{CatalogModel(id), {}, {}, *Catalog::Get().FindSystem(system)};
  c.config.tp = tp;
  c.config.etp = 1;
  c.config.sp = tp > 1;
  c.config.pp = pp;
  c.config.gbs = gbs;
  c.config.seq_length = 8192;
  c.config.precision = Precision::kFp8Cs;
  std::vector<Violation> v;
  c.plan = *PlanStages(c.model, c.config, &v);
  return c;
}

TEST(PerfStepsTest, PrepareStepSizesTheMeshOnce) {
  const Case c = Make("llama3_70b", 4, 4, 256);
  const StepInputs in = PrepareStep(c.model, c.config, c.plan, 64, c.system, CalibratedPerfParams());
  EXPECT_EQ(in.dp, 4);
  EXPECT_EQ(in.microbatches, 64);
  EXPECT_DOUBLE_EQ(in.tokens, 8192);
  EXPECT_EQ(in.first_layers.size(), 4u);
  EXPECT_EQ(in.device.arch, 1);
}

TEST(PerfStepsTest, TheLastStageCarriesTheOutputLayer) {
  const Case c = Make("llama3_70b", 4, 4, 256);
  const StepInputs in = PrepareStep(c.model, c.config, c.plan, 64, c.system, CalibratedPerfParams());
  LayerShareCache cache;
  const StageTime first = TimeStage(in, 0, &cache);
  const StageTime last = TimeStage(in, 3, &cache);
  EXPECT_EQ(first.logits, 0);
  EXPECT_GT(last.logits, 0);
  const SlowestStage slowest = FindSlowestStage(in, &cache);
  EXPECT_GE(slowest.time.Total(), first.Total());
  EXPECT_GE(slowest.time.Total(), last.Total());
  // The bubble is (PP - 1) microbatches of the slowest stage.
  EXPECT_NEAR(PipelineSeconds(in, slowest).bubble_s, 3 * slowest.time.Total(), 1e-12);
}

TEST(PerfStepsTest, DataParallelHidesBehindTheBackwardOnlyWithOverlap) {
  Case c = Make("llama3_8b", 1, 1, 64);
  c.config.overlap_grad_reduce = true;
  const StepInputs on = PrepareStep(c.model, c.config, c.plan, 64, c.system, CalibratedPerfParams());
  const double hidden = DataParallelSeconds(on, 100.0);
  ResolvedConfig off_config = c.config;
  off_config.overlap_grad_reduce = false;
  const StepInputs off = PrepareStep(c.model, off_config, c.plan, 64, c.system, CalibratedPerfParams());
  EXPECT_GT(DataParallelSeconds(off, 100.0), hidden);
  EXPECT_NEAR(hidden, CalibratedPerfParams().dp_exposed * DataParallelSeconds(off, 100.0), 1e-12);
}

TEST(PerfStepsTest, TheDistributedOptimizerShardsTheAdamStep) {
  Case c = Make("llama3_8b", 1, 1, 64);
  c.config.distributed_optimizer = false;
  const double whole = OptimizerSeconds(PrepareStep(c.model, c.config, c.plan, 8, c.system, CalibratedPerfParams()));
  c.config.distributed_optimizer = true;
  const double shard = OptimizerSeconds(PrepareStep(c.model, c.config, c.plan, 8, c.system, CalibratedPerfParams()));
  EXPECT_NEAR(whole / shard, 8.0, 0.1);
}

TEST(PerfStepsTest, LayerComputesReportEachKindOnce) {
  const Case c = Make("nemotron_3_nano", 1, 1, 8);
  const StepInputs in = PrepareStep(c.model, c.config, c.plan, 8, c.system, CalibratedPerfParams());
  LayerShareCache cache;
  const std::vector<LayerCompute> layers = LayerComputes(in, 0, &cache);
  int64_t count = 0;
  for (const LayerCompute& l : layers) {
    count += l.count;
    EXPECT_GT(l.forward_s, 0) << l.layer;
    EXPECT_GT(l.backward_s, l.forward_s) << l.layer;
  }
  EXPECT_EQ(count, c.model.num_layers);
  EXPECT_GE(layers.size(), 2u);  // Mamba and MoE (and attention) kinds
}

}  // namespace
}  // namespace parplan
