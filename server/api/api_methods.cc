#include "server/api/api_methods.h"

#include <algorithm>
#include <memory>

#include "absl/time/clock.h"
#include "core/util/limits.h"
#include "parplan/v1/planner.pb.h"
#include "server/api/import_api.h"
#include "server/api/planner_api.h"
#include "server/api/recommend_api.h"
#include "server/api/request_budget.h"
#include "server/api/run_api.h"
#include "server/api/utf8.h"

namespace parplan {
namespace api {
namespace {

// The request and response types of an api:: call, and whether it takes a
// deadline (the searches do).
template <typename F>
struct Signature;
template <typename Req, typename Resp>
struct Signature<absl::Status (*)(const Req&, Resp*)> {
  using Request = Req;
  using Response = Resp;
  static constexpr bool kDeadline = false;
};
template <typename Req, typename Resp>
struct Signature<absl::Status (*)(const Req&, Resp*, absl::Time)> {
  using Request = Req;
  using Response = Resp;
  static constexpr bool kDeadline = true;
};

template <auto F>
absl::Status CallOf(const google::protobuf::Message& request, google::protobuf::Message* response,
                    absl::Time deadline) {
  using S = Signature<decltype(F)>;
  const auto& req = static_cast<const typename S::Request&>(request);
  auto* resp = static_cast<typename S::Response*>(response);
  if constexpr (S::kDeadline) {
    return F(req, resp, deadline);
  } else {
    return F(req, resp);
  }
}

template <auto F>
ApiMethod Row(const char* rpc, CallCost cost) {
  using S = Signature<decltype(F)>;
  return {rpc, &S::Request::default_instance(), &S::Response::default_instance(), cost, &CallOf<F>};
}

}  // namespace

const std::vector<ApiMethod>& ApiMethods() {
#define PARPLAN_API_ROW(Name, cost) Row<&Name>(#Name, CallCost::cost),
  static const std::vector<ApiMethod>* const methods =
      new std::vector<ApiMethod>{PARPLAN_PLANNER_RPCS(PARPLAN_API_ROW)};
#undef PARPLAN_API_ROW
  return *methods;
}

const ApiMethod* FindApiMethod(absl::string_view rpc) {
  for (const ApiMethod& m : ApiMethods()) {
    if (m.rpc == rpc) return &m;
  }
  return nullptr;
}

absl::Time SearchDeadline(absl::Time now, absl::Time caller) {
  absl::Time deadline = now + absl::Seconds(kMaxSearchSeconds);
  if (caller != absl::InfiniteFuture()) {
    const absl::Duration margin = std::min(absl::Seconds(1), (caller - now) / 4);
    deadline = std::min(deadline, caller - margin);
  }
  return deadline;
}

absl::Status RunMethod(const ApiMethod& method, const google::protobuf::Message& request,
                       google::protobuf::Message* response, absl::Time caller_deadline) {
  // A search's candidate bound within its memory budget (request_budget.h).
  std::unique_ptr<google::protobuf::Message> fitted;
  int64_t asked = 0, allowed = 0;
  const bool lowered = FitToBudget(request, &fitted, &asked, &allowed);
  absl::Status status =
      method.call(lowered ? *fitted : request, response, SearchDeadline(absl::Now(), caller_deadline));
  if (status.ok() && lowered) SayBudgetCut(asked, allowed, response);
  if (status.ok()) SanitizeUtf8(response);
  return status;
}

}  // namespace api
}  // namespace parplan
