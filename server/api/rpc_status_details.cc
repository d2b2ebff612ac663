#include "server/api/rpc_status_details.h"

#include <string>

#include "core/util/field_error.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "server/api/utf8.h"
#include "core/util/limits.h"

namespace parplan {

std::string RpcStatusDetails(const absl::Status& status) {
  const auto violations = FieldViolationsOf(status);
  if (violations.empty()) return "";
  // Bounded to stay well inside gRPC's metadata limit (see grpc_status.cc):
  // at most kMaxFieldViolations violations, descriptions cut at kMaxViolationBytes
  // bytes; the message is the violations' own text, so it is not repeated.
  google::rpc::BadRequest bad_request;
  for (size_t i = 0; i < violations.size() && i < kMaxFieldViolations; ++i) {
    auto* fv = bad_request.add_field_violations();
    fv->set_field(violations[i].field.substr(0, 128));
    const std::string& text = violations[i].description;
    const size_t cut = Utf8PrefixLength(text, kMaxViolationBytes);
    fv->set_description(cut == text.size() ? text : text.substr(0, cut) + " ...");
  }
  if (violations.size() > kMaxFieldViolations) {
    auto* more = bad_request.add_field_violations();
    more->set_field("request");
    more->set_description(std::to_string(violations.size() - kMaxFieldViolations) + " more problems not listed");
  }
  google::rpc::Status rpc_status;
  rpc_status.set_code(static_cast<int>(status.code()));
  rpc_status.add_details()->PackFrom(bad_request);
  return rpc_status.SerializeAsString();
}

absl::Status StatusFromRpcParts(int code, const std::string& message, const std::string& details) {
  if (code == 0) return absl::OkStatus();
  google::rpc::Status rpc_status;
  if (!details.empty() && rpc_status.ParseFromString(details)) {
    FieldErrors errors;
    for (const auto& any : rpc_status.details()) {
      google::rpc::BadRequest bad_request;
      if (any.UnpackTo(&bad_request)) {
        for (const auto& fv : bad_request.field_violations()) errors.Add(fv.field(), fv.description());
      }
    }
    if (!errors.empty() && code == static_cast<int>(absl::StatusCode::kInvalidArgument)) return errors.ToStatus();
  }
  return absl::Status(static_cast<absl::StatusCode>(code), message);
}

}  // namespace parplan
