// Tool schemas generated from the API's proto descriptors: one tool per RPC,
// named in snake_case (MinGpus -> min_gpus), with a JSON Schema for its
// arguments (the request message) and for its result (the response message
// in the JSON form of server/api/json_codec.h). Comments in the proto become the
// descriptions, so a proto change is a schema change with no hand edits.
#ifndef PARPLAN_SERVER_TOOL_SCHEMAS_H_
#define PARPLAN_SERVER_TOOL_SCHEMAS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace api {

using OrderedJson = nlohmann::ordered_json;

struct ToolSchema {
  std::string name;         // min_gpus
  std::string rpc;          // MinGpus
  std::string title;        // "Min GPUs"
  std::string description;  // the RPC's comment
  // The arguments, lean and self-contained (MCP tools/list, OpenAI
  // functions): first-sentence descriptions, bounds, enums and required
  // fields; model, placement, config and the system figures listed in one
  // tool each (schema_rules.h LeanHomeOf; config and system figures with
  // types and closed sets only), the other tools pointing there.
  OrderedJson input_schema;
  // The result (MCP outputSchema, server/api/output_schemas.h): the fields
  // every answer prints in `required`, its items described through $defs.
  OrderedJson output_schema;
  // Full schemas (JSON Schema export): every comment, nested messages as
  // $ref "#/$defs/<Message>" ("<Message>.result" in results), defined in
  // shared_defs. Results are the response message in proto3 JSON.
  OrderedJson shared_input_schema;
  OrderedJson shared_output_schema;
  OrderedJson shared_defs;
};

enum class ToolFormat { kMcp, kOpenAi, kJsonSchema };

// "mcp", "openai" or "json-schema"; INVALID_ARGUMENT naming `field` otherwise.
absl::StatusOr<ToolFormat> ParseToolFormat(absl::string_view text, const std::string& field);

// MinGpus -> min_gpus.
std::string ToolName(absl::string_view rpc);

// One tool per method of `service`. Descriptions come from the comments when
// the descriptors carry source info (a pool built with --include_source_info).
std::vector<ToolSchema> ToolSchemasOf(const google::protobuf::ServiceDescriptor& service);

// The planner's tools, from the descriptor set embedded at build time.
const std::vector<ToolSchema>& PlannerToolSchemas();

// A pool holding every file of a serialized google.protobuf.FileDescriptorSet
// (protoc --include_imports --include_source_info --descriptor_set_out).
absl::StatusOr<std::unique_ptr<google::protobuf::DescriptorPool>> PoolFromDescriptorSet(absl::string_view bytes);

// The MCP `Tool` object: name, title, description, inputSchema,
// outputSchema (what structuredContent holds; the full schemas, with types
// and words, too large for every assistant's context, are in the JSON
// Schema export) and annotations (read-only, closed world).
OrderedJson McpTool(const ToolSchema& tool);

// Every tool in one format: kMcp = the tools/list result {"tools": [...]};
// kOpenAi = [{"type": "function", "function": {name, description,
// parameters}}] (both lean); kJsonSchema = one JSON Schema document whose
// $defs hold "<tool>.input", "<tool>.output" and each message once.
OrderedJson ExportTools(const std::vector<ToolSchema>& tools, ToolFormat format);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_TOOL_SCHEMAS_H_
