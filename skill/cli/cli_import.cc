#include "skill/cli/cli_import.h"

#include <iostream>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/calibrate/calibration.h"
#include "core/import/imported_config.h"
#include "core/runlog/run_log.h"
#include "core/util/field_error.h"
#include "server/api/calibration_convert.h"
#include "server/api/convert.h"

namespace parplan {
namespace cli {
namespace {

absl::StatusOr<std::string> ReadStdin(const std::string& flag, size_t limit) {
  std::string data;
  char buffer[65536];
  while (std::cin.read(buffer, sizeof(buffer)) || std::cin.gcount() > 0) {
    data.append(buffer, static_cast<size_t>(std::cin.gcount()));
    if (data.size() > limit) return FieldError(flag, absl::StrCat("standard input is larger than ", limit, " bytes"));
  }
  return data;
}

// A file flag's text, or stdin for "-", at most `limit` bytes.
absl::StatusOr<std::string> FileOrStdin(const Flags& flags, const std::string& name, size_t limit) {
  if (flags.Get(name) == "-") return ReadStdin(absl::StrCat("--", name), limit);
  return ReadFileFlag(flags, name, limit);
}

}  // namespace

absl::StatusOr<std::string> SourceText(const Flags& flags, const std::string& name) {
  const std::string value = flags.Get(name);
  if (absl::StartsWith(value, "recipe:")) return value;
  return FileOrStdin(flags, name, kMaxImportBytes);
}

google::protobuf::RepeatedPtrField<std::string> OverridesFlag(const Flags& flags) {
  google::protobuf::RepeatedPtrField<std::string> out;
  if (!flags.Has("overrides")) return out;
  const std::string text = flags.Get("overrides");
  std::string current;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        current.push_back(c);
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (!current.empty()) *out.Add() = std::exchange(current, std::string());
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) *out.Add() = current;
  return out;
}

absl::StatusOr<std::optional<api::ImportedRequestParts>> ImportFromFlag(const Flags& flags) {
  if (!flags.Has("from")) {
    if (flags.Has("overrides")) return FieldError("--overrides", "applies to --from (a recipe, YAML or script)");
    return std::optional<api::ImportedRequestParts>();
  }
  auto text = SourceText(flags, "from");
  if (!text.ok()) return text.status();
  auto parts = api::ImportRequestParts(*text, flags.Get("from-format"), OverridesFlag(flags),
                                       flags.Get("bridge-version"), v1::Placement(), "--from", "--from-");
  if (!parts.ok()) return parts.status();
  return std::optional<api::ImportedRequestParts>(*std::move(parts));
}

void ApplyImport(const api::ImportedRequestParts& from, bool model_flag_given, v1::ModelRef* model,
                 v1::ParallelConfig* config, v1::Placement* placement) {
  if (!model_flag_given) *model = from.model;
  v1::ParallelConfig merged = from.config;
  OverlayParallelConfig(*config, &merged);
  *config = std::move(merged);
  v1::Placement placed = from.placement;
  placed.MergeFrom(*placement);
  *placement = std::move(placed);
}

absl::Status FillCalibrationFlag(const Flags& flags, v1::Calibration* out) {
  if (!flags.Has("calibration")) return absl::OkStatus();
  auto text = ReadFileFlag(flags, "calibration", 1 << 20);
  if (!text.ok()) return text.status();
  auto calibration = CalibrationFromJson(*text, "--calibration");
  if (!calibration.ok()) return calibration.status();
  api::ToCalibrationProto(*calibration, out);
  return absl::OkStatus();
}

absl::Status BuildImportConfig(const Flags& flags, v1::ImportConfigRequest* req) {
  if (!flags.Has("from")) {
    return FieldError("--from", "give the file to read: parplan import FILE | - (stdin) | recipe:NAME");
  }
  auto text = SourceText(flags, "from");
  if (!text.ok()) return text.status();
  req->set_text(*std::move(text));
  req->set_format(flags.Get("from-format"));
  *req->mutable_overrides() = OverridesFlag(flags);
  req->set_bridge_version(flags.Get("bridge-version"));
  return FillPlacement(flags, req->mutable_placement());
}

absl::Status BuildCompareRun(const Flags& flags, v1::CompareRunRequest* req) {
  if (!flags.Has("log")) return FieldError("--log", "give the run's log file (or - for stdin)");
  auto log = FileOrStdin(flags, "log", kMaxLogBytes);
  if (!log.ok()) return log.status();
  req->set_log(*std::move(log));
  if (flags.Has("from")) {
    auto text = SourceText(flags, "from");
    if (!text.ok()) return text.status();
    req->set_config_text(*std::move(text));
    req->set_config_format(flags.Get("from-format"));
    *req->mutable_overrides() = OverridesFlag(flags);
  }
  const bool model_given = flags.Has("model") || flags.Has("size") || flags.Has("model-file");
  if (model_given) {
    if (absl::Status s = FillModel(flags, req->mutable_model(), false); !s.ok()) return s;
  }
  if (absl::Status s = FillConfig(flags, req->mutable_config()); !s.ok()) return s;
  if (absl::Status s = FillPlacement(flags, req->mutable_placement()); !s.ok()) return s;
  if (flags.Has("baseline-log")) {
    auto base = FileOrStdin(flags, "baseline-log", kMaxLogBytes);
    if (!base.ok()) return base.status();
    req->set_baseline_log(*std::move(base));
  }
  if (flags.Has("baseline-from")) {
    auto text = SourceText(flags, "baseline-from");
    if (!text.ok()) return text.status();
    req->set_baseline_config_text(*std::move(text));
  }
  long long n = 0;
  if (absl::Status s = IntFlag(flags, "min-steady", 1, 100000, &n); !s.ok()) return s;
  req->set_min_steady_iterations(static_cast<int32_t>(n));
  return FillCalibrationFlag(flags, req->mutable_calibration());
}

absl::Status BuildCalibrate(const Flags& flags, v1::CalibrateRequest* req) {
  if (!flags.Has("runs")) {
    return FieldError("--runs", "give the runs as LOG:CONFIG pairs, comma-separated (a.log:a.sh,b.log:b.yaml)");
  }
  v1::Placement placement;
  if (absl::Status s = FillPlacement(flags, &placement); !s.ok()) return s;
  req->set_require_network(flags.Has("require-network"));
  const std::vector<std::string> pairs = absl::StrSplit(flags.Get("runs"), ',', absl::SkipEmpty());
  for (const std::string& pair : pairs) {
    const size_t colon = pair.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == pair.size()) {
      return FieldError("--runs", absl::StrCat("\"", pair.substr(0, 256), "\" is not LOG:CONFIG"));
    }
    Flags one;
    one.values["log"] = pair.substr(0, colon);
    one.values["from"] = pair.substr(colon + 1);
    auto log = ReadFileFlag(one, "log", kMaxLogBytes);
    if (!log.ok()) return FieldError("--runs", std::string(log.status().message()));
    auto config = SourceText(one, "from");
    if (!config.ok()) return FieldError("--runs", std::string(config.status().message()));
    v1::CalibrateRunInput* run = req->add_runs();
    run->set_label(one.values["log"]);
    run->set_log(*std::move(log));
    run->set_config_text(*std::move(config));
    *run->mutable_placement() = placement;
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace parplan
