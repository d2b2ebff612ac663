// The options of Megatron Bridge's performance launcher
// (scripts/performance/run_script.py and setup_experiment.py, whose parser is
// scripts/performance/argument_parser.py at 067f987df0): the flat
// performance recipe they select (-mr, --task, -ng, -g, -c, -cv ->
// "<recipe>_<task>_<N>gpu_<gpu>_<precision>[_<variant>]_config",
// utils/utils.py:446 _recipe_function_name) and the options that set
// ConfigContainer fields directly (utils/overrides.py:474-515 set_user_overrides).
#ifndef PARPLAN_CORE_IMPORT_BRIDGE_PERF_LAUNCH_H_
#define PARPLAN_CORE_IMPORT_BRIDGE_PERF_LAUNCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/import/bridge_overrides.h"

namespace parplan {

struct LaunchToken {
  std::string text;  // unquoted
  int64_t line = 0;
};

// True for the performance launcher script ("scripts/performance/run_script.py",
// ".../setup_experiment.py").
bool IsPerformanceLauncher(const std::string& script);

// Reads the launcher's options from `tokens` (those after the script) into
// `out`: the recipe, GPUs, overrides for the direct options, launcher flags
// for the ones without effect on the plan, and KEY=VALUE overrides as they
// come. INVALID_ARGUMENT naming `field`, the option and its line for an
// option parplan does not read (the launcher has ~130; the others change the
// recipe through helpers parplan does not follow), a missing value, a
// missing -mr / -ng / -g, and --use_recipes.
absl::Status ReadPerformanceLaunch(const std::vector<LaunchToken>& tokens, const std::string& field,
                                   BridgeOverrideList* out);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_BRIDGE_PERF_LAUNCH_H_
