#include "server/http/openapi.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace parplan {
namespace api {
namespace {

// Moves JSON Schema "#/$defs/X" references to OpenAPI's "#/components/schemas/X".
void RewriteRefs(OrderedJson* node) {
  if (node->is_object()) {
    for (auto& [key, value] : node->items()) {
      if (key == "$ref" && value.is_string()) {
        value = absl::StrReplaceAll(value.get<std::string>(), {{"#/$defs/", "#/components/schemas/"}});
      } else {
        RewriteRefs(&value);
      }
    }
  } else if (node->is_array()) {
    for (auto& value : *node) RewriteRefs(&value);
  }
}

OrderedJson JsonContent(const std::string& schema) {
  return {{"application/json", {{"schema", {{"$ref", absl::StrCat("#/components/schemas/", schema)}}}}}};
}

// The error answers every JSON route can give.
OrderedJson ErrorResponses() {
  OrderedJson out = OrderedJson::object();
  const std::pair<const char*, const char*> errors[] = {
      {"400", "bad input (INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE), malformed JSON"},
      {"401", "missing or wrong bearer token (servers started with a token)"},
      {"403", "an Origin header not on the server's allow-list"},
      {"404", "unknown model, system or method"},
      {"413", "body over the server's --max-message-bytes"},
      {"415", "Content-Type is not application/json"},
      {"429", "searches queue full (RESOURCE_EXHAUSTED); retry with backoff"},
      {"503", "draining or overloaded"},
      {"504", "the call's deadline (X-Timeout-Ms) passed"}};
  for (const auto& [code, text] : errors) out[code] = {{"description", text}, {"content", JsonContent("Error")}};
  return out;
}

OrderedJson ErrorSchema() {
  OrderedJson violation = {{"type", "object"},
                           {"properties", {{"field", {{"type", "string"}}}, {"description", {{"type", "string"}}}}}};
  OrderedJson error = {
      {"type", "object"},
      {"required", {"code", "message"}},
      {"properties",
       {{"code", {{"type", "string"}, {"description", "gRPC status code name, e.g. INVALID_ARGUMENT"}}},
        {"message", {{"type", "string"}}},
        {"field_violations", {{"type", "array"}, {"items", std::move(violation)}}}}}};
  return {{"type", "object"}, {"required", {"error"}}, {"properties", {{"error", std::move(error)}}}};
}

// The answer of POST /plot (server/api/plan_plot.h PlanPlotJson).
OrderedJson PlotSchema() {
  OrderedJson text = {{"type", "string"}};
  return {
      {"type", "object"},
      {"required", {"title", "rank_map_svg", "memory_svg", "step_time_svg", "bridge_python", "bridge_cli", "reasons"}},
      {"properties",
       {{"title", text},
        {"rank_map_svg", {{"type", "string"}, {"description", "an SVG document"}}},
        {"memory_svg", {{"type", "string"}, {"description", "an SVG document"}}},
        {"step_time_svg", {{"type", "string"}, {"description", "an SVG document"}}},
        {"bridge_python", text},
        {"bridge_cli", text},
        {"reasons", {{"type", "array"}, {"items", text}}}}},
      {"additionalProperties", false}};
}

OrderedJson PlotOperation() {
  return {{"post",
           {{"operationId", "Plot"},
            {"summary", "Pictures of one plan"},
            {"description",
             "Rank map, memory per pipeline stage and step-time breakdown of one config as SVG, with its Megatron "
             "Bridge overrides. The body is a RenderConfig request (model, placement with a system, config)."},
            {"requestBody", {{"required", true}, {"content", JsonContent("render_config.input")}}},
            {"responses", [] {
               OrderedJson r = ErrorResponses();
               r["200"] = {{"description", "the three pictures, the Bridge overrides and the reasons"},
                           {"content", JsonContent("Plot")}};
               return r;
             }()}}}};
}

OrderedJson PlotSvgOperation() {
  return {{"post",
           {{"operationId", "PlotSvg"},
            {"summary", "Pictures of one plan as one SVG document"},
            {"description",
             "The pictures of POST /plot as one image/svg+xml document: all three, or one of them "
             "(?figure=all|ranks|memory|time). The body is a RenderConfig request."},
            {"parameters",
             {{{"name", "figure"},
               {"in", "query"},
               {"required", false},
               {"description", "which picture [all]"},
               {"schema", {{"type", "string"}, {"enum", {"all", "ranks", "memory", "time"}}}}}}},
            {"requestBody", {{"required", true}, {"content", JsonContent("render_config.input")}}},
            {"responses", [] {
               OrderedJson r = ErrorResponses();
               r["200"] = {{"description", "an SVG document"},
                           {"content", {{"image/svg+xml", {{"schema", {{"type", "string"}}}}}}}};
               return r;
             }()}}}};
}

OrderedJson HealthOperation(const char* operation_id, const char* what) {
  OrderedJson text = {{"application/json",
                       {{"schema",
                         {{"type", "object"},
                          {"required", {"status"}},
                          {"properties", {{"status", {{"type", "string"}, {"enum", {"SERVING", "NOT_SERVING"}}}}}}}}}}};
  return {{"get",
           {{"operationId", operation_id},
            {"summary", what},
            {"security", OrderedJson::array()},
            {"responses",
             {{"200", {{"description", "SERVING"}, {"content", text}}},
              {"503", {{"description", "NOT_SERVING (draining)"}, {"content", text}}}}}}}};
}

OrderedJson McpOperations() {
  OrderedJson session = {{"name", "Mcp-Session-Id"},
                         {"in", "header"},
                         {"required", false},
                         {"description", "the session id the initialize answer gave (every call after it)"},
                         {"schema", {{"type", "string"}}}};
  OrderedJson any = {{"application/json", {{"schema", {{"type", "object"}}}}}};
  return {{"post",
           {{"operationId", "McpPost"},
            {"summary", "MCP Streamable HTTP endpoint (JSON-RPC 2.0; protocol 2025-11-25 or 2025-06-18)"},
            {"parameters", {session}},
            {"requestBody", {{"required", true}, {"content", any}}},
            {"responses",
             {{"200", {{"description", "the JSON-RPC answer (application/json or one SSE event)"}, {"content", any}}},
              {"202", {{"description", "a notification or response was accepted"}}},
              {"400", {{"description", "not a JSON-RPC message, or no session"}, {"content", any}}},
              {"406", {{"description", "the client accepts neither application/json nor text/event-stream"}}},
              {"404", {{"description", "unknown or expired session"}, {"content", any}}}}}}},
          {"get",
           {{"operationId", "McpGet"},
            {"summary", "No event stream: this server sends no messages of its own"},
            {"responses", {{"405", {{"description", "no stream; use POST"}, {"content", JsonContent("Error")}}}}}}},
          {"delete",
           {{"operationId", "McpDelete"},
            {"summary", "Ends an MCP session"},
            {"parameters", {session}},
            {"responses",
             {{"204", {{"description", "the session ended"}}},
              {"400", {{"description", "no Mcp-Session-Id header"}, {"content", any}}},
              {"404", {{"description", "unknown or expired session"}, {"content", any}}}}}}}};
}

OrderedJson OpenApiJsonOperation() {
  return {{"get",
           {{"operationId", "OpenApi"},
            {"summary", "This document"},
            {"security", OrderedJson::array()},
            {"responses",
             {{"200",
               {{"description", "the OpenAPI 3.1 document"},
                {"content", {{"application/json", {{"schema", {{"type", "object"}}}}}}}}}}}}}};
}

}  // namespace

OrderedJson OpenApiDocument(const std::vector<ToolSchema>& tools) {
  OrderedJson schemas = ExportTools(tools, ToolFormat::kJsonSchema)["$defs"];
  schemas["Error"] = ErrorSchema();
  schemas["Plot"] = PlotSchema();
  RewriteRefs(&schemas);
  OrderedJson paths = OrderedJson::object();
  for (const ToolSchema& tool : tools) {
    OrderedJson responses = ErrorResponses();
    responses["200"] = {{"description", absl::StrCat("the ", tool.rpc, " answer (proto3 JSON)")},
                        {"content", JsonContent(absl::StrCat(tool.name, ".output"))}};
    paths[absl::StrCat("/v1/", tool.rpc)] = {
        {"post",
         {{"operationId", tool.rpc},
          {"summary", tool.title},
          {"description", tool.description},
          {"parameters",
           {{{"name", "X-Timeout-Ms"},
             {"in", "header"},
             {"required", false},
             {"description", "the call's deadline in milliseconds (searches stop early and say so)"},
             {"schema", {{"type", "integer"}, {"minimum", 1}, {"maximum", 600000}}}}}},
          {"requestBody", {{"required", true}, {"content", JsonContent(absl::StrCat(tool.name, ".input"))}}},
          {"responses", std::move(responses)}}}};
  }
  paths["/plot"] = PlotOperation();
  paths["/plot.svg"] = PlotSvgOperation();
  paths["/mcp"] = McpOperations();
  paths["/healthz"] = HealthOperation("Healthz", "Liveness: the gRPC health of the server");
  paths["/readyz"] = HealthOperation("Readyz", "Readiness: the gRPC health of parplan.v1.Planner");
  paths["/openapi.json"] = OpenApiJsonOperation();
  return {
      {"openapi", "3.1.0"},
      {"info",
       {{"title", "parplan"},
        {"version", "0.1.0"},
        {"description",
         "Parallelism planner for Megatron Bridge / Megatron-Core. Every RPC of the gRPC service "
         "parplan.v1.Planner as POST /v1/<Method> with its proto3 JSON request and answer (proto field "
         "names; 64-bit integers as decimal strings)."}}},
      // Relative: the server that serves this document (whatever its address).
      {"servers", {{{"url", "/"}, {"description", "the parplan server that serves this document"}}}},
      {"paths", std::move(paths)},
      {"components",
       {{"schemas", std::move(schemas)}, {"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}}}},
      {"security", {{{"bearer", OrderedJson::array()}}, OrderedJson::object()}}};
}

const std::string& PlannerOpenApiText() {
  static const std::string* const text = new std::string(
      OpenApiDocument(PlannerToolSchemas()).dump(-1, ' ', false, OrderedJson::error_handler_t::replace));
  return *text;
}

}  // namespace api
}  // namespace parplan
