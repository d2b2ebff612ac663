// Imports what a Megatron Bridge user runs: a recipe by name with Hydra-style
// overrides, an override list that names its recipe, or a ConfigContainer
// YAML (whole, as Bridge writes it, or a partial override file on a named
// recipe). The lead's ImportConfig (core/import/imported_config.h) calls
// these for the Bridge formats.
#ifndef PARPLAN_CORE_IMPORT_BRIDGE_IMPORT_H_
#define PARPLAN_CORE_IMPORT_BRIDGE_IMPORT_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "core/import/imported_config.h"

namespace parplan {

// `format` is kBridgeRecipe ("recipe:NAME" then overrides), kBridgeOverrides
// (overrides naming their recipe with a token "recipe:NAME" or
// "--recipe NAME", as scripts/training/run_recipe.py takes it) or
// kBridgeYaml; the recipe may also be named in options.overrides.
// options.overrides apply on top of the source, in order. The result has
// front_end "bridge", bridge_version options.bridge_version (checked) or the
// newest known release, recipe and model_id for a recipe (and gpus / system
// where the recipe's name or a torchrun launcher states them), the model
// from a whole YAML's model section (origin "import"), and every setting as
// an ImportedArgument. A recipe's settings are the pinned commit's; with
// options.bridge_version set, those of that release's recipe of the name
// (BridgeRecipe::history), and a warning when that release has none.
// INVALID_ARGUMENT naming options.field: an unknown recipe (with the nearest
// names), no recipe where one is needed, an unknown path (with the nearest
// paths), a bad value, contradictory paths, bad YAML; any other format.
absl::StatusOr<ImportedConfig> ImportBridge(std::string_view text, ImportFormat format, const ImportOptions& options);

// The Bridge format `text` is in: kBridgeRecipe for a first token
// "recipe:NAME", kBridgeOverrides for KEY=VALUE overrides of ConfigContainer
// sections or a run_recipe.py line (--recipe), kBridgeYaml for a YAML mapping
// of ConfigContainer sections; kAuto when it is none of these.
ImportFormat DetectBridge(std::string_view text);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_BRIDGE_IMPORT_H_
