// The planner's RPCs as one table, from which every door is generated: the
// gRPC service (server/grpc/planner_service.h: one raw handler per row), MCP
// (skill/mcp: one tool per row, schemas from the proto) and the CLI
// (skill/cli: the row's in-process call and a text formatter per row). A row
// is the RPC's name and cost class; its request and response types are
// v1::<Name>Request / v1::<Name>Response and its call api::<Name>
// (server/api/planner_api.h, recommend_api.h, import_api.h, run_api.h). Adding an RPC: the proto,
// one row here, the api:: function (and the CLI's Format<Name> and command);
// CONTRIBUTING.md walks through it.
#ifndef PARPLAN_SERVER_API_METHODS_H_
#define PARPLAN_SERVER_API_METHODS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"

// X(Name, cost): kInline runs on the caller's thread; kLight on the server's
// light lane (layouts, which can be large, and plots: never behind a
// search); kSearch on the search lane (server/work_lanes.h).
#define PARPLAN_PLANNER_RPCS(X)   \
  X(ListModels, kInline)          \
  X(GetModel, kInline)            \
  X(ListSystems, kInline)         \
  X(GetSystem, kInline)           \
  X(MinGpus, kInline)             \
  X(Validate, kInline)            \
  X(ExplainLayout, kLight)        \
  X(RenderConfig, kInline)        \
  X(EstimateMemory, kInline)      \
  X(EstimatePerformance, kInline) \
  X(Recommend, kSearch)           \
  X(ImportConfig, kInline)        \
  X(CompareRun, kLight)           \
  X(Calibrate, kLight)

namespace parplan {
namespace api {

enum class CallCost { kInline, kLight, kSearch };

struct ApiMethod {
  std::string rpc;                            // e.g. "MinGpus"
  const google::protobuf::Message* request;   // default instance of the request type
  const google::protobuf::Message* response;  // default instance of the response type
  CallCost cost;
  // Answers `request` (of the request type) into `response` (of the response
  // type); searches stop at `deadline`. Use RunMethod, which bounds the
  // deadline and cleans the answer.
  absl::Status (*call)(const google::protobuf::Message& request, google::protobuf::Message* response,
                       absl::Time deadline);
};

// Every RPC, in the service's order.
const std::vector<ApiMethod>& ApiMethods();

// The entry for an RPC name, or nullptr.
const ApiMethod* FindApiMethod(absl::string_view rpc);

// When a search called at `now` by a caller whose deadline is `caller` (or
// absl::InfiniteFuture()) must stop: the caller's deadline less a margin to
// evaluate, explain and send the plans it shows (25% of the time left, at
// most 1 s: that work took ~70 ms on an idle 2-core machine, over 100 ms
// when the cores were shared, and over 150 ms in the sanitized CI build
// beside other tests), and never later than kMaxSearchSeconds.
absl::Time SearchDeadline(absl::Time now, absl::Time caller);

// Runs `method` for every door: the search deadline from SearchDeadline,
// the candidate bound within the search memory budget (request_budget.h),
// and every string of an answer valid UTF-8 (answers quote user input cut
// at byte bounds).
absl::Status RunMethod(const ApiMethod& method, const google::protobuf::Message& request,
                       google::protobuf::Message* response, absl::Time caller_deadline);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_API_METHODS_H_
