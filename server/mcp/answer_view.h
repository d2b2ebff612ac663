// What MCP's tools/call puts in structuredContent: the API's answer in the
// JSON of server/api/json_codec.h, cut so that an answer stays affordable
// for an assistant (every recommend answer, text included, within 32 KiB;
// tests/server/mcp_sizes_test.cc). What is cut repeats another field or
// comes back from one call on the plan's config and placement:
// - every config (ParallelConfig) prints only the fields that are set: an
//   absent field is 0 / false / empty, the default its comment names;
// - recommend: no plan repeats as a reason what its own fields say (its
//   tokens/s and MFU, memory, MFU peak, uncertainty basis, default batch,
//   the execution settings of plans 2..);
//   plan 1 keeps everything else; plans 2.. leave out bridge_overrides (ask
//   render_config), their breakdown (estimate_performance) and their
//   warnings' fields, message, fix and source (the rule id stays; validate
//   says the rest); the starting point and the
//   rejected examples keep their label, config, numbers and errors; a plan
//   or example whose uncertainty_basis is plan 1's leaves it empty (every
//   plan of an answer shares it);
// - list_systems: each system's figures, without its sources and notes
//   (get_system gives them for one system).
// The gRPC service, the HTTP JSON API and the CLI's --json answer in full;
// every number kept here is the same there.
#ifndef PARPLAN_SERVER_MCP_ANSWER_VIEW_H_
#define PARPLAN_SERVER_MCP_ANSWER_VIEW_H_

#include "google/protobuf/message.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace mcp {

// The structuredContent of `response` (any planner response message).
nlohmann::ordered_json StructuredAnswer(const google::protobuf::Message& response);

}  // namespace mcp
}  // namespace parplan

#endif  // PARPLAN_SERVER_MCP_ANSWER_VIEW_H_
