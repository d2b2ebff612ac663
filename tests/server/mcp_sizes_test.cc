// What an MCP client loads into an assistant's context stays affordable
// (issue 33 item 7), measured through the MCP session as a client gets it:
// - the tools/list result at most 24 KiB (226,892 bytes before the lean
//   schemas; 33,441 before the shared lists and the names-only outputSchemas);
// - every recommend answer at most 32 KiB: the text block's bytes plus the
//   compact structuredContent's, for the three largest questions in the
//   issue (55.7, 95.8 and 68.1 KB when the text was a copy of the JSON).
//   An answer whose `resolved` list is still empty must leave 6 KiB for it.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/mcp/mcp_session.h"

namespace parplan {
namespace mcp {
namespace {

using Json = nlohmann::json;

constexpr size_t kToolListBudget = 24 * 1024;
constexpr size_t kRecommendBudget = 32 * 1024;
constexpr size_t kResolvedReserve = 6 * 1024;  // ~40 settings of ~120 bytes, when not yet in the answer

Json Ask(McpSession& session, const Json& message) {
  const auto reply = session.HandleLine(message.dump());
  EXPECT_TRUE(reply.has_value());
  return reply.has_value() ? Json::parse(*reply) : Json();
}

TEST(McpSizesTest, ToolsListWithinBudget) {
  McpSession session;
  const Json r = Ask(session, {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}});
  const size_t bytes = r["result"].dump().size();
  std::printf("tools/list: %zu bytes\n", bytes);
  EXPECT_LE(bytes, kToolListBudget) << "tools/list is " << bytes << " bytes";
}

struct Case {
  const char* name;
  const char* arguments;
};

class RecommendSizeTest : public testing::TestWithParam<Case> {};

TEST_P(RecommendSizeTest, TextPlusStructuredWithinBudget) {
  McpSession session;
  const Json r = Ask(session, {{"jsonrpc", "2.0"},
                               {"id", 2},
                               {"method", "tools/call"},
                               {"params", {{"name", "recommend"}, {"arguments", Json::parse(GetParam().arguments)}}}});
  const Json& result = r["result"];
  ASSERT_EQ(result["isError"], false) << r.dump().substr(0, 500);
  const Json& structured = result["structuredContent"];
  ASSERT_GE(structured["plans"].size(), 5u) << "the default top_k";
  const size_t text = result["content"][0]["text"].get<std::string>().size();
  const size_t json = structured.dump().size();
  const size_t reserve = structured["resolved"].empty() ? kResolvedReserve : 0;
  std::printf("%s: text %zu + structuredContent %zu = %zu bytes (+ %zu reserved for resolved)\n", GetParam().name, text,
              json, text + json, reserve);
  EXPECT_LE(text + json + reserve, kRecommendBudget) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    LargestQuestions, RecommendSizeTest,
    testing::Values(Case{"Llama-3 70B on 64 H100",
                         R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64}})"},
                    Case{"DeepSeek-V3 at seq 131072 on 256 H100",
                         R"({"model":{"id":"deepseek_v3"},"placement":{"system":"h100-sxm","gpus":256},
                 "config":{"seq_length":131072}})"},
                    Case{"DeepSeek-V3 on 256 GB200 NVL72",
                         R"({"model":{"id":"deepseek_v3"},"placement":{"system":"gb200-nvl72","gpus":256}})"}));

}  // namespace
}  // namespace mcp
}  // namespace parplan
