#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/calibrate/calibration.h"

namespace parplan {

PerfParams CalibratedParams(const PerfParams& base, const Calibration& calibration, const SystemSpec& system,
                            bool* applied) {
  return CalibratedParams(base, calibration, system, applied, nullptr);
}

PerfParams CalibratedParams(const PerfParams& base, const Calibration& cal, const SystemSpec& system, bool* applied,
                            std::string* note) {
  PerfParams p = base;
  bool any = false;
  std::string why;
  if (system.gpu_arch != cal.gpu_arch) {
    why = absl::StrCat("calibration not applied: it is for ", cal.gpu_arch, " GPUs, this system (", system.id, ") has ",
                       system.gpu_arch, " GPUs");
  } else {
    if (cal.compute_determined) {
      p.compute_scale = base.compute_scale * cal.compute_factor;
      any = true;
    }
    const bool same_system = system.id == cal.system;
    if (cal.network_determined && same_system) {
      p.network_scale = base.network_scale * cal.network_factor;
      any = true;
    }
    why = absl::StrCat(cal.Summary(), "; applied to ", system.id.empty() ? system.gpu_arch : system.id, ": ",
                       cal.compute_determined ? absl::StrFormat("compute x%.3f", cal.compute_factor)
                                              : std::string("compute not determined (x1)"),
                       ", ",
                       !cal.network_determined ? std::string("network not determined (x1)")
                       : same_system           ? absl::StrFormat("network x%.3f", cal.network_factor)
                                     : absl::StrCat("network x1 (its factor is system ", cal.system, "'s fabric, not ",
                                                    system.id, "'s)"));
  }
  if (applied != nullptr) *applied = any;
  if (note != nullptr) *note = why;
  return p;
}

}  // namespace parplan
