// The planner's RPCs as a table, for doors that dispatch by name (MCP):
// each entry has the RPC name as in the proto service, its request and
// response types and the in-process call. The table covers every RPC of
// parplan.v1.Planner (tests/server/tool_schemas_test.cc checks it).
#ifndef PARPLAN_SERVER_API_METHODS_H_
#define PARPLAN_SERVER_API_METHODS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"

namespace parplan {
namespace api {

struct ApiMethod {
  std::string rpc;                              // e.g. "MinGpus"
  const google::protobuf::Message* request;     // default instance of the request type
  const google::protobuf::Message* response;    // default instance of the response type
  // Answers `request` (of the request type) into `response` (of the response
  // type, every string valid UTF-8); searches stop at `deadline`.
  absl::Status (*call)(const google::protobuf::Message& request, google::protobuf::Message* response,
                       absl::Time deadline);
};

// Every RPC, in the service's order.
const std::vector<ApiMethod>& ApiMethods();

// The entry for an RPC name, or nullptr.
const ApiMethod* FindApiMethod(absl::string_view rpc);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_API_METHODS_H_
