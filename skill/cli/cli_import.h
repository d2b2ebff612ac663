// The CLI's side of issue 34's doors: `--from FILE|-|recipe:NAME` (with
// `--overrides "a.b=1 c.d=2"` and `--from-format`) read in-process into the
// request's model, config and placement with the command's own flags on
// top; `--calibration FILE`; and the request builders of `import`,
// `compare` and `calibrate`.
#ifndef PARPLAN_SKILL_CLI_CLI_IMPORT_H_
#define PARPLAN_SKILL_CLI_CLI_IMPORT_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "parplan/v1/planner.pb.h"
#include "server/api/import_api.h"
#include "skill/cli/cli_flags.h"

namespace parplan {
namespace cli {

// The text a source flag names: "recipe:NAME" as is, "-" = stdin, else a
// file path (at most 1 MiB). Errors name `--<name>`.
absl::StatusOr<std::string> SourceText(const Flags& flags, const std::string& name);

// --overrides split on whitespace (a value in quotes keeps its spaces).
google::protobuf::RepeatedPtrField<std::string> OverridesFlag(const Flags& flags);

// `--from` read into request parts (nullopt without --from). The request's
// own placement flags are passed so the import can fill what they leave.
absl::StatusOr<std::optional<api::ImportedRequestParts>> ImportFromFlag(const Flags& flags);

// Puts the import under what the flags set: the model when no model flag
// was given, the config and placement with the flags' fields on top.
void ApplyImport(const api::ImportedRequestParts& from, bool model_flag_given, v1::ModelRef* model,
                 v1::ParallelConfig* config, v1::Placement* placement);

// --calibration FILE (the JSON `parplan calibrate --out` writes) into
// `out`; untouched without the flag. Errors name --calibration.
absl::Status FillCalibrationFlag(const Flags& flags, v1::Calibration* out);

absl::Status BuildImportConfig(const Flags& flags, v1::ImportConfigRequest* req);
absl::Status BuildCompareRun(const Flags& flags, v1::CompareRunRequest* req);
absl::Status BuildCalibrate(const Flags& flags, v1::CalibrateRequest* req);

}  // namespace cli
}  // namespace parplan

#endif  // PARPLAN_SKILL_CLI_CLI_IMPORT_H_
