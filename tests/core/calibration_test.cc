// Calibration: factors fitted from compared runs, only those the runs
// determine; the file round trip; the calibrated parameters in
// EstimatePerformance.
#include "core/calibrate/calibration.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/compare/compare_run.h"
#include "core/compare/predict_run.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

// A run of h100-sxm whose measured step is what the true factors make of
// its predicted compute and exposed communication.
CalibrationRun Synthetic(const std::string& label, double compute_s, double communication_s, double compute_factor,
                         double network_factor) {
  CalibrationRun r;
  r.label = label;
  r.model = "llama3_70b";
  r.config = "TP 4 PP 4";
  r.system = "h100-sxm";
  r.gpu_arch = "hopper";
  r.compute_s = compute_s;
  r.communication_s = communication_s;
  r.predicted_step_s = compute_s + communication_s;
  r.measured_step_s = compute_factor * compute_s + network_factor * communication_s;
  return r;
}

TEST(CalibrationTest, TwoRunsWithDifferentCommunicationSharesDetermineBothFactors) {
  // 5% and 30% of the step in exposed communication (one node; DP across nodes).
  const std::vector<CalibrationRun> runs = {Synthetic("one-node.log", 9.5, 0.5, 1.08, 1.30),
                                            Synthetic("four-nodes.log", 7.0, 3.0, 1.08, 1.30)};
  auto cal = FitCalibration(runs, /*require_network=*/true);
  ASSERT_TRUE(cal.ok()) << cal.status();
  EXPECT_TRUE(cal->compute_determined);
  EXPECT_TRUE(cal->network_determined);
  EXPECT_NEAR(cal->compute_factor, 1.08, 1e-9);
  EXPECT_NEAR(cal->network_factor, 1.30, 1e-9);
  EXPECT_NEAR(cal->comm_share_spread, 0.25, 1e-12);
  EXPECT_GT(cal->condition_number, 1);
  EXPECT_EQ(cal->system, "h100-sxm");
  EXPECT_EQ(cal->gpu_arch, "hopper");
  ASSERT_EQ(cal->runs.size(), 2u);
  for (const CalibrationRun& r : cal->runs) {
    // Each left out, the other alone fits compute only (network x1): the
    // residual is what the uncalibrated network term misses.
    EXPECT_TRUE(std::isfinite(r.loo_residual));
    const double compute_only =
        (r.label == "one-node.log" ? (7.0 * 1.08 + 3.0 * 1.30 - 3.0) / 7.0 : (9.5 * 1.08 + 0.5 * 1.30 - 0.5) / 9.5);
    EXPECT_NEAR(r.loo_residual,
                (compute_only * r.compute_s + r.communication_s - r.measured_step_s) / r.measured_step_s, 1e-9);
  }
  EXPECT_TRUE(absl::StrContains(cal->Summary(), "compute x1.080, network x1.300")) << cal->Summary();
  EXPECT_TRUE(absl::StrContains(cal->Summary(), "LOO residuals")) << cal->Summary();
}

TEST(CalibrationTest, ThreeRunsGiveLeaveOneOutResidualsOfBothFactors) {
  const std::vector<CalibrationRun> runs = {Synthetic("a", 9.5, 0.5, 1.1, 1.5), Synthetic("b", 7.0, 3.0, 1.1, 1.5),
                                            Synthetic("c", 5.5, 4.5, 1.1, 1.5)};
  auto cal = FitCalibration(runs);
  ASSERT_TRUE(cal.ok()) << cal.status();
  // Exact data (shares 5%, 30%, 45%): whichever run is left out, the other
  // two span the 10 points and fit both factors exactly.
  for (const CalibrationRun& r : cal->runs) EXPECT_NEAR(r.loo_residual, 0, 1e-9) << r.label;
}

TEST(CalibrationTest, OneRunDeterminesComputeOnly) {
  const std::vector<CalibrationRun> runs = {Synthetic("only.log", 9.0, 1.0, 1.2, 1.0)};
  auto cal = FitCalibration(runs);
  ASSERT_TRUE(cal.ok()) << cal.status();
  EXPECT_TRUE(cal->compute_determined);
  EXPECT_FALSE(cal->network_determined);
  EXPECT_NEAR(cal->compute_factor, 1.2, 1e-9);
  EXPECT_EQ(cal->network_factor, 1.0);
  EXPECT_TRUE(std::isnan(cal->runs[0].loo_residual));
  bool names_run = false;
  for (const std::string& n : cal->notes) names_run = names_run || absl::StrContains(n, "exposed communication");
  EXPECT_TRUE(names_run);

  // Asked for the network factor: refused, naming the run that would determine it.
  auto refused = FitCalibration(runs, /*require_network=*/true);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(
      absl::StrContains(refused.status().message(), "at least 20% of its predicted step in exposed communication"))
      << refused.status();
}

TEST(CalibrationTest, RunsWithAlikeCommunicationSharesDoNotDetermineTheNetwork) {
  // 10% and 14%: 4 percentage points, under the 10 needed.
  const std::vector<CalibrationRun> runs = {Synthetic("a", 9.0, 1.0, 1.1, 2.0), Synthetic("b", 8.6, 1.4, 1.1, 2.0)};
  auto cal = FitCalibration(runs);
  ASSERT_TRUE(cal.ok()) << cal.status();
  EXPECT_FALSE(cal->network_determined);
  EXPECT_TRUE(absl::StrContains(cal->notes.back(), "span 4.0 percentage points")) << cal->notes.back();
  EXPECT_EQ(FitCalibration(runs, true).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(CalibrationTest, NonPhysicalFactorsAreRefused) {
  auto slow = FitCalibration({Synthetic("a", 9.0, 1.0, 3.0, 1.0)});
  ASSERT_EQ(slow.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(slow.status().message(), "outside 0.5-2.0")) << slow.status();
  // Measured faster than no communication at all: a negative network factor.
  CalibrationRun fast = Synthetic("b", 5.0, 5.0, 1.0, 1.0);
  fast.measured_step_s = 4.0;
  auto negative = FitCalibration({Synthetic("a", 9.5, 0.5, 1.0, 1.0), fast});
  ASSERT_EQ(negative.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(negative.status().message(), "network factor")) << negative.status();
}

TEST(CalibrationTest, BadRunsAreInvalid) {
  EXPECT_EQ(FitCalibration({}).status().code(), absl::StatusCode::kInvalidArgument);
  CalibrationRun b200 = Synthetic("b", 8, 2, 1, 1);
  b200.gpu_arch = "blackwell";
  b200.system = "b200";
  auto mixed = FitCalibration({Synthetic("a", 9, 1, 1, 1), b200});
  ASSERT_EQ(mixed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(mixed.status().message(), "runs[1].gpu_arch")) << mixed.status();
  CalibrationRun no_step = Synthetic("c", 9, 1, 1, 1);
  no_step.measured_step_s = std::nan("");
  auto bad = FitCalibration({no_step});
  ASSERT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "runs[0].measured_step_s")) << bad.status();
}

TEST(CalibrationTest, JsonRoundTrip) {
  auto cal =
      FitCalibration({Synthetic("one-node.log", 9.5, 0.5, 1.08, 1.30), Synthetic("four-nodes.log", 7, 3, 1.08, 1.30)});
  ASSERT_TRUE(cal.ok()) << cal.status();
  const std::string text = CalibrationToJson(*cal);
  auto back = CalibrationFromJson(text, "calibration");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->system, cal->system);
  EXPECT_EQ(back->gpu_arch, cal->gpu_arch);
  EXPECT_EQ(back->compute_factor, cal->compute_factor);
  EXPECT_EQ(back->network_factor, cal->network_factor);
  EXPECT_EQ(back->compute_determined, cal->compute_determined);
  EXPECT_EQ(back->network_determined, cal->network_determined);
  EXPECT_EQ(back->notes, cal->notes);
  ASSERT_EQ(back->runs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back->runs[i].label, cal->runs[i].label);
    EXPECT_EQ(back->runs[i].measured_step_s, cal->runs[i].measured_step_s);
    EXPECT_EQ(back->runs[i].compute_s, cal->runs[i].compute_s);
    EXPECT_EQ(back->runs[i].communication_s, cal->runs[i].communication_s);
    EXPECT_EQ(back->runs[i].loo_residual, cal->runs[i].loo_residual);
  }
  EXPECT_EQ(back->Summary(), cal->Summary());
  EXPECT_EQ(CalibrationToJson(*back), text);

  // One run: the residual it cannot have is null, and reads back as NaN.
  auto one = FitCalibration({Synthetic("only", 9, 1, 1.1, 1)});
  ASSERT_TRUE(one.ok());
  auto one_back = CalibrationFromJson(CalibrationToJson(*one), "calibration");
  ASSERT_TRUE(one_back.ok()) << one_back.status();
  EXPECT_TRUE(std::isnan(one_back->runs[0].loo_residual));
}

TEST(CalibrationTest, BadFilesNameTheField) {
  EXPECT_TRUE(absl::StrContains(CalibrationFromJson("{not json", "calibration").status().message(), "calibration"));
  auto cal = FitCalibration({Synthetic("a", 9, 1, 1.1, 1)});
  ASSERT_TRUE(cal.ok());
  std::string text = CalibrationToJson(*cal);
  const std::string key = "\"compute_factor\": ";
  const size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  std::string wrong = text;
  wrong.replace(at + key.size(), text.find(',', at) - at - key.size(), "7.5");
  auto bad = CalibrationFromJson(wrong, "calibration");
  ASSERT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(bad.status().message(), "calibration.compute_factor: compute_factor = 7.5 is out of range"))
      << bad.status();
  // An undetermined factor must be 1.
  std::string undetermined = text;
  const std::string nkey = "\"network_factor\": ";
  const size_t nat = undetermined.find(nkey);
  undetermined.replace(nat + nkey.size(), undetermined.find(',', nat) - nat - nkey.size(), "1.4");
  auto bad_network = CalibrationFromJson(undetermined, "calibration");
  ASSERT_EQ(bad_network.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad_network.status().message(), "not determined")) << bad_network.status();
}

TEST(CalibrationTest, CalibrationRunOfAComparison) {
  RunComparison c;
  c.has_prediction = true;
  c.measured_step_s = 12.0;
  c.predicted_step_s = 11.0;
  c.predicted_breakdown.compute_s = 8.0;
  c.predicted_breakdown.bubble_s = 1.0;
  c.predicted_breakdown.optimizer_s = 0.5;
  c.predicted_breakdown.tp_comm_s = 1.0;
  c.predicted_breakdown.dp_comm_s = 0.5;
  c.compute_scale = 1.0;
  const SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  auto r = CalibrationRunOf(c, "run.log", "llama3_70b", "TP 4", h100);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_s, 9.5);
  EXPECT_EQ(r->communication_s, 1.5);
  EXPECT_EQ(r->predicted_step_s, 11.0);
  EXPECT_EQ(r->gpu_arch, h100.gpu_arch);
  EXPECT_EQ(r->system, h100.id);
  // A comparison made with calibrated parameters is divided back out.
  c.compute_scale = 2.0;
  EXPECT_EQ(CalibrationRunOf(c, "run.log", "m", "c", h100)->compute_s, 4.75);
  c.has_prediction = false;
  EXPECT_FALSE(CalibrationRunOf(c, "run.log", "m", "c", h100).ok());
  c.has_prediction = true;
  c.measured_step_s = std::nan("");
  EXPECT_FALSE(CalibrationRunOf(c, "run.log", "m", "c", h100).ok());
}

// Llama 3 70B on 64 H100 (TP 4, PP 4, DP 4): exposed communication and a bubble to scale.
struct Plan {
  ModelSpec model = CatalogModel("llama3_70b");
  ResolvedConfig config;
  ResolvedPlacement placement;
};

Plan Llama70b(const char* system) {
  Plan p;
  ParallelConfig pc;
  pc.tp = 4;
  pc.pp = 4;
  pc.gbs = 256;
  pc.seq_length = 8192;
  p.config = *ResolveConfig(pc, &p.model, "config");
  Placement placement;
  placement.system = system;
  placement.gpus = 64;
  p.placement = *ResolvePlacement(placement, "placement");
  return p;
}

TEST(CalibrationTest, CalibratedParamsScaleEstimatePerformance) {
  const Plan plan = Llama70b("h100-sxm");
  const RunPrediction base = PredictRun(plan.model, plan.config, plan.placement, CalibratedPerfParams());
  ASSERT_TRUE(base.ok) << base.unavailable_reason;
  const PerfBreakdown& b = base.perf.breakdown;
  const double compute = b.compute_s + b.bubble_s + b.optimizer_s;
  const double comm = b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.dp_comm_s + b.pp_comm_s + b.fsdp_comm_s;
  ASSERT_GT(comm, 0);
  ASSERT_NEAR(compute + comm, base.perf.step_time_s, 1e-9 * base.perf.step_time_s);

  auto cal =
      FitCalibration({Synthetic("one-node.log", 9.5, 0.5, 1.08, 1.30), Synthetic("four-nodes.log", 7, 3, 1.08, 1.30)});
  ASSERT_TRUE(cal.ok()) << cal.status();
  bool applied = false;
  std::string note;
  const PerfParams params = CalibratedParams(CalibratedPerfParams(), *cal, *plan.placement.system, &applied, &note);
  EXPECT_TRUE(applied);
  EXPECT_NEAR(params.compute_scale, 1.08, 1e-9);
  EXPECT_NEAR(params.network_scale, 1.30, 1e-9);
  EXPECT_TRUE(absl::StrContains(note, "network x1.300")) << note;
  const RunPrediction scaled = PredictRun(plan.model, plan.config, plan.placement, params);
  ASSERT_TRUE(scaled.ok);
  const double step = 1.08 * compute + 1.30 * comm;
  EXPECT_NEAR(scaled.perf.step_time_s, step, 1e-9 * step);
  EXPECT_NEAR(scaled.perf.tokens_per_s_per_gpu, base.perf.tokens_per_s_per_gpu * base.perf.step_time_s / step,
              1e-9 * base.perf.tokens_per_s_per_gpu);
  EXPECT_NEAR(scaled.perf.mfu, base.perf.mfu * base.perf.step_time_s / step, 1e-9);
  EXPECT_NEAR(scaled.perf.model_tflops_per_gpu, scaled.perf.tokens_per_s_per_gpu * scaled.perf.flops.total / 1e12,
              1e-6);
  EXPECT_NEAR(scaled.perf.breakdown.gemm_s, 1.08 * b.gemm_s, 1e-12);
  EXPECT_NEAR(scaled.perf.breakdown.tp_comm_s, 1.30 * b.tp_comm_s, 1e-12);
  EXPECT_NEAR(scaled.perf.breakdown.bubble_s, 1.08 * b.bubble_s, 1e-12);
  bool says = false;
  for (const std::string& a : scaled.perf.assumptions)
    says = says || absl::StrContains(a, "Calibrated for this cluster");
  EXPECT_TRUE(says);
  for (const std::string& a : base.perf.assumptions) EXPECT_FALSE(absl::StrContains(a, "Calibrated for this cluster"));

  // Compute only: the network term stays as modelled.
  auto compute_only = FitCalibration({Synthetic("only.log", 9.0, 1.0, 1.2, 1.0)});
  ASSERT_TRUE(compute_only.ok());
  const PerfParams p1 = CalibratedParams(CalibratedPerfParams(), *compute_only, *plan.placement.system, &applied);
  EXPECT_TRUE(applied);
  EXPECT_EQ(p1.network_scale, 1.0);
  const RunPrediction s1 = PredictRun(plan.model, plan.config, plan.placement, p1);
  EXPECT_NEAR(s1.perf.step_time_s, 1.2 * compute + comm, 1e-9 * s1.perf.step_time_s);
}

// A synthetic Megatron-LM log whose steady steps are `step` (30 lines, the
// first 3 warm-up), as training.py training_log prints them at d98e8a64.
ParsedLog SteadyLog(double step, int64_t gbs) {
  ParsedLog log;
  log.format = LogFormat::kMegatronLm;
  for (int64_t i = 1; i <= 30; ++i) {
    IterationRecord r;
    r.iteration = i;
    r.format = LogFormat::kMegatronLm;
    r.step_s = i <= 3 ? 3 * step : step;
    r.global_batch_size = gbs;
    r.skipped_iterations = 0;
    r.nan_iterations = 0;
    r.line = i;
    log.iterations.push_back(r);
  }
  return log;
}

// Two runs of one cluster, compared and fitted: Llama 3 8B with data
// parallelism inside one node (little exposed communication) and with TP 16
// across two nodes (much), both measured at compute x1.08 and network x1.30.
TEST(CalibrationTest, TwoComparedRunsOfOneClusterDetermineBothFactors) {
  const ModelSpec model = CatalogModel("llama3_8b");
  const SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  std::vector<CalibrationRun> runs;
  std::vector<double> shares;
  for (const auto& [tp, gpus] : {std::pair<int64_t, int64_t>{1, 8}, {16, 16}}) {
    ParallelConfig pc;
    pc.tp = tp;
    pc.gbs = 64;
    pc.seq_length = 8192;
    pc.recompute_granularity = "full";
    const ResolvedConfig config = *ResolveConfig(pc, &model, "config");
    Placement placement;
    placement.system = "h100-sxm";
    placement.gpus = gpus;
    const ResolvedPlacement resolved = *ResolvePlacement(placement, "placement");
    const RunPrediction p = PredictRun(model, config, resolved, CalibratedPerfParams());
    ASSERT_TRUE(p.ok) << p.unavailable_reason;
    const PerfBreakdown& b = p.perf.breakdown;
    const double compute = b.compute_s + b.bubble_s + b.optimizer_s;
    const double comm = p.perf.step_time_s - compute;
    shares.push_back(comm / p.perf.step_time_s);
    const ParsedLog log = SteadyLog(1.08 * compute + 1.30 * comm, 64);
    CompareInputs in;
    in.log = &log;
    in.model = &model;
    in.config = &config;
    in.placement = &resolved;
    auto c = CompareRun(in);
    ASSERT_TRUE(c.ok()) << c.status();
    auto run = CalibrationRunOf(*c, absl::StrCat("tp", tp, ".log"), "llama3_8b", absl::StrCat("TP ", tp), h100);
    ASSERT_TRUE(run.ok()) << run.status();
    runs.push_back(*run);
  }
  ASSERT_GE(std::fabs(shares[1] - shares[0]), kMinCommShareSpread) << shares[0] << " " << shares[1];
  auto cal = FitCalibration(runs, /*require_network=*/true);
  ASSERT_TRUE(cal.ok()) << cal.status();
  EXPECT_NEAR(cal->compute_factor, 1.08, 1e-6);
  EXPECT_NEAR(cal->network_factor, 1.30, 1e-6);
  // Either run alone determines compute only, and asked for the network is refused.
  EXPECT_EQ(FitCalibration({runs[0]}, true).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(CalibrationTest, CalibrationAppliesOnlyToItsGpuAndItsFabric) {
  auto cal = FitCalibration({Synthetic("a", 9.5, 0.5, 1.08, 1.30), Synthetic("b", 7, 3, 1.08, 1.30)});
  ASSERT_TRUE(cal.ok());
  bool applied = true;
  std::string note;
  const SystemSpec b200 = *Catalog::Get().FindSystem("b200");
  const PerfParams other = CalibratedParams(CalibratedPerfParams(), *cal, b200, &applied, &note);
  EXPECT_FALSE(applied);
  EXPECT_EQ(other.compute_scale, 1.0);
  EXPECT_EQ(other.network_scale, 1.0);
  EXPECT_TRUE(absl::StrContains(note, "not applied")) << note;
  // Same GPU, another system: the GPU's factor only.
  SystemSpec h100_other = *Catalog::Get().FindSystem("h100-sxm");
  h100_other.id = "h100-pcie-cluster";
  const PerfParams same_gpu = CalibratedParams(CalibratedPerfParams(), *cal, h100_other, &applied, &note);
  EXPECT_TRUE(applied);
  EXPECT_NEAR(same_gpu.compute_scale, 1.08, 1e-9);
  EXPECT_EQ(same_gpu.network_scale, 1.0);
  EXPECT_TRUE(absl::StrContains(note, "fabric")) << note;
}

}  // namespace
}  // namespace parplan
