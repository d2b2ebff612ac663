#include "server/grpc_status.h"

#include "server/rpc_status_details.h"

namespace parplan {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(status.code());
  const std::string message(status.message());
  const std::string details = RpcStatusDetails(status);
  if (details.empty()) return grpc::Status(code, message);
  return grpc::Status(code, message, details);
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  return StatusFromRpcParts(static_cast<int>(status.error_code()), status.error_message(), status.error_details());
}

}  // namespace parplan
