// Limits of the API's own request fields (those beyond a model, a system
// and a config, whose limits live with their core checks). The handlers
// check them and the tool schemas state them (server/schema_rules.cc).
#ifndef PARPLAN_SERVER_REQUEST_LIMITS_H_
#define PARPLAN_SERVER_REQUEST_LIMITS_H_

#include <cstdint>

namespace parplan {
namespace api {

inline constexpr int64_t kMaxNameChars = 256;          // list_models filter, catalog ids, size phrases
inline constexpr int64_t kMaxNextWorldSizes = 64;      // MinGpus num_next_world_sizes
inline constexpr int64_t kMaxRanksListed = 4096;       // ExplainLayout max_ranks
inline constexpr int64_t kMaxGroupsListed = 64;        // ExplainLayout max_groups
inline constexpr int64_t kMaxSuggestions = 16;         // EstimateMemory max_suggestions
inline constexpr double kMaxOverheadGib = 1024;        // EstimateMemory overhead_gib
inline constexpr int64_t kMaxTopK = 100;               // Recommend top_k
inline constexpr int64_t kMaxCandidates = 2000000;     // Recommend max_candidates
inline constexpr int64_t kDefaultCandidates = 200000;
inline constexpr int64_t kMaxSearchPp = 4096;          // Recommend constraints.max_pp

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_REQUEST_LIMITS_H_
