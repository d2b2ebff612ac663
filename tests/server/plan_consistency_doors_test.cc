// One plan, one answer through every door (issue 33): DeepSeek-V3 on 256
// GB200 NVL72 GPUs, the case that once gave 3,057 tokens/s/GPU from
// recommend and 1,004 from perf. Recommend's plan 1, asked back with its
// config and placement through gRPC, the JSON API and MCP over HTTP on a
// real server (127.0.0.1, port 0), gives the plan's tokens/s and peak
// memory, and the same bytes of numbers on every door.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/api/json_codec.h"
#include "tests/server/http_client.h"
#include "tests/server/mcp_tool_call.h"
#include "tests/server/server_fixture.h"

namespace parplan {
namespace {

using Json = nlohmann::json;
using testing_http::Call;
using testing_http::Reply;

class PlanDoorsTest : public ServerFixture {
 protected:
  void Configure(ServerOptions* options) override { options->http_listen = "127.0.0.1:0"; }

  // The MCP tool's structuredContent for `arguments`.
  Json CallTool(const std::string& tool, const Json& arguments) {
    return testing_http::McpToolCall(http_port_, tool, arguments);
  }
};

TEST_F(PlanDoorsTest, DeepSeekV3On256Gb200GivesOneNumberFromEveryMethodAndDoor) {
  v1::RecommendRequest request;
  request.mutable_model()->set_id("deepseek_v3");
  request.mutable_placement()->set_system("gb200-nvl72");
  request.mutable_placement()->set_gpus(256);
  request.set_top_k(1);
  v1::RecommendResponse rec;
  auto ctx = Context(120000);
  ASSERT_TRUE(stub_->Recommend(ctx.get(), request, &rec).ok());
  ASSERT_GE(rec.plans_size(), 1);
  const v1::PlanSummary& plan = rec.plans(0);
  EXPECT_EQ(plan.placement().gpus_per_nvlink_domain(), 64);  // the even split, carried by the plan
  bool chosen = false;
  for (const auto& s : rec.resolved()) {
    chosen |= s.field() == "placement.gpus_per_nvlink_domain" && s.value() == "64" && s.source() == "parplan";
  }
  EXPECT_TRUE(chosen) << "the plan's placement is listed as parplan's choice";

  v1::EstimatePerformanceRequest perf_request;
  *perf_request.mutable_model() = request.model();
  *perf_request.mutable_placement() = plan.placement();
  *perf_request.mutable_config() = plan.config();
  v1::EstimatePerformanceResponse grpc_answer;
  ctx = Context(60000);
  ASSERT_TRUE(stub_->EstimatePerformance(ctx.get(), perf_request, &grpc_answer).ok());
  EXPECT_NEAR(grpc_answer.tokens_per_s_per_gpu(), plan.tokens_per_s_per_gpu(), 0.005 * plan.tokens_per_s_per_gpu());
  EXPECT_EQ(grpc_answer.memory_peak_bytes(), plan.memory_peak_bytes());

  // Asked the way NVIDIA's tables list runs (no placement beyond system and
  // GPU count): the same answer, the even split being the default.
  v1::EstimatePerformanceRequest bare = perf_request;
  bare.mutable_placement()->clear_gpus_per_nvlink_domain();
  v1::EstimatePerformanceResponse bare_answer;
  ctx = Context(60000);
  ASSERT_TRUE(stub_->EstimatePerformance(ctx.get(), bare, &bare_answer).ok());
  EXPECT_EQ(bare_answer.tokens_per_s_per_gpu(), grpc_answer.tokens_per_s_per_gpu());

  const std::string body = api::MessageToJson(perf_request, /*pretty=*/false);
  Reply http = Call(http_port_, "POST", "/v1/EstimatePerformance", body);
  ASSERT_EQ(http.status, 200) << http.body;
  const Json json_answer = Json::parse(http.body);
  const Json mcp_answer = CallTool("estimate_performance", Json::parse(body));
  const Json grpc_json = Json::parse(api::MessageToJson(grpc_answer, /*pretty=*/false));
  for (const char* field : {"tokens_per_s_per_gpu", "step_time_s", "mfu", "memory_peak_bytes", "dp", "edp", "gbs"}) {
    SCOPED_TRACE(field);
    ASSERT_TRUE(grpc_json.contains(field));
    EXPECT_EQ(json_answer.at(field).dump(), grpc_json.at(field).dump());
    EXPECT_EQ(mcp_answer.at(field).dump(), grpc_json.at(field).dump());
  }
  EXPECT_EQ(json_answer.at("resolved").dump(), grpc_json.at("resolved").dump());
  EXPECT_EQ(mcp_answer.at("resolved").dump(), grpc_json.at("resolved").dump());
}

}  // namespace
}  // namespace parplan
