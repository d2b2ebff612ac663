// FitCalibration and CalibrationRunOf: the factors the runs determine, by
// least squares on relative error (each run weighs the same whatever its
// step time): measured = compute_factor x compute_s + network_factor x
// communication_s.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/calibrate/calibration.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

struct Factors {
  double compute = 1, network = 1;
  bool network_fitted = false;
};

double CommShare(const CalibrationRun& r) { return r.communication_s / (r.compute_s + r.communication_s); }

// Least squares over `runs` except `skip` (-1: none), weights 1 / measured^2.
// With `both` false the network factor stays 1.
Factors Fit(const std::vector<CalibrationRun>& runs, int skip, bool both) {
  double cc = 0, cn = 0, nn = 0, cm = 0, nm = 0, c_rest = 0;
  for (int i = 0; i < static_cast<int>(runs.size()); ++i) {
    if (i == skip) continue;
    const CalibrationRun& r = runs[i];
    const double w = 1 / (r.measured_step_s * r.measured_step_s);
    cc += w * r.compute_s * r.compute_s;
    cn += w * r.compute_s * r.communication_s;
    nn += w * r.communication_s * r.communication_s;
    cm += w * r.compute_s * r.measured_step_s;
    nm += w * r.communication_s * r.measured_step_s;
    c_rest += w * r.compute_s * (r.measured_step_s - r.communication_s);
  }
  Factors f;
  const double det = cc * nn - cn * cn;
  if (both && det > 0) {
    f.compute = (cm * nn - nm * cn) / det;
    f.network = (cc * nm - cn * cm) / det;
    f.network_fitted = true;
  } else if (cc > 0) {
    f.compute = c_rest / cc;
  }
  return f;
}

// Condition number of the relative-error design with unit-norm columns:
// sqrt((1 + r) / (1 - r)), r the cosine between the two columns.
double ConditionNumber(const std::vector<CalibrationRun>& runs) {
  double cc = 0, cn = 0, nn = 0;
  for (const CalibrationRun& r : runs) {
    const double c = r.compute_s / r.measured_step_s, n = r.communication_s / r.measured_step_s;
    cc += c * c;
    cn += c * n;
    nn += n * n;
  }
  if (cc <= 0 || nn <= 0) return std::numeric_limits<double>::infinity();
  const double cosine = std::min(1.0, cn / std::sqrt(cc * nn));
  return cosine >= 1 ? std::numeric_limits<double>::infinity() : std::sqrt((1 + cosine) / (1 - cosine));
}

bool Finite(double x) { return std::isfinite(x); }

absl::Status CheckRuns(const std::vector<CalibrationRun>& runs) {
  FieldErrors errors;
  if (runs.empty()) errors.Add("runs", "no run to calibrate on: give at least one compared run");
  if (runs.size() > kMaxCalibrationRuns) {
    errors.Add("runs", absl::StrCat(runs.size(), " runs; at most ", kMaxCalibrationRuns, " are allowed"));
  }
  for (size_t i = 0; i < runs.size() && i < kMaxCalibrationRuns; ++i) {
    const CalibrationRun& r = runs[i];
    const std::string f = absl::StrCat("runs[", i, "]");
    if (!Finite(r.measured_step_s) || r.measured_step_s <= 0) {
      errors.Add(f + ".measured_step_s",
                 absl::StrCat("measured_step_s = ", r.measured_step_s, " (", r.label,
                              "): a run needs a measured step time > 0 (a log with a steady window)"));
    }
    if (!Finite(r.compute_s) || r.compute_s <= 0) {
      errors.Add(f + ".compute_s", absl::StrCat("compute_s = ", r.compute_s, " (", r.label, "): must be > 0"));
    }
    if (!Finite(r.communication_s) || r.communication_s < 0) {
      errors.Add(f + ".communication_s",
                 absl::StrCat("communication_s = ", r.communication_s, " (", r.label, "): must be >= 0"));
    }
    if (r.gpu_arch.empty()) errors.Add(f + ".gpu_arch", absl::StrCat("run ", r.label, " names no GPU architecture"));
    if (r.gpu_arch != runs[0].gpu_arch) {
      errors.Add(f + ".gpu_arch", absl::StrCat("run ", r.label, " ran on ", r.gpu_arch, ", run ", runs[0].label, " on ",
                                               runs[0].gpu_arch, ": a calibration is for one GPU; fit each apart"));
    }
    if (r.system != runs[0].system) {
      errors.Add(
          f + ".system",
          absl::StrCat("run ", r.label, " ran on system ", r.system, ", run ", runs[0].label, " on ", runs[0].system,
                       ": a calibration is for one cluster (its network factor is the fabric's)"));
    }
  }
  return errors.ToStatus();
}

}  // namespace

absl::StatusOr<Calibration> FitCalibration(const std::vector<CalibrationRun>& runs) {
  return FitCalibration(runs, false);
}

absl::StatusOr<Calibration> FitCalibration(const std::vector<CalibrationRun>& runs, bool require_network) {
  if (absl::Status s = CheckRuns(runs); !s.ok()) return s;
  Calibration cal;
  cal.system = runs[0].system;
  cal.gpu_arch = runs[0].gpu_arch;
  cal.runs = runs;
  double lo = 1, hi = 0;
  for (const CalibrationRun& r : runs) {
    lo = std::min(lo, CommShare(r));
    hi = std::max(hi, CommShare(r));
    cal.notes.push_back(absl::StrFormat(
        "%s (%s, %s): measured %.3f s, predicted %.3f s (compute %.3f s, exposed communication %.3f s, %.1f%% of the "
        "step)",
        r.label, r.model, r.config, r.measured_step_s, r.predicted_step_s, r.compute_s, r.communication_s,
        100 * CommShare(r)));
  }
  cal.comm_share_spread = hi - lo;
  const bool both = runs.size() >= 2 && cal.comm_share_spread >= kMinCommShareSpread;
  const Factors f = Fit(runs, -1, both);
  cal.compute_factor = f.compute;
  cal.network_factor = f.network_fitted ? f.network : 1.0;
  cal.compute_determined = true;
  cal.network_determined = f.network_fitted;
  const double needed_share = std::min(0.95, lo + kMinCommShareSpread);
  const std::string network_run = absl::StrFormat(
      "a run of this cluster with at least %.0f%% of its predicted step in exposed communication (e.g. DP or EP "
      "across nodes, or a larger world of the same model)",
      100 * needed_share);
  if (both) {
    cal.condition_number = ConditionNumber(runs);
    cal.notes.push_back(absl::StrFormat(
        "Both factors fitted: the exposed-communication shares span %.1f percentage points (%.1f%%-%.1f%%, %.0f "
        "needed); condition number of the fit %.1f.",
        100 * cal.comm_share_spread, 100 * lo, 100 * hi, 100 * kMinCommShareSpread, cal.condition_number));
  } else {
    cal.notes.push_back(absl::StrFormat(
        "Network factor not determined: %s; it stays x1 (uncalibrated). %s would determine it.",
        runs.size() == 1 ? absl::StrFormat("one run (%.1f%% exposed communication) cannot separate the network from "
                                           "compute",
                                           100 * hi)
                         : absl::StrFormat("the runs' exposed-communication shares span %.1f percentage points "
                                           "(%.1f%%-%.1f%%), under the %.0f needed to separate it from compute",
                                           100 * cal.comm_share_spread, 100 * lo, 100 * hi, 100 * kMinCommShareSpread),
        absl::StrCat("A", network_run.substr(1))));
  }
  // Physical bounds: outside them the comparison, not the cluster, is off.
  std::vector<std::string> bad;
  if (!(cal.compute_factor >= kMinComputeFactor && cal.compute_factor <= kMaxComputeFactor)) {
    bad.push_back(absl::StrFormat("compute factor %.3f is outside %.1f-%.1f", cal.compute_factor, kMinComputeFactor,
                                  kMaxComputeFactor));
  }
  if (cal.network_determined && !(cal.network_factor >= kMinNetworkFactor && cal.network_factor <= kMaxNetworkFactor)) {
    bad.push_back(absl::StrFormat("network factor %.3f is outside %.1f-%.1f", cal.network_factor, kMinNetworkFactor,
                                  kMaxNetworkFactor));
  }
  if (!bad.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "runs: the fit is not physical (", absl::StrJoin(bad, "; "),
        "): a GPU does not run at under half or over twice its modelled rate, nor does exposed communication come "
        "out a tenth or five times the model's; check that each log's config is the config compared (batch, "
        "parallel sizes, precision) and that the runs ran on one cluster"));
  }
  if (require_network && !cal.network_determined) {
    return absl::FailedPreconditionError(absl::StrCat("runs: the network factor is asked for but not determined by ",
                                                      runs.size(), runs.size() == 1 ? " run" : " runs", " (",
                                                      cal.notes.back(), ")"));
  }
  // Leave-one-out: each run predicted by the factors the others determine
  // (the network factor only where they still span the share criterion).
  for (int i = 0; i < static_cast<int>(runs.size()); ++i) {
    CalibrationRun& r = cal.runs[i];
    if (runs.size() == 1) {
      r.loo_residual = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    double rest_lo = 1, rest_hi = 0;
    for (int j = 0; j < static_cast<int>(runs.size()); ++j) {
      if (j == i) continue;
      rest_lo = std::min(rest_lo, CommShare(runs[j]));
      rest_hi = std::max(rest_hi, CommShare(runs[j]));
    }
    const bool rest_both = runs.size() >= 3 && rest_hi - rest_lo >= kMinCommShareSpread;
    const Factors g = Fit(runs, i, rest_both);
    const double predicted = g.compute * r.compute_s + (g.network_fitted ? g.network : 1.0) * r.communication_s;
    r.loo_residual = (predicted - r.measured_step_s) / r.measured_step_s;
  }
  if (runs.size() == 1) {
    cal.notes.push_back(
        "One run: no leave-one-out residual; the compute factor reproduces it exactly by construction.");
  }
  return cal;
}

absl::StatusOr<CalibrationRun> CalibrationRunOf(const RunComparison& c, const std::string& label,
                                                const std::string& model, const std::string& config,
                                                const SystemSpec& system) {
  if (!c.has_prediction) {
    return FieldError("comparison", absl::StrCat(label, ": no prediction (", c.no_prediction_reason,
                                                 "); calibration needs the run's config"));
  }
  if (!std::isfinite(c.measured_step_s) || c.measured_step_s <= 0) {
    return FieldError("comparison.measured_step_s",
                      absl::StrCat(label, ": the log gives no steady step time (", c.window.reason, ")"));
  }
  if (!(c.compute_scale > 0) || !(c.network_scale > 0)) {
    return FieldError("comparison", absl::StrCat(label, ": the comparison's calibration factors are not positive"));
  }
  const PerfBreakdown& b = c.predicted_breakdown;
  CalibrationRun r;
  r.label = label;
  r.model = model;
  r.config = config;
  r.system = system.id;
  r.gpu_arch = system.gpu_arch;
  r.measured_step_s = c.measured_step_s;
  // Uncalibrated terms: a comparison made with calibrated parameters has its
  // factors divided back out, so fits never compound.
  r.compute_s = (b.compute_s + b.bubble_s + b.optimizer_s) / c.compute_scale;
  r.communication_s =
      (b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.dp_comm_s + b.pp_comm_s + b.fsdp_comm_s) / c.network_scale;
  r.predicted_step_s = r.compute_s + r.communication_s;
  return r;
}

}  // namespace parplan
