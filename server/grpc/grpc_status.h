// absl::Status -> grpc::Status, carrying field violations as
// google.rpc.BadRequest in the standard grpc-status-details-bin trailer.
#ifndef PARPLAN_SERVER_GRPC_STATUS_H_
#define PARPLAN_SERVER_GRPC_STATUS_H_

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace parplan {

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace parplan

#endif  // PARPLAN_SERVER_GRPC_STATUS_H_
