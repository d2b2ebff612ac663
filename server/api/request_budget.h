// Memory budgets per request, in bytes (issue 36): a search holds about
// kSearchBytesPerCandidate bytes for each candidate it keeps (its config,
// score and estimates: measured 1,010 B with DeepSeek-V3 at 131K tokens,
// 200,000 candidates -> +197 MiB peak RSS), so a server gives each search a
// byte budget (parplan-server --search-memory-mib) and lowers a request's
// max_candidates to what the budget holds. The answer then says so: it is
// truncated, and truncated_reason and reasons name what was asked, the
// budget and the bound used. Deterministic: the same request on the same
// server configuration gives the same bytes.
#ifndef PARPLAN_SERVER_API_REQUEST_BUDGET_H_
#define PARPLAN_SERVER_API_REQUEST_BUDGET_H_

#include <cstdint>
#include <memory>

#include "google/protobuf/message.h"

namespace parplan {
namespace api {

inline constexpr int64_t kSearchBytesPerCandidate = 1100;
// parplan-server's default; in-process callers (the CLI) have no budget
// unless they set one.
inline constexpr int64_t kDefaultSearchMemoryBytes = int64_t{256} << 20;
inline constexpr int64_t kNoSearchMemoryBudget = INT64_MAX;

// The bytes one search may hold, for the whole process (set once at start;
// kNoSearchMemoryBudget until then).
void SetSearchMemoryBytes(int64_t bytes);
int64_t SearchMemoryBytes();

// The candidate bound `bytes` hold (at least 1).
int64_t CandidatesWithin(int64_t bytes);

// When `request` has a max_candidates field whose bound (0 = the default,
// kDefaultCandidates) is above what the search budget holds: a copy with the
// bound lowered in *fitted, the bounds in *asked and *allowed, and true.
bool FitToBudget(const google::protobuf::Message& request, std::unique_ptr<google::protobuf::Message>* fitted,
                 int64_t* asked, int64_t* allowed);

// After a call FitToBudget lowered: when the search reached the lowered
// bound, marks `response` truncated and says why (truncated_reason and a
// reason naming the budget).
void SayBudgetCut(int64_t asked, int64_t allowed, google::protobuf::Message* response);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_API_REQUEST_BUDGET_H_
