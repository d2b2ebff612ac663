// The MCP outputSchema of every tool, generated from the response messages'
// descriptors: what tools/call's structuredContent holds (server/mcp/
// answer_view.h), without words or scalar types (both are in the JSON Schema
// export, `parplan tools --format json-schema`, and /openapi.json): tools/list
// must stay within its budget (24 KiB, tests/server/mcp_sizes_test.cc).
//
// Contract, for each tool's schema (and each message it describes):
// - `required` names the fields every answer prints: all but nested
//   messages and proto3 `optional` fields, which are printed only when set;
// - `properties` holds the fields that are messages (arrays of them as
//   arrays): a "$ref" to "#/$defs/<Message>" of the same schema;
// - the answer's items (plans, violations, stages, memory suggestions, layout
//   groups, models, resolved settings) and what ranks a plan (its
//   breakdown, the rejected plans) are described to every level with the
//   same rules, each in full in one schema only: the first tool (in service
//   order) whose answer holds it; later tools' $defs entry says "See <tool>.";
// - messages that are also arguments (ParallelConfig, ModelArchitecture,
//   SystemSpec, Placement) point at the argument that lists their fields (a
//   config over MCP prints only its set fields); other messages are objects.
#ifndef PARPLAN_SERVER_API_OUTPUT_SCHEMAS_H_
#define PARPLAN_SERVER_API_OUTPUT_SCHEMAS_H_

#include <vector>

#include "google/protobuf/descriptor.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace api {

// One outputSchema per method of `service`, in the service's order.
std::vector<nlohmann::ordered_json> McpOutputSchemas(const google::protobuf::ServiceDescriptor& service);

// The argument schema that lists the fields of `message` when it is also an
// argument ("validate's config"); "" for answer-only messages.
std::string ArgumentFieldList(const std::string& message);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_API_OUTPUT_SCHEMAS_H_
