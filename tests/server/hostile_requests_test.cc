// A few thousand random and hostile requests over real gRPC: every one is
// answered with OK, INVALID_ARGUMENT or NOT_FOUND, and the server stays up.
#include <limits>
#include <random>

#include "tests/server/server_fixture.h"

namespace parplan {
namespace {

class HostileRequestsTest : public ServerFixture {};

class Chaos {
 public:
  explicit Chaos(uint32_t seed) : rng_(seed) {}

  int64_t Int() {
    static const int64_t kValues[] = {
        0,         1,        2,    3,     4,       8,  16,    61,        64,        96,
        128,       4096,     4097, 65536, 1 << 20, -1, -4096, INT32_MAX, INT32_MIN, int64_t{1} << 40,
        INT64_MAX, INT64_MIN};
    return kValues[rng_() % (sizeof(kValues) / sizeof(kValues[0]))];
  }
  int32_t Int32() { return static_cast<int32_t>(Int()); }
  bool Coin() { return rng_() % 2 == 0; }

  std::string String() {
    switch (rng_() % 12) {
      case 0:
        return "";
      case 1:
        return std::string(100000, 'x');
      case 2:
        return "llama3_70b";
      case 3:
        return "deepseek-ai/DeepSeek-V3";
      case 4:
        return "nemotron_3_ultra";
      case 5:
        return "h100-sxm";
      case 6:
        return "{\"num_hidden_layers\": -1";
      case 7:
        return "Et*4|(t*4|)*14tmL";
      case 8:
        return "((((t|)*3)*4";
      case 9:
        return "t*99999999999999999999";
      case 10:
        return "[[\"embedding\"],[\"loss\"]]";
      default: {
        std::string s(rng_() % 64, '\0');
        for (char& c : s) c = static_cast<char>(rng_() % 256);
        return s;
      }
    }
  }

  std::string HfConfig() {
    switch (rng_() % 5) {
      case 0:
        return String();
      case 1:
        return "[]";
      case 2:
        return absl::StrCat("{\"num_hidden_layers\":", Int(), ",\"hidden_size\":", Int(),
                            ",\"num_attention_heads\":", Int(), ",\"vocab_size\":", Int(), "}");
      case 3:
        return absl::StrCat("{\"num_hidden_layers\":", Int(), ",\"hidden_size\":4096,\"num_attention_heads\":32,",
                            "\"vocab_size\":32000,\"num_local_experts\":", Int(), ",\"num_experts_per_tok\":", Int(),
                            ",\"kv_lora_rank\":", Int(), "}");
      default:
        return "{\"hybrid_override_pattern\":\"M*M*Q\",\"hidden_size\":1,\"num_attention_heads\":1,\"vocab_size\":1}";
    }
  }

  void Model(v1::ModelRef* m) {
    switch (rng_() % 6) {
      case 0:
        return;
      case 1:
        m->set_id(String());
        return;
      case 2:
        m->set_size(Coin() ? "70B dense" : String());
        return;
      case 3:
        m->set_hf_config_json(HfConfig());
        return;
      case 4: {
        auto* s = m->mutable_spec();
        s->set_num_layers(Int());
        s->set_hidden_size(Int());
        s->set_num_attention_heads(Int());
        s->set_num_query_groups(Int());
        s->set_vocab_size(Int());
        s->set_num_moe_experts(Int());
        s->set_moe_router_topk(Int());
        s->set_ffn_hidden_size(Int());
        if (Coin()) s->set_hybrid_layer_pattern(String());
        return;
      }
      default:
        m->set_id("deepseek_v3");
        return;
    }
  }

  void Config(v1::ParallelConfig* c) {
    if (Coin()) c->set_tp(Int32());
    if (Coin()) c->set_pp(Int32());
    if (Coin()) c->set_vpp(Int32());
    if (Coin()) c->set_cp(Int32());
    if (Coin()) c->set_ep(Int32());
    if (Coin()) c->set_etp(Int32());
    if (Coin()) c->set_sp(Coin());
    if (Coin()) c->set_mbs(Int32());
    if (Coin()) c->set_gbs(Int());
    if (Coin()) c->set_seq_length(Int32());
    if (Coin()) c->set_num_layers_in_first_pipeline_stage(Int32());
    if (Coin()) c->set_num_layers_in_last_pipeline_stage(Int32());
    if (Coin()) c->set_pipeline_layout(String());
    if (Coin()) c->set_precision(Coin() ? "fp8-mx" : String());
    if (Coin()) c->set_mtp_num_layers(Int32());
    if (Coin()) c->set_recompute_granularity(Coin() ? "full" : (Coin() ? "selective" : String()));
    if (Coin()) c->add_recompute_modules(Coin() ? "moe_act" : String());
    if (Coin()) c->set_recompute_method(Coin() ? "block" : String());
    if (Coin()) c->set_recompute_num_layers(Int32());
    if (Coin()) c->set_use_distributed_optimizer(Coin());
    if (Coin()) c->set_use_megatron_fsdp(Coin());
    if (Coin()) c->set_grad_reduce_in_fp32(Coin());
    if (Coin()) c->set_optimizer_state_dtype(Coin() ? "bf16" : String());
    if (Coin()) c->set_peft(Coin() ? "lora" : String());
    if (Coin()) c->set_cpu_offloading_num_layers(Int32());
    if (Coin()) c->add_offload_modules(Coin() ? "core_attn" : String());
    if (rng_() % 4 == 0) {
      c->set_account_for_embedding_in_pipeline_split(Coin());
      c->set_account_for_loss_in_pipeline_split(Coin());
    }
  }

  // Hostile reals: negative, zero, huge, NaN, infinities, denormals.
  double Real() {
    switch (rng_() % 8) {
      case 0:
        return -1;
      case 1:
        return 0;
      case 2:
        return 1e300;
      case 3:
        return std::numeric_limits<double>::quiet_NaN();
      case 4:
        return std::numeric_limits<double>::infinity();
      case 5:
        return std::numeric_limits<double>::denorm_min();
      case 6:
        return static_cast<double>(Int());
      default:
        return 400;
    }
  }

  void SystemFigures(v1::SystemSpec* f) {
    if (Coin()) f->set_gpu_arch(Coin() ? "hopper" : String());
    if (Coin()) f->set_name(String());
    if (Coin()) f->set_hbm_gib(Real());
    if (Coin()) f->set_hbm_tbps(Real());
    if (Coin()) f->set_bf16_tflops(Real());
    if (Coin()) f->set_fp8_tflops(Real());
    if (Coin()) f->set_fp4_tflops(Real());
    if (Coin()) f->set_nvlink_domain_size(Int32());
    if (Coin()) f->set_nvlink_gbps(Real());
    if (Coin()) f->set_gpus_per_node(Int32());
    if (Coin()) f->set_scaleout_gbps(Real());
    if (Coin()) f->set_nics_per_node(Int32());
    if (Coin()) f->set_nic_gbps(Real());
    if (Coin()) f->set_pcie_gbps(Real());
  }

  void Placement(v1::Placement* p) {
    if (Coin()) p->set_system(Coin() ? "gb200-nvl72" : String());
    if (Coin()) p->set_gpus(Int() == (1 << 20) ? 4096 : Int());
    if (Coin()) p->set_gpus_per_node(Int32());
    if (rng_() % 5 == 0) SystemFigures(p->mutable_system_spec());
  }

  uint32_t Next() { return rng_(); }

 private:
  std::mt19937 rng_;
};

TEST_F(HostileRequestsTest, EveryRequestGetsAnAcceptableAnswer) {
  Chaos chaos(20261202);
  std::map<int, int> codes;
  const int kRequests = 3000;
  for (int i = 0; i < kRequests; ++i) {
    auto ctx = Context(20000);
    grpc::Status status;
    bool recommend = false;
    switch (chaos.Next() % 10) {
      case 0: {
        v1::MinGpusRequest req;
        chaos.Config(req.mutable_config());
        chaos.Placement(req.mutable_placement());
        chaos.Model(req.mutable_model());
        if (chaos.Coin()) req.set_num_next_world_sizes(chaos.Int32());
        v1::MinGpusResponse resp;
        status = stub_->MinGpus(ctx.get(), req, &resp);
        break;
      }
      case 1:
      case 2: {
        v1::ValidateRequest req;
        chaos.Config(req.mutable_config());
        chaos.Placement(req.mutable_placement());
        chaos.Model(req.mutable_model());
        v1::ValidateResponse resp;
        status = stub_->Validate(ctx.get(), req, &resp);
        break;
      }
      case 3: {
        v1::ExplainLayoutRequest req;
        chaos.Config(req.mutable_config());
        chaos.Placement(req.mutable_placement());
        if (chaos.Coin()) req.set_rank(chaos.Int());
        if (chaos.Coin()) req.set_max_ranks(chaos.Int32());
        if (chaos.Coin()) req.set_max_groups(chaos.Int32());
        v1::ExplainLayoutResponse resp;
        status = stub_->ExplainLayout(ctx.get(), req, &resp);
        break;
      }
      case 4: {
        v1::RenderConfigRequest req;
        chaos.Config(req.mutable_config());
        chaos.Placement(req.mutable_placement());
        chaos.Model(req.mutable_model());
        v1::RenderConfigResponse resp;
        status = stub_->RenderConfig(ctx.get(), req, &resp);
        break;
      }
      case 5: {
        v1::GetModelRequest req;
        chaos.Model(req.mutable_model());
        v1::GetModelResponse resp;
        status = stub_->GetModel(ctx.get(), req, &resp);
        break;
      }
      case 6: {
        v1::EstimateMemoryRequest req;
        chaos.Config(req.mutable_config());
        chaos.Placement(req.mutable_placement());
        chaos.Model(req.mutable_model());
        if (chaos.Coin()) req.set_overhead_gib(chaos.Coin() ? 1.5 : static_cast<double>(chaos.Int()));
        if (chaos.Coin()) req.set_max_suggestions(chaos.Int32());
        v1::EstimateMemoryResponse resp;
        status = stub_->EstimateMemory(ctx.get(), req, &resp);
        break;
      }
      case 7: {
        v1::EstimatePerformanceRequest req;
        chaos.Config(req.mutable_config());
        chaos.Placement(req.mutable_placement());
        chaos.Model(req.mutable_model());
        v1::EstimatePerformanceResponse resp;
        status = stub_->EstimatePerformance(ctx.get(), req, &resp);
        break;
      }
      case 8: {
        recommend = true;
        v1::RecommendRequest req;
        chaos.Config(req.mutable_config());
        chaos.Placement(req.mutable_placement());
        chaos.Model(req.mutable_model());
        if (chaos.Coin()) req.set_find_min_gpus(chaos.Coin());
        if (chaos.Coin()) req.set_min_gpus(chaos.Int());
        if (chaos.Coin()) req.set_max_gpus(chaos.Int());
        if (chaos.Coin()) req.set_objective(chaos.Coin() ? "headroom" : chaos.String());
        if (chaos.Coin()) req.set_top_k(chaos.Int32());
        if (chaos.Coin()) req.set_max_candidates(chaos.Int());
        if (chaos.Coin()) req.mutable_constraints()->set_max_pp(chaos.Int32());
        if (chaos.Coin()) req.mutable_constraints()->set_nvlink_only(chaos.Coin());
        v1::RecommendResponse resp;
        auto short_ctx = Context(3000);  // a search may be cut by its deadline
        status = stub_->Recommend(short_ctx.get(), req, &resp);
        break;
      }
      default: {
        v1::GetSystemRequest req;
        if (chaos.Coin()) req.set_system(chaos.String());
        if (chaos.Coin()) chaos.SystemFigures(req.mutable_system_spec());
        v1::GetSystemResponse resp;
        status = stub_->GetSystem(ctx.get(), req, &resp);
        break;
      }
    }
    const auto code = status.error_code();
    ++codes[code];
    ASSERT_TRUE(code == grpc::StatusCode::OK || code == grpc::StatusCode::INVALID_ARGUMENT ||
                code == grpc::StatusCode::NOT_FOUND || (recommend && code == grpc::StatusCode::DEADLINE_EXCEEDED))
        << "request " << i << ": " << code << " " << status.error_message();
  }
  // About 3% of these requests are valid by construction (most fields are
  // hostile); the bound guards against a generator that reaches no handler.
  EXPECT_GT(codes[grpc::StatusCode::OK], 60)
      << "OK " << codes[grpc::StatusCode::OK] << ", INVALID_ARGUMENT " << codes[grpc::StatusCode::INVALID_ARGUMENT];
  EXPECT_GT(codes[grpc::StatusCode::INVALID_ARGUMENT], 100);
  // Still up.
  v1::MinGpusRequest req;
  req.mutable_config()->set_tp(2);
  v1::MinGpusResponse resp;
  auto ctx = Context();
  EXPECT_TRUE(stub_->MinGpus(ctx.get(), req, &resp).ok());
}

}  // namespace
}  // namespace parplan
