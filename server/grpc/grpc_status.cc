#include "server/grpc/grpc_status.h"

#include "absl/strings/str_cat.h"
#include "core/util/limits.h"
#include "server/api/rpc_status_details.h"
#include "server/api/utf8.h"

namespace parplan {

namespace {

// gRPC sends an error's message and details as trailing metadata, which a
// client refuses beyond its metadata limit (8 KiB by default): the message
// is cut at kMaxStatusMessageBytes bytes (on a UTF-8 character boundary).

std::string BoundedMessage(const std::string& message) {
  const size_t cut = Utf8PrefixLength(message, kMaxStatusMessageBytes);
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

}  // namespace parplan
