// Applies Megatron Bridge ConfigContainer settings (a recipe's, overrides,
// a YAML's) to an ImportedConfig through parplan's one field table
// (core/import/field_map.h), listing every path as mapped, not modelled or
// without effect (core/import/bridge_paths.h).
#ifndef PARPLAN_CORE_IMPORT_BRIDGE_SETTINGS_H_
#define PARPLAN_CORE_IMPORT_BRIDGE_SETTINGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/import/bridge_overrides.h"
#include "core/import/imported_config.h"
#include "core/model/model_spec.h"

namespace parplan {

// One ConfigContainer setting with where it came from.
struct BridgeValue {
  std::string path;      // "model.tensor_model_parallel_size"
  std::string value;     // canonical Hydra text (NormalizeBridgeValue); "${expr}" = computed by Bridge at run time
  std::string origin;    // "recipe" | "override" | "yaml"
  int64_t line = 0;      // 1-based line in the source; 0 = a recipe's own setting
  std::string note;      // "from run_recipe.py -tp"
  bool deleted = false;  // removed by a Hydra "~path" override: the default applies
  // A path parplan does not know is listed as not modelled (with a warning)
  // instead of failing: fields of a ConfigContainer Bridge itself wrote.
  bool lenient = false;
};

// The parplan precision name of a Bridge mixed-precision preset
// (training/mixed_precision.py at 067f987df0: bf16_mixed :185,
// bf16_with_fp8_delayed_scaling_mixed :217, bf16_with_mxfp8_mixed :255,
// bf16_with_fp8_current_scaling_mixed :285, the Nemotron-H variant :307,
// nanov2_bf16_with_fp8_current_scaling_mixed (blockwise) :329,
// bf16_with_fp8_subchannel_scaling_mixed :373, bf16_with_nvfp4_mixed :405,
// nemotron_3_super_bf16_with_nvfp4_mixed :421); "" for a preset parplan
// does not model (fp16_*). `note` gets what the variant adds, if anything.
std::string PrecisionOfBridgePreset(std::string_view preset, std::string* note);

// "[[\"embedding\",\"decoder\"],[\"decoder\",\"loss\"]]" (Bridge's list
// form) -> "Et|tL" (Megatron-Core's string form, pipeline_parallel_layer_layout.py
// :55 parse_str_to_list: E embedding, t decoder, m mtp, L loss, '|' between
// stages); a string layout is returned as is. INVALID_ARGUMENT naming
// `argument` for an unknown layer name.
absl::StatusOr<std::string> BridgeLayoutToString(const std::string& value, const std::string& argument);

// Applies `overrides` to `settings` the way Hydra does
// (omegaconf_utils.py:163): PATH=VALUE sets a known path, +PATH=VALUE adds
// one the settings do not have (an error naming the path when they do),
// ++PATH=VALUE sets or adds, ~PATH deletes. A path neither mapped nor known
// to Bridge's ConfigContainer is an error naming it, `field`, the line and
// the nearest known paths.
absl::Status ApplyBridgeOverrides(const std::vector<BridgeOverride>& overrides, const std::string& field,
                                  std::vector<BridgeValue>* settings);

// Applies `settings` to `out`, one ImportedArgument each. Mapped paths go
// through the field table's setter (values Bridge spells its own way --
// presets, list layouts -- converted first); null leaves the field unset.
// Model-architecture fields: when `catalog_model` is given (a recipe's
// catalog model), a value equal to the catalog's is listed only, and a
// different one starts out->model from the catalog model (origin "import")
// with the change. The mixed-precision settings apply last, as Bridge's
// MixedPrecisionConfig.setup overwrites the fields it shares with the model,
// optimizer and DDP configs (mixed_precision.py:113-163); a
// MixedPrecisionConfig given by its fields counts as the preset they spell. Two paths of one parplan field with
// different values: an error naming both where Bridge asserts they agree (model.seq_length and dataset.seq_length,
// training/config.py:1644) or parplan cannot hold both (Adam's two moment dtypes); otherwise the later wins and a
// warning names both (Bridge's mixed-precision preset overwriting ddp.fp8_param_gather, mixed_precision.py:138, is said
// in the note). Unknown paths: error (see ApplyBridgeOverrides) unless the setting is lenient.
absl::Status ApplyBridgeSettings(const std::vector<BridgeValue>& settings, const std::string& field,
                                 const ModelSpec* catalog_model, ImportedConfig* out);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_BRIDGE_SETTINGS_H_
