#include "server/rpc_status_details.h"

#include "core/util/field_error.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace parplan {

std::string RpcStatusDetails(const absl::Status& status) {
  const auto violations = FieldViolationsOf(status);
  if (violations.empty()) return "";
  google::rpc::BadRequest bad_request;
  for (const auto& v : violations) {
    auto* fv = bad_request.add_field_violations();
    fv->set_field(v.field);
    fv->set_description(v.description);
  }
  google::rpc::Status rpc_status;
  rpc_status.set_code(static_cast<int>(status.code()));
  rpc_status.set_message(std::string(status.message()));
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
