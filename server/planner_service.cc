#include "server/planner_service.h"

#include <chrono>
#include <cstdio>

#include "server/grpc_status.h"
#include "server/planner_api.h"

namespace parplan {

template <typename Req, typename Resp, typename Fn>
grpc::Status PlannerService::Handle(const char* method, grpc::ServerContext* ctx, const Req* req, Resp* resp,
                                    Fn fn) {
  const auto start = std::chrono::steady_clock::now();
  grpc::Status status;
  if (ctx->IsCancelled() || ctx->deadline() < std::chrono::system_clock::now()) {
    status = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "deadline passed before the call started");
  } else {
    status = ToGrpcStatus(fn(*req, resp));
  }
  if (access_log_) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "access method=%s status=%d latency_ms=%.3f peer=%s\n", method,
                 static_cast<int>(status.error_code()), ms, ctx->peer().c_str());
  }
  return status;
}

grpc::Status PlannerService::ListModels(grpc::ServerContext* ctx, const v1::ListModelsRequest* req,
                                        v1::ListModelsResponse* resp) {
  return Handle("ListModels", ctx, req, resp, api::ListModels);
}
grpc::Status PlannerService::GetModel(grpc::ServerContext* ctx, const v1::GetModelRequest* req,
                                      v1::GetModelResponse* resp) {
  return Handle("GetModel", ctx, req, resp, api::GetModel);
}
grpc::Status PlannerService::ListSystems(grpc::ServerContext* ctx, const v1::ListSystemsRequest* req,
                                         v1::ListSystemsResponse* resp) {
  return Handle("ListSystems", ctx, req, resp, api::ListSystems);
}
grpc::Status PlannerService::GetSystem(grpc::ServerContext* ctx, const v1::GetSystemRequest* req,
                                       v1::GetSystemResponse* resp) {
  return Handle("GetSystem", ctx, req, resp, api::GetSystem);
}
grpc::Status PlannerService::MinGpus(grpc::ServerContext* ctx, const v1::MinGpusRequest* req,
                                     v1::MinGpusResponse* resp) {
  return Handle("MinGpus", ctx, req, resp, api::MinGpus);
}
grpc::Status PlannerService::Validate(grpc::ServerContext* ctx, const v1::ValidateRequest* req,
                                      v1::ValidateResponse* resp) {
  return Handle("Validate", ctx, req, resp, api::Validate);
}
grpc::Status PlannerService::ExplainLayout(grpc::ServerContext* ctx, const v1::ExplainLayoutRequest* req,
                                           v1::ExplainLayoutResponse* resp) {
  return Handle("ExplainLayout", ctx, req, resp, api::ExplainLayout);
}
grpc::Status PlannerService::RenderConfig(grpc::ServerContext* ctx, const v1::RenderConfigRequest* req,
                                          v1::RenderConfigResponse* resp) {
  return Handle("RenderConfig", ctx, req, resp, api::RenderConfig);
}

}  // namespace parplan
