// The Recommend call without a transport: converts the request to a core
// SearchRequest, runs the search under `deadline`, converts the answer.
#ifndef PARPLAN_SERVER_RECOMMEND_API_H_
#define PARPLAN_SERVER_RECOMMEND_API_H_

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace api {

namespace v1 = ::parplan::v1;

// INVALID_ARGUMENT naming the field for bad input (no model or system,
// incomplete model, out-of-range bounds); NOT_FOUND for unknown names. An
// infeasible search is OK with feasible = false.
absl::Status Recommend(const v1::RecommendRequest& request, v1::RecommendResponse* response,
                       absl::Time deadline = absl::InfiniteFuture());

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_RECOMMEND_API_H_
