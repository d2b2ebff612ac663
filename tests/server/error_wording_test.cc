// The wording of errors and fixes (issue 25): a malformed body is named
// once, with where it breaks; plot errors name the request's own field
// (placement.gpus, not config.gpus); a dense model's fixes never mention
// experts; the sequence-parallel fix suggests TPs and sequence lengths a run
// would use; dense models' Bridge overrides carry no expert dimensions,
// whether ETP was left out or written back as a resolved config carries it.
#include <string>

#include "core/util/field_error.h"
#include "gtest/gtest.h"
#include "server/api/json_codec.h"
#include "server/api/plan_plot.h"
#include "server/api/planner_api.h"

namespace parplan {
namespace {

namespace v1 = ::parplan::v1;

template <typename M>
M Parse(const std::string& json) {
  M m;
  EXPECT_TRUE(api::JsonToMessage(json, "", &m).ok()) << json;
  return m;
}

TEST(ErrorWordingTest, MalformedJsonNamesWhereOnce) {
  v1::ValidateRequest request;
  const absl::Status s = api::JsonToMessage("{\n  \"config\": {\"tp\": 2,}\n}", "", &request);
  ASSERT_FALSE(s.ok());
  const std::string text(s.message());
  EXPECT_EQ(text.find("request: request:"), std::string::npos) << text;
  EXPECT_NE(text.find("line 2, column 22"), std::string::npos) << text;
  EXPECT_NE(text.find("(byte 24 of 26)"), std::string::npos) << text;
  EXPECT_NE(text.find("'}'"), std::string::npos) << text;
  ASSERT_EQ(FieldViolationsOf(s).size(), 1u);
  EXPECT_EQ(FieldViolationsOf(s)[0].field, "request");
  // An empty body and a cut-off document say so.
  EXPECT_NE(std::string(api::JsonToMessage("", "", &request).message()).find("the body is empty"), std::string::npos);
  const std::string cut(api::JsonToMessage(R"({"config":{"tp":2)", "", &request).message());
  EXPECT_NE(cut.find("end of input"), std::string::npos) << cut;
  // A prefix (the CLI's file flags) is named once too.
  const std::string file(api::JsonToMessage("[1,", "--system-file", &request).message());
  EXPECT_EQ(file.find("--system-file: --system-file"), std::string::npos) << file;
  EXPECT_EQ(api::NotJsonText("ab\ncd", 5),
            "not valid JSON at line 2, column 2 (byte 5 of 5): unexpected end of input "
            "after 'd'");
}

TEST(ErrorWordingTest, PlotErrorsNameThePlacementField) {
  const auto request = Parse<v1::RenderConfigRequest>(
      R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":6},"config":{"tp":4}})");
  const auto plot = api::PlotPlan(request);
  ASSERT_FALSE(plot.ok());
  bool placement = false;
  for (const FieldViolation& v : FieldViolationsOf(plot.status())) {
    EXPECT_NE(v.field, "config.gpus") << v.description;
    placement = placement || v.field == "placement.gpus";
  }
  EXPECT_TRUE(placement) << plot.status();
}

TEST(ErrorWordingTest, DenseTpThreeGetsSensibleFixes) {
  const auto request = Parse<v1::ValidateRequest>(
      R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":16},"config":{"tp":3,"seq_length":8192}})");
  v1::ValidateResponse response;
  ASSERT_TRUE(api::Validate(request, &response).ok());
  bool seq_rule = false;
  for (const v1::Violation& v : response.violations()) {
    SCOPED_TRACE(v.rule() + ": " + v.message() + " / " + v.fix());
    EXPECT_EQ(v.fix().find("EP"), std::string::npos);
    EXPECT_NE(v.rule(), "mesh.world_expert_divisible");
    EXPECT_EQ(v.fix().find("8193"), std::string::npos);
    if (v.rule() == "sp.seq_divisible") {
      seq_rule = true;
      EXPECT_NE(v.fix().find("TP=2 or TP=4"), std::string::npos);
      EXPECT_NE(v.fix().find("6144 or 12288"), std::string::npos);
    }
  }
  EXPECT_TRUE(seq_rule);
}

TEST(ErrorWordingTest, MoeExpertMeshFixNamesAnEpThatDivides) {
  // 24 GPUs, PP 1, ETP 1: EP 16 does not divide; EP 12 does.
  const auto request = Parse<v1::ValidateRequest>(
      R"({"model":{"id":"mixtral_8x7b"},"placement":{"system":"h100-sxm","gpus":24},"config":{"tp":1,"ep":16,"etp":1}})");
  v1::ValidateResponse response;
  ASSERT_TRUE(api::Validate(request, &response).ok());
  bool found = false;
  for (const v1::Violation& v : response.violations()) {
    if (v.rule() != "mesh.world_expert_divisible") continue;
    found = true;
    EXPECT_NE(v.fix().find("lower EP to 12"), std::string::npos) << v.fix();
  }
  EXPECT_TRUE(found);
}

TEST(ErrorWordingTest, DenseBridgeOverridesCarryNoExpertDimensions) {
  for (const char* config : {R"({"tp":4,"pp":2})", R"({"tp":4,"pp":2,"etp":4,"ep":1})"}) {
    SCOPED_TRACE(config);
    const auto request = Parse<v1::RenderConfigRequest>(
        std::string(R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":)") + config +
        "}");
    v1::RenderConfigResponse response;
    ASSERT_TRUE(api::RenderConfig(request, &response).ok());
    ASSERT_TRUE(response.valid());
    EXPECT_EQ(response.bridge_python().find("expert_tensor_parallel_size"), std::string::npos)
        << response.bridge_python();
    EXPECT_EQ(response.bridge_cli().find("expert_"), std::string::npos) << response.bridge_cli();
    // The page's path: /plot with the config a plan carries.
    const auto plot = api::PlotPlan(request);
    ASSERT_TRUE(plot.ok()) << plot.status();
    EXPECT_EQ(plot->bridge_python.find("expert_tensor_parallel_size"), std::string::npos);
  }
  // A MoE model keeps them.
  const auto moe = Parse<v1::RenderConfigRequest>(
      R"({"model":{"id":"mixtral_8x7b"},"placement":{"system":"h100-sxm","gpus":16},"config":{"tp":2,"ep":8,"etp":1}})");
  v1::RenderConfigResponse response;
  ASSERT_TRUE(api::RenderConfig(moe, &response).ok());
  EXPECT_NE(response.bridge_python().find("expert_tensor_parallel_size = 1"), std::string::npos)
      << response.bridge_python();
}

}  // namespace
}  // namespace parplan
