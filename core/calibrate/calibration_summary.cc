#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/calibrate/calibration.h"

namespace parplan {

std::string Calibration::Summary() const {
  std::string s = absl::StrCat("calibrated on ", runs.size(), runs.size() == 1 ? " run" : " runs", " of ",
                               system.empty() ? gpu_arch : system, ":");
  if (compute_determined) absl::StrAppend(&s, absl::StrFormat(" compute x%.3f", compute_factor));
  if (network_determined)
    absl::StrAppend(&s, compute_determined ? "," : "", absl::StrFormat(" network x%.3f", network_factor));
  if (!compute_determined && !network_determined) absl::StrAppend(&s, " no factor determined");
  if (compute_determined && !network_determined) absl::StrAppend(&s, " (network not determined)");
  std::vector<std::string> loo;
  for (const CalibrationRun& r : runs) {
    if (std::isfinite(r.loo_residual)) loo.push_back(absl::StrFormat("%.1f%%", 100 * std::fabs(r.loo_residual)));
  }
  if (!loo.empty()) absl::StrAppend(&s, " (LOO residuals ", absl::StrJoin(loo, ", "), ")");
  return s;
}

}  // namespace parplan
