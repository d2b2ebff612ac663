// The JSON form of a failed call, shared by the doors that speak JSON (the
// HTTP API and the MCP tools): {"error": {"code": "INVALID_ARGUMENT",
// "message": "...", "field_violations": [{"field", "description"}]}}, with
// field_violations present only when the status carries some.
#ifndef PARPLAN_SERVER_ERROR_JSON_H_
#define PARPLAN_SERVER_ERROR_JSON_H_

#include <string>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace api {

// The object above for a non-OK `status`.
nlohmann::ordered_json ErrorJson(const absl::Status& status);

// ErrorJson as compact text (invalid UTF-8 replaced).
std::string ErrorJsonText(const absl::Status& status);

// The HTTP status for an absl/gRPC code, as gRPC-HTTP gateways map them:
// INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE 400; UNAUTHENTICATED
// 401; PERMISSION_DENIED 403; NOT_FOUND 404; ALREADY_EXISTS, ABORTED 409;
// RESOURCE_EXHAUSTED 429; CANCELLED 499; UNIMPLEMENTED 501; UNAVAILABLE 503;
// DEADLINE_EXCEEDED 504; anything else 500.
int HttpStatusOf(absl::StatusCode code);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_ERROR_JSON_H_
