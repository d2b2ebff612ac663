// The gRPC Planner service. Every method is a raw callback handler: the
// service parses the request bytes itself, so a message that is not a valid
// request (e.g. a string field that is not UTF-8) is answered with
// INVALID_ARGUMENT instead of gRPC's generic INTERNAL. Each call: checks the
// bearer token (when one is configured) and refuses a passed deadline, runs
// the transport-free API (server/api/planner_api.h) inline or on its lane
// (server/work_lanes.h), converts the status, and logs one access line.
//
// Deadlines count from the call's arrival (gRPC turns the client's timeout
// into an absolute deadline when the call arrives): a pooled call that no
// worker has started by its deadline is answered DEADLINE_EXCEEDED at that
// deadline, with "retry-after" trailing metadata (seconds). While draining
// (StartDraining) new calls are answered UNAVAILABLE with "retry-after".
#ifndef PARPLAN_SERVER_PLANNER_SERVICE_H_
#define PARPLAN_SERVER_PLANNER_SERVICE_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "core/util/limits.h"
#include "server/api/api_methods.h"
#include "server/client_limits.h"
#include "server/work_lanes.h"
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
  int search_workers = 0;       // threads for searches; 0 = cores - 1 (at least 1)
  int light_workers = 2;        // threads for layouts and plots (the light lane)
  int max_queued_calls = 1024;  // waiting calls of one lane beyond this are RESOURCE_EXHAUSTED
  // Calls one client (peer address) may have queued or running at once,
  // both doors together; beyond it RESOURCE_EXHAUSTED / 429.
  int max_client_calls = kDefaultMaxClientCalls;
};

// Short calls run on gRPC's threads; Recommend runs on the search lane and
// ExplainLayout on the light lane, so searches cannot starve either. Every
// call checks the token (if any) and its deadline before it runs.
class PlannerService final : public RawPlannerBase {
 public:
  explicit PlannerService(const ServiceOptions& options);

  // The search lane's threads for ServiceOptions::search_workers = `requested`.
  static int SearchWorkers(int requested);

  // The lanes, shared with the HTTP door.
  WorkLanes lanes() { return WorkLanes{search_pool_.get(), light_pool_.get()}; }
  // Per-client in-flight counts, shared with the HTTP door.
  ClientLimits* client_calls() { return &client_calls_; }
  // From now on new calls are answered UNAVAILABLE with retry-after.
  void StartDraining() { draining_.store(true); }
  // Calls admitted and not yet finished.
  int in_flight() const { return in_flight_.load(); }

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
  std::unique_ptr<WorkPool> search_pool_;
  std::unique_ptr<WorkPool> light_pool_;
  ClientLimits client_calls_;
  std::atomic<bool> draining_{false};
  std::atomic<int> in_flight_{0};
};

}  // namespace parplan

#endif  // PARPLAN_SERVER_PLANNER_SERVICE_H_
