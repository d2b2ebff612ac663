// Megatron-LM texts imported into a plan: a launch script or command line,
// the argument block Megatron-LM prints at start-up, or a functional test's
// MODEL_ARGS YAML (arguments of megatron/training/arguments.py at
// Megatron-LM d98e8a64). The ImportConfig dispatcher
// (core/import/imported_config.h) calls these.
#ifndef PARPLAN_CORE_IMPORT_MEGATRON_IMPORT_H_
#define PARPLAN_CORE_IMPORT_MEGATRON_IMPORT_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "core/import/imported_config.h"

namespace parplan {

// Reads `text` as `format` (kMegatronLmScript, kMegatronLmArgsBlock or
// kMegatronLmYaml; anything else is INVALID_ARGUMENT naming options.field,
// as are options.overrides, which belong to Bridge sources).
// Every argument is listed (mapped / not_modelled / no_effect); the config
// has front_end "megatron-lm"; the model (origin "import") is built from the
// arguments alone, Megatron-LM's defaults where they are silent, each
// defaulted field in model.field_sources; gpus / gpus_per_node come from the
// launcher when known. Contradictions are INVALID_ARGUMENT naming both
// arguments; Megatron-LM's silent overrides are warnings with the values.
absl::StatusOr<ImportedConfig> ImportMegatronLm(std::string_view text, ImportFormat format,
                                                const ImportOptions& options);

// Which Megatron-LM format `text` is: the printed argument block, a
// MODEL_ARGS YAML, a script or command line naming a pretrain_*.py entry
// point or Megatron-LM flags; kAuto when it is none of them.
ImportFormat DetectMegatronLm(std::string_view text);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_MEGATRON_IMPORT_H_
