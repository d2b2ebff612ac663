// Megatron Bridge YAML: a whole ConfigContainer as Bridge writes it
// (ConfigContainerBase.to_yaml, megatron/training/config/container.py:196 at
// Megatron-LM d98e8a64: every section a mapping with its "_target_" class;
// torch dtypes and functions as {_target_, _call_: false}, enums as
// {_target_, _call_: true, _args_, _name_}, partials with _partial_:
// yaml_utils.py:88-170), or a partial override file of the same shape
// (Bridge's tutorials/recipes/llama/conf/llama32_1b_pretrain.yaml) applied
// on a named recipe.
#ifndef PARPLAN_CORE_IMPORT_BRIDGE_YAML_H_
#define PARPLAN_CORE_IMPORT_BRIDGE_YAML_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/import/bridge_overrides.h"
#include "core/import/bridge_settings.h"

namespace parplan {

struct BridgeYaml {
  // True for a whole ConfigContainer (a top-level "_target_", or a model
  // section with its "_target_"): the model comes from its model section.
  bool full = false;
  std::vector<BridgeValue> settings;  // flattened leaves, origin "yaml", with their lines
  std::string recipe;                 // a top-level "recipe: NAME" key (parplan's), "" = none
  int64_t recipe_line = 0;
  std::vector<std::string> notes;
};

// Parses `text`. INVALID_ARGUMENT naming `field` for YAML that does not
// parse (with yaml-cpp's line), a document that is not a mapping, a
// top-level key that is not a ConfigContainer section (naming the nearest
// sections), a section that is not a mapping, nesting deeper than 32 or more
// than 100,000 nodes.
absl::StatusOr<BridgeYaml> ReadBridgeYaml(std::string_view text, const std::string& field);

// The overrides a partial YAML's leaves amount to (PATH=VALUE each).
std::vector<BridgeOverride> YamlOverrides(const BridgeYaml& yaml);

// True when `text` is a YAML mapping whose top-level keys are
// ConfigContainer sections (at least one of model, train, optimizer, ddp,
// dataset, ...) or "_target_" / "recipe".
bool LooksLikeBridgeYaml(std::string_view text);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_BRIDGE_YAML_H_
