// The planner's calls over API protos, with no transport: the gRPC service,
// the CLI (in-process mode) and the MCP door all call these, so every door
// gives the same bytes for the same request.
//
// Each function validates its request (INVALID_ARGUMENT with field
// violations, see core/util/field_error.h), resolves names (NOT_FOUND with
// the closest names), calls the core and fills the response. Answers such as
// "invalid config" are OK statuses with the answer in the response.
#ifndef PARPLAN_SERVER_PLANNER_API_H_
#define PARPLAN_SERVER_PLANNER_API_H_

#include "absl/status/status.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace api {

namespace v1 = ::parplan::v1;

absl::Status ListModels(const v1::ListModelsRequest& request, v1::ListModelsResponse* response);
absl::Status GetModel(const v1::GetModelRequest& request, v1::GetModelResponse* response);
absl::Status ListSystems(const v1::ListSystemsRequest& request, v1::ListSystemsResponse* response);
absl::Status GetSystem(const v1::GetSystemRequest& request, v1::GetSystemResponse* response);
absl::Status MinGpus(const v1::MinGpusRequest& request, v1::MinGpusResponse* response);
absl::Status Validate(const v1::ValidateRequest& request, v1::ValidateResponse* response);
absl::Status ExplainLayout(const v1::ExplainLayoutRequest& request, v1::ExplainLayoutResponse* response);
absl::Status RenderConfig(const v1::RenderConfigRequest& request, v1::RenderConfigResponse* response);
absl::Status EstimateMemory(const v1::EstimateMemoryRequest& request, v1::EstimateMemoryResponse* response);
absl::Status EstimatePerformance(const v1::EstimatePerformanceRequest& request,
                                 v1::EstimatePerformanceResponse* response);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_PLANNER_API_H_
