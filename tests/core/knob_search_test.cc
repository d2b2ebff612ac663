// The execution settings the search tunes (core/search/execution_knobs.h,
// knob_refinement.h): which values apply and which the checks refuse, that
// Recommend picks each axis's best value itself and says why, keeps a value
// the caller set and says what freeing it would gain, and that `perf`'s
// advice (core/compare/suggest_changes.h) names faster changes and why the
// others do not help.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/compare/predict_run.h"
#include "core/compare/suggest_changes.h"
#include "core/pipeline/stage_plan.h"
#include "core/search/execution_knobs.h"
#include "core/search/knob_refinement.h"
#include "core/search/recommender.h"
#include "core/search/search_steps.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

ResolvedConfig DeepSeekMesh(int64_t tp, int64_t pp, int64_t vpp, int64_t ep) {
  ResolvedConfig c;
  c.given = std::make_shared<ParallelConfig>();
  c.tp = tp;
  c.sp = tp > 1;
  c.pp = pp;
  c.vpp = vpp;
  c.vpp_given = vpp > 1;
  c.ep = ep;
  c.etp = 1;
  c.seq_length = 4096;
  c.mbs = 1;
  c.gbs = 8192;
  c.mtp_num_layers = 1;
  return c;
}

std::vector<std::string> Values(const std::vector<KnobOption>& options, KnobAxis axis) {
  std::vector<std::string> out;
  for (const KnobOption& o : options) out.push_back(KnobValue(o.config, axis));
  return out;
}

TEST(ExecutionKnobsTest, DispatcherValuesFollowTheGpu) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  const ResolvedConfig c = DeepSeekMesh(1, 8, 4, 32);
  const SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  const SystemSpec gb200 = *Catalog::Get().FindSystem("gb200-nvl72");
  EXPECT_EQ(Values(KnobOptions(m, c, h100, KnobAxis::kDispatcher), KnobAxis::kDispatcher),
            (std::vector<std::string>{"flex/deepep", "flex/hybridep"}));
  // Bridge accepts DeepEP on Hopper, B200 and B300 only, not on GB200.
  EXPECT_EQ(Values(KnobOptions(m, c, gb200, KnobAxis::kDispatcher), KnobAxis::kDispatcher),
            (std::vector<std::string>{"flex/hybridep"}));
  bool refused = false;
  for (const KnobAlternative& a : KnobAlternatives(m, c, gb200, KnobAxis::kDispatcher)) {
    if (KnobValue(a.option.config, KnobAxis::kDispatcher) == "flex/deepep") {
      refused = absl::StartsWith(a.refusal, "moe.deepep_unsupported_gpu");
    }
  }
  EXPECT_TRUE(refused);
  // A dense model has no dispatcher; TP = 1 has no TP overlap.
  EXPECT_TRUE(KnobOptions(CatalogModel("llama3_70b"), c, h100, KnobAxis::kDispatcher).empty());
  EXPECT_TRUE(KnobOptions(m, c, h100, KnobAxis::kTpOverlap).empty());
}

TEST(ExecutionKnobsTest, EpOverlapNeedsVirtualStagesAndPinsComeFromTheCaller) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  const SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  // PP > 1 without VPP: Megatron refuses the overlap (ep_overlap.needs_vpp).
  EXPECT_TRUE(KnobOptions(m, DeepSeekMesh(1, 8, 1, 32), h100, KnobAxis::kEpOverlap).empty());
  EXPECT_EQ(Values(KnobOptions(m, DeepSeekMesh(1, 8, 4, 32), h100, KnobAxis::kEpOverlap), KnobAxis::kEpOverlap),
            (std::vector<std::string>{"on"}));
  ResolvedConfig c = DeepSeekMesh(1, 8, 4, 32);
  EXPECT_FALSE(KnobPinned(c, KnobAxis::kDispatcher));
  auto given = std::make_shared<ParallelConfig>();
  given->moe_token_dispatcher_type = "alltoall";
  given->optimizer_cpu_offload = false;
  c.given = given;
  EXPECT_TRUE(KnobPinned(c, KnobAxis::kDispatcher));
  EXPECT_TRUE(KnobPinned(c, KnobAxis::kOptimizerOffload));
  EXPECT_FALSE(KnobPinned(c, KnobAxis::kCudaGraph));
}

SearchRequest DeepSeekOn256H100(const ModelSpec* m, int64_t seq) {
  SearchRequest r = testing_util::SearchRequestFor(m, "h100-sxm", 256, seq);
  r.base.given = std::make_shared<ParallelConfig>();
  return r;
}

// Every accepted value of every axis on the plan's own mesh is at most
// kKnobMinGain faster (or does not fit): the plan's settings are a best
// response on each axis.
void ExpectEachAxisBest(const ModelSpec& m, const SearchRequest& req, const PlanEval& plan) {
  const SystemSpec sys = SystemFor(req, plan.world);
  for (KnobAxis axis : kKnobAxes) {
    for (const KnobOption& o : KnobOptions(m, plan.config, sys, axis)) {
      ResolvedConfig c = o.config;
      const auto stages = PlanStages(m, c);
      if (!stages.has_value()) continue;
      const MemoryEstimate mem = EstimateMemory(m, c, *stages, plan.world, &sys, MemoryOptions{});
      if (!mem.fits) continue;
      const PerfEstimate perf = EstimatePerformance(m, c, *stages, plan.world, sys, CalibratedPerfParams());
      EXPECT_LE(perf.tokens_per_s_per_gpu, plan.perf.tokens_per_s_per_gpu * (1 + 2 * kKnobMinGain))
          << KnobAxisName(axis) << " " << KnobValue(c, axis) << " beats the plan's " << KnobValue(plan.config, axis);
    }
  }
}

// The plan's execution-settings reason ("" when it has none).
std::string ExecutionLine(const PlanEval& plan) {
  for (const std::string& s : plan.reasons) {
    if (absl::StartsWith(s, "Execution settings")) return s;
  }
  return "";
}

TEST(KnobSearchTest, DeepSeekV3On256H100ChoosesEveryAxisAndSaysWhy) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  const SearchRequest req = DeepSeekOn256H100(&m, 4096);
  auto r = Recommend(req);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->feasible);
  const PlanEval& top = r->plans.front();
  ExpectEachAxisBest(m, req, top);
  const std::string line = ExecutionLine(top);
  ASSERT_FALSE(line.empty());
  for (const char* axis : {"dispatcher", "ep_overlap", "cuda_graph", "optimizer_offload"}) {
    EXPECT_TRUE(absl::StrContains(line, axis)) << axis << " missing from: " << line;
  }
  EXPECT_TRUE(absl::StartsWith(line, "Execution settings searched")) << line;
}

TEST(KnobSearchTest, PinnedDispatcherIsKeptAndFreeingItIsPriced) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  SearchRequest req = DeepSeekOn256H100(&m, 4096);
  auto given = std::make_shared<ParallelConfig>();
  given->moe_token_dispatcher_type = "alltoall";
  req.base.given = given;
  req.base.moe_token_dispatcher_type = "alltoall";
  auto r = Recommend(req);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->feasible);
  for (const PlanEval& p : r->plans) EXPECT_EQ(p.config.moe_token_dispatcher_type, "alltoall");
  const bool priced = std::any_of(r->reasons.begin(), r->reasons.end(), [](const std::string& s) {
    return absl::StartsWith(s, "You set moe_token_dispatcher_type");
  });
  EXPECT_TRUE(priced);
  const std::string line = ExecutionLine(r->plans.front());
  ASSERT_FALSE(line.empty());
  EXPECT_TRUE(absl::StrContains(line, "dispatcher alltoall (yours")) << line;
}

TEST(KnobSearchTest, LongContextConsidersOffloadAndDeepEpUntold) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  const SearchRequest req = DeepSeekOn256H100(&m, 131072);
  auto r = Recommend(req);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->feasible);
  const PlanEval& top = r->plans.front();
  const std::string line = ExecutionLine(top);
  ASSERT_FALSE(line.empty());
  EXPECT_TRUE(absl::StrContains(line, "flex/deepep")) << line;
  EXPECT_TRUE(absl::StrContains(line, "optimizer_offload")) << line;
  ExpectEachAxisBest(m, req, top);
}

RunPrediction Predict(const ModelSpec& m, const ResolvedConfig& c, const char* system, int64_t gpus) {
  ResolvedPlacement placement;
  placement.system = *Catalog::Get().FindSystem(system);
  placement.gpus = gpus;
  placement.gpus_per_node = placement.system->gpus_per_node;
  placement.nvlink_domain_size = placement.system->nvlink_domain_size;
  placement.gpus_per_nvlink_domain = placement.system->nvlink_domain_size;
  return PredictRun(m, c, placement, CalibratedPerfParams());
}

TEST(PerfAdviceTest, ExposedExpertCommunicationGetsAChangeWithItsGain) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  // NVIDIA's DeepSeek-V3 H100 layout is PP 8 with VPP and EP 64; here EP 32
  // with full recompute so that it fits, the dispatcher left at alltoall.
  ResolvedConfig c = DeepSeekMesh(1, 8, 4, 32);
  c.recompute = RecomputeGranularity::kFull;
  const RunPrediction base = Predict(m, c, "h100-sxm", 256);
  ASSERT_TRUE(base.ok) << base.unavailable_reason;
  ASSERT_TRUE(base.memory.fits) << base.memory.peak_bytes;
  const PerfBreakdown& b = base.perf.breakdown;
  const double exposed = b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.dp_comm_s + b.pp_comm_s;
  ASSERT_GT(exposed, 0.10 * base.perf.step_time_s) << "the case must have >10% exposed communication";
  const ChangeAdvice advice = AdviseChanges(m, base, CalibratedPerfParams(), 5);
  ASSERT_FALSE(advice.faster.empty());
  EXPECT_GT(advice.faster.front().predicted_gain, 0.0);
  EXPECT_LT(advice.faster.front().predicted_step_s, base.perf.step_time_s);
  for (size_t i = 1; i < advice.faster.size(); ++i) {
    EXPECT_LE(advice.faster[i].predicted_gain, advice.faster[i - 1].predicted_gain);
  }
}

TEST(PerfAdviceTest, GraphsOnAGpuBoundDenseRunSayWhyTheyDoNotHelp) {
  const ModelSpec m = CatalogModel("llama3_70b");
  ResolvedConfig c;
  c.given = std::make_shared<ParallelConfig>();
  c.tp = 4;
  c.sp = true;
  c.pp = 4;
  c.seq_length = 8192;
  c.mbs = 1;
  c.gbs = 512;
  c.recompute = RecomputeGranularity::kNone;
  const RunPrediction base = Predict(m, c, "h100-sxm", 64);
  ASSERT_TRUE(base.ok) << base.unavailable_reason;
  const ChangeAdvice advice = AdviseChanges(m, base, CalibratedPerfParams(), 5);
  // Every line of why names the axis and the term it moves.
  for (const std::string& line : advice.not_helping) {
    EXPECT_TRUE(absl::StrContains(line, "stays best")) << line;
  }
  const bool graphs_helped = std::any_of(advice.faster.begin(), advice.faster.end(), [](const SuggestedChange& s) {
    return absl::StrContains(s.change, "cuda_graph_impl");
  });
  const bool graphs_explained = std::any_of(advice.not_helping.begin(), advice.not_helping.end(),
                                            [](const std::string& s) { return absl::StartsWith(s, "cuda_graph"); });
  EXPECT_NE(graphs_helped, graphs_explained) << "CUDA graphs are either suggested or explained, once";
}

}  // namespace
}  // namespace parplan
