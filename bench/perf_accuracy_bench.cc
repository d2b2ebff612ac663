// Accuracy of the performance model against published Megatron Bridge runs.
//
//   perf_accuracy_bench          predicted vs published tokens/s/GPU per row,
//                                summaries by system and dense/MoE, and a
//                                leave-one-model-out run
//   perf_accuracy_bench --fit    refit the parameters on all rows and print
//                                the initializer for core/perf/perf_params.cc
//
// The fit minimises the mean squared log error with coordinate descent over
// the free parameters: GEMM efficiency per GPU generation and precision, the
// GEMM size at half efficiency, attention efficiency, expert-GEMM tokens at
// half efficiency, element-wise HBM passes and the exposed fraction of each
// communication. Nothing is fitted per model or per row.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/calibration_rows.h"
#include "core/perf/perf_model.h"

namespace parplan {
namespace {

double Predict(const CalibrationRow& r, const PerfParams& p) {
  return EstimatePerformance(r.model, r.config, r.plan, r.gpus, r.system, p).tokens_per_s_per_gpu;
}

double LogError(const std::vector<const CalibrationRow*>& rows, const PerfParams& p) {
  double sum = 0;
  for (const auto* r : rows) {
    const double e = std::log(Predict(*r, p) / r->published_tokens_per_s_per_gpu);
    sum += e * e;
  }
  return rows.empty() ? 0 : sum / rows.size();
}

// Every free parameter as a pointer into PerfParams, with bounds.
struct Knob {
  const char* name;
  std::function<double*(PerfParams*)> get;
  double lo, hi;
};

std::vector<Knob> Knobs() {
  std::vector<Knob> k;
  const char* names[2][3] = {{"hopper.bf16", "hopper.fp8", "hopper.fp4"}, {"blackwell.bf16", "blackwell.fp8", "blackwell.fp4"}};
  for (int a = 0; a < 2; ++a) {
    for (int q = 0; q < 3; ++q) {
      k.push_back({names[a][q], [a, q](PerfParams* p) { return &p->gemm_efficiency[a][q]; }, 0.15, 0.95});
    }
  }
  k.push_back({"gemm_half_gflop", [](PerfParams* p) { return &p->gemm_half_gflop; }, 0.01, 500});
  k.push_back({"attention_efficiency", [](PerfParams* p) { return &p->attention_efficiency; }, 0.1, 0.75});
  k.push_back({"expert_half_tokens", [](PerfParams* p) { return &p->expert_half_tokens; }, 1, 8192});
  k.push_back({"elementwise_passes", [](PerfParams* p) { return &p->elementwise_passes; }, 0, 40});
  k.push_back({"layer_latency_us", [](PerfParams* p) { return &p->layer_latency_us; }, 1, 100});
  k.push_back({"moe_latency_us", [](PerfParams* p) { return &p->moe_latency_us; }, 1, 300});
  k.push_back({"moe_permute_passes", [](PerfParams* p) { return &p->moe_permute_passes; }, 0, 200});
  k.push_back({"tp_exposed", [](PerfParams* p) { return &p->tp_exposed; }, 0.45, 0.45});
  k.push_back({"cp_exposed", [](PerfParams* p) { return &p->cp_exposed; }, 0, 1});
  k.push_back({"ep_exposed", [](PerfParams* p) { return &p->ep_exposed; }, 0, 1});
  k.push_back({"dp_exposed", [](PerfParams* p) { return &p->dp_exposed; }, 0.1, 1});
  k.push_back({"pp_exposed", [](PerfParams* p) { return &p->pp_exposed; }, 0.3, 1});
  return k;
}

// Starts from PerfParams' defaults (so a fit does not depend on the committed
// values), clamped into the knobs' bounds.
PerfParams Fit(const std::vector<const CalibrationRow*>& rows) {
  PerfParams best;
  const auto knobs = Knobs();
  for (const auto& k : knobs) {
    double* v = k.get(&best);
    *v = std::min(k.hi, std::max(k.lo, *v));
  }
  double best_err = LogError(rows, best);
  for (double step : {0.5, 0.25, 0.1, 0.05, 0.02, 0.01}) {
    for (int sweep = 0; sweep < 10; ++sweep) {
      bool improved = false;
      for (const auto& k : knobs) {
        for (double dir : {1 + step, 1 / (1 + step)}) {
          PerfParams trial = best;
          double* v = k.get(&trial);
          double nv = (*v == 0 ? 0.01 : *v) * dir;
          nv = std::min(k.hi, std::max(k.lo, nv));
          if (nv == *v) continue;
          *v = nv;
          const double err = LogError(rows, trial);
          if (err < best_err - 1e-12) {
            best = trial;
            best_err = err;
            improved = true;
          }
        }
      }
      if (!improved) break;
    }
  }
  return best;
}

struct Summary {
  double median = 0, p90 = 0;
  size_t n = 0;
};

Summary Summarize(std::vector<double> errors) {
  Summary s;
  s.n = errors.size();
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  auto q = [&](double f) { return errors[static_cast<size_t>(std::min<double>(errors.size() - 1, std::ceil(f * errors.size()) - 1))]; };
  s.median = errors.size() % 2 ? errors[errors.size() / 2] : (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;
  s.p90 = q(0.9);
  return s;
}

void PrintInitializer(const PerfParams& p) {
  std::printf("    p.gemm_efficiency[0][0] = %.4f;\n    p.gemm_efficiency[0][1] = %.4f;\n    p.gemm_efficiency[0][2] = %.4f;\n",
              p.gemm_efficiency[0][0], p.gemm_efficiency[0][1], p.gemm_efficiency[0][2]);
  std::printf("    p.gemm_efficiency[1][0] = %.4f;\n    p.gemm_efficiency[1][1] = %.4f;\n    p.gemm_efficiency[1][2] = %.4f;\n",
              p.gemm_efficiency[1][0], p.gemm_efficiency[1][1], p.gemm_efficiency[1][2]);
  std::printf("    p.gemm_half_gflop = %.4f;\n    p.attention_efficiency = %.4f;\n    p.expert_half_tokens = %.2f;\n",
              p.gemm_half_gflop, p.attention_efficiency, p.expert_half_tokens);
  std::printf("    p.elementwise_passes = %.4f;\n    p.tp_exposed = %.4f;\n    p.cp_exposed = %.4f;\n", p.elementwise_passes,
              p.tp_exposed, p.cp_exposed);
  std::printf("    p.ep_exposed = %.4f;\n    p.dp_exposed = %.4f;\n    p.pp_exposed = %.4f;\n", p.ep_exposed, p.dp_exposed,
              p.pp_exposed);
  std::printf("    p.layer_latency_us = %.2f;\n    p.moe_latency_us = %.2f;\n", p.layer_latency_us, p.moe_latency_us);
  std::printf("    p.moe_permute_passes = %.4f;\n", p.moe_permute_passes);
}

}  // namespace
}  // namespace parplan

int main(int argc, char** argv) {
  using namespace parplan;
  const bool fit = argc > 1 && std::strcmp(argv[1], "--fit") == 0;
  std::vector<std::string> skipped;
  const auto rows = LoadCalibrationRows(PARPLAN_TEST_DATA_DIR, &skipped);
  std::vector<const CalibrationRow*> all;
  for (const auto& r : rows) all.push_back(&r);
  if (fit) {
    const PerfParams fitted = Fit(all);
    std::printf("# fitted on %zu rows, mean squared log error %.4f -> %.4f\n", all.size(),
                LogError(all, CalibratedPerfParams()), LogError(all, fitted));
    PrintInitializer(fitted);
    return 0;
  }
  const PerfParams& params = CalibratedPerfParams();
  std::printf("%-58s %10s %10s %7s\n", "run (model/system/gpus/precision/container)", "published", "predicted", "error");
  std::map<std::string, std::vector<double>> by_group;
  std::vector<double> errors;
  for (const auto& r : rows) {
    const double pred = Predict(r, params);
    const double err = std::fabs(pred / r.published_tokens_per_s_per_gpu - 1);
    errors.push_back(err);
    by_group["system " + r.system.id].push_back(err);
    by_group[r.moe ? "kind MoE" : "kind dense"].push_back(err);
    if (r.config.fsdp) by_group["Megatron FSDP"].push_back(err);
    std::printf("%-58s %10.0f %10.0f %+6.1f%%\n", (r.label + (r.config.fsdp ? " fsdp" : "")).c_str(), r.published_tokens_per_s_per_gpu, pred,
                100 * (pred / r.published_tokens_per_s_per_gpu - 1));
  }
  const Summary all_s = Summarize(errors);
  std::printf("\nrows: %zu (skipped %zu)\n", rows.size(), skipped.size());
  for (const auto& s : skipped) std::printf("  skipped %s\n", s.c_str());
  std::printf("\nabsolute %% error of tokens/s/GPU    n   median    p90\n");
  std::printf("%-32s %4zu %7.1f%% %6.1f%%\n", "all rows", all_s.n, 100 * all_s.median, 100 * all_s.p90);
  for (const auto& [group, errs] : by_group) {
    const Summary s = Summarize(errs);
    std::printf("%-32s %4zu %7.1f%% %6.1f%%\n", group.c_str(), s.n, 100 * s.median, 100 * s.p90);
  }
  // Leave one model out: refit without the model, predict it.
  std::set<std::string> models;
  for (const auto& r : rows) models.insert(r.model_id);
  std::vector<double> lomo;
  std::printf("\nleave-one-model-out (refit on the other models)\n");
  for (const auto& held : models) {
    std::vector<const CalibrationRow*> train, test;
    for (const auto& r : rows) (r.model_id == held ? test : train).push_back(&r);
    const PerfParams p = Fit(train);
    std::vector<double> errs;
    for (const auto* r : test) {
      const double err = std::fabs(Predict(*r, p) / r->published_tokens_per_s_per_gpu - 1);
      errs.push_back(err);
      lomo.push_back(err);
    }
    const Summary s = Summarize(errs);
    std::printf("  %-20s %4zu rows  median %5.1f%%  p90 %5.1f%%\n", held.c_str(), s.n, 100 * s.median, 100 * s.p90);
  }
  const Summary l = Summarize(lomo);
  std::printf("%-32s %4zu %7.1f%% %6.1f%%\n", "leave-one-model-out, all", l.n, 100 * l.median, 100 * l.p90);
  return 0;
}
