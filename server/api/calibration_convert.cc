#include "server/api/calibration_convert.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace parplan {
namespace api {

void ToCalibrationProto(const Calibration& c, v1::Calibration* out) {
  out->Clear();
  out->set_system(c.system);
  out->set_gpu_arch(c.gpu_arch);
  out->set_compute_factor(c.compute_factor);
  out->set_network_factor(c.network_factor);
  out->set_compute_determined(c.compute_determined);
  out->set_network_determined(c.network_determined);
  for (const CalibrationRun& r : c.runs) {
    v1::CalibrationRun* o = out->add_runs();
    o->set_label(r.label);
    o->set_model(r.model);
    o->set_config(r.config);
    o->set_system(r.system);
    o->set_gpu_arch(r.gpu_arch);
    o->set_measured_step_s(r.measured_step_s);
    o->set_predicted_step_s(r.predicted_step_s);
    o->set_compute_s(r.compute_s);
    o->set_communication_s(r.communication_s);
    if (!std::isnan(r.loo_residual)) o->set_loo_residual(r.loo_residual);
  }
  for (const auto& n : c.notes) out->add_notes(n);
}

Calibration FromCalibrationProto(const v1::Calibration& c) {
  Calibration out;
  out.system = c.system();
  out.gpu_arch = c.gpu_arch();
  out.compute_factor = c.compute_determined() ? c.compute_factor() : 1.0;
  out.network_factor = c.network_determined() ? c.network_factor() : 1.0;
  out.compute_determined = c.compute_determined();
  out.network_determined = c.network_determined();
  for (const v1::CalibrationRun& r : c.runs()) {
    CalibrationRun run;
    run.label = r.label();
    run.model = r.model();
    run.config = r.config();
    run.system = r.system();
    run.gpu_arch = r.gpu_arch();
    run.measured_step_s = r.measured_step_s();
    run.predicted_step_s = r.predicted_step_s();
    run.compute_s = r.compute_s();
    run.communication_s = r.communication_s();
    run.loo_residual = r.has_loo_residual() ? r.loo_residual() : std::numeric_limits<double>::quiet_NaN();
    out.runs.push_back(run);
  }
  out.notes.assign(c.notes().begin(), c.notes().end());
  return out;
}

bool HasCalibration(const v1::Calibration& c) {
  return c.runs_size() > 0 || c.compute_determined() || c.network_determined();
}

PerfParams ParamsForRequest(const v1::Calibration& calibration, const SystemSpec& system, std::string* said) {
  if (!HasCalibration(calibration)) return CalibratedPerfParams();
  const Calibration c = FromCalibrationProto(calibration);
  bool applied = false;
  PerfParams params = CalibratedParams(CalibratedPerfParams(), c, system, &applied);
  if (said != nullptr) {
    *said = applied
                ? absl::StrCat("Calibrated: ", c.Summary(), ".")
                : absl::StrCat("Calibration not applied: it was fitted on ", c.gpu_arch.empty() ? c.system : c.gpu_arch,
                               " GPUs and ", system.id, " is ", system.gpu_arch, "; the published-run fit is used.");
  }
  return params;
}

}  // namespace api
}  // namespace parplan
