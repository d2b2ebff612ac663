#include "server/mcp/mcp_session.h"

#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "nlohmann/json.hpp"
#include "server/api/api_methods.h"
#include "server/api/error_json.h"
#include "server/api/json_codec.h"
#include "server/api/tool_schemas.h"
#include "server/mcp/answer_summary.h"
#include "server/mcp/answer_view.h"

namespace parplan {
namespace mcp {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kLatestVersion = "2025-11-25";
constexpr const char* kSupportedVersions[] = {"2025-11-25", "2025-06-18"};
constexpr const char* kServerVersion = "0.1.0";

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string Reply(const Json& id, Json result) {
  return Dump(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

std::string ErrorReply(const Json& id, int code, const std::string& message) {
  return Dump(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

Json Initialize(const Json& params, std::string* agreed) {
  std::string asked;
  if (params.is_object() && params.contains("protocolVersion") && params["protocolVersion"].is_string()) {
    asked = params["protocolVersion"].get<std::string>();
  }
  *agreed = IsSupportedProtocolVersion(asked) ? asked : kLatestVersion;
  return Json{
      {"protocolVersion", *agreed},
      {"capabilities", {{"tools", {{"listChanged", false}}}}},
      {"serverInfo", {{"name", "parplan"}, {"title", "parplan: parallelism planner"}, {"version", kServerVersion}}},
      {"instructions",
       "Plans parallelism (TP, PP, VPP, CP, EP, ETP, DP) for Megatron Bridge / Megatron-Core training. "
       "Use min_gpus for mesh arithmetic, validate for rule checks, estimate_memory / estimate_performance "
       "for one config, recommend for the best configs of a model on N GPUs of a system. Every answer "
       "carries reasons; show them."}};
}

// The error of a failed call as the tool's text: code, message, violations.
Json ErrorResult(const absl::Status& status) {
  return Json{{"content", Json::array({{{"type", "text"}, {"text", api::ErrorJsonText(status)}}})}, {"isError", true}};
}

// tools/call; `log_status` gets the call's status for the log line.
std::string CallTool(const Json& id, const Json& params, absl::Duration budget, std::string* log_status) {
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    return ErrorReply(id, kInvalidParams, "tools/call needs params.name, a tool name (see tools/list)");
  }
  const std::string name = params["name"].get<std::string>();
  const api::ToolSchema* tool = nullptr;
  for (const auto& t : api::PlannerToolSchemas()) {
    if (t.name == name) tool = &t;
  }
  const api::ApiMethod* method = tool != nullptr ? api::FindApiMethod(tool->rpc) : nullptr;
  if (method == nullptr) {
    return ErrorReply(id, kInvalidParams, absl::StrCat("Unknown tool: ", name.substr(0, 128)));
  }
  *log_status = name;
  Json arguments = Json::object();
  if (params.contains("arguments") && !params["arguments"].is_null()) arguments = params["arguments"];
  if (!arguments.is_object()) {
    return ErrorReply(id, kInvalidParams, "params.arguments must be a JSON object");
  }
  std::unique_ptr<google::protobuf::Message> request(method->request->New());
  std::unique_ptr<google::protobuf::Message> response(method->response->New());
  // Field paths are the request's own ("config.tp"), as on every door: the
  // arguments object is the request.
  absl::Status status = api::JsonToMessage(Dump(arguments), "", request.get());
  if (status.ok()) status = api::RunMethod(*method, *request, response.get(), absl::Now() + budget);
  absl::StrAppend(log_status, " status=", absl::StatusCodeToString(status.code()));
  if (!status.ok()) return Reply(id, ErrorResult(status));
  // The whole answer in structuredContent, a summary as text (MCP allows it).
  return Reply(id, Json{{"content", Json::array({{{"type", "text"}, {"text", AnswerSummary(method->rpc, *response)}}})},
                        {"structuredContent", StructuredAnswer(*response)},
                        {"isError", false}});
}

}  // namespace

std::optional<std::string> ReadMessage(absl::string_view text, Json* message, std::string* why) {
  auto fail = [why](int code, std::string what, std::string error) -> std::optional<std::string> {
    if (why != nullptr) *why = std::move(what);
    return ErrorReply(nullptr, code, error);
  };
  if (!api::JsonNestedWithin(text, kMaxJsonDepth)) {
    return fail(kInvalidRequest, "invalid request",
                absl::StrCat("Invalid Request: JSON nested deeper than ", kMaxJsonDepth, " levels"));
  }
  *message = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (message->is_discarded()) {
    // A number too large for a double becomes a marked string that the
    // tool's argument check names with its field (api::QuoteOverflowingNumbers).
    const std::string quoted = api::QuoteOverflowingNumbers(text);
    if (quoted != text) *message = Json::parse(quoted, nullptr, /*allow_exceptions=*/false);
  }
  if (message->is_discarded()) return fail(kParseError, "parse error", "Parse error: the message is not JSON");
  if (!message->is_object()) {
    return fail(kInvalidRequest, "invalid request",
                message->is_array() ? "Invalid Request: batches are not supported; send one message at a time"
                                    : "Invalid Request: a message is a JSON object");
  }
  return std::nullopt;
}

bool IsSupportedProtocolVersion(absl::string_view version) {
  for (const char* v : kSupportedVersions) {
    if (version == v) return true;
  }
  return false;
}

std::optional<std::string> McpSession::HandleLine(absl::string_view line, std::string* log) {
  const absl::Time start = absl::Now();
  if (absl::StripAsciiWhitespace(line).empty()) return std::nullopt;
  Json message;
  std::string why;
  if (std::optional<std::string> error = ReadMessage(line, &message, &why)) {
    if (log != nullptr) {
      *log = absl::StrFormat("mcp %s %.2f ms", why, absl::ToDoubleMilliseconds(absl::Now() - start));
    }
    return error;
  }
  return HandleMessage(message, log);
}

std::optional<std::string> McpSession::HandleMessage(const Json& message, std::string* log) {
  const absl::Time start = absl::Now();
  auto note = [&](const std::string& what) {
    if (log != nullptr) {
      *log = absl::StrFormat("mcp %s %.2f ms", what, absl::ToDoubleMilliseconds(absl::Now() - start));
    }
  };
  const bool has_id = message.contains("id") && (message["id"].is_string() || message["id"].is_number_integer());
  const Json id = has_id ? message["id"] : Json(nullptr);
  if (!message.contains("method")) {
    if (message.contains("result") || message.contains("error")) return std::nullopt;  // a client's response
    note("invalid request");
    return ErrorReply(id, kInvalidRequest, "Invalid Request: no method");
  }
  if (!message["method"].is_string() || message.value("jsonrpc", Json()) != "2.0" ||
      (message.contains("id") && !has_id)) {
    note("invalid request");
    return ErrorReply(id, kInvalidRequest,
                      "Invalid Request: needs \"jsonrpc\": \"2.0\", a string method and a string or integer id");
  }
  const std::string method = message["method"].get<std::string>();
  if (!has_id) {  // a notification (notifications/initialized, cancelled, ...): nothing to answer
    note(absl::StrCat("notification ", method.substr(0, 64)));
    return std::nullopt;
  }
  const Json params = message.contains("params") ? message["params"] : Json::object();
  try {
    if (method == "initialize") {
      Json result = Initialize(params, &protocol_version_);
      note(absl::StrCat("initialize version=", protocol_version_));
      return Reply(id, std::move(result));
    }
    if (method == "ping") {
      note("ping");
      return Reply(id, Json::object());
    }
    if (method == "tools/list") {
      std::string reply = Reply(id, api::ExportTools(api::PlannerToolSchemas(), api::ToolFormat::kMcp));
      note("tools/list");
      return reply;
    }
    if (method == "tools/call") {
      std::string status;
      std::string reply = CallTool(id, params, call_budget_, &status);
      note(absl::StrCat("tools/call ", status.empty() ? "rejected" : status));
      return reply;
    }
  } catch (const std::exception& e) {
    note("internal error");
    return ErrorReply(id, kInternalError, absl::StrCat("Internal error: ", e.what()));
  }
  note(absl::StrCat("unknown method ", method.substr(0, 64)));
  return ErrorReply(id, kMethodNotFound, absl::StrCat("Method not found: ", method.substr(0, 128)));
}

std::string JsonRpcError(int code, const std::string& message) { return ErrorReply(nullptr, code, message); }

}  // namespace mcp
}  // namespace parplan
