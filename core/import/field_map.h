// One table linking every plan setting parplan models to its names in each
// front end: the parplan field path ("config.tp", "model.num_layers"), the
// Megatron-LM flags that set it (megatron/training/arguments.py and the
// dataclass-generated flags of megatron/training/argument_utils.py at the
// pinned Megatron-LM commit d98e8a64), the Megatron Bridge ConfigContainer
// paths (src/megatron/bridge/training/config.py and the model providers at
// Bridge 067f987df0), its value kind, a setter that applies a value to an
// ImportedConfig and a getter that renders it from a resolved plan. Import
// (every front end) and render read this one table, so a setting read from
// a launch is the setting written back.
//
// Values cross the table as canonical strings: integers "8", booleans
// "true" / "false", decimals "0.5", lists comma-joined ("core_attn,mlp"),
// names as parplan spells them ("selective", "fp8-cs", "RMSNorm").
#ifndef PARPLAN_CORE_IMPORT_FIELD_MAP_H_
#define PARPLAN_CORE_IMPORT_FIELD_MAP_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/config/parallel_config.h"
#include "core/import/field_values.h"
#include "core/import/imported_config.h"
#include "core/model/model_spec.h"

namespace parplan {

enum class FieldKind { kInt, kBool, kDouble, kString, kIntList, kStringList, kPrecision };
const char* FieldKindName(FieldKind kind);  // "int" | "bool" | "double" | "string" | "int_list" | ...

// How one Megatron-LM flag sets a field.
struct MegatronFlag {
  const char* name;  // "--tensor-model-parallel-size"
  // nullptr: the flag takes the value after it; else the flag is a switch
  // and this is the field value it sets ("true", "false", "silu").
  const char* fixed = nullptr;
  // True when the flag's meaning depends on other flags, so the Megatron-LM
  // importer combines it (precision flags, --group-query-attention,
  // --num-layers-per-virtual-pipeline-stage, ...); the setter is not applied
  // to it directly.
  bool combined = false;
};

struct FieldEntry {
  std::string field;  // "config.tp", "model.num_layers", "placement.gpus"
  FieldKind kind = FieldKind::kInt;
  // Megatron-LM flags, the one render writes first (value-taking, or the
  // switch that sets the non-default value). Empty = Megatron-LM has none.
  std::vector<MegatronFlag> megatron;
  // Bridge ConfigContainer paths, the canonical one first; empty = none.
  std::vector<std::string> bridge;
  // What Megatron-LM's parser (or Megatron-Core's dataclass behind a
  // generated flag) gives when the flag is absent, canonical; "" = unset
  // (None, or derived from other settings).
  std::string megatron_default;
  // Applies canonical or front-end spelled `value` to `out` (a model field
  // creates out->model with origin "import"). INVALID_ARGUMENT naming
  // `argument` (as the source wrote it), the value and what is allowed.
  absl::Status (*set)(ImportedConfig* out, const std::string& value, const std::string& argument) = nullptr;
  // The value as the resolved plan (and `model`, nullable) has it,
  // canonical; nullopt = not set / not applicable. nullptr for fields not
  // read back from a plan (placement).
  std::optional<std::string> (*get)(const ResolvedConfig& config, const ModelSpec* model) = nullptr;
  std::string note;  // how the mapping reads, where it is not obvious
};

// The whole table, in a fixed order (config fields, then model fields,
// then placement).
const std::vector<FieldEntry>& FieldMap();

// The entry for a parplan field path; nullptr when none.
const FieldEntry* FindField(std::string_view field);

// An entry with one of its Megatron-LM flags.
struct MegatronFlagMatch {
  const FieldEntry* entry;
  const MegatronFlag* flag;
};
// Every entry a Megatron-LM flag sets ("--swiglu" sets two); `flag` as
// written with leading dashes, '_' and '-' both accepted. Empty when none.
std::vector<MegatronFlagMatch> FindMegatronFlag(std::string_view flag);

// The entry for a Bridge ConfigContainer path ("model.tensor_model_parallel_size");
// nullptr when none.
const FieldEntry* FindBridgePath(std::string_view path);

// The Megatron-LM arguments that give `value` (canonical) for `entry` (a
// boolean by its switch, anything else by the flag that takes a value):
// {"--tensor-model-parallel-size", "8"}, {"--swiglu"}, {"--recompute-modules",
// "core_attn", "mlp"}; empty when the entry has no flag for the value (then
// Megatron-LM's default is meant) or needs a combined rendering.
std::vector<std::string> MegatronLmArguments(const FieldEntry& entry, const std::string& value);

// The value parsers the importers share (ParseBoolValue, ParseIntValue,
// ParseIntListValue, SplitListValue, EvalLayerPattern) are declared in
// core/import/field_values.h, included here.

// The model of `out`, created (origin "import", every Megatron-default
// decided by the importer) when absent.
ModelSpec* MutableImportedModel(ImportedConfig* out);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_FIELD_MAP_H_
