// Where NVIDIA's tuned parallel layout lands in the planner's ranking.
// For each distinct published case (model, system, GPUs, GBS, sequence,
// precision) of benchmarks_calibration.csv, runs Recommend on exactly that
// case and finds the rank of the first plan with the published (TP, PP, CP,
// EP, VPP); reports hit@1/5/10 and, where the top plan differs, its predicted
// gain over the published config (evaluated with the planner's model).
//   recommend_accuracy_bench            (uses tests/data)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/calibration_rows.h"
#include "core/search/recommender.h"

using namespace parplan;

namespace {

constexpr int kDepth = 100;  // distinct meshes ranked per case

bool SameMesh(const ResolvedConfig& a, const ResolvedConfig& b) {
  return a.tp == b.tp && a.pp == b.pp && a.cp == b.cp && a.ep == b.ep && a.vpp == b.vpp;
}

}  // namespace

// The step-time component that differs most between the published config's
// estimate and the top plan's (StepParts names): "separates: exposed EP all-to-all 2.10 s vs 0.40 s
// per step (published vs top)".
std::string Separates(const parplan::PerfEstimate& published, const parplan::PerfEstimate& top) {
  const auto a = parplan::StepParts(published.breakdown);
  const auto b = parplan::StepParts(top.breakdown);
  size_t most = 0;
  for (size_t i = 1; i < a.size(); ++i) {
    if (std::fabs(a[i].seconds - b[i].seconds) > std::fabs(a[most].seconds - b[most].seconds)) most = i;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "separates: %s %.2f s vs %.2f s per step (published vs top; steps %.2f s vs %.2f s)",
                a[most].name, a[most].seconds, b[most].seconds, published.step_time_s, top.step_time_s);
  return buf;
}

int main(int argc, char** argv) {
  const double memory_fraction = argc > 1 ? std::atof(argv[1]) : SearchRequest{}.max_memory_fraction;
  std::vector<std::string> skipped;
  const auto rows = LoadCalibrationRows(PARPLAN_TEST_DATA_DIR, &skipped);
  // The newest row of each case (the file lists newer containers first).
  std::map<std::string, const CalibrationRow*> cases;
  std::vector<std::string> order;
  for (const auto& r : rows) {
    const auto& c = r.config;
    const std::string key = absl::StrCat(r.model_id, "/", r.system.id, "/", r.gpus, "/", PrecisionName(c.precision),
                                         "/gbs", c.gbs, "/seq", c.seq_length);
    if (cases.emplace(key, &r).second) order.push_back(key);
  }
  std::printf("%-52s %-28s %6s %9s %9s %7s\n", "case (model/system/gpus/precision/gbs/seq)",
              "published TP/PP/CP/EP/VPP", "rank", "tuned", "top", "gain");
  int hit1 = 0, hit5 = 0, hit10 = 0, n = 0;
  std::vector<double> gains;
  for (const auto& key : order) {
    const CalibrationRow& r = *cases[key];
    SearchRequest q;
    q.model = &r.model;
    q.system = r.system;
    q.gpus = r.gpus;
    q.base = r.config;
    q.top_k = kDepth;
    q.max_memory_fraction = memory_fraction;
    auto result = Recommend(q);
    ++n;
    const std::string published =
        absl::StrCat(r.config.tp, "/", r.config.pp, "/", r.config.cp, "/", r.config.ep, "/", r.config.vpp);
    if (!result.ok() || !result->feasible) {
      std::printf("%-52s %-28s %6s  (no plan: %s)\n", key.c_str(), published.c_str(), "-",
                  result.ok() ? result->infeasible_reason.c_str() : std::string(result.status().message()).c_str());
      continue;
    }
    int rank = 0;
    for (size_t i = 0; i < result->plans.size(); ++i) {
      if (SameMesh(result->plans[i].config, r.config)) {
        rank = static_cast<int>(i) + 1;
        break;
      }
    }
    hit1 += rank == 1;
    hit5 += rank >= 1 && rank <= 5;
    hit10 += rank >= 1 && rank <= 10;
    const PlanEval tuned = EvaluatePlan(r.model, r.config, r.gpus, r.system);
    const double top = result->plans.front().perf.tokens_per_s_per_gpu;
    std::string note;
    double gain = 0;
    if (tuned.valid && tuned.memory.fits) {
      gain = top / tuned.perf.tokens_per_s_per_gpu - 1;
      if (rank != 1) gains.push_back(gain);
    } else {
      note = tuned.valid ? " (published config predicted not to fit)" : " (published config invalid here)";
    }
    std::printf("%-52s %-28s %6s %9.0f %9.0f %+6.1f%%%s\n", key.c_str(), published.c_str(),
                rank > 0 ? std::to_string(rank).c_str() : ">100", tuned.perf.tokens_per_s_per_gpu, top, 100 * gain,
                note.c_str());
    if (rank != 1) {
      std::printf("%52s top: %s\n", "", PlanLabel(result->plans.front().config).c_str());
      if (tuned.valid) std::printf("%52s %s\n", "", Separates(tuned.perf, result->plans.front().perf).c_str());
    }
  }
  std::printf("\ncases: %d (rows %zu, skipped %zu)\n", n, rows.size(), skipped.size());
  std::printf("hit@1 %d/%d = %.0f%%   hit@5 %d/%d = %.0f%%   hit@10 %d/%d = %.0f%%\n", hit1, n, 100.0 * hit1 / n, hit5,
              n, 100.0 * hit5 / n, hit10, n, 100.0 * hit10 / n);
  if (!gains.empty()) {
    std::sort(gains.begin(), gains.end());
    std::printf(
        "predicted gain of the top plan over the published config where they differ (n=%zu): median %+.1f%%, "
        "max %+.1f%%\n",
        gains.size(), 100 * gains[gains.size() / 2], 100 * gains.back());
  }
  return 0;
}
