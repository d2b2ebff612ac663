// The gRPC Planner service. Every method is a raw callback handler: the
// service parses the request bytes itself, so a message that is not a valid
// request (e.g. a string field that is not UTF-8) is answered with
// INVALID_ARGUMENT instead of gRPC's generic INTERNAL. Each call: checks the
// bearer token (when one is configured) and refuses a passed deadline, runs
// the transport-free API (server/api/planner_api.h) inline or, for long calls,
// on a bounded worker pool, converts the status, and logs one access line.
#ifndef PARPLAN_SERVER_PLANNER_SERVICE_H_
#define PARPLAN_SERVER_PLANNER_SERVICE_H_

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "server/api/api_methods.h"
#include "server/work_pool.h"
#include "parplan/v1/planner.grpc.pb.h"

namespace parplan {

namespace internal {
// Stacks gRPC's per-method raw-callback mixins over the service base:
// Stack<Base, M1, M2>::type = M1<M2<Base>>.
template <class Base, template <class> class... Mixins>
struct Stack {
  using type = Base;
};
template <class Base, template <class> class First, template <class> class... Rest>
struct Stack<Base, First, Rest...> {
  using type = First<typename Stack<Base, Rest...>::type>;
};
template <class Base>
class NoMoreMethods : public Base {};
}  // namespace internal

// Every row of the method table (server/api/api_methods.h) as a raw callback
// method of the generated service.
#define PARPLAN_RAW_MIXIN(Name, cost) v1::Planner::WithRawCallbackMethod_##Name,
using RawPlannerBase =
    internal::Stack<v1::Planner::Service, PARPLAN_PLANNER_RPCS(PARPLAN_RAW_MIXIN) internal::NoMoreMethods>::type;
#undef PARPLAN_RAW_MIXIN

struct ServiceOptions {
  bool access_log = true;       // one line per call on stderr: method, status, latency, peer
  std::string auth_token;       // when set, calls need "authorization: Bearer <token>"
  int search_workers = 0;       // threads for searches and large layouts; 0 = cores - 1 (at least 1)
  int max_queued_calls = 1024;  // waiting long calls beyond this are RESOURCE_EXHAUSTED
};

// Short calls run on gRPC's threads; Recommend and ExplainLayout run on a
// bounded pool so that searches cannot starve them. Every call checks the
// token (if any) and its deadline before it runs.
class PlannerService final : public RawPlannerBase {
 public:
  explicit PlannerService(const ServiceOptions& options);

  // The worker pool for long calls, shared with the HTTP door.
  WorkPool* pool() { return pool_.get(); }

  // One handler per row of the method table, each calling Dispatch.
#define PARPLAN_RAW_HANDLER(Name, cost)                                                             \
  grpc::ServerUnaryReactor* Name(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request, \
                                 grpc::ByteBuffer* response) override {                             \
    return Dispatch(#Name, ctx, request, response);                                                 \
  }
  PARPLAN_PLANNER_RPCS(PARPLAN_RAW_HANDLER)
#undef PARPLAN_RAW_HANDLER

 private:
  // Admits the call, parses the request, runs the table's call for `rpc`
  // inline or on the pool (its cost class) under the call's deadline,
  // converts the status and logs one access line.
  grpc::ServerUnaryReactor* Dispatch(const char* rpc, grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response);
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
