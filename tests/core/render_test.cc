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

}  // namespace
}  // namespace parplan
