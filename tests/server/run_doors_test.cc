// Issue 34 through every door: a Megatron-LM launch script imported, its
// training log compared with the prediction, and two runs calibrated, over
// gRPC, the JSON API and MCP on a real server (127.0.0.1, port 0), with the
// same numbers on each door and the same as EstimatePerformance.
//
// The script carries the values of Megatron-LM's
// examples/llama/train_llama3_8b_h100_fp8.sh (NVIDIA/Megatron-LM at d98e8a64:
// Llama 3 8B, 8 GPUs on one node, TP 1, MBS 1, GBS 128, seq 8192), written
// here in that script's form (arrays, ${VAR} expansion, torchrun) with BF16
// instead of FP8 and the vocabulary given; the logs are made up in
// Megatron-LM's training_log format.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
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

constexpr char kScript[] = R"(#!/bin/bash
GPUS_PER_NODE=8
NUM_NODES=1
TP_SIZE=${TP_SIZE:-1}
DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
)
MODEL_ARGS=(
    --num-layers 32
    --hidden-size 4096
    --ffn-hidden-size 14336
    --num-attention-heads 32
    --group-query-attention
    --num-query-groups 8
    --kv-channels 128
    --seq-length 8192
    --max-position-embeddings 8192
    --position-embedding-type rope
    --swiglu
    --normalization RMSNorm
    --untie-embeddings-and-output-weights
    --disable-bias-linear
    --vocab-size 128256
)
TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 128
    --bf16
    --use-distributed-optimizer
    --tensor-model-parallel-size $TP_SIZE
    --pipeline-model-parallel-size 1
)
torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \
    ${MODEL_ARGS[@]} \
    ${TRAINING_ARGS[@]}
)";

std::string ScriptWithTp(int tp) {
  return absl::StrReplaceAll(kScript, {{"TP_SIZE=${TP_SIZE:-1}", absl::StrCat("TP_SIZE=${TP_SIZE:-", tp, "}")}});
}

// A Megatron-LM log: 40 iterations logged one by one, the first three slow
// (warm-up), the rest at `step_s` with a small deterministic jitter, and the
// memory report after the first interval.
std::string MegatronLog(double step_s) {
  std::string log = "> building GPT model ...\n[after model, optimizer, and learning rate scheduler are built]\n";
  for (int i = 1; i <= 40; ++i) {
    double s = step_s * (1.0 + 0.004 * ((i * 7) % 5 - 2));
    if (i <= 3) s = step_s * (3.0 - 0.5 * i);
    absl::StrAppend(
        &log,
        absl::StrFormat(" [2026-01-01 10:%02d:%02d] iteration %8d/    5000 | consumed samples: %12d | elapsed time "
                        "per iteration (ms): %.1f | learning rate: 1.500000E-04 | global batch size:   128 | lm "
                        "loss: %.6E | loss scale: 1.0 | grad norm: 0.812 | number of skipped iterations:   0 | "
                        "number of nan iterations:   0 |\n",
                        i / 60, i % 60, i, 128 * i, 1e3 * s, 10.0 - 0.1 * i));
    if (i == 1) {
      log +=
          "[Rank 0] (after 1 iterations) memory (MB) | allocated: 30000.5 | max allocated: 52000.25 | reserved: "
          "56000.0 | max reserved: 56000.0\n";
    }
  }
  return log;
}

class RunDoorsTest : public ServerFixture {
 protected:
  void Configure(ServerOptions* options) override { options->http_listen = "127.0.0.1:0"; }

  Json CallTool(const std::string& tool, const Json& arguments) {
    return testing_http::McpToolCall(http_port_, tool, arguments);
  }

  // The request as a caller writes it: only the fields set (the doors
  // refuse explicit zeros such as placement.gpus = 0).
  static Json Body(const google::protobuf::Message& request) {
    return WithoutDefaults(Json::parse(api::MessageToJson(request, false)));
  }

  static Json WithoutDefaults(const Json& j) {
    if (j.is_array()) {
      Json out = Json::array();
      for (const auto& item : j) out.push_back(WithoutDefaults(item));
      return out;
    }
    if (!j.is_object()) return j;
    Json out = Json::object();
    for (const auto& [key, value] : j.items()) {
      const Json v = WithoutDefaults(value);
      const bool empty = v.is_null() || (v.is_string() && (v == "" || v == "0")) || (v.is_number() && v == 0) ||
                         (v.is_boolean() && !v.get<bool>()) || (v.is_array() && v.empty()) ||
                         (v.is_object() && v.empty());
      if (!empty) out[key] = v;
    }
    return out;
  }

  Json Http(const std::string& rpc, const google::protobuf::Message& request) {
    Reply r = Call(http_port_, "POST", "/v1/" + rpc, Body(request).dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return Json::parse(r.body);
  }

  v1::ImportConfigResponse Import(const std::string& text) {
    v1::ImportConfigRequest request;
    request.set_text(text);
    request.mutable_placement()->set_system("h100-sxm");
    v1::ImportConfigResponse answer;
    auto ctx = Context(30000);
    EXPECT_TRUE(stub_->ImportConfig(ctx.get(), request, &answer).ok());
    return answer;
  }

  v1::EstimatePerformanceResponse Perf(const v1::ImportConfigResponse& imported) {
    v1::EstimatePerformanceRequest request;
    *request.mutable_model() = imported.model();
    *request.mutable_config() = imported.config();
    *request.mutable_placement() = imported.placement();
    v1::EstimatePerformanceResponse answer;
    auto ctx = Context(30000);
    EXPECT_TRUE(stub_->EstimatePerformance(ctx.get(), request, &answer).ok());
    return answer;
  }
};

TEST_F(RunDoorsTest, ImportGivesOnePlanOnEveryDoor) {
  v1::ImportConfigRequest request;
  request.set_text(kScript);
  request.mutable_placement()->set_system("h100-sxm");
  v1::ImportConfigResponse grpc_answer;
  auto ctx = Context(30000);
  ASSERT_TRUE(stub_->ImportConfig(ctx.get(), request, &grpc_answer).ok());
  EXPECT_EQ(grpc_answer.format(), "megatron-lm-script");
  EXPECT_EQ(grpc_answer.model().spec().num_layers(), 32);
  EXPECT_EQ(grpc_answer.model().spec().hidden_size(), 4096);
  EXPECT_EQ(grpc_answer.config().gbs(), 128);
  EXPECT_EQ(grpc_answer.config().front_end(), "megatron-lm");
  EXPECT_EQ(grpc_answer.placement().gpus(), 8);
  EXPECT_TRUE(grpc_answer.valid());
  EXPECT_GT(grpc_answer.mapped(), 15);

  const Json grpc_json = Json::parse(api::MessageToJson(grpc_answer, /*pretty=*/false));
  const Json json_answer = Http("ImportConfig", request);
  const Json mcp_answer = CallTool("import_config", Body(request));
  for (const char* field : {"format", "config", "placement", "mapped", "resolved", "valid"}) {
    SCOPED_TRACE(field);
    ASSERT_TRUE(grpc_json.contains(field));
    EXPECT_EQ(json_answer.at(field).dump(), grpc_json.at(field).dump());
    // MCP's structuredContent leaves out default values.
    EXPECT_EQ(WithoutDefaults(mcp_answer.at(field)).dump(), WithoutDefaults(grpc_json.at(field)).dump());
  }
}

TEST_F(RunDoorsTest, CompareGivesThePerfPredictionAndTheSameNumbersOnEveryDoor) {
  const v1::ImportConfigResponse imported = Import(kScript);
  const v1::EstimatePerformanceResponse perf = Perf(imported);
  ASSERT_GT(perf.step_time_s(), 0);
  v1::CompareRunRequest request;
  request.set_log(MegatronLog(1.10 * perf.step_time_s()));
  request.set_config_text(kScript);
  request.mutable_placement()->set_system("h100-sxm");
  v1::CompareRunResponse grpc_answer;
  auto ctx = Context(60000);
  ASSERT_TRUE(stub_->CompareRun(ctx.get(), request, &grpc_answer).ok());
  EXPECT_EQ(grpc_answer.log_format(), "megatron-lm");
  ASSERT_TRUE(grpc_answer.has_prediction()) << grpc_answer.no_prediction_reason();
  EXPECT_DOUBLE_EQ(grpc_answer.predicted_step_s(), perf.step_time_s());
  EXPECT_NEAR(grpc_answer.measured_step_s(), 1.10 * perf.step_time_s(), 0.01 * perf.step_time_s());
  EXPECT_NEAR(grpc_answer.step_error(), 1 / 1.10 - 1, 0.01);
  EXPECT_GT(grpc_answer.window().first_iteration(), 3) << "the warm-up iterations are left out";
  EXPECT_TRUE(grpc_answer.valid_measurement());
  EXPECT_GT(grpc_answer.gap_size(), 0);

  const Json grpc_json = Json::parse(api::MessageToJson(grpc_answer, /*pretty=*/false));
  const Json json_answer = Http("CompareRun", request);
  const Json mcp_answer = CallTool("compare_run", Body(request));
  for (const char* field : {"measured_step_s", "predicted_step_s", "step_error", "measured_tokens_per_s_per_gpu",
                            "predicted_mfu", "window", "gate", "valid_measurement"}) {
    SCOPED_TRACE(field);
    ASSERT_TRUE(grpc_json.contains(field));
    EXPECT_EQ(json_answer.at(field).dump(), grpc_json.at(field).dump());
    EXPECT_EQ(mcp_answer.at(field).dump(), grpc_json.at(field).dump());
  }
}

TEST_F(RunDoorsTest, ALogWithoutAConfigGetsItsMeasuredSide) {
  v1::CompareRunRequest request;
  request.set_log(MegatronLog(2.5));
  v1::CompareRunResponse answer;
  auto ctx = Context(30000);
  ASSERT_TRUE(stub_->CompareRun(ctx.get(), request, &answer).ok());
  EXPECT_FALSE(answer.has_prediction());
  EXPECT_NEAR(answer.measured_step_s(), 2.5, 0.05);
  EXPECT_TRUE(answer.has_measured_max_reserved_bytes());
  EXPECT_GT(answer.window().records(), 30);
}

// Two runs of one cluster whose measured steps are 1.2 x the predicted
// compute + 1.5 x the predicted exposed communication: calibrate recovers the
// factors it can determine, and recommend's tokens/s move by them and say so.
TEST_F(RunDoorsTest, CalibrateOnTwoRunsChangesRecommendAndSaysSo) {
  v1::CalibrateRequest request;
  for (int tp : {1, 8}) {
    const v1::ImportConfigResponse imported = Import(ScriptWithTp(tp));
    const v1::EstimatePerformanceResponse perf = Perf(imported);
    const auto& b = perf.breakdown();
    const double comm = b.tp_comm_s() + b.cp_comm_s() + b.ep_comm_s() + b.dp_comm_s() + b.pp_comm_s() + b.fsdp_comm_s();
    const double compute = perf.step_time_s() - comm;
    v1::CalibrateRunInput* run = request.add_runs();
    run->set_label(absl::StrCat("tp", tp));
    run->set_log(MegatronLog(1.2 * compute + 1.5 * comm));
    run->set_config_text(ScriptWithTp(tp));
    run->mutable_placement()->set_system("h100-sxm");
  }
  v1::CalibrateResponse calibrated;
  auto ctx = Context(60000);
  ASSERT_TRUE(stub_->Calibrate(ctx.get(), request, &calibrated).ok());
  const v1::Calibration& c = calibrated.calibration();
  ASSERT_TRUE(c.compute_determined()) << calibrated.summary();
  EXPECT_NEAR(c.compute_factor(), 1.2, 0.06) << calibrated.summary();
  if (c.network_determined()) {
    EXPECT_NEAR(c.network_factor(), 1.5, 0.15) << calibrated.summary();
  }
  const Json json_answer = Http("Calibrate", request);
  EXPECT_EQ(json_answer.at("calibration").dump(),
            Json::parse(api::MessageToJson(calibrated, false)).at("calibration").dump());

  v1::RecommendRequest plain;
  plain.mutable_model()->set_id("llama3_8b");
  plain.mutable_placement()->set_system("h100-sxm");
  plain.mutable_placement()->set_gpus(8);
  plain.mutable_config()->set_seq_length(8192);
  plain.set_top_k(1);
  v1::RecommendRequest with = plain;
  *with.mutable_calibration() = c;
  v1::RecommendResponse before, after;
  ctx = Context(60000);
  ASSERT_TRUE(stub_->Recommend(ctx.get(), plain, &before).ok());
  ctx = Context(60000);
  ASSERT_TRUE(stub_->Recommend(ctx.get(), with, &after).ok());
  ASSERT_EQ(before.plans_size(), 1);
  ASSERT_EQ(after.plans_size(), 1);
  const double ratio = after.plans(0).tokens_per_s_per_gpu() / before.plans(0).tokens_per_s_per_gpu();
  EXPECT_LT(ratio, 1 / 1.15);
  EXPECT_GT(ratio, 1 / 1.55);
  EXPECT_NE(after.calibration().find("Calibrated"), std::string::npos) << after.calibration();
  EXPECT_TRUE(before.calibration().empty());

  // One run cannot separate the network from compute: that factor is not
  // determined, and the answer says which run would determine it.
  v1::CalibrateRequest one;
  *one.add_runs() = request.runs(0);
  v1::CalibrateResponse single;
  ctx = Context(60000);
  ASSERT_TRUE(stub_->Calibrate(ctx.get(), one, &single).ok());
  EXPECT_FALSE(single.calibration().network_determined());
  bool says_which = false;
  for (const auto& n : single.calibration().notes()) says_which |= n.find("network") != std::string::npos;
  EXPECT_TRUE(says_which) << single.summary();
  // Asked for the network factor, one run is refused, naming the run that would determine it.
  one.set_require_network(true);
  ctx = Context(60000);
  const grpc::Status refused = stub_->Calibrate(ctx.get(), one, &single);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(refused.error_message().find("network"), std::string::npos) << refused.error_message();
  // The two runs: refused exactly when they left the network factor undetermined.
  const bool network_determined = c.network_determined();
  request.set_require_network(true);
  v1::CalibrateResponse required;
  ctx = Context(60000);
  EXPECT_EQ(stub_->Calibrate(ctx.get(), request, &required).ok(), network_determined);
}

TEST_F(RunDoorsTest, BadInputsNameTheField) {
  v1::ImportConfigRequest empty;
  v1::ImportConfigResponse answer;
  auto ctx = Context(10000);
  grpc::Status s = stub_->ImportConfig(ctx.get(), empty, &answer);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("text"), std::string::npos) << s.error_message();

  v1::ImportConfigRequest unknown;
  unknown.set_text("recipe:llama3_70b_pretrain_confg");
  ctx = Context(10000);
  s = stub_->ImportConfig(ctx.get(), unknown, &answer);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("llama3_70b_pretrain_config"), std::string::npos) << "nearest recipe named";

  v1::CompareRunRequest no_log;
  v1::CompareRunResponse compared;
  ctx = Context(10000);
  s = stub_->CompareRun(ctx.get(), no_log, &compared);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("log"), std::string::npos);
}

}  // namespace
}  // namespace parplan
