// A cluster's calibration: the factors a set of compared runs determine (a
// compute efficiency and a network efficiency for that cluster), each with
// its evidence and leave-one-out residuals, and the calibrated parameters
// every method uses when given one. A factor the runs do not determine is
// refused with the run that would determine it.
#ifndef PARPLAN_CORE_CALIBRATE_CALIBRATION_H_
#define PARPLAN_CORE_CALIBRATE_CALIBRATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/compare/compare_run.h"
#include "core/perf/perf_model.h"
#include "core/system/system_spec.h"

namespace parplan {

// One compared run as the fit uses it.
struct CalibrationRun {
  std::string label;       // file name or user label
  std::string model;       // model name
  std::string config;      // one-line config summary
  std::string system;      // system id
  std::string gpu_arch;
  double measured_step_s = 0;
  double predicted_step_s = 0;    // uncalibrated
  double compute_s = 0;           // predicted compute + bubble + optimizer (what scales with the GPU)
  double communication_s = 0;     // predicted exposed communication (what scales with the network)
  double loo_residual = 0;        // (calibrated prediction without this run - measured) / measured
};

struct Calibration {
  std::string system;    // system id the runs ran on
  std::string gpu_arch;  // answers on other GPUs ignore it and say so
  double compute_factor = 1.0;   // predicted compute terms are multiplied by this
  double network_factor = 1.0;   // predicted exposed communication is multiplied by this
  bool compute_determined = false;
  bool network_determined = false;
  std::vector<CalibrationRun> runs;
  std::vector<std::string> notes;  // evidence, refusals of undetermined factors
  // "calibrated on 2 runs of h100-sxm: compute x1.08, network x1.30 (LOO residuals 2.1%, 3.4%)"
  std::string Summary() const;
};

// Fits from `runs` (one cluster): the compute factor needs at least one run;
// the network factor needs runs whose communication shares differ enough to
// separate it from compute. FAILED_PRECONDITION naming what run would
// determine a requested factor the runs cannot; INVALID_ARGUMENT for runs of
// different GPUs or without a measured step.
absl::StatusOr<Calibration> FitCalibration(const std::vector<CalibrationRun>& runs);

// The run a comparison gives the fit (requires has_prediction and a measured step).
absl::StatusOr<CalibrationRun> CalibrationRunOf(const RunComparison& comparison, const std::string& label,
                                                const std::string& model, const std::string& config,
                                                const SystemSpec& system);

// The file form (JSON) and back; errors name `field`.
std::string CalibrationToJson(const Calibration& calibration);
absl::StatusOr<Calibration> CalibrationFromJson(const std::string& text, const std::string& field);

// `base` with the calibration's factors when `system` is the calibrated GPU;
// `applied` (nullable) says whether they were.
PerfParams CalibratedParams(const PerfParams& base, const Calibration& calibration, const SystemSpec& system,
                            bool* applied);

}  // namespace parplan

#endif  // PARPLAN_CORE_CALIBRATE_CALIBRATION_H_
