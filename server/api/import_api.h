// ImportConfig over API protos, and the import step CompareRun and
// Calibrate share: a user's launch script / recipe / YAML / config.json read
// into the ModelRef, ParallelConfig and Placement every method takes.
#ifndef PARPLAN_SERVER_API_IMPORT_API_H_
#define PARPLAN_SERVER_API_IMPORT_API_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/import/imported_config.h"
#include "google/protobuf/repeated_field.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace api {

namespace v1 = ::parplan::v1;

// An imported text as request parts.
struct ImportedRequestParts {
  ImportedConfig imported;
  v1::ModelRef model;  // catalog id (a recipe's model), hf_config_json, or the arguments' architecture
  v1::ParallelConfig config;
  v1::Placement placement;  // `placement` given, with the text's GPU count / node size / system where it gave none
};

// Reads `text` (format name, overrides and Bridge release as
// ImportConfigRequest). Errors name `field` (the text) or `field_prefix` +
// "format" / "overrides": INVALID_ARGUMENT as core ImportConfig.
absl::StatusOr<ImportedRequestParts> ImportRequestParts(
    const std::string& text, const std::string& format,
    const google::protobuf::RepeatedPtrField<std::string>& overrides, const std::string& bridge_version,
    const v1::Placement& placement, const std::string& field, const std::string& field_prefix);

absl::Status ImportConfig(const v1::ImportConfigRequest& request, v1::ImportConfigResponse* response);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_API_IMPORT_API_H_
