// Hydra-style overrides of a Megatron Bridge ConfigContainer, as Bridge's
// entry points take them (src/megatron/bridge/training/utils/
// omegaconf_utils.py:163 parse_hydra_overrides, Hydra's override grammar):
// "model.tensor_model_parallel_size=4", "+model.new_field=1" (add),
// "++a.b=1" (add or set), "~a.b" (delete), whitespace- or newline-separated,
// with quoting and lists ("[1,2]", "['core_attn','mlp']"). Also the launcher
// line of scripts/training/run_recipe.py: "--recipe NAME" and its
// convenience flags (-tp 4, --global_batch_size 512 ...; run_recipe.py:135),
// or of the performance launcher (core/import/bridge_perf_launch.h).
#ifndef PARPLAN_CORE_IMPORT_BRIDGE_OVERRIDES_H_
#define PARPLAN_CORE_IMPORT_BRIDGE_OVERRIDES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace parplan {

enum class OverrideOp { kSet, kAdd, kForceAdd, kDelete };

struct BridgeOverride {
  OverrideOp op = OverrideOp::kSet;
  std::string path;   // "model.tensor_model_parallel_size"
  std::string value;  // canonical (NormalizeBridgeValue); "" for a delete without value
  std::string raw;    // the token as written
  int64_t line = 0;   // 1-based line of the token in the text
  std::string note;   // "from -tp 4" when a run_recipe.py flag gave it
};

// A scripts/training/run_recipe.py option that is not a ConfigContainer
// override (--mode, --dataset, --step-func, --dry-run, --deterministic,
// --dump-env), an option of the Slurm launcher in front of it
// (scripts/training/train.sh -> setup_experiment.py: --nodes,
// --gpus-per-node, --account ...), or a launcher word before the script.
struct LauncherFlag {
  std::string name;               // "--mode"
  std::string value;              // "lora"; "true" for a switch
  std::string note;               // what it does
  bool affects_training = false;  // changes what is trained (not modelled) vs no effect on the plan
  int64_t line = 0;
  std::string maps_to = "";  // "placement.gpus" when the flag sizes the job
};

struct BridgeOverrideList {
  std::string recipe;       // "recipe:NAME", "--recipe NAME" or "--recipe=NAME"; "" = none named
  int64_t recipe_line = 0;  // its line
  std::vector<BridgeOverride> overrides;
  std::vector<LauncherFlag> launcher_flags;
  int64_t gpus = 0;                // the launcher's GPU count (performance launcher -ng); 0 = not said
  int64_t gpus_per_node = 0;       // -gn; 0 = not said
  std::vector<std::string> notes;  // launcher words skipped, run_recipe.py flags read
};

inline constexpr size_t kMaxOverrides = 4096;
inline constexpr size_t kMaxOverrideValueChars = 65536;

// Parses `text` (at most kMaxImportBytes). INVALID_ARGUMENT naming `field`,
// the token and its line for a token that is neither an override nor a
// known launcher flag, an unbalanced quote or bracket, a path that is not
// dotted identifiers, and more than kMaxOverrides overrides.
absl::StatusOr<BridgeOverrideList> ParseBridgeOverrides(std::string_view text, const std::string& field);

// The canonical text of a Hydra value: quotes removed from a quoted string;
// null / None / NULL -> "null"; True / true -> "true", False -> "false";
// lists rewritten as [a,"b"] (strings double-quoted, numbers, booleans and
// null bare, nested lists kept); anything else as written, trimmed.
std::string NormalizeBridgeValue(std::string_view value);

// The items of a canonical list value ("[1,2]" -> {"1", "2"}; strings
// unquoted; a nested list stays as its text). Not a list: {value}.
std::vector<std::string> BridgeListItems(std::string_view value);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_BRIDGE_OVERRIDES_H_
