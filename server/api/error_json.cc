#include "server/api/error_json.h"

#include "core/util/field_error.h"

namespace parplan {
namespace api {

nlohmann::ordered_json ErrorJson(const absl::Status& status) {
  nlohmann::ordered_json violations = nlohmann::ordered_json::array();
  for (const auto& v : FieldViolationsOf(status)) {
    violations.push_back({{"field", v.field}, {"description", v.description}});
  }
  nlohmann::ordered_json error = {{"code", absl::StatusCodeToString(status.code())},
                                  {"message", std::string(status.message())}};
  if (!violations.empty()) error["field_violations"] = std::move(violations);
  return nlohmann::ordered_json{{"error", std::move(error)}};
}

std::string ErrorJsonText(const absl::Status& status) {
  return ErrorJson(status).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

int HttpStatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:
      return 500;
  }
}

}  // namespace api
}  // namespace parplan
