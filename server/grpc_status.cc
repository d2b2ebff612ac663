#include "server/grpc_status.h"

#include "core/util/field_error.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace parplan {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(status.code());
  const std::string message(status.message());
  const auto violations = FieldViolationsOf(status);
  if (violations.empty()) return grpc::Status(code, message);
  google::rpc::BadRequest bad_request;
  for (const auto& v : violations) {
    auto* fv = bad_request.add_field_violations();
    fv->set_field(v.field);
    fv->set_description(v.description);
  }
  google::rpc::Status rpc_status;
  rpc_status.set_code(static_cast<int>(status.code()));
  rpc_status.set_message(message);
  rpc_status.add_details()->PackFrom(bad_request);
  return grpc::Status(code, message, rpc_status.SerializeAsString());
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  google::rpc::Status rpc_status;
  if (!status.error_details().empty() && rpc_status.ParseFromString(status.error_details())) {
    FieldErrors errors;
    for (const auto& any : rpc_status.details()) {
      google::rpc::BadRequest bad_request;
      if (any.UnpackTo(&bad_request)) {
        for (const auto& fv : bad_request.field_violations()) errors.Add(fv.field(), fv.description());
      }
    }
    if (!errors.empty() && status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      return errors.ToStatus();
    }
  }
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

}  // namespace parplan
