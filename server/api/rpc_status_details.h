// absl::Status <-> the parts of a gRPC status (code, message, and the
// google.rpc.Status bytes of the grpc-status-details-bin trailer, which carry
// field violations as google.rpc.BadRequest). No gRPC dependency, so the CLI
// can decode a remote answer without loading the gRPC libraries itself.
#ifndef PARPLAN_SERVER_RPC_STATUS_DETAILS_H_
#define PARPLAN_SERVER_RPC_STATUS_DETAILS_H_

#include <string>

#include "absl/status/status.h"

namespace parplan {

// Serialized google.rpc.Status with a BadRequest for `status`'s field
// violations; empty when there are none.
std::string RpcStatusDetails(const absl::Status& status);

// The reverse: code (a grpc/absl status code number), message and the
// details bytes back to an absl::Status with its field violations.
absl::Status StatusFromRpcParts(int code, const std::string& message, const std::string& details);

}  // namespace parplan

#endif  // PARPLAN_SERVER_RPC_STATUS_DETAILS_H_
