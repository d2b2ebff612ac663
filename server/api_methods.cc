#include "server/api_methods.h"

#include "parplan/v1/planner.pb.h"
#include "server/planner_api.h"
#include "server/recommend_api.h"
#include "server/utf8.h"

namespace parplan {
namespace api {
namespace {

// Answers quote user input (cut at a byte bound): like the gRPC door, the
// table's callers get every string as valid UTF-8.
absl::Status Sanitized(absl::Status status, google::protobuf::Message* response) {
  if (status.ok()) SanitizeUtf8(response);
  return status;
}

template <typename Req, typename Resp, absl::Status (*F)(const Req&, Resp*)>
absl::Status Call(const google::protobuf::Message& request, google::protobuf::Message* response, absl::Time) {
  return Sanitized(F(static_cast<const Req&>(request), static_cast<Resp*>(response)), response);
}

absl::Status CallRecommend(const google::protobuf::Message& request, google::protobuf::Message* response,
                           absl::Time deadline) {
  return Sanitized(Recommend(static_cast<const v1::RecommendRequest&>(request),
                             static_cast<v1::RecommendResponse*>(response), deadline),
                   response);
}

template <typename Req, typename Resp, absl::Status (*F)(const Req&, Resp*)>
ApiMethod Entry(const char* rpc) {
  return {rpc, &Req::default_instance(), &Resp::default_instance(), &Call<Req, Resp, F>};
}

}  // namespace

const std::vector<ApiMethod>& ApiMethods() {
  static const std::vector<ApiMethod>* const methods = new std::vector<ApiMethod>{
      Entry<v1::ListModelsRequest, v1::ListModelsResponse, &ListModels>("ListModels"),
      Entry<v1::GetModelRequest, v1::GetModelResponse, &GetModel>("GetModel"),
      Entry<v1::ListSystemsRequest, v1::ListSystemsResponse, &ListSystems>("ListSystems"),
      Entry<v1::GetSystemRequest, v1::GetSystemResponse, &GetSystem>("GetSystem"),
      Entry<v1::MinGpusRequest, v1::MinGpusResponse, &MinGpus>("MinGpus"),
      Entry<v1::ValidateRequest, v1::ValidateResponse, &Validate>("Validate"),
      Entry<v1::ExplainLayoutRequest, v1::ExplainLayoutResponse, &ExplainLayout>("ExplainLayout"),
      Entry<v1::RenderConfigRequest, v1::RenderConfigResponse, &RenderConfig>("RenderConfig"),
      Entry<v1::EstimateMemoryRequest, v1::EstimateMemoryResponse, &EstimateMemory>("EstimateMemory"),
      Entry<v1::EstimatePerformanceRequest, v1::EstimatePerformanceResponse, &EstimatePerformance>(
          "EstimatePerformance"),
      {"Recommend", &v1::RecommendRequest::default_instance(), &v1::RecommendResponse::default_instance(),
       &CallRecommend},
  };
  return *methods;
}

const ApiMethod* FindApiMethod(absl::string_view rpc) {
  for (const ApiMethod& m : ApiMethods()) {
    if (m.rpc == rpc) return &m;
  }
  return nullptr;
}

}  // namespace api
}  // namespace parplan
