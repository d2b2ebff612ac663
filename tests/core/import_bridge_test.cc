// Importing Megatron Bridge recipes, Hydra-style overrides and ConfigContainer
// YAML (core/import/bridge_import.h). Fixtures under tests/data/import/bridge
// are written for these tests with values from Bridge's recipes and
// tutorials at 067f987df0 (each cites its source).
#include "core/import/bridge_import.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_join.h"
#include "core/catalog/catalog.h"
#include "core/config/parallel_config.h"
#include "core/import/bridge_overrides.h"
#include "core/import/bridge_recipes.h"
#include "core/import/bridge_settings.h"
#include "core/import/field_map.h"
#include "core/util/field_error.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(PARPLAN_TEST_DATA_DIR) + "/import/bridge/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::StatusOr<ImportedConfig> Import(const std::string& text, ImportFormat format,
                                      std::vector<std::string> overrides = {}) {
  ImportOptions options;
  options.format = format;
  options.overrides = std::move(overrides);
  return ImportBridge(text, format, options);
}

const ImportedArgument* Arg(const ImportedConfig& c, const std::string& name) {
  const ImportedArgument* found = nullptr;
  for (const auto& a : c.arguments)
    if (a.name == name) found = &a;
  return found;
}

// The canonical value a resolved plan has for `entry` after importing only
// `path = value` (what the one setting means on its own).
std::optional<std::string> Alone(const FieldEntry& e, const std::string& path, const std::string& value,
                                 const ModelSpec& model) {
  ImportedConfig one;
  std::string v = value;
  if (e.field == "config.precision") v = PrecisionOfBridgePreset(value, nullptr);
  if (e.field == "config.pipeline_layout") v = *BridgeLayoutToString(value, path);
  if (path == "peft._target_") v = "lora";
  if (!e.set(&one, v, path).ok()) return std::nullopt;
  auto r = ResolveConfig(one.config, &model, "config");
  if (!r.ok()) return std::nullopt;
  return e.get(*r, &model);
}

// Every recipe imports by name, its model is a catalog model, every setting
// is listed (mapped or said to be not modelled / of no effect), and each
// mapped setting reads back from the resolved plan as the recipe set it.
TEST(ImportBridge, EveryRecipeImportsWithItsOwnSettings) {
  int64_t checked = 0;
  for (const auto& r : BridgeRecipes()) {
    SCOPED_TRACE(r.name);
    auto imported = Import("recipe:" + r.name, ImportFormat::kBridgeRecipe);
    ASSERT_TRUE(imported.ok()) << imported.status();
    EXPECT_EQ(imported->recipe, r.name);
    EXPECT_EQ(imported->model_id, r.model_id);
    EXPECT_EQ(imported->config.front_end, "bridge");
    auto model = Catalog::Get().FindModel(r.model_id);
    ASSERT_TRUE(model.ok()) << r.model_id;
    size_t listed = 0;
    for (const auto& a : imported->arguments) {
      if (a.origin != "recipe") continue;
      ++listed;
      if (a.status == ArgumentStatus::kMapped) {
        EXPECT_FALSE(a.maps_to.empty()) << a.name;
      }
    }
    EXPECT_GE(listed, r.settings.size());  // plus a preset derived from a MixedPrecisionConfig
    // Every setting of the recipe is listed by its path: none dropped.
    for (const auto& s : r.settings) EXPECT_NE(Arg(*imported, s.path), nullptr) << s.path;
    const ModelSpec& m = imported->model.has_value() ? *imported->model : *model;
    auto resolved = ResolveConfig(imported->config, &m, "config");
    ASSERT_TRUE(resolved.ok()) << resolved.status();
    // Paths of one field that disagree follow Bridge's sync rules (tested
    // on their own below), not "each setting alone".
    std::map<const FieldEntry*, std::set<std::string>> values;
    for (const auto& s : r.settings)
      if (const FieldEntry* e = FindBridgePath(s.path)) values[e].insert(NormalizeBridgeValue(s.value));
    for (const auto& s : r.settings) {
      const FieldEntry* e = FindBridgePath(s.path);
      if (e != nullptr && values[e].size() > 1) continue;
      if (e == nullptr || e->get == nullptr || e->set == nullptr) continue;
      if (s.value == "null" || s.value.rfind("${", 0) == 0) continue;
      if (s.path == "ddp.grad_reduce_in_fp32" || s.path == "ddp.fp8_param_gather") continue;  // the preset's wins
      // The deprecated graph scope full_iteration sets the implementation (tested below).
      if (s.path == "model.cuda_graph_impl" && imported->config.cuda_graph_impl == "full_iteration") continue;
      // With a layout, the plan's VPP is the layout's (render writes no VPP).
      if (s.path == "model.virtual_pipeline_model_parallel_size" && !imported->config.pipeline_layout.empty()) continue;
      ++checked;
      const auto want = Alone(*e, s.path, NormalizeBridgeValue(s.value), m);
      if (!want.has_value()) continue;
      EXPECT_EQ(e->get(*resolved, &m), want) << s.path << " = " << s.value;
    }
  }
  EXPECT_GT(checked, 10 * static_cast<int64_t>(BridgeRecipes().size()));
}

const ParallelConfig& Config(const absl::StatusOr<ImportedConfig>& c) { return c->config; }

// The number of mapped arguments, after checking the plan resolves.
int RoundTripCount(const ImportedConfig& c) {
  auto model = Catalog::Get().FindModel(c.model_id);
  if (!model.ok() || !ResolveConfig(c.config, &*model, "config").ok()) return 0;
  int mapped = 0;
  for (const auto& a : c.arguments) mapped += a.status == ArgumentStatus::kMapped ? 1 : 0;
  return mapped;
}

TEST(ImportBridge, RecipeWithOverridesOnTop) {
  // recipes/llama/h100/llama3.py:717: TP 4, PP 4, VPP 5, CP 2, SP, GBS 512.
  auto c = Import(ReadFixture("llama3_70b_overrides.txt"), ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->recipe, "llama3_70b_pretrain_32gpu_h100_bf16_config");
  EXPECT_EQ(c->model_id, "llama3_70b");
  EXPECT_FALSE(c->model.has_value());  // the catalog's model, unchanged
  EXPECT_EQ(Config(c).tp, 4);
  EXPECT_EQ(Config(c).pp, 8);
  EXPECT_EQ(Config(c).vpp, 5);
  EXPECT_EQ(Config(c).cp, 1);
  EXPECT_EQ(Config(c).sp, true);
  EXPECT_EQ(Config(c).gbs, 128);
  EXPECT_EQ(Config(c).mbs, 1);
  EXPECT_EQ(Config(c).seq_length, 8192);
  EXPECT_EQ(Config(c).precision, "fp8-cs");
  EXPECT_EQ(Config(c).tp_comm_overlap, true);
  EXPECT_EQ(Config(c).cuda_graph_impl, "none");
  EXPECT_EQ(c->gpus, 32);  // the recipe's name
  EXPECT_EQ(c->system, "h100-sxm");
  const ImportedArgument* pp = Arg(*c, "model.pipeline_model_parallel_size");
  ASSERT_NE(pp, nullptr);
  EXPECT_EQ(pp->origin, "override");
  EXPECT_EQ(pp->line, 8);
  EXPECT_EQ(pp->status, ArgumentStatus::kMapped);
  EXPECT_EQ(pp->maps_to, "config.pp");
  const ImportedArgument* deleted = Arg(*c, "logger.log_timers_to_tensorboard");
  ASSERT_NE(deleted, nullptr);
  EXPECT_EQ(deleted->status, ArgumentStatus::kNoEffect);
  EXPECT_NE(deleted->note.find("deleted"), std::string::npos);
  const ImportedArgument* lr = Arg(*c, "scheduler.lr_warmup_iters");
  ASSERT_NE(lr, nullptr);
  EXPECT_EQ(lr->status, ArgumentStatus::kNoEffect);
  EXPECT_EQ(lr->value, "50");

  // options.overrides apply on top of the text, in order.
  auto on_top = Import(ReadFixture("llama3_70b_overrides.txt"), ImportFormat::kBridgeRecipe,
                       {"model.tensor_model_parallel_size=8 train.micro_batch_size=2", "train.micro_batch_size=4"});
  ASSERT_TRUE(on_top.ok()) << on_top.status();
  EXPECT_EQ(Config(on_top).tp, 8);
  EXPECT_EQ(Config(on_top).mbs, 4);
  EXPECT_EQ(Config(on_top).pp, 8);
}

TEST(ImportBridge, RunRecipeLaunchLine) {
  auto c = Import(ReadFixture("llama3_8b_run_recipe.sh"), ImportFormat::kBridgeOverrides);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->recipe, "llama3_8b_pretrain_2gpu_h100_bf16_config");
  EXPECT_EQ(c->model_id, "llama3_8b");
  EXPECT_EQ(Config(c).tp, 2);
  EXPECT_EQ(Config(c).cp, 1);
  EXPECT_EQ(Config(c).sp, true);
  EXPECT_EQ(Config(c).gbs, 256);
  EXPECT_EQ(Config(c).seq_length, 4096);  // -sl sets dataset.seq_length; the runner copies it to the model
  EXPECT_EQ(Config(c).recompute_granularity, "selective");
  EXPECT_EQ(Config(c).recompute_modules, (std::vector<std::string>{"core_attn", "mlp"}));
  EXPECT_EQ(c->gpus, 8);  // torchrun --nproc-per-node=8
  EXPECT_EQ(c->gpus_per_node, 8);
  const ImportedArgument* tp = Arg(*c, "model.tensor_model_parallel_size");
  ASSERT_NE(tp, nullptr);
  EXPECT_NE(tp->note.find("-tp"), std::string::npos);
  const ImportedArgument* dry = Arg(*c, "--dry-run");
  ASSERT_NE(dry, nullptr);
  EXPECT_EQ(dry->status, ArgumentStatus::kNoEffect);
  const ImportedArgument* save = Arg(*c, "checkpoint.save");
  ASSERT_NE(save, nullptr);
  EXPECT_EQ(save->status, ArgumentStatus::kNoEffect);
  EXPECT_EQ(save->value, "/results/llama3_8b/checkpoints");
  EXPECT_EQ(DetectBridge(ReadFixture("llama3_8b_run_recipe.sh")), ImportFormat::kBridgeOverrides);
}

TEST(ImportBridge, SkillLaunchWithEnvironmentAndTorchRun) {
  auto c = Import(ReadFixture("llama32_1b_skill_parallelism.sh"), ImportFormat::kBridgeOverrides);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->model_id, "llama32_1b");
  EXPECT_EQ(Config(c).tp, 2);
  EXPECT_EQ(Config(c).pp, 2);
  EXPECT_EQ(Config(c).sp, true);
  EXPECT_EQ(Config(c).gbs, 8);
  EXPECT_EQ(Config(c).mbs, 1);
  EXPECT_EQ(c->gpus, 4);
  const ImportedArgument* env = Arg(*c, "CUDA_VISIBLE_DEVICES=0,1,2,3");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(env->status, ArgumentStatus::kNoEffect);
  EXPECT_EQ(Arg(*c, "train.train_iters")->status, ArgumentStatus::kNoEffect);
  EXPECT_GT(RoundTripCount(*c), 0);
}

TEST(ImportBridge, SlurmTrainingLauncher) {
  auto c = Import(ReadFixture("llama3_8b_train_sh.sh"), ImportFormat::kBridgeOverrides);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->recipe, "llama3_8b_pretrain_2gpu_h100_bf16_config");
  EXPECT_EQ(Config(c).tp, 2);
  EXPECT_EQ(Config(c).gbs, 1024);
  EXPECT_EQ(c->gpus, 16);
  EXPECT_EQ(c->gpus_per_node, 8);
  const ImportedArgument* nodes = Arg(*c, "--nodes");
  ASSERT_NE(nodes, nullptr);
  EXPECT_EQ(nodes->status, ArgumentStatus::kMapped);
  EXPECT_EQ(nodes->maps_to, "placement.gpus");
  EXPECT_EQ(Arg(*c, "--account")->status, ArgumentStatus::kNoEffect);
  // Slurm options belong to the launcher, not to run_recipe.py.
  EXPECT_FALSE(Import("python scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config --nodes 2",
                      ImportFormat::kBridgeOverrides)
                   .ok());
}

TEST(ImportBridge, PerformanceLauncher) {
  auto c = Import(ReadFixture("llama3_70b_perf_launch.sh"), ImportFormat::kBridgeOverrides);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->recipe, "llama3_70b_pretrain_64gpu_h100_fp8cs_config");
  EXPECT_EQ(Config(c).tp, 4);
  EXPECT_EQ(Config(c).pp, 8);
  EXPECT_EQ(Config(c).vpp, 5);
  EXPECT_EQ(Config(c).gbs, 128);
  EXPECT_EQ(Config(c).seq_length, 4096);  // -sl sets model.seq_length; the launcher builds the dataset from it
  EXPECT_EQ(Config(c).precision, "fp8-cs");
  EXPECT_EQ(c->gpus, 64);
  EXPECT_EQ(c->gpus_per_node, 8);
  EXPECT_EQ(c->system, "h100-sxm");
  EXPECT_EQ(Arg(*c, "--account")->status, ArgumentStatus::kNoEffect);
  EXPECT_EQ(Arg(*c, "ddp.overlap_param_gather")->origin, "override");
  EXPECT_EQ(DetectBridge(ReadFixture("llama3_70b_perf_launch.sh")), ImportFormat::kBridgeOverrides);
  // An option whose effect goes through the launcher's helpers is refused by name
  // (skills/nemo-mbridge-perf-expert-parallel-overlap/SKILL.md:208 uses it).
  auto helper = Import(
      "python scripts/performance/run_script.py -m qwen -mr qwen3_30b_a3b -g h100 -ng 16 "
      "--cuda_graph_impl none",
      ImportFormat::kBridgeOverrides);
  ASSERT_FALSE(helper.ok());
  EXPECT_NE(helper.status().message().find("--cuda_graph_impl"), std::string::npos) << helper.status();
  auto incomplete = Import("python scripts/performance/run_script.py -m qwen -g h100", ImportFormat::kBridgeOverrides);
  ASSERT_FALSE(incomplete.ok());
  EXPECT_NE(incomplete.status().message().find("-mr"), std::string::npos);
}

TEST(ImportBridge, PartialYamlOnARecipe) {
  auto c = Import(ReadFixture("llama32_1b_override.yaml"), ImportFormat::kBridgeYaml);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->recipe, "llama32_1b_pretrain_1gpu_h100_bf16_config");
  EXPECT_EQ(Config(c).tp, 2);
  EXPECT_EQ(Config(c).sp, true);
  EXPECT_EQ(Config(c).gbs, 8);
  EXPECT_EQ(Config(c).mbs, 1);
  EXPECT_EQ(Config(c).seq_length, 4096);
  const ImportedArgument* tp = Arg(*c, "model.tensor_model_parallel_size");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->line, 34);
  EXPECT_EQ(tp->origin, "override");
  EXPECT_EQ(DetectBridge(ReadFixture("llama32_1b_override.yaml")), ImportFormat::kBridgeYaml);
  // The recipe can come from the overrides instead of the file.
  std::string text = ReadFixture("llama32_1b_override.yaml");
  text.replace(text.find("recipe: llama32_1b_pretrain_config"), 34, "");
  auto named = Import(text, ImportFormat::kBridgeYaml, {"recipe:llama32_1b_pretrain_config"});
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(Config(named).tp, 2);
  auto unnamed = Import(text, ImportFormat::kBridgeYaml);
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(unnamed.status().message().find("name the Megatron Bridge recipe"), std::string::npos);
}

TEST(ImportBridge, WholeConfigContainerYaml) {
  auto c = Import(ReadFixture("llama3_8b_config_container.yaml"), ImportFormat::kBridgeYaml);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->recipe.empty());
  EXPECT_TRUE(c->model_id.empty());  // no catalog guess
  ASSERT_TRUE(c->model.has_value());
  EXPECT_EQ(c->model->origin, "import");
  EXPECT_EQ(c->model->num_layers, 32);
  EXPECT_EQ(c->model->hidden_size, 4096);
  EXPECT_EQ(c->model->ffn_hidden_size, 14336);
  EXPECT_EQ(c->model->num_attention_heads, 32);
  EXPECT_EQ(c->model->num_query_groups, 8);
  EXPECT_EQ(c->model->kv_channels, 128);
  EXPECT_EQ(c->model->vocab_size, 128256);
  EXPECT_EQ(c->model->activation_func, "silu");
  EXPECT_EQ(c->model->normalization, "RMSNorm");
  EXPECT_EQ(c->model->kind, "dense");
  EXPECT_TRUE(c->model->complete()) << absl::StrJoin(c->model->missing_fields, ", ");
  EXPECT_NE(c->model->name.find("GPTModelProvider"), std::string::npos) << c->model->name;
  EXPECT_EQ(Config(c).tp, 1);
  EXPECT_EQ(Config(c).cp, 2);
  EXPECT_EQ(Config(c).gbs, 512);
  EXPECT_EQ(Config(c).seq_length, 8192);
  EXPECT_EQ(Config(c).precision, "bf16");  // mixed_precision: bf16 with fp8 null
  EXPECT_EQ(Config(c).attention_backend, "auto");
  EXPECT_EQ(Config(c).optimizer_state_dtype, "fp32");
  for (const auto& a : c->arguments) EXPECT_EQ(a.origin, "yaml") << a.name;
  for (const auto& w : c->warnings) ADD_FAILURE() << "every field is one parplan lists: " << w;
  // A field parplan does not list, in a whole config Bridge wrote: listed as
  // not modelled, with a warning, not refused.
  std::string extra = ReadFixture("llama3_8b_config_container.yaml");
  extra.replace(extra.find("  vocab_size: 128256\n"), 20, "  vocab_size: 128256\n  some_future_field: 3\n");
  auto lenient = Import(extra, ImportFormat::kBridgeYaml);
  ASSERT_TRUE(lenient.ok()) << lenient.status();
  ASSERT_NE(Arg(*lenient, "model.some_future_field"), nullptr);
  EXPECT_EQ(Arg(*lenient, "model.some_future_field")->status, ArgumentStatus::kNotModelled);
  ASSERT_EQ(lenient->warnings.size(), 1u);
  EXPECT_NE(lenient->warnings[0].find("model.some_future_field"), std::string::npos);
  const ImportedArgument* target = Arg(*c, "model._target_");
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(target->status, ArgumentStatus::kNoEffect);
  const ImportedArgument* rotary = Arg(*c, "model.rotary_base");
  ASSERT_NE(rotary, nullptr);
  EXPECT_EQ(rotary->status, ArgumentStatus::kNotModelled);
  EXPECT_EQ(DetectBridge(ReadFixture("llama3_8b_config_container.yaml")), ImportFormat::kBridgeYaml);

  // The FP8 fields of the MixedPrecisionConfig spell the current-scaling preset.
  auto fp8 = Import(ReadFixture("llama3_8b_config_container.yaml"), ImportFormat::kBridgeYaml,
                    {"mixed_precision.fp8=hybrid mixed_precision.fp8_param_gather=true"});
  ASSERT_TRUE(fp8.ok()) << fp8.status();
  EXPECT_EQ(Config(fp8).precision, "fp8-cs");
  EXPECT_EQ(Config(fp8).fp8_param_gather, true);

  auto with_recipe = Import(ReadFixture("llama3_8b_config_container.yaml"), ImportFormat::kBridgeYaml,
                            {"recipe:llama3_8b_pretrain_config"});
  ASSERT_FALSE(with_recipe.ok());
  EXPECT_NE(with_recipe.status().message().find("takes no recipe"), std::string::npos);
}

TEST(ImportBridge, UnknownRecipeNamesTheNearest) {
  auto c = Import("recipe:llama3_70b_pretrain_cnofig", ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("llama3_70b_pretrain_cnofig"), std::string::npos);
  EXPECT_NE(c.status().message().find("llama3_70b_pretrain_config"), std::string::npos);
  // A Bridge recipe of a model outside parplan's catalog is named as such
  // (recipes/qwen/qwen2.py legacy name at 067f987df0).
  auto other = Import("recipe:qwen25_7b_pretrain_config", ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("catalog does not have"), std::string::npos) << other.status();
  auto missing = Import("model.tensor_model_parallel_size=2", ImportFormat::kBridgeOverrides);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("recipe:NAME"), std::string::npos);
  auto two =
      Import("recipe:llama3_8b_pretrain_config --recipe llama3_70b_pretrain_config", ImportFormat::kBridgeOverrides);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("two recipes"), std::string::npos);
}

TEST(ImportBridge, UnknownPathNamesTheNearest) {
  auto c = Import("recipe:llama3_8b_pretrain_config\nmodel.tensor_parallel_size=2", ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(c.ok());
  const std::string m(c.status().message());
  EXPECT_NE(m.find("line 2"), std::string::npos) << m;
  EXPECT_NE(m.find("model.tensor_parallel_size"), std::string::npos) << m;
  EXPECT_NE(m.find("model.tensor_model_parallel_size"), std::string::npos) << m;
  EXPECT_EQ(FieldViolationsOf(c.status()).size(), 1u);
  EXPECT_EQ(FieldViolationsOf(c.status())[0].field, "text");
  auto section = Import("recipe:llama3_8b_pretrain_config trainer.max_steps=10", ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(section.ok());
  EXPECT_NE(section.status().message().find("trainer.max_steps"), std::string::npos);
  // Whole no-effect sections accept any field (logger.*, checkpoint.*).
  auto logger = Import("recipe:llama3_8b_pretrain_config logger.wandb_project=demo", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(logger.ok()) << logger.status();
  EXPECT_EQ(Arg(*logger, "logger.wandb_project")->status, ArgumentStatus::kNoEffect);
  // An option field of options.overrides names its index.
  auto opt = Import("recipe:llama3_8b_pretrain_config", ImportFormat::kBridgeRecipe, {"ddp.overlap_grad_reduces=true"});
  ASSERT_FALSE(opt.ok());
  EXPECT_NE(opt.status().message().find("ddp.overlap_grad_reduce"), std::string::npos);
}

TEST(ImportBridge, HydraAddAndDelete) {
  // + on a key the recipe already sets is Hydra's error.
  auto add =
      Import("recipe:llama3_8b_pretrain_config +model.tensor_model_parallel_size=2", ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(add.ok());
  EXPECT_NE(add.status().message().find("++model.tensor_model_parallel_size"), std::string::npos);
  // + on a field the recipe leaves at its default.
  auto add_new =
      Import("recipe:llama3_8b_pretrain_config +model.cpu_offloading_num_layers=2", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(add_new.ok()) << add_new.status();
  EXPECT_EQ(Config(add_new).cpu_offloading_num_layers, 2);
  // ~ removes the recipe's setting: the default applies.
  auto del = Import("recipe:llama3_70b_pretrain_config ~model.virtual_pipeline_model_parallel_size",
                    ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(del.ok()) << del.status();
  EXPECT_EQ(Config(del).vpp, 0);
  auto del_wrong = Import("recipe:llama3_70b_pretrain_config ~model.virtual_pipeline_model_parallel_size=3",
                          ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(del_wrong.ok());
  EXPECT_NE(del_wrong.status().message().find("is 5, not 3"), std::string::npos);
  // An object set to null takes its fields with it.
  auto no_overlap = Import("recipe:llama3_70b_pretrain_config comm_overlap=null", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(no_overlap.ok()) << no_overlap.status();
  EXPECT_FALSE(Config(no_overlap).tp_comm_overlap.has_value());
  EXPECT_EQ(Arg(*no_overlap, "comm_overlap.tp_comm_overlap"), nullptr);
  auto deleted = Import("recipe:llama3_70b_pretrain_config ~comm_overlap", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_FALSE(Config(deleted).tp_comm_overlap.has_value());
  EXPECT_EQ(Arg(*deleted, "comm_overlap.tp_comm_overlap"), nullptr);
}

TEST(ImportBridge, ValuesAndContradictions) {
  // model.seq_length and dataset.seq_length must agree (training/config.py:1644).
  auto seq = Import("recipe:llama3_8b_pretrain_config model.seq_length=4096", ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(seq.ok());
  EXPECT_NE(seq.status().message().find("dataset.seq_length"), std::string::npos);
  EXPECT_NE(seq.status().message().find("model.seq_length"), std::string::npos);
  auto both = Import("recipe:llama3_8b_pretrain_config model.seq_length=4096 dataset.seq_length=4096",
                     ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(Config(both).seq_length, 4096);
  // Bad values name the path and what is allowed.
  auto bad =
      Import("recipe:llama3_8b_pretrain_config model.tensor_model_parallel_size=two", ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("model.tensor_model_parallel_size"), std::string::npos);
  auto preset = Import("recipe:llama3_8b_pretrain_config mixed_precision=fp16_mixed", ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(preset.ok());
  EXPECT_NE(preset.status().message().find("fp16_mixed"), std::string::npos);
  EXPECT_NE(preset.status().message().find("bf16_with_fp8_current_scaling_mixed"), std::string::npos);
  // Quoting, lists and None.
  auto lists = Import(
      "recipe:llama3_8b_pretrain_config model.recompute_granularity=\"selective\" "
      "model.recompute_modules=\"['core_attn', 'mlp']\" model.virtual_pipeline_model_parallel_size=None "
      "model.cuda_graph_impl=transformer_engine model.cuda_graph_scope=[attn,mlp]",
      ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(lists.ok()) << lists.status();
  EXPECT_EQ(Config(lists).recompute_modules, (std::vector<std::string>{"core_attn", "mlp"}));
  EXPECT_EQ(Config(lists).cuda_graph_modules, (std::vector<std::string>{"attn", "mlp"}));
  // Distributed optimizer: either config enabling it enables both (training/config.py:2101).
  auto dist =
      Import("recipe:llama3_8b_pretrain_config ddp.use_distributed_optimizer=false", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(dist.ok()) << dist.status();
  EXPECT_EQ(Config(dist).use_distributed_optimizer, true);
  EXPECT_FALSE(dist->warnings.empty());
  // The preset's grad_reduce_in_fp32 overwrites the DDP one (mixed_precision.py:138).
  auto grad = Import("recipe:llama3_8b_pretrain_config ddp.grad_reduce_in_fp32=false", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(grad.ok()) << grad.status();
  EXPECT_EQ(Config(grad).grad_reduce_in_fp32, true);
}

// perf_recipes/gpt_oss/gb200/gpt_oss.py:131: cuda_graph_modules set to the
// deprecated "full_iteration" scope (perf_recipes/gpt_oss/common.py), which
// Megatron-Core migrates to cuda_graph_impl = full_iteration.
TEST(ImportBridge, DeprecatedFullIterationScope) {
  auto c = Import("recipe:gpt_oss_20b_pretrain_512gpu_gb200_fp8mx_config", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Config(c).cuda_graph_impl, "full_iteration");
  EXPECT_TRUE(Config(c).cuda_graph_modules.empty());
  EXPECT_EQ(Config(c).precision, "fp8-mx");
  EXPECT_EQ(c->system, "gb200-nvl72");
  EXPECT_EQ(c->gpus, 512);
}

TEST(ImportBridge, RecipeModelFieldsAgainstTheCatalog) {
  // A Nemotron-H recipe builds its provider field by field
  // (recipes/nemotronh/h100/nemotronh.py:nemotronh_8b_pretrain_2gpu_h100_bf16_config):
  // the fields equal to the catalog's are listed only.
  auto c = Import("recipe:nemotronh_8b_pretrain_config", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(c.ok()) << c.status();
  const ImportedArgument* layers = Arg(*c, "model.num_layers");
  ASSERT_NE(layers, nullptr);
  EXPECT_EQ(layers->status, ArgumentStatus::kMapped);
  EXPECT_EQ(layers->maps_to, "model.num_layers");
  // An override of an architecture field starts from the catalog model.
  auto deeper = Import("recipe:llama3_8b_pretrain_config model.num_layers=40", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(deeper.ok()) << deeper.status();
  ASSERT_TRUE(deeper->model.has_value());
  EXPECT_EQ(deeper->model->num_layers, 40);
  EXPECT_EQ(deeper->model->hidden_size, 4096);
  EXPECT_EQ(deeper->model->origin, "import");
  // Architecture values out of range are refused with the path.
  auto bad = Import("recipe:llama3_8b_pretrain_config model.num_layers=100000", ImportFormat::kBridgeRecipe);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("num_layers"), std::string::npos) << bad.status();
}

TEST(ImportBridge, YamlErrors) {
  auto bad = Import(ReadFixture("bad_section.yaml"), ImportFormat::kBridgeYaml);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("\"trian\" is not a ConfigContainer section"), std::string::npos)
      << bad.status();
  EXPECT_NE(bad.status().message().find("train"), std::string::npos);
  EXPECT_NE(bad.status().message().find("line 4"), std::string::npos) << bad.status();
  auto shape = Import(ReadFixture("bad_section_shape.yaml"), ImportFormat::kBridgeYaml);
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.status().message().find("section train must be a mapping"), std::string::npos) << shape.status();
  auto syntax = Import("model:\n  tensor_model_parallel_size: [2\n", ImportFormat::kBridgeYaml);
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("not valid YAML"), std::string::npos) << syntax.status();
  auto nested =
      Import("model:\n  x: " + std::string(5000, '[') + std::string(5000, ']') + "\n", ImportFormat::kBridgeYaml);
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(nested.status().code(), absl::StatusCode::kInvalidArgument);
  auto list = Import("- model\n- train\n", ImportFormat::kBridgeYaml);
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("mapping"), std::string::npos);
  auto deep = Import("recipe: llama3_8b_pretrain_config\nmodel:\n  tensor_parallel: 2\n", ImportFormat::kBridgeYaml);
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("line 3"), std::string::npos) << deep.status();
  EXPECT_NE(deep.status().message().find("model.tensor_parallel"), std::string::npos);
}

TEST(ImportBridge, OverrideSyntaxErrors) {
  for (const char* text :
       {"recipe:llama3_8b_pretrain_config model.tensor_model_parallel_size",
        "recipe:llama3_8b_pretrain_config 'model.x=1", "recipe:llama3_8b_pretrain_config a..b=1",
        "recipe:llama3_8b_pretrain_config model.recompute_modules=[a,b",
        "recipe:llama3_8b_pretrain_config --unknown-flag 3", "recipe:llama3_8b_pretrain_config --model llama3_8b"}) {
    auto c = Import(text, ImportFormat::kBridgeRecipe);
    EXPECT_FALSE(c.ok()) << text;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
  auto wrong_format = Import("recipe:llama3_8b_pretrain_config", ImportFormat::kMegatronLmScript);
  ASSERT_FALSE(wrong_format.ok());
  auto version = ImportBridge("recipe:llama3_8b_pretrain_config", ImportFormat::kBridgeRecipe,
                              ImportOptions{ImportFormat::kBridgeRecipe, "text", {}, "9.9.9"});
  ASSERT_FALSE(version.ok());
}

TEST(ImportBridge, BridgeVersion) {
  ImportOptions options;
  options.bridge_version = "0.2.0";
  auto c = ImportBridge("recipe:llama3_8b_pretrain_config", ImportFormat::kBridgeRecipe, options);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->config.bridge_version, "0.2.0");
  auto newest = Import("recipe:llama3_8b_pretrain_config", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(newest.ok());
  EXPECT_EQ(newest->config.bridge_version, BridgeVersionName(NewestKnownBridge()));
  // A NeMo container reads the recipe of the release it ships and stays named.
  options.bridge_version = "nemo:25.11";
  auto in_image = ImportBridge("recipe:llama3_8b_pretrain_config", ImportFormat::kBridgeRecipe, options);
  ASSERT_TRUE(in_image.ok()) << in_image.status();
  EXPECT_EQ(in_image->config.bridge_version, "25.11");
  // A recipe name that no release before the pinned commit had.
  const BridgeRecipe* r = FindBridgeRecipe("llama3_8b_pretrain_8gpu_h100_bf16_config");
  ASSERT_NE(r, nullptr);
  if (!RecipeInVersion(*r, "0.2.0")) {
    auto old = ImportBridge("recipe:llama3_8b_pretrain_8gpu_h100_bf16_config", ImportFormat::kBridgeRecipe, options);
    ASSERT_TRUE(old.ok()) << old.status();
    ASSERT_FALSE(old->warnings.empty());
    EXPECT_NE(old->warnings.back().find("0.2.0 has no recipe"), std::string::npos);
  }
}

// The recipe as an older release had it: Bridge v0.2.0's
// src/megatron/bridge/recipes/gpt_oss/gpt_oss.py:146 recommends TP 1, PP 4,
// EP 8 for GPT-OSS 120B; at 067f987df0 recipes/gpt_oss/h100/gpt_oss.py sets
// TP 2, PP 4, EP 16.
TEST(ImportBridge, RecipeAsAnOlderReleaseHadIt) {
  ImportOptions options;
  options.bridge_version = "0.2.0";
  auto old = ImportBridge("recipe:gpt_oss_120b_pretrain_config", ImportFormat::kBridgeRecipe, options);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->config.tp, 1);
  EXPECT_EQ(old->config.pp, 4);
  EXPECT_EQ(old->config.ep, 8);
  const ImportedArgument* ep = Arg(*old, "model.expert_model_parallel_size");
  ASSERT_NE(ep, nullptr);
  EXPECT_NE(ep->note.find("as in Bridge 0.2.0 (gpt_oss_120b_pretrain_config)"), std::string::npos) << ep->note;
  auto now = Import("recipe:gpt_oss_120b_pretrain_config", ImportFormat::kBridgeRecipe);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->config.tp, 2);
  EXPECT_EQ(now->config.ep, 16);
  const BridgeRecipe* r = FindBridgeRecipe("gpt_oss_120b_pretrain_config");
  ASSERT_NE(r, nullptr);
  ASSERT_NE(RecipeAtVersion(*r, "0.2.0"), nullptr);
  EXPECT_EQ(RecipeAtVersion(*r, "0.2.0")->function, "gpt_oss_120b_pretrain_config");
  EXPECT_EQ(RecipeAtVersion(*r, "0.1.9"), nullptr);
}

// Every recipe imports as each release that had it.
TEST(ImportBridge, EveryRecipeImportsAsEachReleaseHadIt) {
  int64_t versions = 0;
  for (const auto& r : BridgeRecipes()) {
    for (const auto& h : r.history) {
      SCOPED_TRACE(r.name + " at " + h.version);
      ImportOptions options;
      options.bridge_version = h.version;
      auto c = ImportBridge("recipe:" + r.name, ImportFormat::kBridgeRecipe, options);
      ASSERT_TRUE(c.ok()) << c.status();
      EXPECT_EQ(c->config.bridge_version, h.version);
      auto model = Catalog::Get().FindModel(r.model_id);
      ASSERT_TRUE(model.ok());
      EXPECT_TRUE(ResolveConfig(c->config, c->model ? &*c->model : &*model, "config").ok());
      ++versions;
    }
  }
  EXPECT_GT(versions, 500);
}

TEST(BridgeOverrides, TokensLinesAndValues) {
  auto list = ParseBridgeOverrides(
      "# a comment line\n"
      "recipe:llama3_8b_pretrain_config \\\n"
      "  model.recompute_modules=\"[core_attn, 'mlp']\"   'train.global_batch_size=64'\n"
      "+model.cpu_offloading_num_layers=2 ++a.b=None ~logger.log_interval\n"
      "model.x=[1, [2, 3]] model.flag=True model.name=\"two words\"",
      "text");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->recipe, "llama3_8b_pretrain_config");
  EXPECT_EQ(list->recipe_line, 2);
  ASSERT_EQ(list->overrides.size(), 8u);
  EXPECT_EQ(list->overrides[0].path, "model.recompute_modules");
  // A quoted value is a string to Hydra (the field map's list reader splits it).
  EXPECT_EQ(list->overrides[0].value, "[core_attn, 'mlp']");
  EXPECT_EQ(list->overrides[0].line, 3);
  EXPECT_EQ(list->overrides[1].path, "train.global_batch_size");
  EXPECT_EQ(list->overrides[1].value, "64");
  EXPECT_EQ(list->overrides[2].op, OverrideOp::kAdd);
  EXPECT_EQ(list->overrides[3].op, OverrideOp::kForceAdd);
  EXPECT_EQ(list->overrides[3].value, "null");
  EXPECT_EQ(list->overrides[4].op, OverrideOp::kDelete);
  EXPECT_EQ(list->overrides[4].path, "logger.log_interval");
  EXPECT_EQ(list->overrides[4].line, 4);
  EXPECT_EQ(list->overrides[5].value, "[1,[2,3]]");
  EXPECT_EQ(list->overrides[6].value, "true");
  EXPECT_EQ(list->overrides[7].value, "two words");
  EXPECT_EQ(NormalizeBridgeValue(" False "), "false");
  EXPECT_EQ(NormalizeBridgeValue("('a', 2)"), "[\"a\",2]");
  EXPECT_EQ(BridgeListItems("[\"a\",\"b\"]"), (std::vector<std::string>{"a", "b"}));
  auto unbalanced = ParseBridgeOverrides("model.x=[1,2", "overrides[0]");
  ASSERT_FALSE(unbalanced.ok());
  EXPECT_EQ(FieldViolationsOf(unbalanced.status())[0].field, "overrides[0]");
  EXPECT_FALSE(ParseBridgeOverrides(std::string(kMaxImportBytes + 1, 'a'), "text").ok());
  EXPECT_FALSE(ParseBridgeOverrides("model.x=" + std::string(20000, '[') + std::string(20000, ']'), "text").ok());
  auto layout = BridgeLayoutToString("[[\"embedding\",\"decoder\",\"decoder\"],[\"decoder\",\"mtp\",\"loss\"]]", "p");
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(*layout, "Et*2|tmL");
  EXPECT_FALSE(BridgeLayoutToString("[[\"embedding\",\"encoder\"]]", "p").ok());
}

// Every prefix of every fixture, and random text, ends in an answer or an
// error: nothing crashes or hangs.
TEST(ImportBridge, PrefixesAndNoiseEndInAnAnswerOrAnError) {
  for (const char* name : {"llama3_70b_overrides.txt", "llama3_8b_run_recipe.sh", "llama32_1b_override.yaml",
                           "llama3_8b_config_container.yaml", "llama3_70b_perf_launch.sh",
                           "llama32_1b_skill_parallelism.sh", "llama3_8b_train_sh.sh"}) {
    const std::string text = ReadFixture(name);
    ASSERT_FALSE(text.empty()) << name;
    for (size_t n = 0; n <= text.size(); n += 7) {
      const std::string prefix = text.substr(0, n);
      const ImportFormat detected = DetectBridge(prefix);
      for (ImportFormat f : {ImportFormat::kBridgeRecipe, ImportFormat::kBridgeOverrides, ImportFormat::kBridgeYaml}) {
        auto c = Import(prefix, f);
        if (!c.ok()) {
          EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << name << " at " << n;
        }
      }
      (void)detected;
    }
  }
  uint32_t seed = 12345;
  const std::string alphabet = "abc_.=+~[]{}()'\"#:- \n\t\\0123456789recipe:modeltrain";
  for (int i = 0; i < 300; ++i) {
    std::string text;
    for (int j = 0; j < 80; ++j) {
      seed = seed * 1103515245u + 12345u;
      text += alphabet[(seed >> 16) % alphabet.size()];
    }
    DetectBridge(text);
    for (ImportFormat f : {ImportFormat::kBridgeRecipe, ImportFormat::kBridgeOverrides, ImportFormat::kBridgeYaml}) {
      auto c = Import(text, f);
      if (!c.ok()) {
        EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << text;
      }
    }
  }
}

TEST(ImportBridge, Detect) {
  EXPECT_EQ(DetectBridge("recipe:llama3_8b_pretrain_config"), ImportFormat::kBridgeRecipe);
  EXPECT_EQ(DetectBridge("  recipe:llama3_8b_pretrain_config train.global_batch_size=8"), ImportFormat::kBridgeRecipe);
  EXPECT_EQ(DetectBridge(ReadFixture("llama3_70b_overrides.txt")), ImportFormat::kBridgeRecipe);
  EXPECT_EQ(DetectBridge("model.tensor_model_parallel_size=4 train.global_batch_size=512"),
            ImportFormat::kBridgeOverrides);
  EXPECT_EQ(DetectBridge("python run_recipe.py --recipe llama3_8b_pretrain_config"), ImportFormat::kBridgeOverrides);
  EXPECT_EQ(DetectBridge("model:\n  tensor_model_parallel_size: 2\n"), ImportFormat::kBridgeYaml);
  // Not Bridge: Megatron-LM flags, an HF config.json, a functional test's MODEL_ARGS.
  EXPECT_EQ(DetectBridge("torchrun pretrain_gpt.py --tensor-model-parallel-size 2"), ImportFormat::kAuto);
  EXPECT_EQ(DetectBridge("{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 4096}"), ImportFormat::kAuto);
  EXPECT_EQ(DetectBridge("MODEL_ARGS:\n  --num-layers: 12\n"), ImportFormat::kAuto);
  EXPECT_EQ(DetectBridge("foo=1 bar=2"), ImportFormat::kAuto);
  EXPECT_EQ(DetectBridge(""), ImportFormat::kAuto);
}

}  // namespace
}  // namespace parplan
