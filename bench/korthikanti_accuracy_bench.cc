// The eight measured A100 runs of Korthikanti et al. 2022, "Reducing
// Activation Recomputation in Large Transformer Models" (arXiv:2205.05198,
// Table 5: GPT 22B, 175B, 530B and 1T with TP 8 and PP 1-64, full
// recomputation vs sequence parallelism + selective recomputation), as
// transcribed in Calculon's validation (tests/data/korthikanti_a100_runs.csv
// and .md), side by side with Calculon's own predictions. No parplan
// parameter is fitted on them: an A100 generation the calibration data does
// not have.
//
// The runs: Megatron-LM GPT (learned positions, GeLU MLP, MHA, vocabulary
// 51,200), fp16, 2022 Megatron-LM attention (unfused: batched GEMMs and a
// fused softmax over the whole s x s scores), data parallelism 1, on Selene
// (DGX A100: NVSwitch, 8 x 200 Gb/s HDR per node: the a100-80gb catalog
// system). "full" recomputes every layer (uniform, 1 layer per checkpoint)
// without SP; "selective" recomputes the attention core with SP.
//
//   build/bench/korthikanti_accuracy_bench
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/megatron_gpt.h"
#include "core/catalog/catalog.h"
#include "core/perf/perf_model.h"
#include "core/pipeline/stage_plan.h"
#include "tests/core/csv_reader.h"

int main() {
  using namespace parplan;
  const auto rows = ReadCsv(std::string(PARPLAN_TEST_DATA_DIR) + "/korthikanti_a100_runs.csv");
  const SystemSpec system = *Catalog::Get().FindSystem("a100-80gb");
  std::printf("Korthikanti et al. 2022 (arXiv:2205.05198 Table 5), A100, seconds per iteration\n");
  std::printf("%-12s %9s %9s %8s %9s %8s\n", "run", "measured", "parplan", "error", "Calculon", "error");
  double sum = 0, worst = 0, calculon_sum = 0, calculon_worst = 0;
  int n = 0;
  std::vector<double> full, selective;
  for (const auto& r : rows) {
    const ModelSpec m = MegatronGpt(r.at("model"), r);
    ResolvedConfig c;
    c.tp = std::stoll(r.at("tp"));
    c.pp = std::stoll(r.at("pp"));
    c.vpp = std::stoll(r.at("vpp"));
    c.mbs = std::stoll(r.at("mbs"));
    c.gbs = std::stoll(r.at("gbs"));
    c.seq_length = m.seq_length;
    c.sp = r.at("sequence_parallel") == "true";
    c.etp = c.tp;
    c.precision = Precision::kBf16;  // fp16: the same tensor-core peak and bytes
    c.unfused_attention = true;
    if (r.at("recompute") == "full") {
      c.recompute = RecomputeGranularity::kFull;
      c.recompute_method = RecomputeMethod::kUniform;
      c.recompute_num_layers = 1;
    } else {
      c.recompute = RecomputeGranularity::kSelective;
      c.recompute_modules = {"core_attn"};
    }
    c.distributed_optimizer = false;
    const int64_t gpus = std::stoll(r.at("gpus"));
    std::vector<Violation> v;
    auto plan = PlanStages(m, c, &v);
    if (!plan.has_value()) {
      std::printf("%-12s cannot be planned\n", r.at("run_id").c_str());
      continue;
    }
    const PerfEstimate e = EstimatePerformance(m, c, *plan, gpus, system, CalibratedPerfParams());
    const double measured = std::stod(r.at("measured_step_s"));
    const double calculon = std::stod(r.at("calculon_step_s"));
    const double err = e.step_time_s / measured - 1;
    const double calculon_err = calculon / measured - 1;
    std::printf("%-12s %9.2f %9.2f %+7.1f%% %9.2f %+7.1f%%\n", r.at("run_id").c_str(), measured, e.step_time_s,
                100 * err, calculon, 100 * calculon_err);
    sum += std::fabs(err);
    worst = std::max(worst, std::fabs(err));
    calculon_sum += std::fabs(calculon_err);
    calculon_worst = std::max(calculon_worst, std::fabs(calculon_err));
    ++n;
    (r.at("recompute") == "full" ? full : selective).push_back(e.step_time_s / measured);
  }
  if (n == 0) return 1;
  std::printf("\nmean absolute error: parplan %.1f%% (max %.1f%%), Calculon %.1f%% (max %.1f%%) over %d runs\n",
              100 * sum / n, 100 * worst, 100 * calculon_sum / n, 100 * calculon_worst, n);
  return 0;
}
