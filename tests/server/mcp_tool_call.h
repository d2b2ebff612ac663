// One MCP tools/call over the HTTP door, in its own session: the answer's
// structuredContent (null when the call failed; the failure is reported to
// gtest with the body).
#ifndef PARPLAN_TESTS_SERVER_MCP_TOOL_CALL_H_
#define PARPLAN_TESTS_SERVER_MCP_TOOL_CALL_H_

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/server/http_client.h"

namespace parplan {
namespace testing_http {

inline nlohmann::json McpToolCall(int port, const std::string& tool, const nlohmann::json& arguments) {
  Reply init = Call(port, "POST", "/mcp",
                    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})",
                    {"Accept: application/json, text/event-stream"});
  EXPECT_EQ(init.status, 200) << init.body;
  const std::string session = init.Header("mcp-session-id");
  const nlohmann::json call = {
      {"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", arguments}}}};
  Reply r = Call(port, "POST", "/mcp", call.dump(),
                 {"Accept: application/json, text/event-stream", "Mcp-Session-Id: " + session,
                  "Mcp-Protocol-Version: 2025-06-18"});
  EXPECT_EQ(r.status, 200) << r.body;
  const nlohmann::json answer = nlohmann::json::parse(r.body, nullptr, false);
  if (answer.is_discarded() || !answer.contains("result")) return nlohmann::json();
  return answer["result"].value("structuredContent", nlohmann::json());
}

}  // namespace testing_http
}  // namespace parplan

#endif  // PARPLAN_TESTS_SERVER_MCP_TOOL_CALL_H_
