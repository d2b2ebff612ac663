// MCP's JSON-RPC 2.0 session, shared by the two MCP doors: stdio (`parplan
// mcp`, skill/mcp/mcp_stdio.h, one message per line) and Streamable HTTP
// (server/mcp/mcp_http.h). Every planner RPC is a tool (server/api/tool_schemas.h);
// tools/call answers through the same in-process API as the CLI and the gRPC
// service: structuredContent is that answer (server/mcp/answer_view.h says
// what it leaves out; every number kept is the same), the text block a
// compact summary of it (server/mcp/answer_summary.h).
//
// Supported: initialize (protocol versions 2025-11-25 and 2025-06-18; a
// client asking for either gets it back, any other gets 2025-11-25), ping,
// tools/list, tools/call, and notifications (ignored). Errors: unparsable
// line -32700, invalid request -32600, unknown method -32601, unknown tool
// or malformed params -32602. Bad tool arguments are a tool result with
// isError = true and the field violations.
#ifndef PARPLAN_SERVER_MCP_SESSION_H_
#define PARPLAN_SERVER_MCP_SESSION_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/util/limits.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace mcp {

class McpSession {
 public:
  // `call_budget` bounds each tool call (the search stops and says so).
  explicit McpSession(absl::Duration call_budget = absl::Seconds(kMaxSearchSeconds)) : call_budget_(call_budget) {}

  // Handles one line (one JSON-RPC message). Returns the line to send back
  // (without the newline), or nothing for notifications, responses and blank
  // lines. `log` (may be empty) receives one line for stderr describing it.
  std::optional<std::string> HandleLine(absl::string_view line, std::string* log = nullptr);

  // HandleLine for a message already read (ReadMessage): a JSON object.
  std::optional<std::string> HandleMessage(const nlohmann::ordered_json& message, std::string* log = nullptr);

  // The protocol version agreed by initialize ("" before it).
  const std::string& protocol_version() const { return protocol_version_; }

 private:
  absl::Duration call_budget_;
  std::string protocol_version_;
};

// A JSON-RPC error answer with a null id (for a message that could not be
// read as a request), compact.
std::string JsonRpcError(int code, const std::string& message);

// Reads one JSON-RPC message into `message`. Returns the error answer when
// it cannot be read (-32700 not JSON; -32600 nested deeper than
// kMaxJsonDepth, a batch, or not an object), with `why` (may be null) a
// short description for the log; nothing when `message` holds an object.
std::optional<std::string> ReadMessage(absl::string_view text, nlohmann::ordered_json* message,
                                       std::string* why = nullptr);

// Whether this server speaks MCP protocol `version` (2025-11-25, 2025-06-18).
bool IsSupportedProtocolVersion(absl::string_view version);

}  // namespace mcp
}  // namespace parplan

#endif  // PARPLAN_SERVER_MCP_SESSION_H_
