// The MCP door, one JSON-RPC line at a time: version negotiation, ping,
// tools/list, tools/call (answers, bad arguments, unknown tools), protocol
// errors, notifications, and the stdio loop (EOF, oversize lines).
#include "server/mcp/mcp_session.h"
#include "skill/mcp/mcp_stdio.h"

#include <cstdio>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/api/tool_schemas.h"

namespace parplan {
namespace mcp {
namespace {

using Json = nlohmann::json;

Json Ask(McpSession& s, const std::string& line) {
  auto reply = s.HandleLine(line);
  EXPECT_TRUE(reply.has_value()) << line;
  return reply.has_value() ? Json::parse(*reply) : Json();
}

std::string Initialize(const std::string& version) {
  return Json{{"jsonrpc", "2.0"},
              {"id", 1},
              {"method", "initialize"},
              {"params",
               {{"protocolVersion", version},
                {"capabilities", Json::object()},
                {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}}
      .dump();
}

std::string Call(const Json& id, const std::string& tool, const Json& arguments) {
  return Json{
      {"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", arguments}}}}
      .dump();
}

TEST(McpSessionTest, InitializeAnswersTheClientsVersionWhenSupported) {
  for (const char* version : {"2025-06-18", "2025-11-25"}) {
    McpSession s;
    const Json r = Ask(s, Initialize(version));
    EXPECT_EQ(r["jsonrpc"], "2.0");
    EXPECT_EQ(r["id"], 1);
    EXPECT_EQ(r["result"]["protocolVersion"], version);
    EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
    EXPECT_EQ(r["result"]["serverInfo"]["name"], "parplan");
    EXPECT_EQ(s.protocol_version(), version);
  }
  McpSession s;
  EXPECT_EQ(Ask(s, Initialize("2024-11-05"))["result"]["protocolVersion"], "2025-11-25");
}

TEST(McpSessionTest, PingNotificationsAndResponsesFromTheClient) {
  McpSession s;
  const Json r = Ask(s, R"({"jsonrpc":"2.0","id":"p1","method":"ping"})");
  EXPECT_EQ(r["id"], "p1");
  EXPECT_TRUE(r["result"].is_object() && r["result"].empty());
  EXPECT_FALSE(s.HandleLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").has_value());
  EXPECT_FALSE(s.HandleLine(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}})").has_value());
  EXPECT_FALSE(s.HandleLine(R"({"jsonrpc":"2.0","id":7,"result":{}})").has_value());
  EXPECT_FALSE(s.HandleLine("   ").has_value());
}

TEST(McpSessionTest, ToolsListHasEveryRpcWithSchemasAndAnnotations) {
  McpSession s;
  const Json r = Ask(s, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  const Json& tools = r["result"]["tools"];
  ASSERT_EQ(tools.size(), api::PlannerToolSchemas().size());
  bool has_min_gpus = false;
  for (const Json& t : tools) {
    has_min_gpus |= t["name"] == "min_gpus";
    EXPECT_EQ(t["inputSchema"]["type"], "object");
    // structuredContent validates against it (tests/server/contract_test.cc).
    EXPECT_EQ(t["outputSchema"]["type"], "object");
    EXPECT_EQ(t["annotations"]["readOnlyHint"], true);
    EXPECT_EQ(t["annotations"]["openWorldHint"], false);
    EXPECT_FALSE(t["description"].get<std::string>().empty());
  }
  EXPECT_TRUE(has_min_gpus);
  // Its size: tests/server/mcp_sizes_test.cc.
}

TEST(McpSessionTest, ToolsCallAnswersWithStructuredContentAndASummary) {
  McpSession s;
  const Json r = Ask(s, Call(3, "min_gpus", {{"config", {{"tp", 1}, {"pp", 4}, {"ep", 32}, {"cp", 1}}}}));
  const Json& result = r["result"];
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["structuredContent"]["min_gpus"], "128");
  EXPECT_EQ(result["structuredContent"]["naive_product"], "128");
  ASSERT_EQ(result["content"].size(), 1u);
  EXPECT_EQ(result["content"][0]["type"], "text");
  // The text is a summary (MCP allows it when structuredContent has the whole answer).
  const std::string text = result["content"][0]["text"];
  EXPECT_EQ(text.rfind("min GPUs 128 (naive product 128)", 0), 0u) << text;
  EXPECT_NE(text.find("structuredContent"), std::string::npos) << text;
  // No arguments at all is a valid call for tools that need none.
  const Json systems = Ask(s, R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_systems"}})");
  EXPECT_GE(systems["result"]["structuredContent"]["systems"].size(), 7u);
}

TEST(McpSessionTest, BadArgumentsAreAToolErrorNamingTheFields) {
  McpSession s;
  // Wrong type and unknown field: rejected before the call, each named.
  Json r = Ask(s, Call(5, "min_gpus", {{"config", {{"tp", "eight"}, {"pq", 4}}}}));
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_FALSE(r["result"].contains("structuredContent"));
  Json error = Json::parse(r["result"]["content"][0]["text"].get<std::string>())["error"];
  EXPECT_EQ(error["code"], "INVALID_ARGUMENT");
  ASSERT_EQ(error["field_violations"].size(), 2u);
  // The request's own paths, as every door names them (the arguments are the request).
  EXPECT_EQ(error["field_violations"][0]["field"], "config.pq");
  EXPECT_EQ(error["field_violations"][1]["field"], "config.tp");
  // Out of range: the API's own violation.
  r = Ask(s, Call(6, "validate", {{"model", {{"id", "llama3_70b"}}}, {"config", {{"tp", 100000}}}}));
  EXPECT_EQ(r["result"]["isError"], true);
  error = Json::parse(r["result"]["content"][0]["text"].get<std::string>())["error"];
  EXPECT_EQ(error["field_violations"][0]["field"], "config.tp");
  // Unknown model: NOT_FOUND with the closest names.
  r = Ask(s, Call(7, "get_model", {{"model", {{"id", "llama3_7b"}}}}));
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("NOT_FOUND"), std::string::npos);
}

TEST(McpSessionTest, AnswersQuotingBrokenUtf8AreValidUtf8) {
  // The layout error quotes one byte of 'é'; the answer is sanitized ('?')
  // before it is printed, in structuredContent and in the summary.
  McpSession s;
  const Json r = Ask(
      s, Call(9, "validate",
              {{"model", {{"id", "llama3_70b"}}}, {"config", {{"pp", 2}, {"pipeline_layout", "Et*40|\xc3\xa9*40L"}}}}));
  ASSERT_EQ(r["result"]["isError"], false);
  const std::string text = r["result"]["content"][0]["text"];
  const std::string structured = r["result"]["structuredContent"].dump();
  EXPECT_NE(structured.find("character '?'"), std::string::npos) << "the broken byte shows as '?', as over gRPC";
  EXPECT_EQ(text.rfind("INVALID", 0), 0u) << text;
}

TEST(McpSessionTest, ProtocolErrors) {
  McpSession s;
  EXPECT_EQ(Ask(s, "{not json")["error"]["code"], -32700);
  EXPECT_TRUE(Ask(s, "{not json")["id"].is_null());
  EXPECT_EQ(Ask(s, R"({"jsonrpc":"2.0","id":8,"method":"resources/list"})")["error"]["code"], -32601);
  EXPECT_EQ(Ask(s, R"({"jsonrpc":"2.0","id":8,"method":"resources/list"})")["id"], 8);
  EXPECT_EQ(Ask(s, R"([{"jsonrpc":"2.0","id":9,"method":"ping"}])")["error"]["code"], -32600);
  EXPECT_EQ(Ask(s, R"({"jsonrpc":"1.0","id":10,"method":"ping"})")["error"]["code"], -32600);
  EXPECT_EQ(Ask(s, R"({"jsonrpc":"2.0","id":11,"method":42})")["error"]["code"], -32600);
  EXPECT_EQ(Ask(s, R"("just a string")")["error"]["code"], -32600);
  EXPECT_EQ(Ask(s, Call(12, "no_such_tool", Json::object()))["error"]["code"], -32602);
  EXPECT_EQ(Ask(s, Call(13, "min_gpus", Json::array()))["error"]["code"], -32602);
  EXPECT_EQ(Ask(s, "\xff\xfe{}")["error"]["code"], -32700);
}

TEST(McpSessionTest, StdioLoopAnswersEachLineSkipsOversizeAndEndsAtEof) {
  std::FILE* in = std::tmpfile();
  std::FILE* out = std::tmpfile();
  std::FILE* log = std::tmpfile();
  ASSERT_TRUE(in && out && log);
  std::fputs(Initialize("2025-06-18").c_str(), in);
  std::fputs("\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", in);
  std::fputs((std::string(kMaxMcpLineBytes + 10, ' ') + "x\n").c_str(), in);
  std::fputs(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", in);  // last line, no newline
  std::rewind(in);
  EXPECT_EQ(ServeStdio(in, out, log), 0);
  std::rewind(out);
  std::vector<Json> replies;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), out) != nullptr) replies.push_back(Json::parse(buffer));
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_EQ(replies[0]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(replies[1]["error"]["code"], -32600);
  EXPECT_EQ(replies[2]["id"], 2);
  std::rewind(log);
  ASSERT_NE(std::fgets(buffer, sizeof(buffer), log), nullptr);
  EXPECT_NE(std::string(buffer).find("mcp initialize"), std::string::npos);
  std::fclose(in);
  std::fclose(out);
  std::fclose(log);
}

TEST(McpSessionDepthTest, DeeplyNestedMessagesAreRefusedBeforeParsing) {
  McpSession session;
  const std::string deep =
      R"({"jsonrpc":"2.0","id":1,"method":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto reply = session.HandleLine(deep);
  ASSERT_TRUE(reply.has_value());
  const Json answer = Json::parse(*reply);
  EXPECT_EQ(answer["error"]["code"], -32600);
  EXPECT_NE(answer["error"]["message"].get<std::string>().find("nested deeper than 64"), std::string::npos);
}

}  // namespace
}  // namespace mcp
}  // namespace parplan
