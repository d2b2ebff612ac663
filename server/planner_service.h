// The gRPC Planner service. Every method is a raw callback handler: the
// service parses the request bytes itself, so a message that is not a valid
// request (e.g. a string field that is not UTF-8) is answered with
// INVALID_ARGUMENT instead of gRPC's generic INTERNAL. Each call: checks the
// bearer token (when one is configured) and refuses a passed deadline, runs
// the transport-free API (server/planner_api.h) inline or, for long calls,
// on a bounded worker pool, converts the status, and logs one access line.
#ifndef PARPLAN_SERVER_PLANNER_SERVICE_H_
#define PARPLAN_SERVER_PLANNER_SERVICE_H_

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "server/work_pool.h"
#include "parplan/v1/planner.grpc.pb.h"

namespace parplan {

using RawPlannerBase = v1::Planner::WithRawCallbackMethod_ListModels<
    v1::Planner::WithRawCallbackMethod_GetModel<v1::Planner::WithRawCallbackMethod_ListSystems<
        v1::Planner::WithRawCallbackMethod_GetSystem<v1::Planner::WithRawCallbackMethod_MinGpus<
            v1::Planner::WithRawCallbackMethod_Validate<v1::Planner::WithRawCallbackMethod_ExplainLayout<
                v1::Planner::WithRawCallbackMethod_RenderConfig<
                    v1::Planner::WithRawCallbackMethod_EstimateMemory<
                        v1::Planner::WithRawCallbackMethod_EstimatePerformance<
                            v1::Planner::WithRawCallbackMethod_Recommend<v1::Planner::Service>>>>>>>>>>>;

struct ServiceOptions {
  bool access_log = true;   // one line per call on stderr: method, status, latency, peer
  std::string auth_token;   // when set, calls need "authorization: Bearer <token>"
  int search_workers = 0;   // threads for searches and large layouts; 0 = cores - 1 (at least 1)
  int max_queued_calls = 1024;  // waiting long calls beyond this are RESOURCE_EXHAUSTED
};

// Short calls run on gRPC's threads; Recommend and ExplainLayout run on a
// bounded pool so that searches cannot starve them. Every call checks the
// token (if any) and its deadline before it runs.
class PlannerService final : public RawPlannerBase {
 public:
  explicit PlannerService(const ServiceOptions& options);

  grpc::ServerUnaryReactor* ListModels(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                       grpc::ByteBuffer* resp) override;
  grpc::ServerUnaryReactor* GetModel(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                     grpc::ByteBuffer* resp) override;
  grpc::ServerUnaryReactor* ListSystems(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                        grpc::ByteBuffer* resp) override;
  grpc::ServerUnaryReactor* GetSystem(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                      grpc::ByteBuffer* resp) override;
  grpc::ServerUnaryReactor* MinGpus(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                    grpc::ByteBuffer* resp) override;
  grpc::ServerUnaryReactor* Validate(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                     grpc::ByteBuffer* resp) override;
  grpc::ServerUnaryReactor* ExplainLayout(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                          grpc::ByteBuffer* resp) override;
  grpc::ServerUnaryReactor* RenderConfig(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                         grpc::ByteBuffer* resp) override;
  grpc::ServerUnaryReactor* EstimateMemory(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                           grpc::ByteBuffer* resp) override;
  grpc::ServerUnaryReactor* EstimatePerformance(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                                grpc::ByteBuffer* resp) override;
  // Runs the search under the call's deadline (it stops and says so).
  grpc::ServerUnaryReactor* Recommend(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                      grpc::ByteBuffer* resp) override;

 private:
  enum class Cost { kShort, kLong };
  template <typename Req, typename Resp, typename Fn>
  grpc::ServerUnaryReactor* Handle(const char* method, Cost cost, grpc::CallbackServerContext* ctx,
                                   const grpc::ByteBuffer* request, grpc::ByteBuffer* response, Fn fn);
  template <typename Req, typename Resp>
  grpc::ServerUnaryReactor* Handle(const char* method, grpc::CallbackServerContext* ctx,
                                   const grpc::ByteBuffer* request, grpc::ByteBuffer* response,
                                   absl::Status (*fn)(const Req&, Resp*)) {
    return Handle<Req, Resp, absl::Status (*)(const Req&, Resp*)>(method, Cost::kShort, ctx, request, response, fn);
  }
  // OK, or UNAUTHENTICATED / DEADLINE_EXCEEDED before any work.
  grpc::Status Admit(grpc::CallbackServerContext* ctx) const;
  void Log(const char* method, const grpc::Status& status, std::chrono::steady_clock::time_point start,
           grpc::CallbackServerContext* ctx) const;

  ServiceOptions options_;
  const std::string expected_authorization_;  // "Bearer <token>", or empty: no auth
  std::unique_ptr<WorkPool> pool_;
};

}  // namespace parplan

#endif  // PARPLAN_SERVER_PLANNER_SERVICE_H_
