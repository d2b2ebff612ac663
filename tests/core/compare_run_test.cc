// CompareRun: a run's log beside parplan's prediction. The logs are
// ParsedLog values built here (the reader is tested in runlog's tests), with
// iteration records as Megatron-LM's training_log prints them
// (megatron/training/training.py at d98e8a64: elapsed time per iteration,
// throughput per GPU, global batch size, skipped and NaN iterations) and the
// memory report of megatron/training/utils.py report_memory.
#include "core/compare/compare_run.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/compare/predict_run.h"
#include "core/memory/memory_model.h"
#include "gtest/gtest.h"
#include "server/api/planner_api.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

constexpr double kMiB = 1024.0 * 1024.0;

// Llama 3 8B on 8 H100 (TP 2, PP 2, DP 2), 128 sequences of 8192 tokens.
struct TestRun {
  ModelSpec model = CatalogModel("llama3_8b");
  ResolvedConfig config;
  ResolvedPlacement placement;
};

ParallelConfig LlamaConfig(int64_t gbs = 128) {
  ParallelConfig pc;
  pc.tp = 2;
  pc.pp = 2;
  pc.mbs = 1;
  pc.gbs = gbs;
  pc.seq_length = 8192;
  pc.precision = "bf16";
  return pc;
}

TestRun MakeRun(const ParallelConfig& pc) {
  TestRun r;
  auto config = ResolveConfig(pc, &r.model, "config");
  EXPECT_TRUE(config.ok()) << config.status();
  r.config = *config;
  Placement placement;
  placement.system = "h100-sxm";
  placement.gpus = 8;
  auto resolved = ResolvePlacement(placement, "placement");
  EXPECT_TRUE(resolved.ok()) << resolved.status();
  r.placement = *resolved;
  return r;
}

double PredictedStep(const TestRun& r) {
  const RunPrediction p = PredictRun(r.model, r.config, r.placement, CalibratedPerfParams());
  EXPECT_TRUE(p.ok) << p.unavailable_reason;
  return p.perf.step_time_s;
}

// 30 iterations, one line each: 3 warm-up lines at 3x, then `step` with a
// +-0.4% deterministic wobble; one memory report after iteration 10.
ParsedLog SyntheticLog(double step, double tflops, int64_t gbs = 128, int64_t iterations = 30) {
  ParsedLog log;
  log.format = LogFormat::kMegatronLm;
  for (int64_t i = 1; i <= iterations; ++i) {
    IterationRecord r;
    r.iteration = i;
    r.train_iters = 1000;
    r.format = LogFormat::kMegatronLm;
    const double wobble = 1 + 0.004 * ((i % 3) - 1);
    r.step_s = i <= 3 ? 3 * step : step * wobble;
    r.tflops_per_gpu = i <= 3 ? tflops / 3 : tflops / wobble;
    r.global_batch_size = gbs;
    r.consumed_samples = i * gbs;
    r.loss = 8.0 - 0.01 * i;
    r.loss_scale = 1.0;
    r.grad_norm = 1.2;
    r.skipped_iterations = 0;
    r.nan_iterations = 0;
    r.line = 100 + i;
    log.iterations.push_back(r);
  }
  MemoryReport m;
  m.after_iterations = 10;
  m.rank = 0;
  m.allocated_bytes = 40000 * kMiB;
  m.max_allocated_bytes = 50000 * kMiB;
  m.reserved_bytes = 54000 * kMiB;
  m.max_reserved_bytes = 54000 * kMiB;
  m.line = 111;
  log.memory.push_back(m);
  log.lines = 200;
  log.lines_read = iterations + 1;
  return log;
}

const GateCheck& Gate(const RunComparison& c, const std::string& name) {
  for (const GateCheck& g : c.gate) {
    if (g.name == name) return g;
  }
  ADD_FAILURE() << "no gate check " << name;
  static const GateCheck none;
  return none;
}

const TermGap& Term(const RunComparison& c, const std::string& term) {
  for (const TermGap& g : c.gap) {
    if (g.term == term) return g;
  }
  ADD_FAILURE() << "no term " << term;
  static const TermGap none;
  return none;
}

CompareInputs Inputs(const TestRun& r, const ParsedLog& log) {
  CompareInputs in;
  in.log = &log;
  in.model = &r.model;
  in.config = &r.config;
  in.placement = &r.placement;
  return in;
}

TEST(CompareRunTest, PredictsExactlyAsEstimatePerformance) {
  const TestRun r = MakeRun(LlamaConfig());
  v1::EstimatePerformanceRequest req;
  req.mutable_model()->set_id("llama3_8b");
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->set_gpus(8);
  req.mutable_config()->set_tp(2);
  req.mutable_config()->set_pp(2);
  req.mutable_config()->set_mbs(1);
  req.mutable_config()->set_gbs(128);
  req.mutable_config()->set_seq_length(8192);
  req.mutable_config()->set_precision("bf16");
  v1::EstimatePerformanceResponse resp;
  ASSERT_TRUE(api::EstimatePerformance(req, &resp).ok());
  const RunPrediction p = PredictRun(r.model, r.config, r.placement, CalibratedPerfParams());
  ASSERT_TRUE(p.ok) << p.unavailable_reason;
  EXPECT_EQ(p.perf.step_time_s, resp.step_time_s());
  EXPECT_EQ(p.perf.tokens_per_s_per_gpu, resp.tokens_per_s_per_gpu());
  EXPECT_EQ(p.perf.mfu, resp.mfu());
  EXPECT_EQ(static_cast<int64_t>(std::llround(p.memory.peak_bytes)), resp.memory_peak_bytes());
  EXPECT_EQ(p.uncertainty.p90, resp.uncertainty_p90());
}

TEST(CompareRunTest, TenPercentSlowerRun) {
  const TestRun r = MakeRun(LlamaConfig());
  const RunPrediction p = PredictRun(r.model, r.config, r.placement, CalibratedPerfParams());
  ASSERT_TRUE(p.ok);
  const double measured = 1.1 * p.perf.step_time_s;
  const double tflops = p.perf.model_tflops_per_gpu / 1.1;
  const ParsedLog log = SyntheticLog(measured, tflops);
  auto c = CompareRun(Inputs(r, log));
  ASSERT_TRUE(c.ok()) << c.status();

  // Window: the warm-up lines left out, the steady median kept.
  EXPECT_GT(c->window.first_iteration, 3);
  EXPECT_GE(c->window.records, 20);
  EXPECT_NEAR(c->measured_step_s, measured, 0.005 * measured);
  ASSERT_TRUE(c->has_prediction) << c->no_prediction_reason;
  EXPECT_EQ(c->predicted_step_s, p.perf.step_time_s);
  EXPECT_NEAR(c->step_error, (p.perf.step_time_s - c->measured_step_s) / c->measured_step_s, 1e-12);
  EXPECT_NEAR(c->step_error, -1.0 / 11, 0.005);
  EXPECT_EQ(c->uncertainty_p90, p.uncertainty.p90);
  EXPECT_EQ(c->within_uncertainty, std::fabs(c->step_error) <= p.uncertainty.p90);

  // Measured throughput: the log's batch x sequence / step / GPUs; MFU on the prediction's peak.
  EXPECT_EQ(c->measured_gbs, 128);
  EXPECT_NEAR(c->measured_tokens_per_s_per_gpu, 128.0 * 8192 / c->measured_step_s / 8, 1e-9);
  EXPECT_EQ(c->peak_tflops, p.perf.peak_tflops);
  EXPECT_NEAR(c->measured_mfu, c->measured_tflops_per_gpu / p.perf.peak_tflops, 1e-12);
  EXPECT_NEAR(c->measured_mfu, p.perf.mfu / 1.1, 0.01 * p.perf.mfu);

  // Memory: fragmentation measured (4000 of 54000 MiB) beside the model's allowance.
  EXPECT_NEAR(c->measured_fragmentation, 4000.0 / 54000, 1e-12);
  EXPECT_NEAR(c->predicted_fragmentation_allowance_bytes,
              p.memory.stages[p.memory.peak_pp_rank].overhead_bytes - kDefaultOverheadGiB * kGiB, 1);
  EXPECT_GT(c->predicted_fragmentation_allowance_bytes, 0);
  EXPECT_EQ(c->predicted_peak_bytes, p.memory.peak_bytes);

  // Gap by term: each term alone would need the whole gap added.
  ASSERT_EQ(c->gap.size(), static_cast<size_t>(kStepParts));
  const double gap = c->measured_step_s - c->predicted_step_s;
  const TermGap& gemm = Term(*c, "gemm");
  EXPECT_NEAR(gemm.needed_s, gemm.predicted_s + gap, 1e-12);
  EXPECT_NEAR(gemm.factor, gemm.needed_s / gemm.predicted_s, 1e-12);
  EXPECT_TRUE(gemm.closes_alone);
  EXPECT_TRUE(gemm.plausible) << gemm.note;  // GEMMs ~10-15% slower is within kernel-rate spread
  const TermGap& cp = Term(*c, "cp_comm");
  EXPECT_FALSE(cp.closes_alone);
  EXPECT_TRUE(absl::StrContains(cp.note, "CP = 1")) << cp.note;
  const TermGap& moe = Term(*c, "moe");
  EXPECT_TRUE(absl::StrContains(moe.note, "dense model")) << moe.note;
  EXPECT_GT(Term(*c, "bubble").predicted_s, 0);  // PP 2

  // Changes: TP 2 without TP overlap; every change faster, ranked, classed.
  ASSERT_FALSE(c->changes.empty());
  bool tp_overlap = false;
  for (size_t i = 0; i < c->changes.size(); ++i) {
    const SuggestedChange& s = c->changes[i];
    EXPECT_GT(s.predicted_gain, 0) << s.change;
    EXPECT_LT(s.predicted_step_s, c->predicted_step_s) << s.change;
    EXPECT_FALSE(s.effect.empty());
    if (i > 0) {
      EXPECT_GE(c->changes[i - 1].predicted_gain, s.predicted_gain);
    }
    if (s.change == "tp_comm_overlap = true") {
      tp_overlap = true;
      EXPECT_EQ(s.effect, "execution");
    }
  }
  EXPECT_TRUE(tp_overlap);

  // Gate: all checked items pass; no baseline config, so that one is not checked.
  EXPECT_TRUE(Gate(*c, "optimizer_initialised").ok);
  EXPECT_TRUE(Gate(*c, "steady_iterations").ok);
  EXPECT_TRUE(Gate(*c, "no_nan_or_skipped").ok);
  EXPECT_TRUE(Gate(*c, "memory_headroom").ok) << Gate(*c, "memory_headroom").detail;
  EXPECT_FALSE(Gate(*c, "baseline_settings").checked);
  EXPECT_TRUE(c->valid_measurement);
  EXPECT_FALSE(c->ab.has_value());
  EXPECT_FALSE(c->reasons.empty());
}

TEST(CompareRunTest, NanIterationFailsTheGate) {
  const TestRun r = MakeRun(LlamaConfig());
  ParsedLog log = SyntheticLog(1.1 * PredictedStep(r), 300);
  log.iterations[20].nan_iterations = 1;
  auto c = CompareRun(Inputs(r, log));
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_LE(c->window.first_iteration, 21);
  ASSERT_GE(c->window.last_iteration, 21);
  EXPECT_FALSE(Gate(*c, "no_nan_or_skipped").ok);
  EXPECT_TRUE(absl::StrContains(Gate(*c, "no_nan_or_skipped").detail, "1 NaN")) << Gate(*c, "no_nan_or_skipped").detail;
  EXPECT_FALSE(c->valid_measurement);
}

TEST(CompareRunTest, TooFewSteadyRecordsFailTheGate) {
  const TestRun r = MakeRun(LlamaConfig());
  const ParsedLog log = SyntheticLog(1.1 * PredictedStep(r), 300);
  CompareInputs in = Inputs(r, log);
  in.min_steady_iterations = 100;
  auto c = CompareRun(in);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(Gate(*c, "steady_iterations").ok);
  EXPECT_TRUE(absl::StrContains(Gate(*c, "steady_iterations").detail, "100 needed"));
  EXPECT_FALSE(c->valid_measurement);
}

TEST(CompareRunTest, MemoryOverTheHeadroomFailsTheGate) {
  const TestRun r = MakeRun(LlamaConfig());
  ParsedLog log = SyntheticLog(1.1 * PredictedStep(r), 300);
  log.memory[0].max_reserved_bytes = 79000 * kMiB;  // of 81,559 MiB: under 5% free
  auto c = CompareRun(Inputs(r, log));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(Gate(*c, "memory_headroom").checked);
  EXPECT_FALSE(Gate(*c, "memory_headroom").ok) << Gate(*c, "memory_headroom").detail;
  EXPECT_FALSE(c->valid_measurement);
}

TEST(CompareRunTest, BenchmarkOrSemanticsSettingChangedFromBaselineFailsTheGate) {
  const TestRun a = MakeRun(LlamaConfig(256));
  const TestRun b = MakeRun(LlamaConfig(128));
  const ParsedLog log_a = SyntheticLog(2 * PredictedStep(b), 300, 256);
  const ParsedLog log_b = SyntheticLog(PredictedStep(b), 300, 128);
  CompareInputs in = Inputs(b, log_b);
  in.baseline_log = &log_a;
  in.baseline_config = &a.config;
  auto c = CompareRun(in);
  ASSERT_TRUE(c.ok()) << c.status();
  const GateCheck& g = Gate(*c, "baseline_settings");
  EXPECT_TRUE(g.checked);
  EXPECT_FALSE(g.ok);
  EXPECT_TRUE(absl::StrContains(g.detail, "gbs 256 -> 128 (semantics)")) << g.detail;
  EXPECT_FALSE(c->valid_measurement);
  ASSERT_TRUE(c->ab.has_value());
  EXPECT_LT(c->ab->step_b_s, c->ab->step_a_s);

  // An execution-only change (TP overlap) keeps the gate.
  ParallelConfig overlap = LlamaConfig(128);
  overlap.tp_comm_overlap = true;
  const TestRun o = MakeRun(overlap);
  CompareInputs same = Inputs(o, log_b);
  same.baseline_config = &b.config;
  auto d = CompareRun(same);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(Gate(*d, "baseline_settings").ok) << Gate(*d, "baseline_settings").detail;
}

TEST(CompareRunTest, LogAloneGivesTheMeasuredSide) {
  ParsedLog log = SyntheticLog(2.5, 400);
  log.arguments = {{"seq_length", "4096"}, {"world_size", "16"}};
  LogFailure oom;
  oom.kind = "oom";
  oom.message = "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.44 GiB";
  oom.line = 190;
  oom.after_iteration = 30;
  oom.moment = "after iteration 30";
  oom.capacity_bytes = 79.44 * kGiB;
  log.failures.push_back(oom);
  CompareInputs in;
  in.log = &log;
  auto c = CompareRun(in);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->has_prediction);
  EXPECT_TRUE(absl::StrContains(c->no_prediction_reason, "config")) << c->no_prediction_reason;
  EXPECT_TRUE(c->gap.empty());
  EXPECT_TRUE(c->changes.empty());
  EXPECT_NEAR(c->measured_step_s, 2.5, 0.02);
  // Tokens from the start-up arguments: 128 x 4096 / step / 16.
  EXPECT_NEAR(c->measured_tokens_per_s_per_gpu, 128.0 * 4096 / c->measured_step_s / 16, 1e-9);
  EXPECT_TRUE(std::isnan(c->measured_mfu));  // no peak without a system
  EXPECT_TRUE(Gate(*c, "steady_iterations").ok);
  EXPECT_FALSE(Gate(*c, "memory_headroom").ok);  // the OOM
  EXPECT_FALSE(Gate(*c, "baseline_settings").checked);
  ASSERT_EQ(c->failures.size(), 1u);
  EXPECT_EQ(c->failures[0].kind, "oom");
  bool said = false;
  for (const std::string& s : c->reasons) said = said || absl::StrContains(s, "CUDA out of memory");
  EXPECT_TRUE(said);
}

TEST(CompareRunTest, CalibratedParametersPredictTheScaledStep) {
  const TestRun r = MakeRun(LlamaConfig());
  const ParsedLog log = SyntheticLog(1.1 * PredictedStep(r), 300);
  PerfParams params = CalibratedPerfParams();
  params.compute_scale = 1.1;
  params.network_scale = 1.1;
  CompareInputs in = Inputs(r, log);
  in.params = &params;
  auto c = CompareRun(in);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NEAR(c->predicted_step_s, 1.1 * PredictedStep(r), 1e-9);
  EXPECT_EQ(c->compute_scale, 1.1);
  EXPECT_NEAR(c->step_error, 0, 0.005);
  EXPECT_TRUE(c->within_uncertainty);
}

// The whole path: a log file in Megatron-LM's format, read by ParseRunLog, compared.
TEST(CompareRunTest, MegatronLmLogFile) {
  std::ifstream file(std::string(PARPLAN_TEST_DATA_DIR) + "/compare/llama3_8b_tp2_pp2_h100.log");
  ASSERT_TRUE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  auto log = ParseRunLog(text.str(), "log");
  ASSERT_TRUE(log.ok()) << log.status();
  const TestRun r = MakeRun(LlamaConfig());
  auto c = CompareRun(Inputs(r, *log));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->window.first_iteration, 20);  // the first interval (30.1 s) is warm-up
  EXPECT_EQ(c->window.last_iteration, 120);
  EXPECT_NEAR(c->measured_step_s, 14.861, 0.005);
  EXPECT_NEAR(c->measured_max_reserved_bytes, 54016.0 * kMiB, 1);
  ASSERT_TRUE(c->has_prediction);
  EXPECT_NEAR(c->step_error, (PredictedStep(r) - c->measured_step_s) / c->measured_step_s, 1e-12);
  EXPECT_LT(c->step_error, -0.05);
  EXPECT_TRUE(c->valid_measurement);
}

// A MoE run: the dispatcher and EP-overlap changes are tried too; every
// change kept is valid, fits and is faster.
TEST(CompareRunTest, MoeRunSuggestsOnlyValidFasterChanges) {
  TestRun r;
  r.model = CatalogModel("qwen3_30b_a3b");
  ParallelConfig pc;
  pc.tp = 1;
  pc.pp = 2;
  pc.ep = 8;
  pc.gbs = 256;
  pc.seq_length = 4096;
  pc.recompute_granularity = "full";
  auto config = ResolveConfig(pc, &r.model, "config");
  ASSERT_TRUE(config.ok()) << config.status();
  r.config = *config;
  Placement placement;
  placement.system = "h100-sxm";
  placement.gpus = 16;
  r.placement = *ResolvePlacement(placement, "placement");
  const RunPrediction p = PredictRun(r.model, r.config, r.placement, CalibratedPerfParams());
  ASSERT_TRUE(p.ok) << p.unavailable_reason;
  const ParsedLog log = SyntheticLog(1.2 * p.perf.step_time_s, 200, 256);
  auto c = CompareRun(Inputs(r, log));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->has_prediction);
  EXPECT_GT(Term(*c, "ep_comm").predicted_s, 0);
  bool lighter_recompute = false;
  for (const SuggestedChange& s : c->changes) {
    EXPECT_LT(s.predicted_step_s, c->predicted_step_s) << s.change;
    lighter_recompute = lighter_recompute || absl::StrContains(s.change, "recompute");
  }
  EXPECT_TRUE(lighter_recompute);  // full recompute of a 30B MoE on 16 GPUs leaves room for less
}

TEST(CompareRunTest, BadInputsAreRefused) {
  CompareInputs none;
  EXPECT_EQ(CompareRun(none).status().code(), absl::StatusCode::kInvalidArgument);
  const ParsedLog log = SyntheticLog(1, 100);
  CompareInputs in;
  in.log = &log;
  in.min_steady_iterations = 0;
  EXPECT_EQ(CompareRun(in).status().code(), absl::StatusCode::kInvalidArgument);
  in.min_steady_iterations = 5;
  in.memory_headroom = 1.5;
  EXPECT_EQ(CompareRun(in).status().code(), absl::StatusCode::kInvalidArgument);
  const TestRun r = MakeRun(LlamaConfig());
  in.memory_headroom = 0.05;
  in.model = &r.model;  // without config and placement
  EXPECT_EQ(CompareRun(in).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CompareRunTest, EmptyLogHasNoWindowAndNoValidMeasurement) {
  const TestRun r = MakeRun(LlamaConfig());
  ParsedLog log;
  auto c = CompareRun(Inputs(r, log));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->window.records, 0);
  EXPECT_TRUE(c->has_prediction);
  EXPECT_TRUE(std::isnan(c->measured_step_s));
  EXPECT_TRUE(c->gap.empty());
  EXPECT_FALSE(Gate(*c, "optimizer_initialised").ok);
  EXPECT_FALSE(c->valid_measurement);
}

}  // namespace
}  // namespace parplan
