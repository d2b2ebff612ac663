// The Megatron Bridge recipe catalog (core/import/bridge_recipes.h): it
// holds every pretrain recipe of a catalog model, the names resolve, and the
// settings are the recipes' own (values read from Bridge 067f987df0, cited).
#include "core/import/bridge_recipes.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/config/front_end.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

// Every pretrain recipe function of a parplan catalog model at Bridge
// 067f987df0, listed independently of the generator with
//   git grep -h -o -E "^def (<catalog prefixes>)_[a-z0-9_]*pretrain[a-z0-9_]*_config"
//     067f987df0 -- src/megatron/bridge/recipes
// (nemotron_3_nano_4b excluded: not a catalog model).
const std::vector<std::string>& PinnedPretrainRecipes() {
  static const auto* names = new std::vector<std::string>{
      "deepseek_v2_lite_pretrain_8gpu_h100_bf16_config",
      "deepseek_v2_pretrain_128gpu_h100_bf16_config",
      "deepseek_v3_pretrain_1024gpu_h100_bf16_config",
      "deepseek_v3_pretrain_256gpu_h100_bf16_32nodes_config",
      "deepseek_v4_flash_pretrain_32gpu_h100_bf16_config",
      "deepseek_v4_flash_pretrain_32gpu_h100_bf16_muon_config",
      "deepseek_v4_flash_pretrain_32gpu_h100_fp8mx_config",
      "deepseek_v4_flash_pretrain_64gpu_gb200_bf16_config",
      "deepseek_v4_flash_pretrain_64gpu_gb200_bf16_muon_config",
      "deepseek_v4_flash_pretrain_64gpu_gb200_fp8mx_config",
      "glm45_355b_pretrain_128gpu_h100_bf16_config",
      "glm45_air_106b_pretrain_32gpu_h100_bf16_config",
      "gpt3_175b_pretrain_32gpu_h100_bf16_config",
      "gpt_oss_120b_pretrain_64gpu_h100_bf16_config",
      "gpt_oss_20b_pretrain_16gpu_h100_bf16_config",
      "gpt_oss_20b_pretrain_16gpu_h100_fp8cs_config",
      "gpt_oss_20b_pretrain_16gpu_h100_fp8mx_config",
      "kimi_k2_pretrain_512gpu_h100_bf16_config",
      "llama31_405b_pretrain_256gpu_h100_bf16_config",
      "llama31_405b_pretrain_256gpu_h100_bf16_deterministic_config",
      "llama31_70b_pretrain_32gpu_h100_bf16_config",
      "llama31_8b_pretrain_2gpu_h100_bf16_config",
      "llama32_1b_pretrain_1gpu_h100_bf16_config",
      "llama32_3b_pretrain_1gpu_h100_bf16_config",
      "llama3_70b_pretrain_256gpu_h100_bf16_64k_config",
      "llama3_70b_pretrain_32gpu_h100_bf16_16k_config",
      "llama3_70b_pretrain_32gpu_h100_bf16_config",
      "llama3_70b_pretrain_32gpu_h100_bf16_deterministic_config",
      "llama3_8b_pretrain_16gpu_h100_bf16_16k_config",
      "llama3_8b_pretrain_2gpu_h100_bf16_config",
      "llama3_8b_pretrain_2gpu_h100_fp8cs_config",
      "llama3_8b_pretrain_2gpu_h100_fp8mx_config",
      "llama3_8b_pretrain_2gpu_h100_nvfp4_config",
      "llama3_8b_pretrain_32gpu_h100_bf16_64k_config",
      "llama3_8b_pretrain_64gpu_h100_bf16_128k_config",
      "moonlight_16b_pretrain_16gpu_h100_bf16_config",
      "moonlight_16b_pretrain_8gpu_h100_bf16_config",
      "nemotron_3_5_lightning_pretrain_8k_config",
      "nemotron_3_5_lightning_pretrain_8k_fsdp_config",
      "nemotron_3_5_lightning_pretrain_config",
      "nemotron_3_nano_pretrain_8gpu_gb200_bf16_config",
      "nemotron_3_nano_pretrain_8gpu_h100_bf16_config",
      "nemotron_3_super_pretrain_16gpu_h100_bf16_config",
      "nemotron_3_super_pretrain_64gpu_gb200_bf16_config",
      "nemotron_3_super_pretrain_config",
      "nemotron_3_ultra_pretrain_24gpu_h100_bf16_config",
      "nemotronh_47b_pretrain_8gpu_h100_bf16_config",
      "nemotronh_4b_pretrain_1gpu_h100_bf16_config",
      "nemotronh_56b_pretrain_8gpu_h100_bf16_config",
      "nemotronh_8b_pretrain_2gpu_h100_bf16_config",
      "olmoe_7b_pretrain_8gpu_h100_bf16_config",
      "qwen3_235b_a22b_pretrain_256gpu_h100_bf16_config",
      "qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config",
      "qwen3_30b_a3b_pretrain_8gpu_gb200_fp8mx_functional_config",
      "qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config",
      "qwen3_32b_pretrain_16gpu_h100_bf16_config",
      "qwen3_8b_pretrain_16gpu_h100_bf16_config",
      "qwen3_8b_pretrain_4gpu_h100_bf16_config",
  };
  return *names;
}

std::string Setting(const BridgeRecipe& r, const std::string& path) {
  const BridgeSetting* s = FindRecipeSetting(r, path);
  return s == nullptr ? "<unset>" : s->value;
}

TEST(BridgeRecipes, CatalogHoldsEveryPretrainRecipeOfACatalogModel) {
  std::set<std::string> pretrain;
  for (const auto& r : BridgeRecipes())
    if (r.task == "pretrain" && r.kind == "recipe") pretrain.insert(r.name);
  for (const auto& name : PinnedPretrainRecipes()) EXPECT_TRUE(pretrain.count(name)) << name;
  EXPECT_EQ(pretrain.size(), PinnedPretrainRecipes().size());
}

TEST(BridgeRecipes, EveryRecipeIsWellFormed) {
  std::set<std::string> names;
  std::set<std::string> known_versions;
  for (const auto& v : KnownBridgeReleases()) known_versions.insert(BridgeVersionName(v));
  ASSERT_GT(BridgeRecipes().size(), 100u);
  for (const auto& r : BridgeRecipes()) {
    SCOPED_TRACE(r.name);
    EXPECT_TRUE(names.insert(r.name).second) << "duplicate";
    EXPECT_TRUE(r.task == "pretrain" || r.task == "sft" || r.task == "peft") << r.task;
    EXPECT_TRUE(Catalog::Get().FindModel(r.model_id).ok()) << r.model_id;
    EXPECT_FALSE(r.provider.empty());
    EXPECT_FALSE(r.source.empty());
    EXPECT_TRUE(r.kind == "recipe" || r.kind == "performance") << r.kind;
    EXPECT_GT(r.settings.size(), 50u);
    EXPECT_NE(FindRecipeSetting(r, "train.global_batch_size"), nullptr);
    EXPECT_NE(FindRecipeSetting(r, "model.tensor_model_parallel_size"), nullptr);
    for (const auto& v : r.versions) EXPECT_TRUE(known_versions.count(v) || v == "0.1.0") << v;
  }
}

TEST(BridgeRecipes, FindsByNameAliasAndShortName) {
  const BridgeRecipe* r = FindBridgeRecipe("llama3_70b_pretrain_32gpu_h100_bf16_config");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(FindBridgeRecipe("llama3_70b_pretrain_config"), r);  // legacy alias, recipes/llama/llama3.py:46
  EXPECT_EQ(FindBridgeRecipe("llama3_70b_pretrain"), r);
  EXPECT_EQ(FindBridgeRecipe("recipe:Llama3-70B_pretrain_config"), r);
  EXPECT_EQ(r->model_id, "llama3_70b");
  EXPECT_EQ(r->task, "pretrain");
  EXPECT_EQ(r->gpus, 32);
  EXPECT_EQ(r->gpu, "h100");
  EXPECT_EQ(FindBridgeRecipe("llama3_70b_pretrain_configx"), nullptr);
  EXPECT_EQ(FindBridgeRecipe(""), nullptr);
  EXPECT_EQ(FindBridgeRecipe(std::string(1000, 'a')), nullptr);
}

TEST(BridgeRecipes, NearestNamesForATypo) {
  const auto near = NearestBridgeRecipes("lama3_70b_pretrain_config");
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near.front(), "llama3_70b_pretrain_config");
}

// src/megatron/bridge/recipes/llama/h100/llama3.py:717-805 at 067f987df0.
TEST(BridgeRecipes, Llama3_70bSettingsAreTheRecipes) {
  const BridgeRecipe* r = FindBridgeRecipe("llama3_70b_pretrain_config");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(Setting(*r, "model.tensor_model_parallel_size"), "4");
  EXPECT_EQ(Setting(*r, "model.pipeline_model_parallel_size"), "4");
  EXPECT_EQ(Setting(*r, "model.virtual_pipeline_model_parallel_size"), "5");
  EXPECT_EQ(Setting(*r, "model.context_parallel_size"), "2");
  EXPECT_EQ(Setting(*r, "model.sequence_parallel"), "true");
  EXPECT_EQ(Setting(*r, "model.seq_length"), "8192");
  EXPECT_EQ(Setting(*r, "dataset.seq_length"), "8192");
  EXPECT_EQ(Setting(*r, "train.global_batch_size"), "512");
  EXPECT_EQ(Setting(*r, "train.micro_batch_size"), "1");
  EXPECT_EQ(Setting(*r, "comm_overlap.tp_comm_overlap"), "true");
  EXPECT_EQ(Setting(*r, "mixed_precision"), "bf16_mixed");  // recipes/common.py _pretrain_common
  // The optimizer helper's values (recipes/utils/optimizer_utils.py
  // distributed_fused_adam_with_cosine_annealing; max_lr 3e-4 from common.py).
  EXPECT_EQ(Setting(*r, "optimizer.lr"), "0.0003");
  EXPECT_EQ(Setting(*r, "optimizer.use_distributed_optimizer"), "true");
  // The userbuffers config the recipe names (training/comm_overlap.py
  // userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192).
  EXPECT_EQ(Setting(*r, "comm_overlap.tp_comm_overlap_cfg.proj_fprop.num_splits"), "4");
  EXPECT_FALSE(r->versions.empty());
  EXPECT_TRUE(RecipeInVersion(*r, "0.6.0"));
}

// src/megatron/bridge/recipes/deepseek/h100/deepseek_v3.py:105-270: the
// layout comes from set_deepseek_v3_pipeline_model_parallel_layout (PP 16,
// no VPP), the dispatcher from apply_flex_dispatcher_backend.
TEST(BridgeRecipes, DeepSeekV3FollowsItsHelpers) {
  const BridgeRecipe* r = FindBridgeRecipe("deepseek_v3_pretrain_config");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->model_id, "deepseek_v3");
  EXPECT_EQ(Setting(*r, "model.tensor_model_parallel_size"), "2");
  EXPECT_EQ(Setting(*r, "model.pipeline_model_parallel_size"), "16");
  EXPECT_EQ(Setting(*r, "model.expert_model_parallel_size"), "64");
  EXPECT_EQ(Setting(*r, "model.expert_tensor_parallel_size"), "1");
  EXPECT_EQ(Setting(*r, "model.mtp_num_layers"), "1");
  EXPECT_EQ(Setting(*r, "train.global_batch_size"), "4096");
  const std::string layout = Setting(*r, "model.pipeline_model_parallel_layout");
  ASSERT_EQ(layout.rfind("[[\"embedding\"", 0), 0u) << layout;
  EXPECT_NE(layout.find("\"mtp\",\"loss\"]]"), std::string::npos) << layout;
  EXPECT_EQ(Setting(*r, "mixed_precision.bf16"), "true");  // a MixedPrecisionConfig object, :102
}

// src/megatron/bridge/perf_recipes/llama/h100/llama3.py:20-35 at 067f987df0.
TEST(BridgeRecipes, PerformanceRecipesNameTheirSystem) {
  const BridgeRecipe* r = FindBridgeRecipe("llama3_8b_pretrain_8gpu_h100_bf16_config");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, "performance");
  EXPECT_EQ(r->gpus, 8);
  EXPECT_EQ(r->gpu, "h100");
  EXPECT_EQ(Setting(*r, "model.context_parallel_size"), "2");
  EXPECT_EQ(Setting(*r, "train.global_batch_size"), "128");
  EXPECT_EQ(Setting(*r, "comm_overlap.tp_comm_overlap"), "false");
  EXPECT_EQ(Setting(*r, "tokenizer.vocab_size"), "128256");
}

// Bridge v0.2.0 src/megatron/bridge/recipes/llama/llama3.py:288 (the
// legacy function) through _llama3_common (:456 adam_eps = 1e-5, :459
// eval_interval in TrainingConfig); the pinned recipe uses 1e-8 and puts
// eval_interval in ValidationConfig.
TEST(BridgeRecipes, HistoryRecordsOlderReleases) {
  const BridgeRecipe* r = FindBridgeRecipe("llama3_70b_pretrain_config");
  ASSERT_NE(r, nullptr);
  const BridgeRecipeVersion* v020 = RecipeAtVersion(*r, "0.2.0");
  ASSERT_NE(v020, nullptr);
  EXPECT_EQ(v020->function, "llama3_70b_pretrain_config");
  std::map<std::string, std::string> differs;
  for (const auto& d : v020->differs) differs[d.path] = d.value;
  EXPECT_EQ(differs["optimizer.adam_eps"], "1e-05");
  EXPECT_EQ(differs["train.eval_interval"], "2000");
  EXPECT_EQ(differs.count("model.tensor_model_parallel_size"), 0u);  // TP 4 then as now
  const BridgeRecipeVersion* v060 = RecipeAtVersion(*r, "0.6.0");
  ASSERT_NE(v060, nullptr);
  EXPECT_EQ(v060->function, "llama3_70b_pretrain_32gpu_h100_bf16_config");
  EXPECT_TRUE(v060->differs.empty());
}

TEST(BridgeRecipes, FinetuneRecipesOfCatalogModels) {
  const BridgeRecipe* sft = FindBridgeRecipe("llama3_8b_sft_config");
  ASSERT_NE(sft, nullptr);
  EXPECT_EQ(sft->task, "sft");
  EXPECT_EQ(Setting(*sft, "peft"), "null");  // recipes/common.py _sft_common: peft=None
  const BridgeRecipe* peft = FindBridgeRecipe("llama3_8b_peft_config");
  ASSERT_NE(peft, nullptr);
  EXPECT_EQ(peft->task, "peft");
  EXPECT_EQ(Setting(*peft, "peft._target_"), "LoRA");  // recipes/utils/dataset_utils.py default_peft_config("lora")
  // recipes/llama/h100/llama3.py:2364: "8B uses dim=8, alpha=16" (over
  // _peft_common's dim=32).
  EXPECT_EQ(Setting(*peft, "peft.dim"), "8");
  EXPECT_EQ(Setting(*peft, "peft.alpha"), "16");
}

}  // namespace
}  // namespace parplan
