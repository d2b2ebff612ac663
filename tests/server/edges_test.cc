// Edges (issue 36, item 6): every bad value names the field, the value and
// what is allowed, in the request's own path ("config.tp") on every door;
// no protobuf-internal wording. Integer overflow, a oneof given twice, a
// UTF-8 byte-order mark, 1e400, explicit zeros that cannot mean "default",
// size phrases in scientific notation; and the same path from MCP's JSON
// check and from the API's own range check.
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/util/field_error.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "parplan/v1/planner.pb.h"
#include "server/api/json_codec.h"
#include "server/api/planner_api.h"
#include "server/mcp/mcp_session.h"

namespace parplan {
namespace {

using Json = nlohmann::json;

// "field: description" for each violation of reading `json` as `M`.
template <typename M>
std::vector<std::string> Problems(const std::string& json) {
  M m;
  const absl::Status s = api::JsonToMessage(json, "", &m);
  std::vector<std::string> out;
  for (const auto& v : FieldViolationsOf(s)) out.push_back(v.field + ": " + v.description);
  if (!s.ok() && out.empty()) out.push_back("<" + std::string(s.message()) + ">");
  return out;
}

std::string One(const std::vector<std::string>& problems) {
  EXPECT_EQ(problems.size(), 1u) << absl::StrJoin(problems, "\n");
  return problems.empty() ? "" : problems.front();
}

TEST(EdgesTest, IntegerOverflowNamesTheFieldAndItsRange) {
  std::string p = One(Problems<v1::ValidateRequest>(R"({"config":{"tp":99999999999}})"));
  EXPECT_EQ(p, "config.tp: config.tp = 99999999999 is out of range; allowed: 0..4096");
  p = One(Problems<v1::ValidateRequest>(R"({"placement":{"gpus":"99999999999999999999999"}})"));
  EXPECT_EQ(p.rfind("placement.gpus: ", 0), 0u) << p;
  EXPECT_NE(p.find("out of range; allowed: 1..1048576"), std::string::npos) << p;
  p = One(Problems<v1::ValidateRequest>(R"({"config":{"gbs":18446744073709551616}})"));
  EXPECT_NE(p.find("config.gbs = "), std::string::npos) << p;
  EXPECT_NE(p.find("out of range; allowed: 0..1073741824"), std::string::npos) << p;
  // A field without a documented range still gets its type's range.
  p = One(Problems<v1::ExplainLayoutRequest>(R"({"rank":-99999999999999999999})"));
  EXPECT_NE(p.find("allowed: "), std::string::npos) << p;
  EXPECT_EQ(p.find("Couldn't"), std::string::npos) << p;
}

TEST(EdgesTest, OneofGivenTwiceIsNamed) {
  const std::string p = One(Problems<v1::ValidateRequest>(R"({"model":{"id":"llama3_8b","size":"8B dense"}})"));
  EXPECT_EQ(p, "model.size: model takes one of id, spec, hf_config_json, size; both id and size were given");
}

TEST(EdgesTest, ByteOrderMarkIsAccepted) {
  v1::MinGpusRequest m;
  EXPECT_TRUE(api::JsonToMessage("\xEF\xBB\xBF{\"config\":{\"tp\":2}}", "", &m).ok());
  EXPECT_EQ(m.config().tp(), 2);
}

TEST(EdgesTest, HugeNumbersAreOutOfRangeNotInternalErrors) {
  std::string p = One(Problems<v1::EstimateMemoryRequest>(R"({"memory_reserve":1e400})"));
  EXPECT_EQ(p, "memory_reserve: memory_reserve = 1e400 is too large for a number (over 1.8e308); allowed: 0..0.5");
  p = One(Problems<v1::ValidateRequest>(R"({"config":{"gbs":-1.5E+999,"tp":2}})"));
  EXPECT_EQ(p, "config.gbs: config.gbs = -1.5E+999 is too large for a number (over 1.8e308); allowed: 0..1073741824");
  // Still JSON errors for what is not JSON.
  EXPECT_NE(One(Problems<v1::ValidateRequest>(R"({"config":{"gbs":1e400,}})")).find("not valid JSON"),
            std::string::npos);
}

TEST(EdgesTest, ExplicitZerosThatCannotMeanDefaultAreRefused) {
  EXPECT_EQ(One(Problems<v1::RecommendRequest>(R"({"placement":{"gpus":0}})")),
            "placement.gpus: placement.gpus = 0 is not allowed; allowed: 1..1048576 (leave the field out for its "
            "default)");
  EXPECT_EQ(One(Problems<v1::ValidateRequest>(R"({"config":{"seq_length":"0"}})")),
            "config.seq_length: config.seq_length = \"0\" is not allowed; allowed: 1..16777216 (leave the field out "
            "for its default)");
  // Zeros that do mean "free" or "not given" stay accepted.
  EXPECT_TRUE(Problems<v1::RecommendRequest>(R"({"config":{"tp":0,"gbs":0},"placement":{"gpus":null}})").empty());
}

TEST(EdgesTest, SizePhrasesInScientificNotation) {
  auto size = [](const std::string& phrase) {
    v1::GetModelRequest req;
    req.mutable_model()->set_size(phrase);
    v1::GetModelResponse resp;
    const absl::Status s = api::GetModel(req, &resp);
    return std::make_pair(s, resp);
  };
  auto [refused, unused] = size("1e30B dense");
  ASSERT_FALSE(refused.ok());
  const auto violations = FieldViolationsOf(refused);
  ASSERT_FALSE(violations.empty()) << refused;
  EXPECT_EQ(violations[0].field, "model.size");
  EXPECT_NE(violations[0].description.find("out of range; allowed 0.2B..20T"), std::string::npos)
      << violations[0].description;
  auto [ok, model] = size("7e1B dense");  // 70B
  ASSERT_TRUE(ok.ok()) << ok;
  EXPECT_NEAR(model.model().total_params(), 70e9, 7e9);
}

// MCP names the JSON check's and the API's violations with the same path.
TEST(EdgesTest, McpFieldPathsMatchEveryDoor) {
  mcp::McpSession session;
  auto field = [&session](const std::string& arguments) {
    const std::string call =
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"validate","arguments":)" + arguments + "}}";
    const Json reply = Json::parse(*session.HandleLine(call));
    const Json error = Json::parse(reply["result"]["content"][0]["text"].get<std::string>())["error"];
    return error["field_violations"][0]["field"].get<std::string>();
  };
  EXPECT_EQ(field(R"({"model":{"id":"llama3_70b"},"config":{"tp":"eight"}})"), "config.tp");
  EXPECT_EQ(field(R"({"model":{"id":"llama3_70b"},"config":{"tp":100000}})"), "config.tp");
  EXPECT_EQ(field(R"({"model":{"id":"llama3_70b"},"config":{"tp":1e400}})"), "config.tp");
}

}  // namespace
}  // namespace parplan
