#include "server/planner_service.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/grpc_status.h"
#include "server/planner_api.h"
#include "server/recommend_api.h"
#include "server/utf8.h"

namespace parplan {
namespace {

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  for (const auto& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

}  // namespace

template <typename Req, typename Resp, typename Fn>
grpc::ServerUnaryReactor* PlannerService::Handle(const char* method, grpc::CallbackServerContext* ctx,
                                                 const grpc::ByteBuffer* request, grpc::ByteBuffer* response,
                                                 Fn fn) {
  const auto start = std::chrono::steady_clock::now();
  grpc::Status status;
  Req req;
  Resp resp;
  if (ctx->deadline() < std::chrono::system_clock::now()) {
    status = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "deadline passed before the call started");
  } else if (!req.ParseFromString(Flatten(*request))) {
    status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          absl::StrCat("request is not a valid ", req.GetTypeName(),
                                       " message (proto3 string fields must be UTF-8)"));
  } else {
    status = ToGrpcStatus(fn(req, &resp));
    if (status.ok()) {
      SanitizeUtf8(&resp);
      grpc::Slice slice(resp.SerializeAsString());
      *response = grpc::ByteBuffer(&slice, 1);
    }
  }
  if (access_log_) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "access method=%s status=%d latency_ms=%.3f peer=%s\n", method,
                 static_cast<int>(status.error_code()), ms, ctx->peer().c_str());
  }
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* PlannerService::ListModels(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                                     grpc::ByteBuffer* resp) {
  return Handle("ListModels", ctx, req, resp, &api::ListModels);
}
grpc::ServerUnaryReactor* PlannerService::GetModel(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                                   grpc::ByteBuffer* resp) {
  return Handle("GetModel", ctx, req, resp, &api::GetModel);
}
grpc::ServerUnaryReactor* PlannerService::ListSystems(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                                      grpc::ByteBuffer* resp) {
  return Handle("ListSystems", ctx, req, resp, &api::ListSystems);
}
grpc::ServerUnaryReactor* PlannerService::GetSystem(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                                    grpc::ByteBuffer* resp) {
  return Handle("GetSystem", ctx, req, resp, &api::GetSystem);
}
grpc::ServerUnaryReactor* PlannerService::MinGpus(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                                  grpc::ByteBuffer* resp) {
  return Handle("MinGpus", ctx, req, resp, &api::MinGpus);
}
grpc::ServerUnaryReactor* PlannerService::Validate(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                                   grpc::ByteBuffer* resp) {
  return Handle("Validate", ctx, req, resp, &api::Validate);
}
grpc::ServerUnaryReactor* PlannerService::ExplainLayout(grpc::CallbackServerContext* ctx,
                                                        const grpc::ByteBuffer* req, grpc::ByteBuffer* resp) {
  return Handle("ExplainLayout", ctx, req, resp, &api::ExplainLayout);
}
grpc::ServerUnaryReactor* PlannerService::RenderConfig(grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* req, grpc::ByteBuffer* resp) {
  return Handle("RenderConfig", ctx, req, resp, &api::RenderConfig);
}

grpc::ServerUnaryReactor* PlannerService::EstimateMemory(grpc::CallbackServerContext* ctx,
                                                         const grpc::ByteBuffer* req, grpc::ByteBuffer* resp) {
  return Handle("EstimateMemory", ctx, req, resp, &api::EstimateMemory);
}

grpc::ServerUnaryReactor* PlannerService::EstimatePerformance(grpc::CallbackServerContext* ctx,
                                                              const grpc::ByteBuffer* req, grpc::ByteBuffer* resp) {
  return Handle("EstimatePerformance", ctx, req, resp, &api::EstimatePerformance);
}

grpc::ServerUnaryReactor* PlannerService::Recommend(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                                    grpc::ByteBuffer* resp) {
  // The call's deadline, capped so that no search runs longer than kMaxSearch.
  constexpr absl::Duration kMaxSearch = absl::Seconds(20);
  absl::Time deadline = absl::Now() + kMaxSearch;
  if (ctx->deadline() != std::chrono::system_clock::time_point::max()) {
    deadline = std::min(deadline, absl::FromChrono(ctx->deadline()));
  }
  return Handle<v1::RecommendRequest, v1::RecommendResponse>(
      "Recommend", ctx, req, resp,
      [deadline](const v1::RecommendRequest& q, v1::RecommendResponse* r) { return api::Recommend(q, r, deadline); });
}

}  // namespace parplan
