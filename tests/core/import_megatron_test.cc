// Megatron-LM import: the launch scripts of Megatron-LM's examples
// (fixtures under tests/data/import/megatron, each citing its source script
// at Megatron-LM d98e8a64), the printed argument block, a functional test's
// MODEL_ARGS YAML, contradictions and Megatron-LM's silent overrides.
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/import/field_map.h"
#include "core/import/megatron_import.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream f(std::string(PARPLAN_TEST_DATA_DIR) + "/import/megatron/" + name);
  std::stringstream s;
  s << f.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

ImportedConfig Import(const std::string& text, ImportFormat format = ImportFormat::kMegatronLmScript) {
  ImportOptions options;
  auto r = ImportMegatronLm(text, format, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : ImportedConfig();
}

const ImportedArgument* Arg(const ImportedConfig& c, const std::string& name) {
  for (const auto& a : c.arguments) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

// Every argument the field map knows is mapped, and each of `flags` (the
// script's model, parallelism, batch, precision and recompute arguments)
// is listed as mapped.
void ExpectMapped(const ImportedConfig& c, const std::vector<std::string>& flags) {
  for (const auto& a : c.arguments) {
    if (!FindMegatronFlag(a.name).empty()) {
      EXPECT_EQ(a.status, ArgumentStatus::kMapped) << a.name << " " << a.note;
    }
  }
  for (const auto& f : flags) {
    const ImportedArgument* a = Arg(c, f);
    ASSERT_NE(a, nullptr) << f << " not listed";
    EXPECT_EQ(a->status, ArgumentStatus::kMapped) << f << ": " << a->note;
    EXPECT_FALSE(a->maps_to.empty()) << f;
    EXPECT_GT(a->line, 0) << f;
  }
}

bool AnyContains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines) {
    if (absl::StrContains(l, text)) return true;
  }
  return false;
}

TEST(ImportMegatronTest, Gpt3_175b) {
  const std::string text = Fixture("gpt3_175b.sh");
  EXPECT_EQ(DetectMegatronLm(text), ImportFormat::kMegatronLmScript);
  ImportedConfig c = Import(text);
  ExpectMapped(c, {"--num-layers", "--hidden-size", "--num-attention-heads", "--seq-length",
                   "--max-position-embeddings", "--attention-backend", "--micro-batch-size", "--global-batch-size",
                   "--fp16", "--tensor-model-parallel-size", "--pipeline-model-parallel-size"});
  EXPECT_EQ(c.config.front_end, "megatron-lm");
  EXPECT_EQ(c.config.tp, 8);
  EXPECT_EQ(c.config.pp, 16);
  EXPECT_EQ(c.config.mbs, 1);
  EXPECT_EQ(c.config.gbs, 1536);
  EXPECT_EQ(c.config.seq_length, 2048);
  EXPECT_EQ(c.config.precision, "bf16");  // FP16 planned as BF16, with a warning
  EXPECT_TRUE(AnyContains(c.warnings, "--fp16"));
  ASSERT_TRUE(c.model.has_value());
  const ModelSpec& m = *c.model;
  EXPECT_EQ(m.origin, "import");
  EXPECT_EQ(m.num_layers, 96);
  EXPECT_EQ(m.hidden_size, 12288);
  EXPECT_EQ(m.num_attention_heads, 96);
  EXPECT_EQ(m.seq_length, 2048);
  // Megatron-LM's defaults where the script is silent.
  EXPECT_EQ(m.ffn_hidden_size, 4 * 12288);
  EXPECT_EQ(m.num_query_groups, 96);
  EXPECT_EQ(m.kv_channels, 128);
  EXPECT_FALSE(m.gated_linear_unit);
  EXPECT_EQ(m.ResolvedActivation(), "gelu");
  EXPECT_EQ(m.normalization, "LayerNorm");
  EXPECT_EQ(m.position_embedding_type, "learned_absolute");
  EXPECT_TRUE(m.add_bias_linear);
  EXPECT_TRUE(m.share_embeddings_and_output_weights);
  EXPECT_THAT(m.field_sources.at("normalization"), ::testing::HasSubstr("megatron_lm_default"));
  EXPECT_THAT(m.field_sources.at("num_layers"), ::testing::HasSubstr("--num-layers"));
  // The vocabulary comes from the GPT-2 vocab file: said, not guessed.
  EXPECT_EQ(m.vocab_size, 0);
  EXPECT_THAT(m.missing_fields, ::testing::Contains("vocab_size"));
  EXPECT_TRUE(AnyContains(c.warnings, "--vocab-file"));
  // Paths come from $1..$5: listed, not guessed.
  const ImportedArgument* save = Arg(c, "--save");
  ASSERT_NE(save, nullptr);
  EXPECT_EQ(save->status, ArgumentStatus::kNoEffect);
  EXPECT_THAT(save->note, ::testing::HasSubstr("$1"));
  const ImportedArgument* lr = Arg(c, "--lr");
  ASSERT_NE(lr, nullptr);
  EXPECT_EQ(lr->status, ArgumentStatus::kNotModelled);
  EXPECT_EQ(c.gpus, 8);  // the example launches one node of 8
  EXPECT_EQ(c.gpus_per_node, 8);
  EXPECT_TRUE(AnyContains(c.warnings, "128"));  // TP x PP needs 128 GPUs
}

TEST(ImportMegatronTest, Llama3_8bFp8) {
  ImportedConfig c = Import(Fixture("llama3_8b_h100_fp8.sh"));
  ExpectMapped(c, {"--num-layers",
                   "--hidden-size",
                   "--ffn-hidden-size",
                   "--num-attention-heads",
                   "--group-query-attention",
                   "--num-query-groups",
                   "--kv-channels",
                   "--seq-length",
                   "--max-position-embeddings",
                   "--position-embedding-type",
                   "--swiglu",
                   "--normalization",
                   "--attention-backend",
                   "--untie-embeddings-and-output-weights",
                   "--disable-bias-linear",
                   "--micro-batch-size",
                   "--global-batch-size",
                   "--bf16",
                   "--grad-reduce-in-bf16",
                   "--fp8-format",
                   "--fp8-param-gather",
                   "--tensor-model-parallel-size",
                   "--context-parallel-size",
                   "--sequence-parallel",
                   "--use-distributed-optimizer",
                   "--overlap-grad-reduce",
                   "--vocab-size"});
  EXPECT_EQ(c.config.precision, "fp8-ds");  // --fp8-format hybrid, Megatron's default delayed recipe
  EXPECT_EQ(c.config.fp8_param_gather, true);
  EXPECT_EQ(c.config.grad_reduce_in_fp32, false);
  EXPECT_EQ(c.config.sp, false);  // TP 1: Megatron-LM drops SP
  EXPECT_TRUE(AnyContains(c.warnings, "--sequence-parallel with --tensor-model-parallel-size 1"));
  EXPECT_EQ(c.config.attention_backend, "fused");
  EXPECT_EQ(c.config.use_distributed_optimizer, true);
  EXPECT_EQ(c.config.overlap_grad_reduce, true);
  ASSERT_TRUE(c.model.has_value());
  EXPECT_EQ(c.model->num_layers, 32);
  EXPECT_EQ(c.model->num_query_groups, 8);
  EXPECT_EQ(c.model->vocab_size, 128256);
  EXPECT_TRUE(c.model->gated_linear_unit);
  EXPECT_EQ(c.model->activation_func, "silu");
  EXPECT_FALSE(c.model->add_bias_linear);
  EXPECT_FALSE(c.model->share_embeddings_and_output_weights);
  EXPECT_EQ(c.model->position_embedding_type, "rope");
  EXPECT_TRUE(c.model->missing_fields.empty());
  EXPECT_EQ(c.gpus, 8);
  // The guard "if [ ! -f $ENTRY ]" is a file test: said, not taken.
  EXPECT_TRUE(AnyContains(c.notes, "do not decide"));
  // The quoted "--fp8-format hybrid" array element splits into flag and value.
  const ImportedArgument* fp8 = Arg(c, "--fp8-format");
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->value, "hybrid");
}

TEST(ImportMegatronTest, Mixtral8x7b) {
  ImportedConfig c = Import(Fixture("mixtral_8x7b.sh"));
  ExpectMapped(c, {"--disable-bias-linear",
                   "--seq-length",
                   "--max-position-embeddings",
                   "--num-layers",
                   "--hidden-size",
                   "--ffn-hidden-size",
                   "--num-attention-heads",
                   "--normalization",
                   "--position-embedding-type",
                   "--swiglu",
                   "--untie-embeddings-and-output-weights",
                   "--group-query-attention",
                   "--num-query-groups",
                   "--no-position-embedding",
                   "--num-experts",
                   "--moe-router-topk",
                   "--moe-token-dispatcher-type",
                   "--overlap-grad-reduce",
                   "--micro-batch-size",
                   "--global-batch-size",
                   "--bf16",
                   "--tensor-model-parallel-size",
                   "--pipeline-model-parallel-size",
                   "--expert-model-parallel-size",
                   "--use-distributed-optimizer",
                   "--sequence-parallel"});
  EXPECT_EQ(c.config.pp, 4);
  EXPECT_EQ(c.config.ep, 8);
  EXPECT_EQ(c.config.moe_token_dispatcher_type, "alltoall");
  EXPECT_EQ(c.config.sp, false);
  ASSERT_TRUE(c.model.has_value());
  EXPECT_EQ(c.model->num_moe_experts, 8);
  EXPECT_EQ(c.model->moe_router_topk, 2);
  EXPECT_EQ(c.model->moe_ffn_hidden_size, 14336);  // defaulted to ffn_hidden_size
  EXPECT_THAT(c.model->field_sources.at("moe_ffn_hidden_size"), ::testing::HasSubstr("megatron_lm_default"));
  EXPECT_EQ(c.model->seq_length, 32768);
  EXPECT_EQ(c.model->kind, "moe");
  EXPECT_EQ(c.gpus, 8);  // NNODES=${SLURM_NNODES:-"1"}
  // if [ -n "${WANDB_API_KEY}" ]: not set in the script, not decidable.
  EXPECT_EQ(Arg(c, "--wandb-project"), nullptr);
  EXPECT_TRUE(AnyContains(c.notes, "do not decide"));
  EXPECT_TRUE(AnyContains(c.warnings, "Llama2Tokenizer"));
}

TEST(ImportMegatronTest, MambaHybrid) {
  ImportedConfig c = Import(Fixture("mamba_hybrid_800m.sh"));
  ExpectMapped(c, {"--tensor-model-parallel-size", "--sequence-parallel", "--pipeline-model-parallel-size",
                   "--use-distributed-optimizer", "--overlap-grad-reduce", "--untie-embeddings-and-output-weights",
                   "--position-embedding-type", "--hybrid-layer-pattern", "--hidden-size", "--num-attention-heads",
                   "--group-query-attention", "--num-query-groups", "--seq-length", "--max-position-embeddings",
                   "--micro-batch-size", "--global-batch-size", "--disable-bias-linear", "--normalization", "--bf16"});
  ASSERT_TRUE(c.model.has_value());
  const ModelSpec& m = *c.model;
  EXPECT_EQ(m.hybrid_layer_pattern, "M-M-M--M-*M-M-M-M--*M-M-M-M-*M--M-M-M-*M-M--M-M-");
  EXPECT_EQ(m.num_layers, 48);
  EXPECT_EQ(m.hidden_size, 1024);
  EXPECT_EQ(m.kind, "hybrid_mamba");
  EXPECT_EQ(m.mamba_state_dim, 128);
  EXPECT_EQ(m.mamba_head_dim, 64);
  EXPECT_EQ(m.mamba_num_heads, 32);
  EXPECT_EQ(m.position_embedding_type, "none");
  EXPECT_EQ(Arg(c, "--hybrid-layer-pattern")->line, 55);  // its line inside the options string
  EXPECT_EQ(Arg(c, "--micro-batch-size")->line, 73);
  EXPECT_EQ(c.config.gbs, 32);  // the case statement's 800M branch
  EXPECT_EQ(c.config.mbs, 4);
  EXPECT_EQ(c.gpus, 8);
  const ImportedArgument* spec = Arg(c, "--spec");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->status, ArgumentStatus::kNotModelled);
}

TEST(ImportMegatronTest, GptOss) {
  ImportedConfig c = Import(Fixture("gptoss_20b_proxy.sh"));
  ExpectMapped(c, {"--disable-bias-linear",
                   "--untie-embeddings-and-output-weights",
                   "--normalization",
                   "--num-layers",
                   "--hidden-size",
                   "--ffn-hidden-size",
                   "--num-attention-heads",
                   "--group-query-attention",
                   "--num-query-groups",
                   "--seq-length",
                   "--max-position-embeddings",
                   "--position-embedding-type",
                   "--quick-geglu",
                   "--softmax-type",
                   "--window-attn-skip-freq",
                   "--window-size",
                   "--num-experts",
                   "--moe-router-topk",
                   "--moe-token-dispatcher-type",
                   "--overlap-grad-reduce",
                   "--moe-ffn-hidden-size",
                   "--moe-permute-fusion",
                   "--micro-batch-size",
                   "--global-batch-size",
                   "--bf16",
                   "--accumulate-allreduce-grads-in-fp32",
                   "--recompute-activations",
                   "--tensor-model-parallel-size",
                   "--pipeline-model-parallel-size",
                   "--expert-model-parallel-size",
                   "--sequence-parallel",
                   "--context-parallel-size",
                   "--use-distributed-optimizer",
                   "--fp8-format",
                   "--fp8-param-gather",
                   "--vocab-size"});
  EXPECT_EQ(c.config.pp, 8);  // PP_SIZE=${WORLD_SIZE} = $((8*1))
  EXPECT_EQ(c.config.recompute_granularity, "selective");
  EXPECT_EQ(c.config.precision, "fp8-ds");
  EXPECT_EQ(c.config.moe_permute_fusion, true);
  ASSERT_TRUE(c.model.has_value());
  EXPECT_EQ(c.model->softmax_type, "learnable");
  EXPECT_EQ(c.model->window_size, 127);
  EXPECT_EQ(c.model->window_attn_skip_freq, 2);
  EXPECT_EQ(c.model->activation_func, "quick_gelu");
  EXPECT_TRUE(c.model->gated_linear_unit);
  EXPECT_EQ(c.model->num_moe_experts, 4);
  EXPECT_TRUE(AnyContains(c.notes, "loop is not run"));
}

TEST(ImportMegatronTest, Llama3FsdpFp8) {
  ImportedConfig c = Import(Fixture("llama3_8b_fsdp_h100_fp8.sh"));
  ExpectMapped(c,
               {"--num-layers", "--hidden-size", "--ffn-hidden-size", "--num-attention-heads", "--num-query-groups",
                "--kv-channels", "--swiglu", "--use-megatron-fsdp", "--data-parallel-sharding-strategy", "--fp8-format",
                "--fp8-param-gather", "--bf16", "--tensor-model-parallel-size", "--context-parallel-size",
                "--use-distributed-optimizer", "--overlap-grad-reduce", "--micro-batch-size", "--global-batch-size"});
  EXPECT_TRUE(c.config.use_megatron_fsdp);
  EXPECT_EQ(c.config.precision, "fp8-ds");
  EXPECT_EQ(c.gpus, 8);
  // USE_UV=1 chooses "uv run" before the launcher; the profiler branch is off.
  EXPECT_EQ(Arg(c, "--profile"), nullptr);
}

TEST(ImportMegatronTest, DeepSeekV3FsdpSbatch) {
  ImportedConfig c = Import(Fixture("deepseek_v3_fsdp.sh"));
  ExpectMapped(c, {"--tensor-model-parallel-size",
                   "--expert-model-parallel-size",
                   "--expert-tensor-parallel-size",
                   "--context-parallel-size",
                   "--use-distributed-optimizer",
                   "--overlap-grad-reduce",
                   "--sequence-parallel",
                   "--disable-bias-linear",
                   "--micro-batch-size",
                   "--global-batch-size",
                   "--recompute-granularity",
                   "--recompute-modules",
                   "--seq-length",
                   "--num-layers",
                   "--hidden-size",
                   "--ffn-hidden-size",
                   "--num-attention-heads",
                   "--kv-channels",
                   "--max-position-embeddings",
                   "--position-embedding-type",
                   "--make-vocab-size-divisible-by",
                   "--normalization",
                   "--swiglu",
                   "--untie-embeddings-and-output-weights",
                   "--multi-latent-attention",
                   "--num-experts",
                   "--moe-layer-freq",
                   "--moe-ffn-hidden-size",
                   "--moe-shared-expert-intermediate-size",
                   "--moe-router-topk",
                   "--moe-token-dispatcher-type",
                   "--moe-flex-dispatcher-backend",
                   "--moe-permute-fusion",
                   "--moe-router-force-load-balancing",
                   "--q-lora-rank",
                   "--kv-lora-rank",
                   "--qk-head-dim",
                   "--qk-pos-emb-head-dim",
                   "--v-head-dim",
                   "--rotary-scaling-factor",
                   "--mtp-num-layers",
                   "--bf16",
                   "--use-megatron-fsdp"});
  EXPECT_EQ(c.config.ep, 8);
  EXPECT_EQ(c.config.etp, 1);
  EXPECT_EQ(c.config.mbs, 4);
  EXPECT_EQ(c.config.gbs, 2048);
  EXPECT_EQ(c.config.recompute_granularity, "selective");
  EXPECT_THAT(c.config.recompute_modules, ::testing::ElementsAre("mlp", "moe", "mla_up_proj", "layernorm"));
  EXPECT_EQ(c.config.moe_token_dispatcher_type, "flex");
  EXPECT_EQ(c.config.moe_flex_dispatcher_backend, "hybridep");
  EXPECT_EQ(c.config.mtp_num_layers, 1);
  // No --no-rope-fusion: Megatron-LM's parser leaves apply_rope_fusion set, and MLA's RoPE runs fused.
  EXPECT_FALSE(c.config.apply_rope_fusion.has_value());
  ASSERT_TRUE(c.model.has_value());
  const ModelSpec& m = *c.model;
  EXPECT_EQ(m.num_layers, 61);
  EXPECT_EQ(m.first_k_dense_layers, 3);
  EXPECT_EQ(m.moe_layer_freq, 1);
  EXPECT_EQ(m.num_moe_experts, 256);
  EXPECT_EQ(m.moe_router_topk, 8);
  EXPECT_EQ(m.q_lora_rank, 1536);
  EXPECT_EQ(m.kv_lora_rank, 512);
  EXPECT_EQ(m.mtp_num_layers, 1);
  EXPECT_EQ(m.kind, "mla_moe");
  EXPECT_EQ(m.make_vocab_size_divisible_by, 3232);
  EXPECT_TRUE(AnyContains(c.notes, "heredoc"));
  EXPECT_TRUE(AnyContains(c.notes, "TRAINING_CMD"));
  EXPECT_EQ(c.gpus, 0);  // #SBATCH --nodes=your_own_num_nodes: unknown
}

// An older example: a fine-tuning entry point, the launcher's options in a
// string, the global batch from $4, and flags d98e8a64's parser refuses.
TEST(ImportMegatronTest, DetoxifyFinetune) {
  ImportedConfig c = Import(Fixture("detoxify_gpt_1p3b_finetune.sh"));
  ExpectMapped(c, {"--num-layers", "--hidden-size", "--num-attention-heads", "--micro-batch-size",
                   "--global-batch-size", "--seq-length", "--max-position-embeddings", "--fp16"});
  EXPECT_EQ(c.gpus, 16);
  EXPECT_EQ(c.gpus_per_node, 16);
  EXPECT_EQ(c.config.mbs, 4);
  EXPECT_EQ(c.config.gbs, 0);  // $bs = $4: not known, not guessed
  EXPECT_TRUE(AnyContains(c.warnings, "config.gbs left unset"));
  ASSERT_TRUE(c.model.has_value());
  EXPECT_EQ(c.model->num_layers, 24);
  EXPECT_EQ(c.model->hidden_size, 2048);
  EXPECT_TRUE(AnyContains(c.notes, "finetune_gpt.py is not one of Megatron-LM's pretrain scripts"));
  const ImportedArgument* old = Arg(c, "--checkpoint-activations");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->status, ArgumentStatus::kNotModelled);
  EXPECT_TRUE(AnyContains(c.warnings, "--checkpoint-activations"));
  EXPECT_TRUE(c.config.recompute_granularity.empty());
}

TEST(ImportMegatronTest, ArgsBlock) {
  const std::string text = Fixture("args_block_llama3_8b.txt");
  EXPECT_EQ(DetectMegatronLm(text), ImportFormat::kMegatronLmArgsBlock);
  ImportedConfig c = Import(text, ImportFormat::kMegatronLmArgsBlock);
  ExpectMapped(c, {"tensor_model_parallel_size", "pipeline_model_parallel_size", "sequence_parallel",
                   "micro_batch_size", "global_batch_size", "num_layers", "hidden_size", "ffn_hidden_size",
                   "num_attention_heads", "num_query_groups", "group_query_attention", "swiglu", "fp8", "bf16",
                   "add_bias_linear", "untie_embeddings_and_output_weights", "world_size", "padded_vocab_size"});
  EXPECT_EQ(c.config.tp, 2);
  EXPECT_EQ(c.config.sp, true);
  EXPECT_EQ(c.config.etp, 2);
  EXPECT_EQ(c.config.precision, "fp8-ds");
  EXPECT_EQ(c.config.attention_backend, "fused");
  EXPECT_EQ(c.config.cp_comm_type, "p2p");
  EXPECT_EQ(c.config.use_distributed_optimizer, true);
  EXPECT_EQ(c.gpus, 8);
  ASSERT_TRUE(c.model.has_value());
  EXPECT_EQ(c.model->num_query_groups, 8);
  EXPECT_EQ(c.model->vocab_size, 128256);
  EXPECT_FALSE(c.model->add_bias_linear);
  EXPECT_FALSE(c.model->share_embeddings_and_output_weights);
  EXPECT_EQ(c.model->activation_func, "silu");
  const ImportedArgument* save = Arg(c, "save");
  ASSERT_NE(save, nullptr);
  EXPECT_EQ(save->status, ArgumentStatus::kNoEffect);
  EXPECT_EQ(save->origin, "args-block");
}

TEST(ImportMegatronTest, FunctionalTestYaml) {
  const std::string text = Fixture("functional_moe_proxy.yaml");
  EXPECT_EQ(DetectMegatronLm(text), ImportFormat::kMegatronLmYaml);
  ImportedConfig c = Import(text, ImportFormat::kMegatronLmYaml);
  ExpectMapped(c, {"--tensor-model-parallel-size", "--expert-model-parallel-size", "--expert-tensor-parallel-size",
                   "--use-megatron-fsdp", "--fp8-format", "--fp8-recipe", "--fp8-param-gather", "--num-layers",
                   "--num-experts", "--moe-layer-freq", "--recompute-granularity", "--recompute-method",
                   "--recompute-num-layers", "--multi-latent-attention", "--tp-comm-overlap"});
  EXPECT_EQ(c.config.precision, "fp8-cs");
  EXPECT_EQ(c.config.ep, 2);
  EXPECT_EQ(c.config.attention_backend, "unfused");
  EXPECT_EQ(c.config.recompute_granularity, "full");
  EXPECT_EQ(c.config.recompute_method, "uniform");
  EXPECT_EQ(c.config.recompute_num_layers, 1);
  EXPECT_FALSE(c.config.tp_comm_overlap.has_value());  // false: the switch is not passed
  ASSERT_TRUE(c.model.has_value());
  EXPECT_EQ(c.model->first_k_dense_layers, 3);
  EXPECT_TRUE(c.model->multi_latent_attention);
  EXPECT_EQ(c.model->kv_lora_rank, 32);  // Megatron-LM's --kv-lora-rank default
  EXPECT_THAT(c.model->field_sources.at("kv_lora_rank"), ::testing::HasSubstr("megatron_lm_default"));
  const ImportedArgument* data = Arg(c, "--data-path");
  ASSERT_NE(data, nullptr);
  EXPECT_THAT(data->note, ::testing::HasSubstr("${DATA_PATH}"));
}

TEST(ImportMegatronTest, Contradictions) {
  ImportOptions o;
  auto both =
      ImportMegatronLm("python pretrain_gpt.py --bf16 --fp16 --num-layers 2", ImportFormat::kMegatronLmScript, o);
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(both.status().message(), ::testing::HasSubstr("--bf16"));
  EXPECT_THAT(both.status().message(), ::testing::HasSubstr("--fp16"));
  auto vpp = ImportMegatronLm(
      "torchrun pretrain_gpt.py --num-layers 8 --pipeline-model-parallel-size 2 "
      "--num-layers-per-virtual-pipeline-stage 2 --pipeline-model-parallel-layout 'Et|t|t|tL'",
      ImportFormat::kMegatronLmScript, o);
  ASSERT_FALSE(vpp.ok());
  EXPECT_THAT(vpp.status().message(), ::testing::HasSubstr("--num-layers-per-virtual-pipeline-stage"));
  EXPECT_THAT(vpp.status().message(), ::testing::HasSubstr("--pipeline-model-parallel-layout"));
  auto nope = ImportMegatronLm("python pretrain_gpt.py --num-layers 2 --no-position-embedding",
                               ImportFormat::kMegatronLmScript, o);
  ASSERT_FALSE(nope.ok());
  EXPECT_THAT(nope.status().message(), ::testing::HasSubstr("--no-position-embedding"));
  auto bad =
      ImportMegatronLm("python pretrain_gpt.py --tensor-model-parallel-size eight", ImportFormat::kMegatronLmScript, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("--tensor-model-parallel-size"));
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("eight"));
  auto act = ImportMegatronLm("python pretrain_gpt.py --swiglu --squared-relu", ImportFormat::kMegatronLmScript, o);
  ASSERT_FALSE(act.ok());
  EXPECT_THAT(act.status().message(), ::testing::HasSubstr("--swiglu"));
  EXPECT_THAT(act.status().message(), ::testing::HasSubstr("--squared-relu"));
  auto recipe = ImportMegatronLm("python pretrain_gpt.py --fp8-format hybrid --fp8-recipe custom",
                                 ImportFormat::kMegatronLmScript, o);
  ASSERT_FALSE(recipe.ok());
  EXPECT_THAT(recipe.status().message(), ::testing::HasSubstr("custom"));
}

// --no-rope-fusion clears Megatron-LM's default (fused RoPE); mapped, not left over.
TEST(ImportMegatronTest, NoRopeFusion) {
  const ImportedConfig c = Import("python pretrain_gpt.py --num-layers 2 --no-rope-fusion");
  EXPECT_EQ(c.config.apply_rope_fusion, false);
  const ImportedArgument* a = Arg(c, "--no-rope-fusion");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->status, ArgumentStatus::kMapped);
}

TEST(ImportMegatronTest, VppFromLayersPerStage) {
  ImportedConfig c = Import(
      "torchrun --nproc-per-node=8 --nnodes=2 pretrain_gpt.py --num-layers 32 --pipeline-model-parallel-size 4 "
      "--num-layers-per-virtual-pipeline-stage 2");
  EXPECT_EQ(c.config.vpp, 4);
  EXPECT_EQ(c.gpus, 16);
  EXPECT_EQ(c.gpus_per_node, 8);
}

TEST(ImportMegatronTest, LaunchersGiveTheGpus) {
  ImportedConfig srun =
      Import("srun --nodes=2 --ntasks-per-node=8 python pretrain_gpt.py --tensor-model-parallel-size 8");
  EXPECT_EQ(srun.gpus, 16);
  EXPECT_EQ(srun.gpus_per_node, 8);
  ImportedConfig module =
      Import("python -m torch.distributed.run --nproc-per-node 4 --nnodes 3 pretrain_mamba.py --hidden-size 1024");
  EXPECT_EQ(module.gpus, 12);
  ImportedConfig env = Import("GPUS_PER_NODE=8\nNUM_NODES=4\npython pretrain_gpt.py --micro-batch-size 2\n");
  EXPECT_EQ(env.gpus, 32);
  EXPECT_EQ(env.gpus_per_node, 8);
  ImportedConfig elastic = Import("torchrun --nproc_per_node 8 --nnodes 1:4 pretrain_gpt.py --micro-batch-size 2");
  EXPECT_EQ(elastic.gpus, 0);  // an elastic node range: not one world size
  EXPECT_EQ(elastic.gpus_per_node, 8);
}

TEST(ImportMegatronTest, UnexpandableVariableIsListedNotGuessed) {
  ImportedConfig c = Import(
      "torchrun --nproc_per_node $GPUS pretrain_gpt.py --tensor-model-parallel-size $TP "
      "--pipeline-model-parallel-size ${PP:-2}");
  const ImportedArgument* tp = Arg(c, "--tensor-model-parallel-size");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value, "$TP");
  EXPECT_THAT(tp->note, ::testing::HasSubstr("TP is not set in the script"));
  EXPECT_EQ(c.config.tp, 0);  // unset, not guessed
  EXPECT_TRUE(AnyContains(c.warnings, "config.tp left unset"));
  EXPECT_EQ(c.config.pp, 2);  // ${PP:-2}: the script's own default
  EXPECT_THAT(Arg(c, "--pipeline-model-parallel-size")->note, ::testing::HasSubstr("default"));
  EXPECT_EQ(c.gpus, 0);
}

TEST(ImportMegatronTest, SequenceParallelWithTp1IsDroppedWithAWarning) {
  ImportedConfig c = Import("python pretrain_gpt.py --tensor-model-parallel-size 1 --sequence-parallel");
  EXPECT_EQ(c.config.sp, false);
  EXPECT_TRUE(AnyContains(c.warnings, "Megatron-LM turns sequence parallelism off"));
  ImportedConfig on = Import("python pretrain_gpt.py --tensor-model-parallel-size 2 --sequence-parallel");
  EXPECT_EQ(on.config.sp, true);
  EXPECT_FALSE(AnyContains(on.warnings, "sequence parallelism off"));
}

TEST(ImportMegatronTest, GroupsWithoutGqaAreIgnored) {
  ImportedConfig c = Import(
      "python pretrain_gpt.py --num-layers 2 --hidden-size 256 --num-attention-heads 8 "
      "--num-query-groups 2 --vocab-size 1000");
  ASSERT_TRUE(c.model.has_value());
  EXPECT_EQ(c.model->num_query_groups, 8);
  EXPECT_TRUE(AnyContains(c.warnings, "without --group-query-attention"));
}

TEST(ImportMegatronTest, DetectsOtherTextsAsNotMegatron) {
  EXPECT_EQ(DetectMegatronLm("{\"num_hidden_layers\": 32}"), ImportFormat::kAuto);
  EXPECT_EQ(DetectMegatronLm("recipe:llama3_8b_pretrain_config"), ImportFormat::kAuto);
  ImportOptions o;
  auto none = ImportMegatronLm("echo hello", ImportFormat::kMegatronLmScript, o);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), ::testing::HasSubstr("no Megatron-LM launch found"));
  auto wrong = ImportMegatronLm("x", ImportFormat::kBridgeYaml, o);
  EXPECT_FALSE(wrong.ok());
  ImportOptions with_overrides;
  with_overrides.overrides = {"model.tensor_model_parallel_size=4"};
  auto overridden =
      ImportMegatronLm("python pretrain_gpt.py --num-layers 2", ImportFormat::kMegatronLmScript, with_overrides);
  ASSERT_FALSE(overridden.ok());
  EXPECT_THAT(overridden.status().message(), ::testing::HasSubstr("Bridge"));
}

TEST(FieldMapTest, EveryEntryHasASetterAndKnownFlagsRoundTrip) {
  std::set<std::string> fields;
  for (const auto& e : FieldMap()) {
    EXPECT_TRUE(fields.insert(e.field).second) << "duplicate " << e.field;
    EXPECT_NE(e.set, nullptr) << e.field;
    if (e.field.rfind("placement.", 0) != 0) {
      EXPECT_NE(e.get, nullptr) << e.field;
    }
  }
  ASSERT_NE(FindField("config.tp"), nullptr);
  EXPECT_EQ(FindBridgePath("model.tensor_model_parallel_size"), FindField("config.tp"));
  EXPECT_EQ(FindBridgePath("train.global_batch_size"), FindField("config.gbs"));
  EXPECT_EQ(FindMegatronFlag("--swiglu").size(), 2u);
  EXPECT_EQ(FindMegatronFlag("tensor_model_parallel_size").size(), 1u);
  EXPECT_THAT(MegatronLmArguments(*FindField("config.recompute_modules"), "core_attn,mlp"),
              ::testing::ElementsAre("--recompute-modules", "core_attn", "mlp"));
  EXPECT_THAT(MegatronLmArguments(*FindField("model.share_embeddings_and_output_weights"), "false"),
              ::testing::ElementsAre("--untie-embeddings-and-output-weights"));
  std::vector<int> list;
  EXPECT_TRUE(EvalLayerPattern("([0]*3+[1]*58)", "x", 4096, &list).ok());
  EXPECT_EQ(list.size(), 61u);
  EXPECT_FALSE(EvalLayerPattern("[2]*3", "x", 4096, &list).ok());
  EXPECT_FALSE(EvalLayerPattern("[1]*100000", "x", 4096, &list).ok());
  ImportedConfig c;
  absl::Status s = FindField("config.recompute_granularity")->set(&c, "sometimes", "--recompute-granularity");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), ::testing::HasSubstr("sometimes"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("selective"));
}

}  // namespace
}  // namespace parplan

namespace parplan {
namespace {

TEST(ImportMegatronTest, AllocatorConfSetsExpandableSegments) {
  const std::string script =
      "export PYTORCH_CUDA_ALLOC_CONF=garbage_collection_threshold:0.6,expandable_segments:False\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 --micro-batch-size 1\n";
  const ImportedConfig off = Import(script);
  ASSERT_TRUE(off.config.expandable_segments.has_value());
  EXPECT_FALSE(*off.config.expandable_segments);
  bool said = false;
  for (const auto& n : off.notes) said = said || absl::StrContains(n, "expandable_segments:False");
  EXPECT_TRUE(said);
  const ImportedConfig on =
      Import("PYTORCH_ALLOC_CONF=expandable_segments:True\npython pretrain_gpt.py --micro-batch-size 1\n");
  ASSERT_TRUE(on.config.expandable_segments.has_value());
  EXPECT_TRUE(*on.config.expandable_segments);
  EXPECT_FALSE(Import("python pretrain_gpt.py --micro-batch-size 1\n").config.expandable_segments.has_value());
}

}  // namespace
}  // namespace parplan
