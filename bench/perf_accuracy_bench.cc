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
#include <cstdlib>
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

// dense, MoE, MLA+MoE or hybrid Mamba, as the accuracy targets group models.
std::string ModelFamily(const ModelSpec& m) {
  if (m.is_hybrid()) return "hybrid Mamba";
  if (m.multi_latent_attention) return "MLA+MoE";
  return m.is_moe() ? "MoE" : "dense";
}

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

// The fitted parameters and their physical ranges (core/perf/README.md).
// Kernel ceilings may move only within +-12% of their published prior; an
// architecture/precision with no rows in the fit stays at its prior.
std::vector<Knob> Knobs() {
  std::vector<Knob> k;
  static const char* names[3][3] = {{"ampere.bf16", "ampere.fp8", "ampere.fp4"},
                                    {"hopper.bf16", "hopper.fp8", "hopper.fp4"},
                                    {"blackwell.bf16", "blackwell.fp8", "blackwell.fp4"}};
  const PerfParams prior;
  for (int a = 0; a < 3; ++a) {
    for (int q = 0; q < 3; ++q) {
      const double v = prior.gemm_ceiling[a][q];
      k.push_back({names[a][q], [a, q](PerfParams* p) { return &p->gemm_ceiling[a][q]; }, v * 0.6,
                   std::min(0.95, v * 1.2)});
    }
  }
  k.push_back({"attention_ceiling.hopper", [](PerfParams* p) { return &p->attention_ceiling[1]; }, 0.35, 0.8});
  k.push_back({"attention_ceiling.blackwell", [](PerfParams* p) { return &p->attention_ceiling[2]; }, 0.35, 0.8});
  k.push_back({"grouped_gemm_share", [](PerfParams* p) { return &p->grouped_gemm_share; }, 0.3, 1.0});
  k.push_back({"mamba_scan_efficiency", [](PerfParams* p) { return &p->mamba_scan_efficiency; }, 0.02, 0.5});
  k.push_back({"hbm_efficiency", [](PerfParams* p) { return &p->hbm_efficiency; }, 0.4, 0.92});
  k.push_back({"host_module_us", [](PerfParams* p) { return &p->host_module_us; }, 50, 1500});
  k.push_back({"host_moe_us", [](PerfParams* p) { return &p->host_moe_us; }, 0, 3000});
  k.push_back({"moe_sync_us", [](PerfParams* p) { return &p->moe_sync_us; }, 0, 500});
  k.push_back({"expert_launch_us", [](PerfParams* p) { return &p->expert_launch_us; }, 1, 30});
  k.push_back({"tp_exposed", [](PerfParams* p) { return &p->tp_exposed; }, 0.3, 1});
  k.push_back({"tp_exposed_overlap", [](PerfParams* p) { return &p->tp_exposed_overlap; }, 0.05, 0.6});
  k.push_back({"cp_exposed", [](PerfParams* p) { return &p->cp_exposed; }, 0.05, 1});
  k.push_back({"ep_exposed", [](PerfParams* p) { return &p->ep_exposed; }, 0.3, 1});
  k.push_back({"ep_exposed_overlap", [](PerfParams* p) { return &p->ep_exposed_overlap; }, 0.05, 0.8});
  k.push_back({"dp_exposed", [](PerfParams* p) { return &p->dp_exposed; }, 0.02, 1});
  k.push_back({"pp_exposed", [](PerfParams* p) { return &p->pp_exposed; }, 0.1, 1});
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
  for (int a = 0; a < 3; ++a) {
    for (int q = 0; q < 3; ++q) std::printf("    p.gemm_ceiling[%d][%d] = %.4f;\n", a, q, p.gemm_ceiling[a][q]);
  }
  for (int a = 0; a < 3; ++a) std::printf("    p.attention_ceiling[%d] = %.4f;\n", a, p.attention_ceiling[a]);
  std::printf("    p.grouped_gemm_share = %.4f;\n", p.grouped_gemm_share);
  std::printf("    p.mamba_scan_efficiency = %.4f;\n    p.hbm_efficiency = %.4f;\n", p.mamba_scan_efficiency,
              p.hbm_efficiency);
  std::printf("    p.expert_launch_us = %.2f;\n", p.expert_launch_us);
  std::printf("    p.host_module_us = %.2f;\n    p.host_moe_us = %.2f;\n    p.moe_sync_us = %.2f;\n", p.host_module_us,
              p.host_moe_us, p.moe_sync_us);
  std::printf("    p.tp_exposed = %.4f;\n    p.tp_exposed_overlap = %.4f;\n    p.cp_exposed = %.4f;\n", p.tp_exposed,
              p.tp_exposed_overlap, p.cp_exposed);
  std::printf("    p.ep_exposed = %.4f;\n    p.ep_exposed_overlap = %.4f;\n", p.ep_exposed, p.ep_exposed_overlap);
  std::printf("    p.dp_exposed = %.4f;\n    p.pp_exposed = %.4f;\n", p.dp_exposed, p.pp_exposed);
}

}  // namespace
}  // namespace parplan

int main(int argc, char** argv) {
  using namespace parplan;
  const bool fit = argc > 1 && std::strcmp(argv[1], "--fit") == 0;
  std::vector<std::string> skipped;
  const auto rows = LoadCalibrationRows(PARPLAN_TEST_DATA_DIR, &skipped);
  std::vector<const CalibrationRow*> all;
  // PARPLAN_FIT_ONLY=<model id>: fit on that model's rows only (a diagnostic).
  const char* only = std::getenv("PARPLAN_FIT_ONLY");
  for (const auto& r : rows) {
    if ((only == nullptr || r.model_id == only) && (std::getenv("PARPLAN_NEWEST") == nullptr || r.newest)) all.push_back(&r);
  }
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
    if (r.newest) by_group["newest container per run"].push_back(err);
    by_group["family " + ModelFamily(r.model)].push_back(err);
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
  // Hold-out runs: refit without a group of rows, predict the group.
  auto held_out = [&](const char* title, const std::function<std::string(const CalibrationRow&)>& key,
                      std::map<std::string, std::vector<double>>* by_key) {
    std::set<std::string> keys;
    for (const auto& r : rows) keys.insert(key(r));
    std::vector<double> all_errs;
    std::printf("\n%s\n", title);
    for (const auto& held : keys) {
      std::vector<const CalibrationRow*> train, test;
      for (const auto& r : rows) (key(r) == held ? test : train).push_back(&r);
      const PerfParams p = Fit(train);
      std::vector<double> errs;
      for (const auto* r : test) {
        const double err = std::fabs(Predict(*r, p) / r->published_tokens_per_s_per_gpu - 1);
        errs.push_back(err);
        all_errs.push_back(err);
        if (by_key != nullptr) (*by_key)[held].push_back(err);
      }
      const Summary s = Summarize(errs);
      std::printf("  %-24s %4zu rows  median %5.1f%%  p90 %5.1f%%\n", held.c_str(), s.n, 100 * s.median, 100 * s.p90);
    }
    const Summary l = Summarize(all_errs);
    std::printf("  %-24s %4zu rows  median %5.1f%%  p90 %5.1f%%\n", "all", l.n, 100 * l.median, 100 * l.p90);
    return all_errs;
  };
  std::map<std::string, std::vector<double>> lomo_by_model;
  held_out("leave-one-model-out (refit on the other models)", [](const CalibrationRow& r) { return r.model_id; },
           &lomo_by_model);
  std::map<std::string, std::vector<double>> lomo_by_family;
  {
    std::map<std::string, std::string> family_of;
    for (const auto& r : rows) family_of[r.model_id] = ModelFamily(r.model);
    for (const auto& [model, errs] : lomo_by_model) {
      auto& v = lomo_by_family[family_of[model]];
      v.insert(v.end(), errs.begin(), errs.end());
    }
    std::printf("  by family:\n");
    for (const auto& [family, errs] : lomo_by_family) {
      const Summary s = Summarize(errs);
      std::printf("  %-24s %4zu rows  median %5.1f%%  p90 %5.1f%%\n", family.c_str(), s.n, 100 * s.median, 100 * s.p90);
    }
  }
  held_out("leave-one-GPU-generation-out (refit on the other generation)",
           [](const CalibrationRow& r) { return r.system.gpu_arch; }, nullptr);
  return 0;
}
