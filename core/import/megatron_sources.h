// The three Megatron-LM texts read into argument lists: a launch script (the
// pretrain_*.py invocation and its launcher), the argument block Megatron-LM
// prints at start-up, and a functional test's MODEL_ARGS YAML.
#ifndef PARPLAN_CORE_IMPORT_MEGATRON_SOURCES_H_
#define PARPLAN_CORE_IMPORT_MEGATRON_SOURCES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/import/megatron_args.h"

namespace parplan {

struct MegatronLaunch {
  std::vector<MegatronArgument> arguments;
  std::string entry_point;    // "pretrain_gpt.py", "" when the arguments came from a bare command line
  int64_t gpus = 0;           // nproc_per_node x nnodes (torchrun) or srun's tasks; 0 = unknown
  int64_t gpus_per_node = 0;  // 0 = unknown
  // expandable_segments from the script's PYTORCH_CUDA_ALLOC_CONF (or
  // PYTORCH_ALLOC_CONF, its newer name); unset when the script sets neither.
  std::optional<bool> expandable_segments;
  std::vector<std::string> notes;
};

// The training entry points Megatron-LM has at d98e8a64 (repository root).
const std::vector<std::string>& MegatronEntryPoints();  // pretrain_gpt.py pretrain_mamba.py pretrain_hybrid.py ...

// Reads a launch script or a pasted command line: the pretrain_*.py
// invocation (also inside a variable holding the command, as Slurm wrappers
// build it), its arguments, and the launcher's GPU count (torchrun /
// python -m torch.distributed.run --nproc_per_node / --nnodes, srun
// --nodes / --ntasks-per-node, GPUS_PER_NODE / NUM_NODES / NNODES). A text
// with flags but no entry point takes the command with the most flags.
// INVALID_ARGUMENT naming `field` when no Megatron-LM argument is found.
absl::StatusOr<MegatronLaunch> ReadMegatronLaunch(std::string_view text, const std::string& field);

// Reads the "-------- arguments --------" block: "  name ...... value"
// lines with Python reprs, names turned into flags (fp8 -> --fp8-format,
// virtual_pipeline_model_parallel_size -> --num-virtual-stages-per-pipeline-rank,
// padded_vocab_size when vocab_size is None, ...).
absl::StatusOr<std::vector<MegatronArgument>> ReadMegatronArgsBlock(std::string_view text, const std::string& field);

// Reads MODEL_ARGS of a functional test's model_config.yaml
// (tests/functional_tests/test_cases/**/model_config.yaml): "--flag: value".
absl::StatusOr<std::vector<MegatronArgument>> ReadMegatronModelArgsYaml(std::string_view text,
                                                                        const std::string& field);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_MEGATRON_SOURCES_H_
