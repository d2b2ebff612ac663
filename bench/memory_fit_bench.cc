// Memory model against configs that ran: for every NVIDIA tuned config on a
// catalog system, the predicted peak per-GPU memory divided by the GPU's
// capacity, and the distribution. Configs that ran must be predicted to fit;
// they are tuned to use most of the memory, so a median far below 60% would
// mean the model undercounts.
//
//   memory_fit_bench [tuned_configs_calibration.csv]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/tuned_config_rows.h"
#include "server/api/planner_api.h"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : std::string(PARPLAN_TEST_DATA_DIR) + "/tuned_configs_calibration.csv";
  const auto rows = parplan::LoadTunedRows(path);
  std::vector<double> ratios;
  int over = 0, skipped = 0;
  std::printf("%-70s %-12s %8s %8s %7s  %s\n", "recipe", "system", "peakGiB", "capGiB", "ratio", "notes");
  for (const auto& row : rows) {
    parplan::v1::EstimateMemoryRequest req;
    req.mutable_model()->set_id(row.model);
    *req.mutable_config() = row.config;
    *req.mutable_placement() = row.placement;
    parplan::v1::EstimateMemoryResponse resp;
    const absl::Status s = parplan::api::EstimateMemory(req, &resp);
    if (!s.ok() || resp.stages().empty()) {
      ++skipped;
      std::printf("%-70s %-12s %8s %8s %7s  skipped: %s\n", row.recipe.c_str(), row.system.c_str(), "-", "-", "-",
                  s.ok() ? (resp.reasons().empty() ? "" : resp.reasons(0).c_str()) : std::string(s.message()).c_str());
      continue;
    }
    const double ratio = static_cast<double>(resp.peak_bytes()) / resp.capacity_bytes();
    ratios.push_back(ratio);
    if (!resp.fits()) ++over;
    std::printf("%-70s %-12s %8.1f %8.1f %6.0f%%  %s%s\n", row.recipe.c_str(), row.system.c_str(), resp.peak_gib(),
                resp.capacity_gib(), 100 * ratio, row.notes.c_str(), resp.fits() ? "" : "PREDICTED NOT TO FIT");
  }
  std::sort(ratios.begin(), ratios.end());
  if (ratios.empty()) return 1;
  auto pct = [&](double q) { return 100 * ratios[static_cast<size_t>(q * (ratios.size() - 1) + 0.5)]; };
  std::printf(
      "\nconfigs estimated: %zu, skipped: %d (incomplete model or invalid as filed), predicted not to fit: %d\n",
      ratios.size(), skipped, over);
  std::printf("peak/capacity: min %.0f%%  p10 %.0f%%  median %.0f%%  p90 %.0f%%  max %.0f%%\n", pct(0), pct(0.1),
              pct(0.5), pct(0.9), pct(1.0));
  return over == 0 ? 0 : 1;
}
