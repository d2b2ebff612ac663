// The gRPC service against an in-process server on port 0: same answers as
// the in-process API, rich errors, deadlines and size limits.
#include <chrono>
#include "google/protobuf/util/message_differencer.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "server/api/planner_api.h"
#include "server/api/recommend_api.h"
#include "tests/server/server_fixture.h"

namespace parplan {
namespace {

using google::protobuf::util::MessageDifferencer;

class PlannerServiceTest : public ServerFixture {};

v1::MinGpusRequest MinGpusRequest(int pp, int tp, int cp, int ep, int etp) {
  v1::MinGpusRequest req;
  req.mutable_config()->set_pp(pp);
  req.mutable_config()->set_tp(tp);
  req.mutable_config()->set_cp(cp);
  req.mutable_config()->set_ep(ep);
  req.mutable_config()->set_etp(etp);
  return req;
}

TEST_F(PlannerServiceTest, MinGpusReferenceTable) {
  struct Row {
    int pp, tp, cp, ep, etp;
    int64_t naive, min;
  };
  for (const Row& r :
       {Row{1, 2, 1, 8, 1, 16, 8}, Row{1, 4, 1, 8, 1, 32, 8}, Row{1, 2, 2, 8, 1, 32, 8}, Row{1, 2, 4, 8, 1, 64, 8},
        Row{2, 2, 1, 8, 1, 32, 16}, Row{1, 2, 1, 4, 2, 16, 8}, Row{4, 1, 1, 32, 1, 128, 128}}) {
    v1::MinGpusResponse remote, local;
    auto ctx = Context();
    const auto req = MinGpusRequest(r.pp, r.tp, r.cp, r.ep, r.etp);
    ASSERT_TRUE(stub_->MinGpus(ctx.get(), req, &remote).ok());
    ASSERT_TRUE(api::MinGpus(req, &local).ok());
    EXPECT_EQ(remote.min_gpus(), r.min);
    EXPECT_EQ(remote.naive_product(), r.naive);
    EXPECT_TRUE(MessageDifferencer::Equals(remote, local));
  }
}

TEST_F(PlannerServiceTest, MinGpusSizesAWorld) {
  auto req = MinGpusRequest(1, 2, 1, 8, 1);
  req.mutable_placement()->set_gpus(32);
  req.mutable_placement()->set_system("dgx-h100");
  v1::MinGpusResponse resp;
  auto ctx = Context();
  ASSERT_TRUE(stub_->MinGpus(ctx.get(), req, &resp).ok());
  EXPECT_EQ(resp.world().dp(), 16);
  EXPECT_EQ(resp.world().edp(), 4);
  EXPECT_EQ(resp.world().nodes(), 4);
  EXPECT_EQ(resp.next_valid_world_sizes(0), 32);
}

TEST_F(PlannerServiceTest, ValidateDeepSeekOn256) {
  // "is TP=2 PP=16 EP=64 valid for DeepSeek-V3 on 256 GPUs": 61 layers % 16 != 0.
  v1::ValidateRequest req;
  req.mutable_model()->set_id("deepseek-ai/DeepSeek-V3");
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->set_gpus(256);
  auto* c = req.mutable_config();
  c->set_tp(2);
  c->set_pp(16);
  c->set_ep(64);
  c->set_etp(1);
  v1::ValidateResponse remote, local;
  auto ctx = Context();
  ASSERT_TRUE(stub_->Validate(ctx.get(), req, &remote).ok());
  ASSERT_TRUE(api::Validate(req, &local).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(remote, local));
  EXPECT_FALSE(remote.valid());
  std::vector<std::string> errors;
  for (const auto& v : remote.violations()) {
    if (v.severity() == "error") errors.push_back(v.rule());
  }
  // PP*EP*ETP = 1024 > 256 GPUs, and 61 layers do not split over 16 stages.
  EXPECT_NE(std::find(errors.begin(), errors.end(), "mesh.world_expert_divisible"), errors.end());
  EXPECT_NE(std::find(errors.begin(), errors.end(), "pp.layers_divisible"), errors.end());
  EXPECT_EQ(remote.model().id(), "deepseek_v3");
}

TEST_F(PlannerServiceTest, BadInputCarriesFieldViolations) {
  auto req = MinGpusRequest(1, 5000, 1, -3, 1);
  v1::MinGpusResponse resp;
  auto ctx = Context();
  const grpc::Status status = stub_->MinGpus(ctx.get(), req, &resp);
  ASSERT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  google::rpc::Status details;
  ASSERT_TRUE(details.ParseFromString(status.error_details()));
  ASSERT_EQ(details.details_size(), 1);
  google::rpc::BadRequest bad;
  ASSERT_TRUE(details.details(0).UnpackTo(&bad));
  ASSERT_EQ(bad.field_violations_size(), 2);
  EXPECT_EQ(bad.field_violations(0).field(), "config.tp");
  EXPECT_EQ(bad.field_violations(0).description(), "config.tp = 5000 is out of range; allowed 0..4096");
  EXPECT_EQ(bad.field_violations(1).field(), "config.ep");
}

TEST_F(PlannerServiceTest, UnknownModelIsNotFoundWithClosestNames) {
  v1::GetModelRequest req;
  req.mutable_model()->set_id("llama-3-7b");
  v1::GetModelResponse resp;
  auto ctx = Context();
  const grpc::Status status = stub_->GetModel(ctx.get(), req, &resp);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(status.error_message().find("llama"), std::string::npos) << status.error_message();
}

TEST_F(PlannerServiceTest, GetModelFromSizeIsApproximate) {
  v1::GetModelRequest req;
  req.mutable_model()->set_size("70B dense");
  v1::GetModelResponse resp;
  auto ctx = Context();
  ASSERT_TRUE(stub_->GetModel(ctx.get(), req, &resp).ok());
  EXPECT_TRUE(resp.model().approximate());
  EXPECT_EQ(resp.model().arch().hidden_size(), 8192);
}

TEST_F(PlannerServiceTest, ListsModelsAndSystems) {
  v1::ListModelsResponse models;
  auto ctx = Context();
  ASSERT_TRUE(stub_->ListModels(ctx.get(), v1::ListModelsRequest(), &models).ok());
  EXPECT_EQ(models.models_size(), 33);  // the reference data's 32 and GPT-3 175B
  v1::ListSystemsResponse systems;
  auto ctx2 = Context();
  ASSERT_TRUE(stub_->ListSystems(ctx2.get(), v1::ListSystemsRequest(), &systems).ok());
  EXPECT_EQ(systems.systems_size(), 18);
  v1::GetSystemRequest sreq;
  sreq.set_system("DGX-GB300");
  v1::GetSystemResponse sresp;
  auto ctx3 = Context();
  ASSERT_TRUE(stub_->GetSystem(ctx3.get(), sreq, &sresp).ok());
  EXPECT_EQ(sresp.system().id(), "gb300-nvl72");
}

TEST_F(PlannerServiceTest, ExplainLayoutAndRender) {
  v1::ExplainLayoutRequest req;
  req.mutable_placement()->set_gpus(16);
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_config()->set_tp(2);
  req.mutable_config()->set_ep(8);
  req.mutable_config()->set_etp(1);
  req.set_rank(13);
  v1::ExplainLayoutResponse resp;
  auto ctx = Context();
  ASSERT_TRUE(stub_->ExplainLayout(ctx.get(), req, &resp).ok());
  EXPECT_EQ(resp.world_size(), 16);
  EXPECT_EQ(resp.ranks_size(), 16);
  EXPECT_EQ(resp.rank_detail().ep(), 5);
  ASSERT_GE(resp.groups_size(), 1);
  EXPECT_EQ(resp.groups(0).kind(), "tp");
  EXPECT_EQ(resp.groups(0).count(), 8);

  v1::RenderConfigRequest rreq;
  rreq.mutable_model()->set_id("llama3_70b");
  rreq.mutable_placement()->set_gpus(64);
  rreq.mutable_placement()->set_system("h100-sxm");
  rreq.mutable_config()->set_tp(8);
  rreq.mutable_config()->set_pp(4);
  v1::RenderConfigResponse rresp;
  auto ctx2 = Context();
  ASSERT_TRUE(stub_->RenderConfig(ctx2.get(), rreq, &rresp).ok());
  EXPECT_TRUE(rresp.valid());
  EXPECT_NE(rresp.slurm_header().find("--nodes=8"), std::string::npos);
}

TEST_F(PlannerServiceTest, EstimateMemoryFitsAndSuggests) {
  v1::EstimateMemoryRequest req;
  req.mutable_model()->set_id("llama3_70b");
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->set_gpus(64);
  auto* c = req.mutable_config();
  c->set_tp(8);
  c->set_pp(2);
  c->set_mbs(2);
  c->set_gbs(256);
  c->set_seq_length(8192);
  v1::EstimateMemoryResponse remote, local;
  auto ctx = Context();
  ASSERT_TRUE(stub_->EstimateMemory(ctx.get(), req, &remote).ok());
  ASSERT_TRUE(api::EstimateMemory(req, &local).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(remote, local));
  EXPECT_EQ(remote.stages_size(), 2);
  EXPECT_FALSE(remote.fits());
  EXPECT_LT(remote.headroom_bytes(), 0);
  EXPECT_EQ(remote.capacity_bytes(), int64_t{80} << 30);
  ASSERT_GE(remote.suggestions_size(), 1);
  EXPECT_TRUE(remote.suggestions(0).fits());
  EXPECT_LT(remote.suggestions(0).peak_bytes(), remote.peak_bytes());
  int64_t sum = 0;
  const auto& st = remote.stages(remote.peak_pp_rank());
  sum = st.weight_bytes() + st.grad_bytes() + st.optimizer_dense_bytes() + st.optimizer_expert_bytes() +
        st.activation_bytes() + st.recompute_working_bytes() + st.logits_bytes() + st.embedding_bytes() +
        st.fsdp_working_bytes() + st.dispatcher_buffer_bytes() + st.cuda_graph_bytes() + st.attention_working_bytes() +
        st.overhead_bytes();
  EXPECT_NEAR(static_cast<double>(sum), static_cast<double>(st.total_bytes()), 16.0);
  EXPECT_EQ(st.total_bytes(), remote.peak_bytes());
}

// An incomplete model is estimated with named assumptions; only a field no
// rule can fill (no layer count and no published size to solve it) refuses.
TEST_F(PlannerServiceTest, EstimateMemoryAssumesOrNamesMissingFields) {
  v1::EstimateMemoryRequest partial;
  partial.mutable_model()->mutable_spec()->set_num_layers(32);
  partial.mutable_model()->mutable_spec()->set_hidden_size(4096);
  // The MLP, norm and position embedding are stated: left open, the spec is
  // refused naming them (core/model/inline_spec.h).
  partial.mutable_model()->mutable_spec()->set_gated_linear_unit(true);
  partial.mutable_model()->mutable_spec()->set_normalization("RMSNorm");
  partial.mutable_model()->mutable_spec()->set_position_embedding_type("rope");
  v1::EstimateMemoryResponse approx;
  auto ctx0 = Context();
  ASSERT_TRUE(stub_->EstimateMemory(ctx0.get(), partial, &approx).ok());
  EXPECT_TRUE(approx.model().approximate());
  bool named = false;
  for (const auto& a : approx.assumptions()) named |= a.find("vocab_size = 131072") != std::string::npos;
  EXPECT_TRUE(named);

  v1::EstimateMemoryRequest req;
  *req.mutable_model()->mutable_spec() = partial.model().spec();
  req.mutable_model()->mutable_spec()->set_num_layers(0);
  v1::EstimateMemoryResponse resp;
  auto ctx = Context();
  const grpc::Status status = stub_->EstimateMemory(ctx.get(), req, &resp);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("num_layers"), std::string::npos) << status.error_message();
  // A spec that leaves the MLP open is refused naming gated_linear_unit.
  v1::EstimateMemoryRequest open = partial;
  open.mutable_model()->mutable_spec()->set_gated_linear_unit(false);
  auto ctx3 = Context();
  const grpc::Status ambiguous = stub_->EstimateMemory(ctx3.get(), open, &resp);
  EXPECT_EQ(ambiguous.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(ambiguous.error_message().find("gated_linear_unit"), std::string::npos) << ambiguous.error_message();
  v1::EstimateMemoryRequest none;
  auto ctx2 = Context();
  EXPECT_EQ(stub_->EstimateMemory(ctx2.get(), none, &resp).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(PlannerServiceTest, EstimatePerformanceExplainsTheStep) {
  v1::EstimatePerformanceRequest req;
  req.mutable_model()->set_id("llama3_70b");
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->set_gpus(64);
  auto* c = req.mutable_config();
  c->set_tp(4);
  c->set_pp(4);
  c->set_vpp(5);
  c->set_seq_length(8192);
  c->set_precision("fp8_cs");
  v1::EstimatePerformanceResponse remote, local;
  auto ctx = Context();
  ASSERT_TRUE(stub_->EstimatePerformance(ctx.get(), req, &remote).ok());
  ASSERT_TRUE(api::EstimatePerformance(req, &local).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(remote, local));
  EXPECT_EQ(remote.violations_size(), 0);
  EXPECT_GT(remote.step_time_s(), 0);
  const auto& b = remote.breakdown();
  EXPECT_NEAR(remote.step_time_s(),
              b.compute_s() + b.tp_comm_s() + b.cp_comm_s() + b.ep_comm_s() + b.dp_comm_s() + b.pp_comm_s() +
                  b.bubble_s() + b.optimizer_s(),
              1e-9 * remote.step_time_s());
  // gbs defaulted to about 4M tokens: 512 sequences of 8192.
  EXPECT_EQ(remote.gbs(), 512);
  EXPECT_EQ(remote.dp(), 4);
  EXPECT_EQ(remote.microbatches(), 128);
  EXPECT_NEAR(remote.tokens_per_s_per_gpu(), 512.0 * 8192 / remote.step_time_s() / 64,
              1e-6 * remote.tokens_per_s_per_gpu());
  EXPECT_GT(remote.mfu(), 0.2);
  EXPECT_LT(remote.mfu(), 0.6);
  // The compute split adds up to compute_s.
  EXPECT_NEAR(
      b.compute_s(),
      b.gemm_s() + b.attention_s() + b.moe_s() + b.elementwise_s() + b.recompute_s() + b.logits_s() + b.overhead_s(),
      1e-9 * b.compute_s());
  EXPECT_GT(b.gemm_s(), b.attention_s());
  EXPECT_EQ(b.moe_s(), 0);  // dense
  // Reasons: the defaulted gbs, the throughput, the uncertainty, the step
  // decomposition, (this config is at the edge of 80 GiB) the memory verdict,
  // and the precision given, which changes numerics.
  ASSERT_EQ(remote.reasons_size(), 6);
  EXPECT_NE(remote.reasons(5).find("precision = fp8-cs: numerics"), std::string::npos) << remote.reasons(5);
  EXPECT_NE(remote.reasons(0).find("gbs not given"), std::string::npos) << remote.reasons(0);
  EXPECT_NE(remote.reasons(1).find("MFU"), std::string::npos) << remote.reasons(1);
  EXPECT_NE(remote.reasons(2).find("Uncertainty"), std::string::npos) << remote.reasons(2);
  EXPECT_NE(remote.reasons(3).find("Step"), std::string::npos) << remote.reasons(3);
  EXPECT_FALSE(remote.fits());
  EXPECT_NE(remote.reasons(4).find("would not run"), std::string::npos) << remote.reasons(4);
  // A calibrated model on a calibrated GPU: the in-sample spread, stated.
  EXPECT_GT(remote.uncertainty(), 0.02);
  EXPECT_GE(remote.uncertainty_p90(), remote.uncertainty());
  EXPECT_NE(remote.uncertainty_basis().find("calibrated model"), std::string::npos) << remote.uncertainty_basis();
}

TEST_F(PlannerServiceTest, EstimatePerformanceNeedsSystemAndValidConfig) {
  v1::EstimatePerformanceRequest req;
  req.mutable_model()->set_id("llama3_8b");
  v1::EstimatePerformanceResponse resp;
  auto ctx = Context();
  const grpc::Status status = stub_->EstimatePerformance(ctx.get(), req, &resp);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("placement.system"), std::string::npos) << status.error_message();
  // A config that breaks a rule: no numbers, the violation instead.
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_config()->set_tp(3);
  v1::EstimatePerformanceResponse broken;
  auto ctx2 = Context();
  ASSERT_TRUE(stub_->EstimatePerformance(ctx2.get(), req, &broken).ok());
  EXPECT_EQ(broken.step_time_s(), 0);
  ASSERT_GE(broken.violations_size(), 1);
  bool heads = false;
  for (const auto& v : broken.violations()) heads |= v.rule() == "tp.heads_divisible";
  EXPECT_TRUE(heads);
}

v1::RecommendRequest Llama70bOn64() {
  v1::RecommendRequest req;
  req.mutable_model()->set_id("llama3_70b");
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->set_gpus(64);
  req.mutable_config()->set_seq_length(8192);
  req.mutable_config()->set_precision("fp8-cs");
  return req;
}

TEST_F(PlannerServiceTest, RecommendIsDeterministicAndMatchesInProcess) {
  const v1::RecommendRequest req = Llama70bOn64();
  v1::RecommendResponse first, second, local;
  auto ctx = Context();
  ASSERT_TRUE(stub_->Recommend(ctx.get(), req, &first).ok());
  auto ctx2 = Context();
  ASSERT_TRUE(stub_->Recommend(ctx2.get(), req, &second).ok());
  EXPECT_EQ(first.SerializeAsString(), second.SerializeAsString());  // same request, same bytes
  ASSERT_TRUE(api::Recommend(req, &local).ok());
  EXPECT_EQ(first.SerializeAsString(), local.SerializeAsString());
  ASSERT_TRUE(first.feasible());
  ASSERT_EQ(first.plans_size(), 5);
  const auto& top = first.plans(0);
  EXPECT_EQ(top.rank(), 1);
  EXPECT_TRUE(top.valid());
  EXPECT_TRUE(top.fits());
  EXPECT_GT(top.tokens_per_s_per_gpu(), 0);
  EXPECT_NE(top.bridge_overrides().find("cfg.model.tensor_model_parallel_size"), std::string::npos);
  EXPECT_GE(top.reasons_size(), 2);
  EXPECT_EQ(first.starting_point().config().tp(), 8);
  EXPECT_FALSE(first.starting_point_comparison().empty());
  EXPECT_GT(first.rejected().does_not_fit(), 0);
  EXPECT_TRUE(first.rejected().has_best_not_fitting());
  EXPECT_EQ(first.gbs(), 512);
  EXPECT_FALSE(first.truncated());
}

TEST_F(PlannerServiceTest, RecommendPinsMinGpusAndInfeasible) {
  v1::RecommendRequest pinned = Llama70bOn64();
  pinned.mutable_config()->set_tp(4);
  pinned.mutable_config()->set_pp(4);
  v1::RecommendResponse resp;
  auto ctx = Context();
  ASSERT_TRUE(stub_->Recommend(ctx.get(), pinned, &resp).ok());
  ASSERT_GT(resp.plans_size(), 0);
  for (const auto& p : resp.plans()) {
    EXPECT_EQ(p.config().tp(), 4);
    EXPECT_EQ(p.config().pp(), 4);
  }
  v1::RecommendRequest fewest;
  fewest.mutable_model()->set_id("llama3_8b");
  fewest.mutable_placement()->set_system("h100-sxm");
  fewest.set_find_min_gpus(true);
  v1::RecommendResponse f;
  auto ctx2 = Context();
  ASSERT_TRUE(stub_->Recommend(ctx2.get(), fewest, &f).ok());
  ASSERT_TRUE(f.feasible());
  EXPECT_EQ(f.plans(0).gpus(), f.worlds_searched(f.worlds_searched_size() - 1));
  v1::RecommendRequest big;
  big.mutable_model()->set_id("llama31_405b");
  big.mutable_placement()->set_system("h100-sxm");
  big.mutable_placement()->set_gpus(8);
  v1::RecommendResponse b;
  auto ctx3 = Context();
  ASSERT_TRUE(stub_->Recommend(ctx3.get(), big, &b).ok());  // OK, not an error
  EXPECT_FALSE(b.feasible());
  EXPECT_NE(b.infeasible_reason().find("No valid config fits on 8 GPUs"), std::string::npos) << b.infeasible_reason();
  // Bad input names the field.
  v1::RecommendRequest bad = Llama70bOn64();
  bad.set_objective("cheapest");
  auto ctx4 = Context();
  const grpc::Status s = stub_->Recommend(ctx4.get(), bad, &b);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("objective"), std::string::npos) << s.error_message();
  v1::RecommendRequest no_gpus = Llama70bOn64();
  no_gpus.mutable_placement()->set_gpus(0);
  auto ctx5 = Context();
  EXPECT_EQ(stub_->Recommend(ctx5.get(), no_gpus, &b).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(PlannerServiceTest, RecommendHonoursTheCallDeadline) {
  v1::RecommendRequest req;
  req.mutable_model()->set_id("deepseek_v3");
  req.mutable_placement()->set_system("gb200-nvl72");
  req.mutable_placement()->set_gpus(1024);
  req.mutable_config()->set_seq_length(4096);
  v1::RecommendResponse resp;
  auto ctx = Context(20);  // far less than the search needs
  const auto start = std::chrono::steady_clock::now();
  const grpc::Status status = stub_->Recommend(ctx.get(), req, &resp);
  // Two honest outcomes, depending on how fast this machine is: the search
  // stops at the deadline less its margin and the cut-short answer arrives in
  // time (OK, truncated, saying why), or the answer misses the caller's
  // deadline and gRPC reports DEADLINE_EXCEEDED. A complete search is neither.
  if (status.ok()) {
    EXPECT_TRUE(resp.truncated());
    EXPECT_NE(resp.truncated_reason().find("deadline"), std::string::npos) << resp.truncated_reason();
  } else {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  }
  // The server stopped searching: a new call is answered promptly.
  v1::MinGpusRequest ping;
  ping.mutable_config()->set_tp(2);
  v1::MinGpusResponse pong;
  auto ctx2 = Context();
  EXPECT_TRUE(stub_->MinGpus(ctx2.get(), ping, &pong).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(PlannerServiceTest, ExpiredDeadline) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() - std::chrono::seconds(1));
  v1::MinGpusResponse resp;
  EXPECT_EQ(stub_->MinGpus(&ctx, MinGpusRequest(1, 1, 1, 1, 1), &resp).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST_F(PlannerServiceTest, OversizeMessageRejected) {
  v1::GetModelRequest req;
  req.mutable_model()->set_hf_config_json(std::string(5 << 20, ' '));
  v1::GetModelResponse resp;
  auto ctx = Context();
  EXPECT_EQ(stub_->GetModel(ctx.get(), req, &resp).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  // Still serving afterwards.
  auto ctx2 = Context();
  v1::MinGpusResponse ok;
  EXPECT_TRUE(stub_->MinGpus(ctx2.get(), MinGpusRequest(1, 1, 1, 1, 1), &ok).ok());
}

// Llama 3 70B at TP 8, PP 4 on 64 H100s: fits with room.
v1::EstimateMemoryRequest Llama70bMemoryOn64() {
  v1::EstimateMemoryRequest req;
  req.mutable_model()->set_id("llama3_70b");
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->set_gpus(64);
  req.mutable_config()->set_tp(8);
  req.mutable_config()->set_pp(4);
  req.mutable_config()->set_seq_length(8192);
  req.mutable_config()->set_gbs(256);
  return req;
}

// Lowering the HBM of the system flips `fits` exactly at the predicted peak.
TEST_F(PlannerServiceTest, HbmOverrideFlipsFitsAtThePredictedPeak) {
  const v1::EstimateMemoryRequest req = Llama70bMemoryOn64();
  v1::EstimateMemoryResponse base;
  auto ctx = Context();
  ASSERT_TRUE(stub_->EstimateMemory(ctx.get(), req, &base).ok());
  ASSERT_TRUE(base.fits());
  const double peak_gib = static_cast<double>(base.peak_bytes()) / (1024.0 * 1024 * 1024);
  for (double delta : {0.05, -0.05}) {
    v1::EstimateMemoryRequest r2 = req;
    r2.mutable_placement()->mutable_system_spec()->set_hbm_gib(peak_gib + delta);
    v1::EstimateMemoryResponse resp;
    auto c2 = Context();
    ASSERT_TRUE(stub_->EstimateMemory(c2.get(), r2, &resp).ok());
    EXPECT_EQ(resp.fits(), delta > 0) << peak_gib + delta;
    EXPECT_EQ(resp.peak_bytes(), base.peak_bytes());
    bool said = false;
    for (const auto& a : resp.assumptions()) said |= a.find("hbm_gib 80 -> ") != std::string::npos;
    EXPECT_TRUE(said);
  }
}

// The memory reserve: a fit with less free than the reserve is "tight" and
// says so; the reserve is settable and bounded; recommend marks such plans.
TEST_F(PlannerServiceTest, MemoryReserveMarksTightFits) {
  const v1::EstimateMemoryRequest req = Llama70bMemoryOn64();
  v1::EstimateMemoryResponse base;
  auto ctx = Context();
  ASSERT_TRUE(stub_->EstimateMemory(ctx.get(), req, &base).ok());
  ASSERT_TRUE(base.fits());
  const double free_share = static_cast<double>(base.headroom_bytes()) / base.capacity_bytes();
  ASSERT_GT(free_share, 0.05) << "the default reserve should leave this config roomy";
  EXPECT_FALSE(base.tight());
  for (double delta : {0.01, -0.01}) {
    v1::EstimateMemoryRequest r2 = req;
    r2.set_memory_reserve(free_share + delta);
    v1::EstimateMemoryResponse resp;
    auto c2 = Context();
    ASSERT_TRUE(stub_->EstimateMemory(c2.get(), r2, &resp).ok());
    EXPECT_EQ(resp.tight(), delta > 0) << free_share + delta;
    bool said = false;
    for (const auto& r : resp.reasons()) said |= r.rfind("Tight: ", 0) == 0;
    EXPECT_EQ(said, delta > 0);
  }
  v1::EstimateMemoryRequest bad = req;
  bad.set_memory_reserve(0.7);
  auto c3 = Context();
  const grpc::Status status = stub_->EstimateMemory(c3.get(), bad, &base);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("memory_reserve = 0.7 is out of range; allowed 0..0.5"), std::string::npos)
      << status.error_message();

  // Recommend states the reserve and marks the plans inside it.
  v1::RecommendRequest rec = Llama70bOn64();
  rec.set_memory_reserve(0.5);
  v1::RecommendResponse plans;
  auto c4 = Context();
  ASSERT_TRUE(stub_->Recommend(c4.get(), rec, &plans).ok());
  bool stated = false;
  for (const auto& r : plans.reasons()) stated |= r.find("under 50% of HBM") != std::string::npos;
  EXPECT_TRUE(stated);
  ASSERT_FALSE(plans.plans().empty());
  for (const auto& p : plans.plans()) {
    const bool roomy = p.headroom_bytes() >= 0.5 * p.memory_capacity_bytes();
    EXPECT_EQ(p.tight(), p.fits() && !roomy) << p.label();
  }
}

// A config Megatron rejects only for its layer split still gets estimates,
// for the nearest valid split and labelled as such; validate proposes it.
TEST_F(PlannerServiceTest, LayerSplitThatDoesNotDivideGetsTheNearestValidSplit) {
  v1::EstimateMemoryRequest mem;
  mem.mutable_model()->set_id("deepseek_v3");
  mem.mutable_placement()->set_system("h100-sxm");
  mem.mutable_placement()->set_gpus(1024);
  auto* c = mem.mutable_config();
  c->set_tp(2);
  c->set_pp(16);
  c->set_ep(64);
  c->set_etp(1);
  c->set_seq_length(4096);
  v1::EstimateMemoryResponse m;
  auto ctx = Context();
  ASSERT_TRUE(stub_->EstimateMemory(ctx.get(), mem, &m).ok());
  ASSERT_EQ(m.violations_size(), 1);
  EXPECT_EQ(m.violations(0).rule(), "pp.layers_divisible");
  EXPECT_NE(m.violations(0).fix().find("num_layers_in_first_pipeline_stage=3, num_layers_in_last_pipeline_stage=2"),
            std::string::npos)
      << m.violations(0).fix();
  ASSERT_TRUE(m.has_nearest_valid_split());
  EXPECT_EQ(m.nearest_valid_split().change(), "pipeline_model_parallel_layout = \"Et*4|(t*4|)*14tmL\"");
  EXPECT_EQ(m.nearest_valid_split().stages_size(), 16);
  EXPECT_EQ(m.stages_size(), 16);
  EXPECT_GT(m.peak_bytes(), 0);
  EXPECT_EQ(m.resolved_config().pipeline_layout(), "");  // the config as given
  bool labelled = false;
  for (const auto& r : m.reasons()) labelled |= r.rfind("Estimated for the nearest valid split", 0) == 0;
  EXPECT_TRUE(labelled);

  v1::EstimatePerformanceRequest perf;
  *perf.mutable_model() = mem.model();
  *perf.mutable_placement() = mem.placement();
  *perf.mutable_config() = mem.config();
  v1::EstimatePerformanceResponse p;
  auto ctx2 = Context();
  ASSERT_TRUE(stub_->EstimatePerformance(ctx2.get(), perf, &p).ok());
  EXPECT_GT(p.step_time_s(), 0);
  EXPECT_EQ(p.nearest_valid_split().change(), m.nearest_valid_split().change());
  ASSERT_EQ(p.violations_size(), 1);

  // Llama 3 70B over PP 3: counting the loss as a layer makes 81 = 3 x 27.
  v1::ValidateRequest val;
  val.mutable_model()->set_id("llama3_70b");
  val.mutable_config()->set_tp(8);
  val.mutable_config()->set_pp(3);
  v1::ValidateResponse v;
  auto ctx3 = Context();
  ASSERT_TRUE(stub_->Validate(ctx3.get(), val, &v).ok());
  EXPECT_FALSE(v.valid());
  EXPECT_EQ(v.nearest_valid_split().change(), "account_for_loss_in_pipeline_split = true");
  EXPECT_EQ(v.nearest_valid_split().cli_flags(), "--account-for-loss-in-pipeline-split");
  ASSERT_EQ(v.nearest_valid_split().stages_size(), 3);
  EXPECT_TRUE(v.nearest_valid_split().config().account_for_loss_in_pipeline_split());

  // Another error besides the split: no estimate.
  v1::EstimateMemoryRequest two = mem;
  two.mutable_config()->set_tp(3);
  v1::EstimateMemoryResponse m2;
  auto ctx4 = Context();
  ASSERT_TRUE(stub_->EstimateMemory(ctx4.get(), two, &m2).ok());
  EXPECT_FALSE(m2.has_nearest_valid_split());
  EXPECT_EQ(m2.stages_size(), 0);
}

// Bad system figures come back as field violations naming the field.
TEST_F(PlannerServiceTest, BadSystemSpecIsFieldExact) {
  v1::ValidateRequest req;
  req.mutable_model()->set_id("llama3_8b");
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->mutable_system_spec()->set_nvlink_gbps(-1);
  req.mutable_placement()->mutable_system_spec()->set_hbm_gib(0);
  v1::ValidateResponse resp;
  auto ctx = Context();
  const grpc::Status status = stub_->Validate(ctx.get(), req, &resp);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("placement.system_spec.nvlink_gbps"), std::string::npos)
      << status.error_message();
  EXPECT_NE(status.error_message().find("placement.system_spec.hbm_gib"), std::string::npos);
  v1::GetSystemRequest inline_req;
  inline_req.mutable_system_spec()->set_gpu_arch("hopper");
  inline_req.mutable_system_spec()->set_nvlink_gbps(400);
  v1::GetSystemResponse sys;
  auto c2 = Context();
  ASSERT_TRUE(stub_->GetSystem(c2.get(), inline_req, &sys).ok());
  EXPECT_EQ(sys.system().nvlink_gbps_unidirectional(), 200);
  EXPECT_EQ(sys.system().sources().at("nvlink_gbps"), "given in the request");
  EXPECT_NE(sys.system().sources().at("compute").find("default from h100-sxm"), std::string::npos);
}

}  // namespace
}  // namespace parplan
