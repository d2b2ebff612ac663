#include "server/api/run_api.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/calibrate/calibration.h"
#include "core/compare/compare_run.h"
#include "core/resolve/model_resolve.h"
#include "core/runlog/run_log.h"
#include "core/util/field_error.h"
#include "server/api/calibration_convert.h"
#include "server/api/convert.h"
#include "server/api/import_api.h"
#include "server/api/resolve_request.h"

namespace parplan {
namespace api {
namespace {

constexpr int kMaxCalibrationRuns = 64;
constexpr int kMaxSteadyIterations = 100000;

// Sets an optional proto double from a value that may be NaN (not logged).
template <typename Setter>
void SetLogged(double value, Setter set) {
  if (!std::isnan(value)) set(value);
}

void ToSteadyWindowProto(const SteadyWindow& w, v1::SteadyWindow* out) {
  out->set_first_iteration(w.first_iteration);
  out->set_last_iteration(w.last_iteration);
  out->set_records(w.records);
  SetLogged(w.median_step_s, [&](double v) { out->set_median_step_s(v); });
  SetLogged(w.mean_step_s, [&](double v) { out->set_mean_step_s(v); });
  SetLogged(w.stddev_step_s, [&](double v) { out->set_stddev_step_s(v); });
  SetLogged(w.min_step_s, [&](double v) { out->set_min_step_s(v); });
  SetLogged(w.max_step_s, [&](double v) { out->set_max_step_s(v); });
  SetLogged(w.spread, [&](double v) { out->set_spread(v); });
  SetLogged(w.median_tflops_per_gpu, [&](double v) { out->set_median_tflops_per_gpu(v); });
  out->set_global_batch_size(w.global_batch_size);
  out->set_skipped_iterations(w.skipped_iterations);
  out->set_nan_iterations(w.nan_iterations);
  for (const auto& e : w.excluded) out->add_excluded(e);
  out->set_reason(w.reason);
}

void ToAbProto(const AbVerdict& ab, v1::AbVerdict* out) {
  SetLogged(ab.step_a_s, [&](double v) { out->set_step_a_s(v); });
  SetLogged(ab.step_b_s, [&](double v) { out->set_step_b_s(v); });
  SetLogged(ab.step_change, [&](double v) { out->set_step_change(v); });
  SetLogged(ab.step_noise, [&](double v) { out->set_step_noise(v); });
  out->set_step_real(ab.step_real);
  SetLogged(ab.peak_a_bytes, [&](double v) { out->set_peak_a_bytes(v); });
  SetLogged(ab.peak_b_bytes, [&](double v) { out->set_peak_b_bytes(v); });
  SetLogged(ab.peak_change_bytes, [&](double v) { out->set_peak_change_bytes(v); });
  out->set_peak_real(ab.peak_real);
  out->set_verdict(ab.verdict);
}

void ToFailureProto(const LogFailure& f, v1::LogFailure* out) {
  out->set_kind(f.kind);
  out->set_message(f.message);
  out->set_line(f.line);
  SetLogged(f.tried_bytes, [&](double v) { out->set_tried_bytes(v); });
  SetLogged(f.capacity_bytes, [&](double v) { out->set_capacity_bytes(v); });
  SetLogged(f.free_bytes, [&](double v) { out->set_free_bytes(v); });
  out->set_after_iteration(f.after_iteration);
  out->set_moment(f.moment);
  out->set_rule_id(f.rule_id);
  out->set_fix(f.fix);
}

void ToComparisonProto(const RunComparison& c, v1::CompareRunResponse* out) {
  ToSteadyWindowProto(c.window, out->mutable_window());
  for (const auto& n : c.log_notes) out->add_log_notes(n);
  SetLogged(c.measured_step_s, [&](double v) { out->set_measured_step_s(v); });
  SetLogged(c.measured_tokens_per_s_per_gpu, [&](double v) { out->set_measured_tokens_per_s_per_gpu(v); });
  SetLogged(c.measured_tflops_per_gpu, [&](double v) { out->set_measured_tflops_per_gpu(v); });
  SetLogged(c.measured_mfu, [&](double v) { out->set_measured_mfu(v); });
  SetLogged(c.measured_max_allocated_bytes, [&](double v) { out->set_measured_max_allocated_bytes(v); });
  SetLogged(c.measured_max_reserved_bytes, [&](double v) { out->set_measured_max_reserved_bytes(v); });
  SetLogged(c.measured_fragmentation, [&](double v) { out->set_measured_fragmentation(v); });
  out->set_has_prediction(c.has_prediction);
  out->set_no_prediction_reason(c.no_prediction_reason);
  if (c.has_prediction) {
    out->set_predicted_step_s(c.predicted_step_s);
    out->set_predicted_tokens_per_s_per_gpu(c.predicted_tokens_per_s_per_gpu);
    out->set_predicted_tflops_per_gpu(c.predicted_tflops_per_gpu);
    out->set_predicted_mfu(c.predicted_mfu);
    out->set_peak_tflops(c.peak_tflops);
    out->set_predicted_peak_bytes(c.predicted_peak_bytes);
    out->set_predicted_fragmentation_allowance_bytes(c.predicted_fragmentation_allowance_bytes);
    out->set_capacity_bytes(c.capacity_bytes);
    ToPerformanceBreakdown(c.predicted_breakdown, out->mutable_predicted_breakdown());
    out->set_step_error(c.step_error);
    out->set_uncertainty(c.uncertainty_median);
    out->set_uncertainty_p90(c.uncertainty_p90);
    out->set_within_uncertainty(c.within_uncertainty);
  }
  for (const TermGap& g : c.gap) {
    v1::TermGap* o = out->add_gap();
    o->set_term(g.term);
    o->set_predicted_s(g.predicted_s);
    o->set_needed_s(g.needed_s);
    o->set_factor(g.factor);
    o->set_note(g.note);
  }
  for (const SuggestedChange& s : c.changes) {
    v1::SuggestedChange* o = out->add_changes();
    o->set_change(s.change);
    o->set_predicted_step_s(s.predicted_step_s);
    o->set_predicted_gain(s.predicted_gain);
    o->set_effect(s.effect);
    o->set_note(s.note);
  }
  for (const GateCheck& g : c.gate) {
    v1::GateCheck* o = out->add_gate();
    o->set_name(g.name);
    o->set_ok(g.ok);
    o->set_detail(g.detail);
    o->set_checked(g.checked);
  }
  out->set_valid_measurement(c.valid_measurement);
  if (c.ab.has_value()) ToAbProto(*c.ab, out->mutable_ab());
  for (const LogFailure& f : c.failures) ToFailureProto(f, out->add_failures());
  for (const auto& r : c.reasons) out->add_reasons(r);
}

// A run's config, resolved for an estimate: the imported text with the
// request's model / config / placement on top.
struct RunConfig {
  Resolved resolved;
  std::string label;  // model name and the resolved mesh, for calibration evidence
};

absl::StatusOr<std::optional<RunConfig>> ResolveRunConfig(
    const std::string& text, const std::string& format,
    const google::protobuf::RepeatedPtrField<std::string>& overrides, const v1::ModelRef& model,
    const v1::ParallelConfig& config, const v1::Placement& placement, const std::string& field,
    const std::string& prefix, std::vector<std::string>* notes) {
  v1::ModelRef model_ref = model;
  v1::ParallelConfig merged;
  v1::Placement placed = placement;
  if (!text.empty()) {
    auto parts = ImportRequestParts(text, format, overrides, "", placement, field, prefix);
    if (!parts.ok()) return parts.status();
    if (!HasModel(model)) model_ref = parts->model;
    merged = parts->config;
    placed = parts->placement;
    for (const auto& w : parts->imported.warnings) notes->push_back(absl::StrCat("Config: ", w));
  }
  OverlayParallelConfig(config, &merged);
  if (!HasModel(model_ref)) return std::optional<RunConfig>();
  RunConfig run;
  if (absl::Status s = Resolve(&model_ref, placed, merged, &run.resolved); !s.ok()) return s;
  auto assumed = CompleteForEstimate(&*run.resolved.model, prefix + "model");
  if (!assumed.ok()) return assumed.status();
  for (const auto& a : *assumed) notes->push_back(absl::StrCat("Model field assumed (estimate approximate): ", a));
  ResolveWorldAndBatch(&run.resolved.config, &run.resolved.placement);
  run.label = run.resolved.model->name.empty() ? run.resolved.model->id : run.resolved.model->name;
  return std::optional<RunConfig>(std::move(run));
}

}  // namespace

absl::Status CompareRun(const v1::CompareRunRequest& request, v1::CompareRunResponse* response) {
  FieldErrors errors;
  if (request.log().empty()) errors.Add("log", "CompareRun needs the run's log text (at most 4 MiB)");
  if (auto f = ParseImportFormat(request.config_format(), "config_format"); !f.ok()) {
    for (const auto& v : FieldViolationsOf(f.status())) errors.Add(v.field, v.description);
  }
  errors.CheckRange("min_steady_iterations", request.min_steady_iterations(), 0, kMaxSteadyIterations);
  if (!errors.empty()) return errors.ToStatus();
  // The caller's own config fields and placement, checked whether or not a model comes.
  Resolved given;
  if (absl::Status s = Resolve(nullptr, request.placement(), request.config(), &given); !s.ok()) return s;
  auto log = ParseRunLog(request.log(), "log");
  if (!log.ok()) return log.status();
  std::optional<ParsedLog> baseline;
  if (!request.baseline_log().empty()) {
    auto b = ParseRunLog(request.baseline_log(), "baseline_log");
    if (!b.ok()) return b.status();
    baseline = *std::move(b);
  }
  std::vector<std::string> notes;
  auto run = ResolveRunConfig(request.config_text(), request.config_format(), request.overrides(), request.model(),
                              request.config(), request.placement(), "config_text", "", &notes);
  if (!run.ok()) return run.status();
  std::optional<RunConfig> baseline_run;
  if (!request.baseline_config_text().empty()) {
    google::protobuf::RepeatedPtrField<std::string> none;
    auto b = ResolveRunConfig(request.baseline_config_text(), "", none, request.model(), v1::ParallelConfig(),
                              request.placement(), "baseline_config_text", "baseline_", &notes);
    if (!b.ok()) return b.status();
    baseline_run = *std::move(b);
  }

  CompareInputs in;
  in.log = &*log;
  in.baseline_log = baseline.has_value() ? &*baseline : nullptr;
  if (request.min_steady_iterations() > 0) in.min_steady_iterations = request.min_steady_iterations();
  PerfParams params = CalibratedPerfParams();
  std::string calibration_said;
  if (run->has_value()) {
    const Resolved& r = (*run)->resolved;
    if (r.placement.system.has_value()) {
      in.model = &*r.model;
      in.config = &r.config;
      in.placement = &r.placement;
      params = ParamsForRequest(request.calibration(), *r.placement.system, &calibration_said);
      in.params = &params;
    } else {
      notes.push_back(
          "No prediction: the config names no system; set placement.system (e.g. h100-sxm) to compare with the model.");
    }
  }
  if (baseline_run.has_value()) in.baseline_config = &baseline_run->resolved.config;
  auto comparison = parplan::CompareRun(in);
  if (!comparison.ok()) return comparison.status();
  response->set_log_format(LogFormatName(log->format));
  ToComparisonProto(*comparison, response);
  for (const auto& n : notes) response->add_reasons(n);
  if (!calibration_said.empty()) {
    response->set_calibration(calibration_said);
    response->add_reasons(calibration_said);
  }
  if (in.config != nullptr) {
    const Resolved& r = (*run)->resolved;
    FillResolvedPlan(r.config, r.placement, r.model_ptr(), 0, 0, SettingsScope::kConfig, response);
  }
  return absl::OkStatus();
}

absl::Status Calibrate(const v1::CalibrateRequest& request, v1::CalibrateResponse* response) {
  FieldErrors errors;
  if (request.runs_size() == 0) errors.Add("runs", "Calibrate needs at least one run (its log and its config text)");
  if (request.runs_size() > kMaxCalibrationRuns) {
    errors.Add("runs", absl::StrCat(request.runs_size(), " runs; at most ", kMaxCalibrationRuns));
  }
  for (int i = 0; i < request.runs_size() && i < kMaxCalibrationRuns; ++i) {
    const auto& run = request.runs(i);
    if (run.log().empty()) errors.Add(absl::StrCat("runs[", i, "].log"), "required: the run's training log");
    if (run.config_text().empty()) {
      errors.Add(absl::StrCat("runs[", i, "].config_text"),
                 "required: the run's launch script, recipe or YAML (a calibration compares with the prediction)");
    }
  }
  if (!errors.empty()) return errors.ToStatus();
  for (int i = 0; i < request.runs_size(); ++i) {
    Resolved given;
    if (absl::Status s = Resolve(nullptr, request.runs(i).placement(), v1::ParallelConfig(), &given); !s.ok()) {
      return PrefixFields(s, absl::StrCat("runs[", i, "]"));
    }
  }
  std::vector<CalibrationRun> runs;
  for (int i = 0; i < request.runs_size(); ++i) {
    const auto& input = request.runs(i);
    const std::string prefix = absl::StrCat("runs[", i, "].");
    auto log = ParseRunLog(input.log(), prefix + "log");
    if (!log.ok()) return log.status();
    std::vector<std::string> notes;
    auto run = ResolveRunConfig(input.config_text(), input.config_format(), input.overrides(), v1::ModelRef(),
                                v1::ParallelConfig(), input.placement(), prefix + "config_text", prefix, &notes);
    if (!run.ok()) return run.status();
    if (!run->has_value()) {
      return FieldError(prefix + "config_text", "names no model: a calibration needs the run's model");
    }
    const Resolved& r = (*run)->resolved;
    if (!r.placement.system.has_value()) {
      return FieldError(prefix + "placement.system", "required: the system the run ran on (e.g. h100-sxm)");
    }
    CompareInputs in;
    in.log = &*log;
    in.model = &*r.model;
    in.config = &r.config;
    in.placement = &r.placement;
    in.suggest_changes = false;  // the fit reads the measured and predicted steps only
    auto comparison = parplan::CompareRun(in);
    if (!comparison.ok()) return comparison.status();
    const std::string label = input.label().empty() ? absl::StrCat("run ", i + 1) : input.label();
    auto fitted = CalibrationRunOf(*comparison, label, (*run)->label, "", *r.placement.system);
    if (!fitted.ok()) {
      return FieldError(prefix + "log", absl::StrCat("cannot calibrate on this run: ", fitted.status().message()));
    }
    runs.push_back(*std::move(fitted));
  }
  auto calibration = FitCalibration(runs, request.require_network());
  if (!calibration.ok()) return calibration.status();
  ToCalibrationProto(*calibration, response->mutable_calibration());
  response->set_summary(calibration->Summary());
  response->set_calibration_json(CalibrationToJson(*calibration));
  response->add_reasons(calibration->Summary());
  for (const auto& n : calibration->notes) response->add_reasons(n);
  return absl::OkStatus();
}

}  // namespace api
}  // namespace parplan
