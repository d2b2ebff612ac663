// The gRPC Planner service: each handler is the same few lines -- refuse a
// call whose deadline already passed, call the transport-free API, convert
// the status, log one access line.
#ifndef PARPLAN_SERVER_PLANNER_SERVICE_H_
#define PARPLAN_SERVER_PLANNER_SERVICE_H_

#include "parplan/v1/planner.grpc.pb.h"

namespace parplan {

class PlannerService final : public ::parplan::v1::Planner::Service {
 public:
  // access_log: write one line per call to stderr.
  explicit PlannerService(bool access_log) : access_log_(access_log) {}

  grpc::Status ListModels(grpc::ServerContext* ctx, const v1::ListModelsRequest* req,
                          v1::ListModelsResponse* resp) override;
  grpc::Status GetModel(grpc::ServerContext* ctx, const v1::GetModelRequest* req,
                        v1::GetModelResponse* resp) override;
  grpc::Status ListSystems(grpc::ServerContext* ctx, const v1::ListSystemsRequest* req,
                           v1::ListSystemsResponse* resp) override;
  grpc::Status GetSystem(grpc::ServerContext* ctx, const v1::GetSystemRequest* req,
                         v1::GetSystemResponse* resp) override;
  grpc::Status MinGpus(grpc::ServerContext* ctx, const v1::MinGpusRequest* req,
                       v1::MinGpusResponse* resp) override;
  grpc::Status Validate(grpc::ServerContext* ctx, const v1::ValidateRequest* req,
                        v1::ValidateResponse* resp) override;
  grpc::Status ExplainLayout(grpc::ServerContext* ctx, const v1::ExplainLayoutRequest* req,
                             v1::ExplainLayoutResponse* resp) override;
  grpc::Status RenderConfig(grpc::ServerContext* ctx, const v1::RenderConfigRequest* req,
                            v1::RenderConfigResponse* resp) override;

 private:
  template <typename Req, typename Resp, typename Fn>
  grpc::Status Handle(const char* method, grpc::ServerContext* ctx, const Req* req, Resp* resp, Fn fn);

  bool access_log_;
};

}  // namespace parplan

#endif  // PARPLAN_SERVER_PLANNER_SERVICE_H_
