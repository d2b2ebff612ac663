// The JSON codec of the doors (MCP arguments, CLI --json, --model-file):
// proto3 JSON out (int64 as strings, snake_case names), and in: every wrong
// field named with its path, unknown fields listing the known ones, both
// field-name spellings, null as "default".
#include "server/api/json_codec.h"

#include "core/util/field_error.h"
#include "gtest/gtest.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace api {
namespace {

std::vector<std::string> Problems(const std::string& json, google::protobuf::Message* m) {
  std::vector<std::string> out;
  const absl::Status s = JsonToMessage(json, "arguments", m);
  for (const auto& v : FieldViolationsOf(s)) out.push_back(v.field + ": " + v.description);
  if (!s.ok() && out.empty()) out.push_back(std::string(s.message()));
  return out;
}

TEST(JsonCodecTest, WritesProto3JsonWithSnakeCaseAndInt64Strings) {
  v1::MinGpusResponse r;
  r.set_min_gpus(128);
  r.set_etp(1);
  r.add_reasons("a");
  const std::string compact = MessageToJson(r, /*pretty=*/false);
  EXPECT_NE(compact.find("\"min_gpus\":\"128\""), std::string::npos) << compact;
  EXPECT_NE(compact.find("\"etp\":1"), std::string::npos) << compact;
  EXPECT_EQ(compact.find('\n'), std::string::npos);
  EXPECT_NE(MessageToJson(r, /*pretty=*/true).find("\n \"min_gpus\": \"128\""), std::string::npos);
}

TEST(JsonCodecTest, ReadsBothSpellingsAndRoundTrips) {
  v1::RecommendRequest q;
  EXPECT_TRUE(Problems(R"({"model":{"id":"llama3_8b"},"placement":{"gpus":"8"},"topK":3,"config":null})", &q).empty());
  EXPECT_EQ(q.model().id(), "llama3_8b");
  EXPECT_EQ(q.placement().gpus(), 8);
  EXPECT_EQ(q.top_k(), 3);
  v1::RecommendRequest back;
  EXPECT_TRUE(Problems(MessageToJson(q, false), &back).empty());
  EXPECT_EQ(back.SerializeAsString(), q.SerializeAsString());
}

TEST(JsonCodecTest, NamesEveryWrongField) {
  v1::ValidateRequest q;
  const auto p = Problems(R"({"config":{"tp":"eight","pp":2.5,"tensor_parallel":4},"placement":{"gpus":[1]}})", &q);
  std::string all;
  for (const auto& s : p) all += s + "\n";
  EXPECT_NE(all.find("config.tp"), std::string::npos) << all;
  EXPECT_NE(all.find("config.pp"), std::string::npos) << all;
  EXPECT_NE(all.find("unknown field \"tensor_parallel\""), std::string::npos) << all;
  EXPECT_NE(all.find("known: tp, pp"), std::string::npos) << all;
  EXPECT_NE(all.find("placement.gpus"), std::string::npos) << all;
}

TEST(JsonCodecTest, RefusesWhatIsNotAnObject) {
  v1::ValidateRequest q;
  EXPECT_FALSE(Problems("[1, 2]", &q).empty());
  EXPECT_FALSE(Problems("{\"config\": ", &q).empty());
  EXPECT_FALSE(Problems("", &q).empty());
  // Deep nesting is bounded, not a stack overflow.
  std::string deep = "{\"config\":";
  for (int i = 0; i < 10000; ++i) deep += "[";
  EXPECT_FALSE(Problems(deep, &q).empty());
}

}  // namespace
}  // namespace api
}  // namespace parplan
