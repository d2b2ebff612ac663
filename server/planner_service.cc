#include "server/planner_service.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/grpc_status.h"
#include "server/planner_api.h"
#include "server/recommend_api.h"
#include "server/utf8.h"
#include "core/util/limits.h"

namespace parplan {
namespace {

// Compares without an early exit, so timing does not reveal the token.
bool ConstantTimeEquals(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max<size_t>(1, b.size());
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % n]);
  return diff == 0;
}

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  for (const auto& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

}  // namespace

PlannerService::PlannerService(const ServiceOptions& options)
    : options_(options), expected_authorization_(options.auth_token.empty() ? "" : "Bearer " + options.auth_token) {
  int workers = options.search_workers;
  if (workers <= 0) workers = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
  pool_ = std::make_unique<WorkPool>(workers, options.max_queued_calls);
}

grpc::Status PlannerService::Admit(grpc::CallbackServerContext* ctx) const {
  if (!expected_authorization_.empty()) {
    const auto& metadata = ctx->client_metadata();
    auto it = metadata.find("authorization");
    const std::string given = it == metadata.end() ? "" : std::string(it->second.data(), it->second.size());
    if (!ConstantTimeEquals(given, expected_authorization_)) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          it == metadata.end() ? "missing \"authorization: Bearer <token>\" metadata"
                                               : "wrong bearer token");
    }
  }
  if (ctx->deadline() < std::chrono::system_clock::now()) {
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "deadline passed before the call started");
  }
  return grpc::Status::OK;
}

void PlannerService::Log(const char* method, const grpc::Status& status, std::chrono::steady_clock::time_point start,
                         grpc::CallbackServerContext* ctx) const {
  if (!options_.access_log) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "access method=%s status=%d latency_ms=%.3f peer=%s\n", method,
               static_cast<int>(status.error_code()), ms, ctx->peer().c_str());
}

template <typename Req, typename Resp, typename Fn>
grpc::ServerUnaryReactor* PlannerService::Handle(const char* method, Cost cost, grpc::CallbackServerContext* ctx,
                                                 const grpc::ByteBuffer* request, grpc::ByteBuffer* response,
                                                 Fn fn) {
  const auto start = std::chrono::steady_clock::now();
  auto* reactor = ctx->DefaultReactor();
  grpc::Status admitted = Admit(ctx);
  if (!admitted.ok()) {
    Log(method, admitted, start, ctx);
    reactor->Finish(admitted);
    return reactor;
  }
  // gRPC keeps ctx, request, response and the reactor alive until Finish.
  auto work = [this, method, ctx, request, response, fn, start, reactor, cost]() {
    grpc::Status status;
    Req req;
    Resp resp;
    if (cost == Cost::kLong && ctx->deadline() < std::chrono::system_clock::now()) {
      status = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "deadline passed while queued behind other searches");
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
    Log(method, status, start, ctx);
    reactor->Finish(status);
  };
  if (cost == Cost::kShort) {
    work();
  } else if (!pool_->TrySubmit(work)) {
    const grpc::Status busy(grpc::StatusCode::RESOURCE_EXHAUSTED,
                            absl::StrCat("server busy: ", pool_->max_queued(),
                                         " long calls are already waiting; retry with backoff"));
    Log(method, busy, start, ctx);
    reactor->Finish(busy);
  }
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
  return Handle<v1::ExplainLayoutRequest, v1::ExplainLayoutResponse>("ExplainLayout", Cost::kLong, ctx, req, resp,
                                                                     &api::ExplainLayout);
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
  // The search stops at the call's deadline less a margin to evaluate,
  // explain and send the plans it shows (10% of the time left, at most 500
  // ms: that work took ~70 ms on an idle 2-core machine and over 100 ms when
  // the cores were shared), and never runs past kMaxSearchSeconds.
  const absl::Duration max_search = absl::Seconds(kMaxSearchSeconds);
  const absl::Time now = absl::Now();
  absl::Time deadline = now + max_search;
  if (ctx->deadline() != std::chrono::system_clock::time_point::max()) {
    const absl::Time caller = absl::FromChrono(ctx->deadline());
    const absl::Duration margin = std::min(absl::Milliseconds(500), (caller - now) / 10);
    deadline = std::min(deadline, caller - margin);
  }
  return Handle<v1::RecommendRequest, v1::RecommendResponse>(
      "Recommend", Cost::kLong, ctx, req, resp,
      [deadline](const v1::RecommendRequest& q, v1::RecommendResponse* r) { return api::Recommend(q, r, deadline); });
}

}  // namespace parplan
