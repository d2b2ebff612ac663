// The gRPC Planner service. Every method is a raw callback handler: the
// service parses the request bytes itself, so a message that is not a valid
// request (e.g. a string field that is not UTF-8) is answered with
// INVALID_ARGUMENT instead of gRPC's generic INTERNAL, then it refuses calls
// whose deadline already passed, calls the transport-free API
// (server/planner_api.h), converts the status, and logs one access line.
#ifndef PARPLAN_SERVER_PLANNER_SERVICE_H_
#define PARPLAN_SERVER_PLANNER_SERVICE_H_

#include "absl/status/status.h"
#include "parplan/v1/planner.grpc.pb.h"

namespace parplan {

namespace v1 = ::parplan::v1;

using RawPlannerBase = v1::Planner::WithRawCallbackMethod_ListModels<
    v1::Planner::WithRawCallbackMethod_GetModel<v1::Planner::WithRawCallbackMethod_ListSystems<
        v1::Planner::WithRawCallbackMethod_GetSystem<v1::Planner::WithRawCallbackMethod_MinGpus<
            v1::Planner::WithRawCallbackMethod_Validate<v1::Planner::WithRawCallbackMethod_ExplainLayout<
                v1::Planner::WithRawCallbackMethod_RenderConfig<
                    v1::Planner::WithRawCallbackMethod_EstimateMemory<
                        v1::Planner::WithRawCallbackMethod_EstimatePerformance<
                            v1::Planner::WithRawCallbackMethod_Recommend<v1::Planner::Service>>>>>>>>>>>;

class PlannerService final : public RawPlannerBase {
 public:
  // access_log: write one line per call to stderr.
  explicit PlannerService(bool access_log) : access_log_(access_log) {}

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
  template <typename Req, typename Resp, typename Fn>
  grpc::ServerUnaryReactor* Handle(const char* method, grpc::CallbackServerContext* ctx,
                                   const grpc::ByteBuffer* request, grpc::ByteBuffer* response, Fn fn);
  template <typename Req, typename Resp>
  grpc::ServerUnaryReactor* Handle(const char* method, grpc::CallbackServerContext* ctx,
                                   const grpc::ByteBuffer* request, grpc::ByteBuffer* response,
                                   absl::Status (*fn)(const Req&, Resp*)) {
    return Handle<Req, Resp, absl::Status (*)(const Req&, Resp*)>(method, ctx, request, response, fn);
  }

  bool access_log_;
};

}  // namespace parplan

#endif  // PARPLAN_SERVER_PLANNER_SERVICE_H_
