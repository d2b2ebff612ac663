// The bearer-token check shared by the gRPC and HTTP doors.
#ifndef PARPLAN_SERVER_BEARER_TOKEN_H_
#define PARPLAN_SERVER_BEARER_TOKEN_H_

#include <string>

#include "absl/strings/string_view.h"

namespace parplan {

// "Bearer <token>", or "" when `token` is empty (no authentication).
std::string ExpectedAuthorization(const std::string& token);

// True when `given` equals `expected`, compared without an early exit so
// the time taken does not reveal the token.
bool AuthorizationMatches(absl::string_view given, const std::string& expected);

}  // namespace parplan

#endif  // PARPLAN_SERVER_BEARER_TOKEN_H_
