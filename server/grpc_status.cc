#include "server/grpc_status.h"

#include "absl/strings/str_cat.h"
#include "server/rpc_status_details.h"
#include "server/utf8.h"

namespace parplan {

namespace {

// gRPC sends an error's message and details as trailing metadata, which a
// client refuses beyond its metadata limit (8 KiB by default): the message
// is cut at kMaxStatusMessage bytes (on a UTF-8 character boundary).
constexpr size_t kMaxStatusMessage = 2048;

std::string BoundedMessage(const std::string& message) {
  const size_t cut = Utf8PrefixLength(message, kMaxStatusMessage);
  if (cut == message.size()) return message;
  return absl::StrCat(message.substr(0, cut), " ... (", message.size() - cut, " more bytes)");
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(status.code());
  const std::string message = BoundedMessage(std::string(status.message()));
  const std::string details = RpcStatusDetails(status);
  if (details.empty()) return grpc::Status(code, message);
  return grpc::Status(code, message, details);
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  return StatusFromRpcParts(static_cast<int>(status.error_code()), status.error_message(), status.error_details());
}

}  // namespace parplan
