// The calibration file: JSON with the factors, what determined them, each
// run's evidence and leave-one-out residual, and the notes.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/calibrate/calibration.h"
#include "core/util/field_error.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace {

constexpr const char* kFormat = "parplan-calibration";
constexpr int kVersion = 1;

using json = nlohmann::json;

// NaN (a residual one run cannot have) is written as null.
json Number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

class Reader {
 public:
  Reader(const json& object, std::string field, FieldErrors* errors)
      : j_(object), field_(std::move(field)), errors_(errors) {}

  std::string String(const char* key, bool required = true) {
    const std::string f = absl::StrCat(field_, ".", key);
    if (!j_.contains(key)) {
      if (required) errors_->Add(f, "missing (a string)");
      return "";
    }
    if (!j_[key].is_string()) {
      errors_->Add(f, absl::StrCat("must be a string, got ", j_[key].type_name()));
      return "";
    }
    const std::string s = j_[key].get<std::string>();
    if (s.size() > 4096) errors_->Add(f, absl::StrCat("is ", s.size(), " characters; at most 4096"));
    return s;
  }

  // `nullable`: null reads as NaN.
  double Number(const char* key, bool nullable = false) {
    const std::string f = absl::StrCat(field_, ".", key);
    if (!j_.contains(key)) {
      errors_->Add(f, "missing (a number)");
      return 0;
    }
    if (nullable && j_[key].is_null()) return std::nan("");
    if (!j_[key].is_number()) {
      errors_->Add(f, absl::StrCat("must be a number", nullable ? " or null" : "", ", got ", j_[key].type_name()));
      return 0;
    }
    return j_[key].get<double>();
  }

  bool Bool(const char* key) {
    const std::string f = absl::StrCat(field_, ".", key);
    if (!j_.contains(key) || !j_[key].is_boolean()) {
      errors_->Add(f, "missing or not true/false");
      return false;
    }
    return j_[key].get<bool>();
  }

 private:
  const json& j_;
  std::string field_;
  FieldErrors* errors_;
};

}  // namespace

std::string CalibrationToJson(const Calibration& c) {
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["summary"] = c.Summary();
  j["system"] = c.system;
  j["gpu_arch"] = c.gpu_arch;
  j["compute_factor"] = c.compute_factor;
  j["network_factor"] = c.network_factor;
  j["compute_determined"] = c.compute_determined;
  j["network_determined"] = c.network_determined;
  j["comm_share_spread"] = c.comm_share_spread;
  j["condition_number"] = Number(c.condition_number);
  json runs = json::array();
  for (const CalibrationRun& r : c.runs) {
    runs.push_back({{"label", r.label},
                    {"model", r.model},
                    {"config", r.config},
                    {"system", r.system},
                    {"gpu_arch", r.gpu_arch},
                    {"measured_step_s", r.measured_step_s},
                    {"predicted_step_s", r.predicted_step_s},
                    {"compute_s", r.compute_s},
                    {"communication_s", r.communication_s},
                    {"loo_residual", Number(r.loo_residual)}});
  }
  j["runs"] = runs;
  j["notes"] = c.notes;
  return j.dump(2) + "\n";
}

absl::StatusOr<Calibration> CalibrationFromJson(const std::string& text, const std::string& field) {
  if (text.size() > kMaxCalibrationJsonBytes) {
    return FieldError(field,
                      absl::StrCat("calibration file is ", text.size(), " bytes; at most ", kMaxCalibrationJsonBytes));
  }
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return FieldError(field, "not a calibration file: expected a JSON object as `parplan calibrate` writes it");
  }
  FieldErrors errors;
  Reader top(j, field, &errors);
  const std::string format = top.String("format");
  if (!format.empty() && format != kFormat) {
    errors.Add(field + ".format", absl::StrCat("\"", format, "\" is not \"", kFormat, "\""));
  }
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int64_t>() != kVersion) {
    errors.Add(field + ".version", absl::StrCat("must be ", kVersion, " (the version this parplan reads)"));
  }
  Calibration c;
  c.system = top.String("system", false);
  c.gpu_arch = top.String("gpu_arch");
  c.compute_factor = top.Number("compute_factor");
  c.network_factor = top.Number("network_factor");
  c.compute_determined = top.Bool("compute_determined");
  c.network_determined = top.Bool("network_determined");
  if (j.contains("comm_share_spread") && j["comm_share_spread"].is_number()) {
    c.comm_share_spread = j["comm_share_spread"].get<double>();
  }
  if (j.contains("condition_number") && j["condition_number"].is_number()) {
    c.condition_number = j["condition_number"].get<double>();
  }
  auto check_factor = [&](const char* key, double value, bool determined, double lo, double hi) {
    const std::string f = absl::StrCat(field, ".", key);
    if (!determined && value != 1.0) {
      errors.Add(f, absl::StrCat(key, " = ", value, " but it is not determined; an undetermined factor is 1"));
    } else if (!(value >= lo && value <= hi)) {
      errors.Add(f, absl::StrCat(key, " = ", value, " is out of range; allowed ", lo, "..", hi));
    }
  };
  check_factor("compute_factor", c.compute_factor, c.compute_determined, kMinComputeFactor, kMaxComputeFactor);
  check_factor("network_factor", c.network_factor, c.network_determined, kMinNetworkFactor, kMaxNetworkFactor);
  if (!j.contains("runs") || !j["runs"].is_array()) {
    errors.Add(field + ".runs", "missing or not an array of runs");
  } else if (j["runs"].size() > kMaxCalibrationRuns) {
    errors.Add(field + ".runs", absl::StrCat(j["runs"].size(), " runs; at most ", kMaxCalibrationRuns));
  } else {
    for (size_t i = 0; i < j["runs"].size(); ++i) {
      const json& rj = j["runs"][i];
      const std::string rf = absl::StrCat(field, ".runs[", i, "]");
      if (!rj.is_object()) {
        errors.Add(rf, "must be an object");
        continue;
      }
      Reader r(rj, rf, &errors);
      CalibrationRun run;
      run.label = r.String("label");
      run.model = r.String("model", false);
      run.config = r.String("config", false);
      run.system = r.String("system", false);
      run.gpu_arch = r.String("gpu_arch");
      run.measured_step_s = r.Number("measured_step_s");
      run.predicted_step_s = r.Number("predicted_step_s");
      run.compute_s = r.Number("compute_s");
      run.communication_s = r.Number("communication_s");
      run.loo_residual = r.Number("loo_residual", true);
      if (!(run.measured_step_s > 0)) errors.Add(rf + ".measured_step_s", "must be > 0");
      c.runs.push_back(std::move(run));
    }
  }
  if (j.contains("notes")) {
    if (!j["notes"].is_array()) {
      errors.Add(field + ".notes", "must be an array of strings");
    } else {
      for (const json& n : j["notes"]) {
        if (n.is_string() && c.notes.size() < 1000) c.notes.push_back(n.get<std::string>());
      }
    }
  }
  if (!c.compute_determined && !c.network_determined) {
    errors.Add(field, "the file determines no factor: it calibrates nothing");
  }
  if (!errors.empty()) return errors.ToStatus();
  return c;
}

}  // namespace parplan
