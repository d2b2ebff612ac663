#include "server/grpc/planner_service.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/api/api_methods.h"
#include "server/api/bearer_token.h"
#include "server/grpc/grpc_status.h"

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

PlannerService::PlannerService(const ServiceOptions& options)
    : options_(options), expected_authorization_(ExpectedAuthorization(options.auth_token)) {
  int workers = options.search_workers;
  if (workers <= 0) workers = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
  pool_ = std::make_unique<WorkPool>(workers, options.max_queued_calls);
}

grpc::Status PlannerService::Admit(grpc::CallbackServerContext* ctx) const {
  if (!expected_authorization_.empty()) {
    const auto& metadata = ctx->client_metadata();
    auto it = metadata.find("authorization");
    const std::string given = it == metadata.end() ? "" : std::string(it->second.data(), it->second.size());
    if (!AuthorizationMatches(given, expected_authorization_)) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, it == metadata.end()
                                                                 ? "missing \"authorization: Bearer <token>\" metadata"
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

grpc::ServerUnaryReactor* PlannerService::Dispatch(const char* rpc, grpc::CallbackServerContext* ctx,
                                                   const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  const auto start = std::chrono::steady_clock::now();
  auto* reactor = ctx->DefaultReactor();
  const api::ApiMethod* method = api::FindApiMethod(rpc);
  grpc::Status admitted = method == nullptr ? grpc::Status(grpc::StatusCode::UNIMPLEMENTED, rpc) : Admit(ctx);
  if (!admitted.ok()) {
    Log(rpc, admitted, start, ctx);
    reactor->Finish(admitted);
    return reactor;
  }
  // gRPC keeps ctx, request, response and the reactor alive until Finish.
  auto work = [this, rpc, method, ctx, request, response, start, reactor]() {
    grpc::Status status;
    std::unique_ptr<google::protobuf::Message> req(method->request->New());
    std::unique_ptr<google::protobuf::Message> resp(method->response->New());
    if (method->cost == api::CallCost::kPool && ctx->deadline() < std::chrono::system_clock::now()) {
      status = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "deadline passed while queued behind other searches");
    } else if (!req->ParseFromString(Flatten(*request))) {
      status = grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("request is not a valid ", req->GetTypeName(), " message (proto3 string fields must be UTF-8)"));
    } else {
      const absl::Time caller = ctx->deadline() == std::chrono::system_clock::time_point::max()
                                    ? absl::InfiniteFuture()
                                    : absl::FromChrono(ctx->deadline());
      status = ToGrpcStatus(api::RunMethod(*method, *req, resp.get(), caller));
      if (status.ok()) {
        grpc::Slice slice(resp->SerializeAsString());
        *response = grpc::ByteBuffer(&slice, 1);
      }
    }
    Log(rpc, status, start, ctx);
    reactor->Finish(status);
  };
  if (method->cost == api::CallCost::kInline) {
    work();
  } else if (!pool_->TrySubmit(work)) {
    const grpc::Status busy(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("server busy: ", pool_->max_queued(), " long calls are already waiting; retry with backoff"));
    Log(rpc, busy, start, ctx);
    reactor->Finish(busy);
  }
  return reactor;
}

}  // namespace parplan
