// A training run's log set beside parplan's prediction for its config:
// the steady-state window, measured vs predicted step time, tokens/s/GPU,
// MFU and peak memory with the model's stated uncertainty, the gap by step
// term, the changes the model predicts help, a gate saying whether the run is
// a valid measurement, an A/B verdict for two logs, and each failure mapped to
// the parplan rule that predicts it.
#ifndef PARPLAN_CORE_COMPARE_COMPARE_RUN_H_
#define PARPLAN_CORE_COMPARE_COMPARE_RUN_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/perf/perf_model.h"
#include "core/runlog/run_log.h"

namespace parplan {

struct CompareInputs {
  const ParsedLog* log = nullptr;           // required
  const ParsedLog* baseline_log = nullptr;  // A/B: the "A" run (log is "B"); nullable
  // The run's config; null model = the log alone (measured side only).
  const ModelSpec* model = nullptr;
  const ResolvedConfig* config = nullptr;
  const ResolvedPlacement* placement = nullptr;
  // The baseline's config (A/B gate: settings of benchmark or semantics
  // effect that differ are named); nullable.
  const ResolvedConfig* baseline_config = nullptr;
  const PerfParams* params = nullptr;  // null = CalibratedPerfParams()
  int64_t min_steady_iterations = 5;   // the gate's N
  double memory_headroom = 0.05;       // share of HBM the gate wants free at the measured peak
  // Evaluate single changes predicted to help (up to 24 estimates); a
  // calibration, which reads only the measured and predicted step, skips them.
  bool suggest_changes = true;
};

// How far one term of the predicted step would have to move to close the gap.
struct TermGap {
  std::string term;        // StepParts name ("gemm", "ep_comm", "bubble", ...)
  double predicted_s = 0;  // its predicted seconds
  double needed_s = 0;     // what it would have to be for the step to match (never below 0)
  double factor = 0;       // needed / predicted
  std::string note;        // why this term is (or is not) a plausible cause
  // Added: StepParts's words for the term, whether the term alone can close
  // the gap (it need not fall below 0 and the config does not make it
  // zero), and whether the factor needed is inside the term's plausible range.
  std::string label;
  bool closes_alone = false;
  bool plausible = false;
};

struct SuggestedChange {
  std::string change;  // "tp_comm_overlap = true", "PP 4 -> 8, VPP 2"
  double predicted_step_s = 0;
  double predicted_gain = 0;  // fraction of the predicted step saved
  std::string effect;         // execution | numerics | semantics | benchmark (core/config/resolved_settings.h)
  std::string note;           // added: the step and peak memory it is predicted to give
};

struct GateCheck {
  std::string
      name;  // "optimizer_initialised" "steady_iterations" "no_nan_or_skipped" "memory_headroom" "baseline_settings"
  bool ok = false;
  std::string detail;  // with the numbers
  // Added: false when the inputs cannot tell (no capacity known, no memory
  // report, no baseline config); ok is then false and the check does not
  // count against valid_measurement.
  bool checked = true;
};

struct RunComparison {
  SteadyWindow window;
  std::vector<std::string> log_notes;  // the reader's unread / notes
  // Measured (NaN when the log does not say).
  double measured_step_s = kNotLogged;
  double measured_tokens_per_s_per_gpu = kNotLogged;  // gbs x seq / step / GPUs, or as logged
  double measured_tflops_per_gpu = kNotLogged;
  double measured_mfu = kNotLogged;
  double measured_max_allocated_bytes = kNotLogged;
  double measured_max_reserved_bytes = kNotLogged;
  double measured_fragmentation = kNotLogged;  // (max reserved - max allocated) / max reserved
  // Predicted (has_prediction false when no config was given or it has no estimate).
  bool has_prediction = false;
  std::string no_prediction_reason;
  double predicted_step_s = 0;
  double predicted_tokens_per_s_per_gpu = 0;
  double predicted_tflops_per_gpu = 0;
  double predicted_mfu = 0;
  double peak_tflops = 0;  // the dense peak both MFUs use
  double predicted_peak_bytes = 0;
  double predicted_fragmentation_allowance_bytes = 0;  // what the model allows for the allocator
  double capacity_bytes = 0;
  PerfBreakdown predicted_breakdown;
  double step_error = 0;  // (predicted - measured) / measured
  double uncertainty_median = 0, uncertainty_p90 = 0;
  bool within_uncertainty = false;  // |step_error| <= the p90 band
  std::vector<TermGap> gap;
  std::vector<SuggestedChange> changes;
  std::vector<GateCheck> gate;
  bool valid_measurement = false;  // every checked gate item ok (and at least the window's)
  std::optional<AbVerdict> ab;
  std::vector<LogFailure> failures;
  std::vector<std::string> reasons;  // the answer in sentences, with the numbers
  // Added: how the measured tokens were counted, and the calibration factors
  // of the parameters the prediction used (1 = uncalibrated;
  // CalibrationRunOf divides them back out).
  int64_t measured_gbs = -1;
  std::string measured_gbs_source;
  std::string measured_tokens_source;
  int64_t world = 0;
  int64_t seq_length = 0;
  double compute_scale = 1.0;
  double network_scale = 1.0;
};

// INVALID_ARGUMENT when `log` is null. A config that cannot be estimated
// still gets the measured side, `has_prediction` false and the reason.
absl::StatusOr<RunComparison> CompareRun(const CompareInputs& inputs);

}  // namespace parplan

#endif  // PARPLAN_CORE_COMPARE_COMPARE_RUN_H_
