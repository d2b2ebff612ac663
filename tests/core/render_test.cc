#include "core/render/render.h"

#include "core/catalog/catalog.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RenderTest, BridgeMegatronAndSlurm) {
  ResolvedConfig c;
  c.tp = 8;
  c.pp = 4;
  c.vpp = 5;
  c.sp = true;
  c.etp = 8;
  c.mbs = 1;
  c.gbs = 256;
  c.seq_length = 8192;
  c.precision = Precision::kFp8Cs;
  c.fp8_param_gather = true;  // as Bridge's current-scaling preset sets it
  ResolvedPlacement p;
  p.gpus = 64;
  p.gpus_per_node = 8;
  const RenderedConfig r = RenderConfig(c, nullptr, p);
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.tensor_model_parallel_size = 8\n"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.virtual_pipeline_model_parallel_size = 5\n"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.sequence_parallel = True\n"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.train.global_batch_size = 256\n"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.mixed_precision = \"bf16_with_fp8_current_scaling_mixed\""));
  EXPECT_THAT(r.bridge_cli, HasSubstr("model.tensor_model_parallel_size=8 "));
  EXPECT_THAT(r.bridge_cli, HasSubstr("model.sequence_parallel=true"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--tensor-model-parallel-size 8"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--num-virtual-stages-per-pipeline-rank 5"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--sequence-parallel"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--fp8-recipe tensorwise"));
  EXPECT_THAT(r.slurm_header, HasSubstr("#SBATCH --nodes=8\n"));
  EXPECT_THAT(r.slurm_header, HasSubstr("#SBATCH --ntasks-per-node=8\n"));
  EXPECT_THAT(r.slurm_header, HasSubstr("#SBATCH --gpus-per-node=8\n"));
}

TEST(RenderTest, LayoutIsQuotedAndReplacesVpp) {
  ResolvedConfig c;
  c.pp = 2;
  c.vpp = 8;
  c.pipeline_layout = "Et*4|(t*4|)*14tmL";
  const RenderedConfig r = RenderConfig(c, nullptr, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.pipeline_model_parallel_layout = \"Et*4|(t*4|)*14tmL\""));
  EXPECT_THAT(r.bridge_python, HasSubstr("virtual_pipeline_model_parallel_size = None"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--pipeline-model-parallel-layout 'Et*4|(t*4|)*14tmL'"));
  EXPECT_TRUE(r.slurm_header.empty());
  // VPP None beside a layout says why: 16 stages over PP 2 = 8 per rank.
  bool said = false;
  for (const auto& n : r.notes) said |= n.find("16 stages = PP 2 x 8 per rank") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(RenderTest, SmallJobOnOneNode) {
  ResolvedConfig c;
  ResolvedPlacement p;
  p.gpus = 4;
  p.gpus_per_node = 8;
  const RenderedConfig r = RenderConfig(c, nullptr, p);
  EXPECT_THAT(r.slurm_header, HasSubstr("--nodes=1\n"));
  EXPECT_THAT(r.slurm_header, HasSubstr("--gpus-per-node=4\n"));
}

// Transformer Engine's op fuser and the in-flight offload cap, in Bridge's
// and Megatron-LM's spellings; squared-ReLU experts also get the fused
// weighted kernel the fused grouped MLP needs (experts.py:422).
TEST(RenderTest, OpFuserAndInflightOffloads) {
  auto ultra = Catalog::Get().FindModel("nemotron_3_ultra");
  ASSERT_TRUE(ultra.ok()) << ultra.status();
  ResolvedConfig c;
  c.ep = 64;
  c.use_transformer_engine_op_fuser = true;
  c.op_fuser_given = true;
  c.offload_modules = {"fused_group_mlp"};
  c.fine_grained_offloading_max_inflight_offloads = 1;
  RenderedConfig r = RenderConfig(c, &*ultra, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.use_transformer_engine_op_fuser = True\n"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.use_fused_weighted_squared_relu = True\n"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.fine_grained_offloading_max_inflight_offloads = 1\n"));
  EXPECT_THAT(r.bridge_cli, HasSubstr("model.use_transformer_engine_op_fuser=true"));
  EXPECT_THAT(r.bridge_cli, HasSubstr("model.fine_grained_offloading_max_inflight_offloads=1"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--use-transformer-engine-op-fuser"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--use-fused-weighted-squared-relu"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--fine-grained-offloading-max-inflight-offloads 1"));
  bool te_note = false;
  for (const auto& n : r.notes) te_note |= n.find("Transformer Engine >= 2.14") != std::string::npos;
  EXPECT_TRUE(te_note);
  // SwiGLU experts: no squared-ReLU kernel; off (the default) writes nothing.
  auto qwen = Catalog::Get().FindModel("qwen3_30b_a3b");
  ASSERT_TRUE(qwen.ok());
  r = RenderConfig(c, &*qwen, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("use_transformer_engine_op_fuser = True"));
  EXPECT_THAT(r.bridge_python, Not(HasSubstr("use_fused_weighted_squared_relu")));
  c.use_transformer_engine_op_fuser = false;
  c.fine_grained_offloading_max_inflight_offloads.reset();
  r = RenderConfig(c, &*ultra, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, Not(HasSubstr("op_fuser")));
  EXPECT_THAT(r.bridge_python, Not(HasSubstr("inflight")));
  EXPECT_THAT(r.megatron_lm_args, Not(HasSubstr("op-fuser")));
}

// The CP communication type is written wherever CP > 1 (Megatron's default
// p2p included), the hierarchical sizes in Bridge's list and Megatron-LM's
// space-separated form.
TEST(RenderTest, ContextParallelCommType) {
  ResolvedConfig c;
  c.cp = 2;
  RenderedConfig r = RenderConfig(c, nullptr, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.cp_comm_type = \"p2p\"\n"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--cp-comm-type p2p"));
  EXPECT_THAT(r.bridge_python, Not(HasSubstr("hierarchical_context_parallel_sizes")));
  // GPT-OSS with a2a (its sliding windows and sinks need it under CP).
  auto oss = Catalog::Get().FindModel("gpt_oss_120b");
  ASSERT_TRUE(oss.ok()) << oss.status();
  c.cp_comm_type = "a2a";
  c.cp_comm_type_given = true;
  r = RenderConfig(c, &*oss, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.cp_comm_type = \"a2a\"\n"));
  EXPECT_THAT(r.bridge_cli, HasSubstr("model.cp_comm_type=a2a"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--cp-comm-type a2a"));
  // CP = 4 as a2a inside pairs and the ring across them.
  c.cp = 4;
  c.cp_comm_type = "a2a+p2p";
  c.hierarchical_cp_sizes = {2, 2};
  r = RenderConfig(c, nullptr, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.cp_comm_type = \"a2a+p2p\"\n"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.hierarchical_context_parallel_sizes = [2, 2]\n"));
  EXPECT_THAT(r.bridge_cli, HasSubstr("model.hierarchical_context_parallel_sizes=[2,2]"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--cp-comm-type a2a+p2p"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--hierarchical-context-parallel-sizes 2 2"));
  // No CP: no type.
  ResolvedConfig plain;
  r = RenderConfig(plain, nullptr, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, Not(HasSubstr("cp_comm_type")));
  EXPECT_THAT(r.megatron_lm_args, Not(HasSubstr("--cp-comm-type")));
}

// Optimizer offload: the fraction always written (Megatron-Core's 0.0 and
// Megatron-LM's 1.0 differ); Megatron-LM also gets the precision-aware
// optimizer it asserts (arguments.py:1885), once.
TEST(RenderTest, OptimizerCpuOffload) {
  ResolvedConfig c;
  c.optimizer_cpu_offload = true;
  c.optimizer_offload_fraction = 1.0;
  RenderedConfig r = RenderConfig(c, nullptr, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.optimizer.optimizer_cpu_offload = True\n"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.optimizer.optimizer_offload_fraction = 1.0\n"));
  EXPECT_THAT(r.bridge_cli, HasSubstr("optimizer.optimizer_offload_fraction=1.0"));
  EXPECT_THAT(r.bridge_python, Not(HasSubstr("use_precision_aware_optimizer")));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--optimizer-cpu-offload"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--optimizer-offload-fraction 1.0"));
  EXPECT_THAT(r.megatron_lm_args, HasSubstr("--use-precision-aware-optimizer"));
  c.optimizer_offload_fraction = 0.25;
  c.optimizer_bf16 = true;
  r = RenderConfig(c, nullptr, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.optimizer.optimizer_offload_fraction = 0.25\n"));
  const std::string& lm = r.megatron_lm_args;
  const size_t first = lm.find("--use-precision-aware-optimizer");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(lm.find("--use-precision-aware-optimizer", first + 1), std::string::npos) << lm;
  // Off: nothing.
  r = RenderConfig(ResolvedConfig{}, nullptr, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, Not(HasSubstr("optimizer_cpu_offload")));
  EXPECT_THAT(r.megatron_lm_args, Not(HasSubstr("offload")));
}

// On a rack system the header places the job as the plan counts on it:
// whole 16-tray segments (64 of 72 GPUs) per rack, and the srun line.
TEST(RenderTest, RackSystemsGetASegmentConstraint) {
  ResolvedConfig c;
  c.ep = 64;
  Placement p;
  p.system = "gb200-nvl72";
  p.gpus = 256;
  const auto racks = ResolvePlacement(p, "placement");
  ASSERT_TRUE(racks.ok());
  const RenderedConfig r = RenderConfig(c, nullptr, *racks);
  EXPECT_THAT(r.slurm_header, HasSubstr("#SBATCH --nodes=64\n"));
  EXPECT_THAT(r.slurm_header, HasSubstr("#SBATCH --segment=16\n"));
  EXPECT_THAT(r.slurm_header, HasSubstr("4 NVLink domain(s) of 64 of 72 GPUs"));
  EXPECT_THAT(r.slurm_header, HasSubstr("# srun --nodes=64 --ntasks-per-node=4"));
  // 8-GPU hosts: the node is the domain, no segment.
  p.system = "h100-sxm";
  const RenderedConfig h = RenderConfig(c, nullptr, *ResolvePlacement(p, "placement"));
  EXPECT_THAT(h.slurm_header, Not(HasSubstr("--segment")));
}

// Forced load balancing is written with its warning: it changes training.
TEST(RenderTest, ForcedBalancingCarriesItsWarning) {
  ResolvedConfig c;
  c.ep = 8;
  c.moe_router_force_load_balancing = true;
  const RenderedConfig r = RenderConfig(c, nullptr, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.moe_router_force_load_balancing = True"));
  bool warned = false;
  for (const auto& n : r.notes) warned |= n.find("benchmark only") != std::string::npos;
  EXPECT_TRUE(warned);
}

// fp8_param_gather off under a preset that sets it goes on the preset's
// MixedPrecisionConfig (the preset overwrites ddp.fp8_param_gather).
TEST(RenderTest, Fp8ParamGatherAgainstThePreset) {
  ResolvedConfig c;
  c.precision = Precision::kFp8Cs;
  c.fp8_param_gather = false;
  const RenderedConfig r = RenderConfig(c, nullptr, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python,
              HasSubstr("cfg.mixed_precision = get_mixed_precision_config(\"bf16_with_fp8_current_scaling_mixed\")"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.mixed_precision.fp8_param_gather = False"));
  EXPECT_THAT(r.megatron_lm_args, Not(HasSubstr("--fp8-param-gather")));
  c.fp8_param_gather = true;
  EXPECT_THAT(RenderConfig(c, nullptr, ResolvedPlacement{}).megatron_lm_args, HasSubstr("--fp8-param-gather"));
}

// Megatron-LM needs the architecture on its command line; Bridge gets it as
// model.* fields only for a model that is not from the catalog (a catalog
// model's recipe supplies its own provider).
TEST(RenderTest, MegatronLmArgsCarryTheModel) {
  ModelSpec m;
  m.origin = "catalog";
  m.num_layers = 32;
  m.hidden_size = 4096;
  m.ffn_hidden_size = 14336;
  m.num_attention_heads = 32;
  m.num_query_groups = 8;
  m.kv_channels = 128;
  m.vocab_size = 128256;
  m.seq_length = 8192;
  m.gated_linear_unit = true;
  m.normalization = "RMSNorm";
  m.position_embedding_type = "rope";
  ResolvedConfig c;
  c.tp = 2;
  c.sp = true;
  RenderedConfig r = RenderConfig(c, &m, ResolvedPlacement{});
  for (const char* flag :
       {"--num-layers 32", "--hidden-size 4096", "--ffn-hidden-size 14336", "--num-attention-heads 32",
        "--group-query-attention", "--num-query-groups 8", "--swiglu", "--normalization RMSNorm",
        "--position-embedding-type rope", "--max-position-embeddings 8192", "--vocab-size 128256",
        "--disable-bias-linear", "--untie-embeddings-and-output-weights", "--overlap-grad-reduce"}) {
    EXPECT_THAT(r.megatron_lm_args, HasSubstr(flag)) << flag;
  }
  EXPECT_THAT(r.bridge_python, Not(HasSubstr("cfg.model.hidden_size")));
  m.origin = "import";
  r = RenderConfig(c, &m, ResolvedPlacement{});
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.hidden_size = 4096\n"));
  EXPECT_THAT(r.bridge_python, HasSubstr("cfg.model.normalization = \"RMSNorm\"\n"));
  EXPECT_THAT(r.bridge_cli, HasSubstr("model.num_query_groups=8"));
}

}  // namespace
}  // namespace parplan
