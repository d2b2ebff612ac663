// The Megatron Bridge recipe catalog: every recipe function of the pinned
// Bridge (src/megatron/bridge/recipes/** at 067f987df0) whose model is in
// parplan's catalog -- all pretrain recipes of those models and their SFT /
// PEFT recipes -- and the performance recipes of those models
// (src/megatron/bridge/perf_recipes/**; a name both define is the library
// recipe's), with every ConfigContainer field each one sets, as
// scripts/bridge_recipes.py read it by following the recipe into the helpers
// it calls (_pretrain_common, the optimizer and comm-overlap helpers, layout
// builders).
#ifndef PARPLAN_CORE_IMPORT_BRIDGE_RECIPES_H_
#define PARPLAN_CORE_IMPORT_BRIDGE_RECIPES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parplan {

// One field a recipe sets: its ConfigContainer path and value as Hydra
// override text ("4", "true", "null", "[\"core_attn\",\"mlp\"]",
// "bf16_mixed"). "_target_" paths name the config class a section was built
// from. A value "${expr}" is set from an expression only Bridge evaluates at
// run time (e.g. a field of the Hugging Face config).
struct BridgeSetting {
  std::string path;
  std::string value;
};

// The recipe as an older Bridge release had it: the function of that name
// there (or of a legacy alias) and the plan-shaping paths whose value
// differs from the pinned commit's ("<unset>" = that release leaves the
// field at its default). Logging, checkpoint, data-path, tokenizer,
// schedule and userbuffer-tuning fields are not compared.
struct BridgeRecipeVersion {
  std::string version;   // "0.4.0"
  std::string function;  // "llama3_70b_pretrain_config"
  std::vector<BridgeSetting> differs;
};

struct BridgeRecipe {
  std::string name;                  // the function: "llama3_70b_pretrain_32gpu_h100_bf16_config"
  std::vector<std::string> aliases;  // legacy names Bridge exports it as: "llama3_70b_pretrain_config"
  std::string task;                  // "pretrain" | "sft" | "peft"
  std::string model_id;              // parplan catalog id
  std::string provider;              // "AutoBridge(meta-llama/Meta-Llama-3-70B)" | "HybridModelProvider" ...
  std::string hf_model_id;           // the Hugging Face id the provider is read from ("" = built in the recipe)
  int64_t gpus = 0;                  // from the name ("32gpu"); 0 = not named
  std::string gpu;                   // "h100" | "gb200" | ...; "" = not named
  std::string source;                // "src/megatron/bridge/recipes/llama/h100/llama3.py:412"
  // "recipe" (src/megatron/bridge/recipes/**) or "performance" (the
  // benchmark recipes of src/megatron/bridge/perf_recipes/**, one per GPU
  // system and precision, which scripts/performance/ launches).
  std::string kind;
  // Bridge releases ("0.2.0" ...) whose recipes define the name or an alias.
  std::vector<std::string> versions;
  std::vector<BridgeSetting> settings;       // in the order the ConfigContainer holds them
  std::vector<BridgeRecipeVersion> history;  // per release that has the recipe, oldest first
  // What the generator could not evaluate (device checks, branches on the
  // Hugging Face config): said, not guessed.
  std::vector<std::string> unevaluated;
};

// Every recipe, sorted by name. Parsed once from the embedded JSON.
const std::vector<BridgeRecipe>& BridgeRecipes();

// The recipe a name means: the function name or a legacy alias, with or
// without the "_config" suffix and a "recipe:" prefix, case-insensitive,
// '-' read as '_'. nullptr when none.
const BridgeRecipe* FindBridgeRecipe(std::string_view name);

// Up to `limit` recipe names nearest `name` (for unknown-recipe errors).
std::vector<std::string> NearestBridgeRecipes(std::string_view name, int limit = 5);

// The name of a recipe function (or legacy alias) of the pinned Bridge whose
// model parplan's catalog does not have, as written in the catalog ("" when
// `name` is none): such a recipe is known but not imported.
std::string BridgeRecipeOutsideCatalog(std::string_view name);

// The value `recipe` sets at `path`; nullptr when it does not set it.
const BridgeSetting* FindRecipeSetting(const BridgeRecipe& recipe, std::string_view path);

// True when `recipe` exists in Bridge release `version` ("0.5.0").
bool RecipeInVersion(const BridgeRecipe& recipe, std::string_view version);

// The recipe as release `version` had it; nullptr when that release has no
// recipe of the name (or its history was not read).
const BridgeRecipeVersion* RecipeAtVersion(const BridgeRecipe& recipe, std::string_view version);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_BRIDGE_RECIPES_H_
