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
  std::string label;   // file name or user label
  std::string model;   // model name
  std::string config;  // one-line config summary
  std::string system;  // system id
  std::string gpu_arch;
  double measured_step_s = 0;
  double predicted_step_s = 0;  // uncalibrated
  double compute_s = 0;         // predicted compute + bubble + optimizer (what scales with the GPU)
  double communication_s = 0;   // predicted exposed communication (what scales with the network)
  double loo_residual = 0;      // (calibrated prediction without this run - measured) / measured; NaN with one run
};

struct Calibration {
  std::string system;           // system id the runs ran on
  std::string gpu_arch;         // answers on other GPUs ignore it and say so
  double compute_factor = 1.0;  // predicted compute terms are multiplied by this
  double network_factor = 1.0;  // predicted exposed communication is multiplied by this
  bool compute_determined = false;
  bool network_determined = false;
  std::vector<CalibrationRun> runs;
  std::vector<std::string> notes;  // evidence, refusals of undetermined factors
  // Added: the evidence in numbers: the spread of the runs' exposed
  // communication shares and the condition number of the (column-scaled)
  // fit when both factors were fitted (0 otherwise).
  double comm_share_spread = 0;
  double condition_number = 0;
  // "calibrated on 2 runs of h100-sxm: compute x1.08, network x1.30 (LOO residuals 2.1%, 3.4%)"
  std::string Summary() const;
};

// Fits from `runs` (one cluster): the compute factor needs at least one run;
// the network factor needs runs whose communication shares differ enough to
// separate it from compute. FAILED_PRECONDITION naming what run would
// determine a requested factor the runs cannot; INVALID_ARGUMENT for runs of
// different GPUs or without a measured step.
absl::StatusOr<Calibration> FitCalibration(const std::vector<CalibrationRun>& runs);

// Added. The same fit, FAILED_PRECONDITION also when `require_network` and
// the runs do not determine the network factor (naming the run that would).
absl::StatusOr<Calibration> FitCalibration(const std::vector<CalibrationRun>& runs, bool require_network);

// Added: the criteria. A factor outside its bounds is not the cluster's
// (the model, the log or the config compared is wrong) and is refused:
// a GPU at half or twice the modelled compute rate, exposed communication at
// a tenth or five times the modelled. The network factor is determined when
// the runs' exposed-communication shares (communication / (compute +
// communication), predicted) span at least kMinCommShareSpread.
inline constexpr double kMinComputeFactor = 0.5, kMaxComputeFactor = 2.0;
inline constexpr double kMinNetworkFactor = 0.1, kMaxNetworkFactor = 5.0;
inline constexpr double kMinCommShareSpread = 0.10;
inline constexpr size_t kMaxCalibrationRuns = 256;
inline constexpr size_t kMaxCalibrationJsonBytes = 1u << 20;

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

// Added. The same, with `note` (nullable) saying what was applied and why:
// the compute factor belongs to the GPU (applied when gpu_arch matches); the
// network factor belongs to the cluster's fabric, so it is applied only on
// the calibrated system id too (another system of the same GPU has other
// links and NICs).
PerfParams CalibratedParams(const PerfParams& base, const Calibration& calibration, const SystemSpec& system,
                            bool* applied, std::string* note);

}  // namespace parplan

#endif  // PARPLAN_CORE_CALIBRATE_CALIBRATION_H_
