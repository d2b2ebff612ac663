// The HTTP API's OpenAPI 3.1 document, generated from the same proto
// descriptors as the tool schemas (server/api/tool_schemas.h): one
// POST /v1/<Method> per row of the method table, its request and answer as
// the JSON Schema export's definitions (proto3 JSON, proto field names),
// the error body, the bearer token, and the other routes of the door
// (/plot, /mcp, /healthz, /readyz).
#ifndef PARPLAN_SERVER_OPENAPI_H_
#define PARPLAN_SERVER_OPENAPI_H_

#include <string>
#include <vector>

#include "server/api/tool_schemas.h"

namespace parplan {
namespace api {

// The document for `tools` (PlannerToolSchemas() for the server).
OrderedJson OpenApiDocument(const std::vector<ToolSchema>& tools);

// PlannerToolSchemas()'s document as compact text, built once.
const std::string& PlannerOpenApiText();

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_OPENAPI_H_
