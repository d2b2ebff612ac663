#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/calibrate/calibration.h"

namespace parplan {

std::string Calibration::Summary() const {
  std::string s = absl::StrCat("calibrated on ", runs.size(), runs.size() == 1 ? " run" : " runs", " of ",
                               system.empty() ? gpu_arch : system, ":");
  if (compute_determined) absl::StrAppend(&s, absl::StrFormat(" compute x%.3f", compute_factor));
  if (network_determined) absl::StrAppend(&s, compute_determined ? "," : "", absl::StrFormat(" network x%.3f", network_factor));
  if (!compute_determined && !network_determined) absl::StrAppend(&s, " no factor determined");
  return s;
}

}  // namespace parplan
