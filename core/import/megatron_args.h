// Megatron-LM training arguments (megatron/training/arguments.py at
// Megatron-LM d98e8a64) applied to an ImportedConfig through the field map:
// each argument mapped, not modelled or without effect; the flags that only
// mean something together (precision, GQA, VPP by layers) combined;
// Megatron-LM's own checks as errors naming both arguments and its silent
// overrides as warnings; the model built from the arguments alone with
// Megatron-LM's defaults where they are silent.
#ifndef PARPLAN_CORE_IMPORT_MEGATRON_ARGS_H_
#define PARPLAN_CORE_IMPORT_MEGATRON_ARGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/import/imported_config.h"

namespace parplan {

// One argument as a source states it.
struct MegatronArgument {
  std::string name;     // "--tensor-model-parallel-size" (args-block names are turned into flags)
  std::string written;  // as the source spells it ("tensor_model_parallel_size"); "" = name
  std::string value;    // "" for a bare switch
  bool has_value = false;
  int64_t line = 0;
  bool expanded = true;  // false: the value holds a variable the source does not set
  std::string note;      // how it was read
};

// How a source states switches: a script passes the bare flag; a
// functional-test YAML writes `--flag: true` (false = not passed); the
// printed block gives every switch's effective True / False.
enum class MegatronSource { kScript, kYaml, kArgsBlock };

// Applies `args` (in order; a later repeat wins, as argparse does) to `out`:
// arguments listed, config (front_end "megatron-lm") and model set,
// warnings and notes added. INVALID_ARGUMENT naming `field` and the
// argument for bad values, and both arguments for contradictions.
absl::Status ApplyMegatronArguments(const std::vector<MegatronArgument>& args, MegatronSource source,
                                    const std::string& field, ImportedConfig* out);

// For a flag the field map does not map: kNoEffect (paths, logging, data,
// checkpoints, tokenizer, run length) or kNotModelled, with the reason.
ArgumentStatus ClassifyUnmappedMegatronFlag(std::string_view flag, std::string* note);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_MEGATRON_ARGS_H_
