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
#include "server/process_memory.h"

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
    : options_(options),
      expected_authorization_(ExpectedAuthorization(options.auth_token)),
      client_calls_(options.max_client_calls) {
  search_pool_ = std::make_unique<WorkPool>(SearchWorkers(options.search_workers), options.max_queued_calls,
                                            /*release_memory=*/true);
  light_pool_ = std::make_unique<WorkPool>(std::max(1, options.light_workers), options.max_queued_calls);
}

int PlannerService::SearchWorkers(int requested) {
  return requested > 0 ? requested : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
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
  if (admitted.ok() && draining_.load()) {
    ctx->AddTrailingMetadata("retry-after", "1");
    admitted = grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down; retry on another replica");
  }
  // One client's calls in flight, both doors together.
  std::string client;
  if (admitted.ok()) {
    const auto& metadata = ctx->client_metadata();
    auto it = metadata.find("authorization");
    client = ClientKey(ctx->peer(), it == metadata.end() ? absl::string_view()
                                                         : absl::string_view(it->second.data(), it->second.size()));
    if (!client_calls_.TryAcquire(client)) {
      ctx->AddTrailingMetadata("retry-after", "1");
      admitted = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                              absl::StrCat("this client already has ", client_calls_.max_per_client(),
                                           " calls in flight (--max-client-calls); wait for one to finish"));
      client.clear();
    }
  }
  if (!admitted.ok()) {
    Log(rpc, admitted, start, ctx);
    reactor->Finish(admitted);
    return reactor;
  }
  in_flight_.fetch_add(1);
  // Every admitted call ends here, exactly once.
  auto finish = [this, rpc, ctx, start, reactor, client](const grpc::Status& status) {
    Log(rpc, status, start, ctx);
    client_calls_.Release(client);
    in_flight_.fetch_sub(1);
    reactor->Finish(status);
  };
  // gRPC keeps ctx, request, response and the reactor alive until Finish.
  auto work = [method, ctx, request, response, finish]() {
    grpc::Status status;
    std::unique_ptr<google::protobuf::Message> req(method->request->New());
    std::unique_ptr<google::protobuf::Message> resp(method->response->New());
    std::string memory;
    if (method->cost == api::CallCost::kSearch && OverMemoryCeiling(&memory)) {
      ctx->AddTrailingMetadata("retry-after", "1");
      status = grpc::Status(grpc::StatusCode::UNAVAILABLE, memory);
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
    finish(status);
  };
  if (method->cost == api::CallCost::kInline) {
    work();
    return reactor;
  }
  WorkPool* pool = lanes().For(method->cost);
  // The deadline counts from the call's arrival; a call no worker starts by
  // then is answered at it.
  const absl::Time deadline = ctx->deadline() == std::chrono::system_clock::time_point::max()
                                  ? absl::InfiniteFuture()
                                  : absl::FromChrono(ctx->deadline());
  auto expire = [ctx, finish]() {
    ctx->AddTrailingMetadata("retry-after", "1");
    finish(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                        "the deadline came before a worker was free to start this call (other searches ahead); "
                        "retry with a longer deadline or later"));
  };
  if (!pool->TrySubmit(work, deadline, expire)) {
    ctx->AddTrailingMetadata("retry-after", "1");
    finish(grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("server busy: ", pool->max_queued(), " calls are already waiting; retry with backoff")));
  }
  return reactor;
}

}  // namespace parplan
