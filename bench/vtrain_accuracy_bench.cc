// How the performance model ranks meshes it was not fitted on: the vTrain
// project's measured A100 iterations (tests/data/vtrain_a100_calibration.csv,
// from ../shared/data/external; see its README there): a 3.6B GPT on 64 GPUs
// and a 39.1B GPT on 512 GPUs, each with many (TP, PP, DP, MBS) meshes at one
// global batch. Per group: Spearman rank correlation of predicted vs measured
// iteration time, the top-1 regret (how much slower the measured time of the
// mesh the model ranks first is than the measured best), and the median
// absolute error of the time itself.
//
// The runs: Megatron-LM GPT (learned positions, GeLU MLP of 4*hidden, MHA,
// vocabulary 50,257), fp16, full recomputation, 1F1B, nodes of 8 A100s with
// 4 x 200 Gb/s per node (100 Gb/s per GPU: an override of a100-80gb).
//
//   build/bench/vtrain_accuracy_bench
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench/megatron_gpt.h"
#include "core/catalog/catalog.h"
#include "core/memory/memory_model.h"
#include "core/perf/perf_model.h"
#include "core/pipeline/stage_plan.h"
#include "tests/core/csv_reader.h"

namespace parplan {
namespace {

struct Run {
  std::string mesh;
  double measured_ms = 0;
  double predicted_ms = 0;
};

// Ranks with ties averaged.
std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < v.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = (i + j) / 2.0;
    i = j + 1;
  }
  return rank;
}

double Spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = Ranks(a), rb = Ranks(b);
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ma += ra[i] / n;
    mb += rb[i] / n;
  }
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0;
}

}  // namespace
}  // namespace parplan

int main() {
  using namespace parplan;
  const auto rows = ReadCsv(std::string(PARPLAN_TEST_DATA_DIR) + "/vtrain_a100_calibration.csv");
  SystemSpec system = *Catalog::Get().FindSystem("a100-80gb");
  system.scaleout_gbps_per_gpu = 100;  // 4 x 200 Gb/s per 8-GPU node
  std::map<std::string, std::vector<Run>> groups;
  int skipped = 0;
  for (const auto& r : rows) {
    if (r.at("source").find("multi") == std::string::npos) continue;
    const ModelSpec m = MegatronGpt("vtrain_gpt_" + r.at("params_b") + "b", r);
    ResolvedConfig c;
    c.tp = std::stoll(r.at("tp"));
    c.pp = std::stoll(r.at("pp"));
    c.mbs = std::stoll(r.at("mbs"));
    c.gbs = std::stoll(r.at("gbs"));
    c.seq_length = m.seq_length;
    c.sp = false;  // vTrain's Megatron-LM runs: no sequence parallelism
    c.etp = c.tp;
    c.precision = Precision::kBf16;  // fp16: same tensor-core peak and bytes
    c.recompute = RecomputeGranularity::kFull;
    c.recompute_method = RecomputeMethod::kUniform;
    c.recompute_num_layers = 1;
    c.distributed_optimizer = false;
    c.unfused_attention = true;     // 2023 Megatron-LM: no flash attention
    c.overlap_grad_reduce = false;  // "no gradient bucketing" in vTrain's runs
    const int64_t gpus = std::stoll(r.at("num_gpus"));
    std::vector<Violation> v;
    auto plan = PlanStages(m, c, &v);
    if (!plan.has_value() || gpus % (c.tp * c.pp) != 0) {
      ++skipped;
      continue;
    }
    const PerfEstimate e = EstimatePerformance(m, c, *plan, gpus, system, CalibratedPerfParams());
    Run run;
    run.mesh = "TP" + r.at("tp") + " PP" + r.at("pp") + " DP" + r.at("dp") + " MBS" + r.at("mbs");
    run.measured_ms = std::stod(r.at("iteration_time_ms"));
    run.predicted_ms = e.step_time_s * 1000;
    groups[r.at("params_b") + "B GPT on " + r.at("num_gpus") + " A100"].push_back(run);
  }
  std::printf("vTrain multi-node groups (measured vs predicted iteration time), skipped %d rows\n\n", skipped);
  for (const auto& [name, runs] : groups) {
    std::vector<double> measured, predicted, errors;
    for (const auto& run : runs) {
      measured.push_back(run.measured_ms);
      predicted.push_back(run.predicted_ms);
      errors.push_back(std::fabs(run.predicted_ms / run.measured_ms - 1));
    }
    std::sort(errors.begin(), errors.end());
    const size_t best_measured = std::min_element(measured.begin(), measured.end()) - measured.begin();
    const size_t best_predicted = std::min_element(predicted.begin(), predicted.end()) - predicted.begin();
    std::printf("%s: %zu meshes\n", name.c_str(), runs.size());
    std::printf("  Spearman rank correlation %.3f\n", Spearman(measured, predicted));
    std::printf("  top-1: model picks %s (measured %.0f ms); measured best %s (%.0f ms); regret %.1f%%\n",
                runs[best_predicted].mesh.c_str(), measured[best_predicted], runs[best_measured].mesh.c_str(),
                measured[best_measured], 100 * (measured[best_predicted] / measured[best_measured] - 1));
    std::printf("  median absolute error of the iteration time %.1f%%\n", 100 * errors[errors.size() / 2]);
    for (const auto& run : runs) {
      std::printf("    %-24s measured %9.1f ms  predicted %9.1f ms  %+6.1f%%\n", run.mesh.c_str(), run.measured_ms,
                  run.predicted_ms, 100 * (run.predicted_ms / run.measured_ms - 1));
    }
  }
  return 0;
}
