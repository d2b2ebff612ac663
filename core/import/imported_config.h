// A configuration read from what the user runs -- a Megatron-LM launch
// script or command line, Megatron-LM's printed argument block or a
// functional test's MODEL_ARGS YAML, a Megatron Bridge recipe by name with
// Hydra-style overrides, a Bridge ConfigContainer YAML, or a Hugging Face
// config.json -- into the given ParallelConfig and model that the
// resolution step (core/config/parallel_config.h ResolveConfig) completes.
// Every argument the source sets is listed: mapped (to which parplan field),
// not modelled, or without effect on the plan; none is dropped silently.
#ifndef PARPLAN_CORE_IMPORT_IMPORTED_CONFIG_H_
#define PARPLAN_CORE_IMPORT_IMPORTED_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"

namespace parplan {

enum class ImportFormat {
  kAuto,
  kMegatronLmScript,     // a launch script or command line (pretrain_gpt.py / pretrain_mamba.py ...)
  kMegatronLmArgsBlock,  // the "-------- arguments --------" block Megatron-LM prints at start-up
  kMegatronLmYaml,       // a functional test's MODEL_ARGS ("--flag: value")
  kBridgeRecipe,         // "recipe:NAME" plus Hydra-style overrides
  kBridgeOverrides,      // Hydra-style overrides alone ("model.tensor_model_parallel_size=4 ...") on a named recipe
  kBridgeYaml,           // a ConfigContainer YAML (as Bridge writes it) or a YAML override file
  kHfConfig,             // a Hugging Face config.json
};
const char* ImportFormatName(ImportFormat format);  // "megatron-lm-script", ...
// Every name ParseImportFormat takes, "auto" first.
const std::vector<std::string>& ImportFormatNames();
// INVALID_ARGUMENT naming `field` and the allowed names for an unknown name.
absl::StatusOr<ImportFormat> ParseImportFormat(const std::string& name, const std::string& field);

// One argument of the source and what became of it.
enum class ArgumentStatus {
  kMapped,       // set a parplan field (maps_to)
  kNotModelled,  // changes training or its speed in ways parplan does not model
  kNoEffect,     // paths, logging, data, checkpointing: no effect on the plan
};
const char* ArgumentStatusName(ArgumentStatus status);  // "mapped" | "not_modelled" | "no_effect"

struct ImportedArgument {
  std::string name;   // as written: "--tensor-model-parallel-size", "model.tensor_model_parallel_size"
  std::string value;  // as written after variable expansion ("true" for a bare switch)
  ArgumentStatus status = ArgumentStatus::kNotModelled;
  std::string maps_to;  // parplan field(s): "config.tp", "model.num_layers", "placement.gpus"
  std::string note;     // why not modelled / how it was read (e.g. "from ${TP:-8}")
  int64_t line = 0;     // 1-based line in the source (0 = not from a line: a recipe's own setting)
  std::string origin;   // "script" | "recipe" | "override" | "yaml" | "args-block"
};

struct ImportedConfig {
  ImportFormat format = ImportFormat::kAuto;
  std::string recipe;    // Bridge recipe function name, when the source names one
  std::string model_id;  // catalog id, when the source names the model (a recipe's provider) rather than its fields
  std::optional<ModelSpec> model;  // the architecture from the arguments (origin "import"), when they give it
  ParallelConfig config;           // as given (zeros / unset = not set by the source)
  int64_t gpus = 0;           // world size the launch asks for (torchrun nproc_per_node x nnodes, ...); 0 = unknown
  int64_t gpus_per_node = 0;  // 0 = unknown
  std::string system;         // a parplan system id when the source names the GPU (performance recipes)
  std::vector<ImportedArgument> arguments;
  std::vector<std::string> warnings;  // flags Megatron drops or overrides (SP with TP=1, ...), said with the values
  std::vector<std::string> notes;     // how the source was read (format detected, variables expanded, ...)
};

struct ImportOptions {
  ImportFormat format = ImportFormat::kAuto;
  std::string field = "text";  // the request path errors name
  // Hydra-style overrides applied on top of the source (Bridge recipe or
  // YAML): "model.tensor_model_parallel_size=4".
  std::vector<std::string> overrides;
  std::string bridge_version;  // "" = the newest known (core/config/front_end.h)
};

inline constexpr size_t kMaxImportBytes = 1u << 20;

// Reads `text` in `options.format` (kAuto: detected from its content; a text
// "recipe:NAME" names a Bridge recipe). INVALID_ARGUMENT naming the field and
// value for text that is not any known format, an unknown recipe (with the
// nearest names), an override on an unknown path, values out of range, and
// contradictions (naming both arguments, e.g.
// --num-layers-per-virtual-pipeline-stage with --pipeline-model-parallel-layout).
absl::StatusOr<ImportedConfig> ImportConfig(std::string_view text, const ImportOptions& options);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_IMPORTED_CONFIG_H_
