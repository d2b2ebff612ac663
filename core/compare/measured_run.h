// The measured side of a comparison: the steady window of a parsed log and
// what it says about step time, throughput and memory; and two logs' windows
// side by side (A/B). The only calls into the window code of core/runlog.
#ifndef PARPLAN_CORE_COMPARE_MEASURED_RUN_H_
#define PARPLAN_CORE_COMPARE_MEASURED_RUN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/runlog/run_log.h"

namespace parplan {

// What the caller knows beside the log (from the config and placement);
// 0 = unknown, then the log's start-up arguments are read.
struct RunShape {
  int64_t seq_length = 0;
  int64_t world = 0;
  int64_t config_gbs = 0;  // the config's global batch (0 = not given)
};

struct MeasuredRun {
  SteadyWindow window;
  double step_s = kNotLogged;  // the window's median
  int64_t gbs = -1;            // the batch the tokens are counted with
  std::string gbs_source;      // "the log's global batch size" | "the config's gbs" | ...
  int64_t seq_length = 0, world = 0;
  double tokens_per_s_per_gpu = kNotLogged;
  std::string tokens_source;                                                 // how tokens/s/GPU was obtained
  double tflops_per_gpu = kNotLogged;                                        // as logged (median over the window)
  double max_allocated_bytes = kNotLogged, max_reserved_bytes = kNotLogged;  // largest over the memory reports
  double fragmentation = kNotLogged;                   // (max reserved - max allocated) / max reserved
  int64_t nan_iterations = 0, skipped_iterations = 0;  // inside the window, from its records
  std::vector<std::string> notes;
};

// Preconditions: none (an empty log gives an empty window and NaNs).
MeasuredRun MeasureRun(const ParsedLog& log, const RunShape& shape);

// The A/B verdict for `a` (baseline) and `b`, each with its own window.
AbVerdict CompareRunWindows(const ParsedLog& a, const ParsedLog& b);

// The value of a start-up argument (Megatron-LM's arguments block) as an
// integer; 0 when absent or not a positive integer.
int64_t ArgumentInt(const ParsedLog& log, const std::string& name);

}  // namespace parplan

#endif  // PARPLAN_CORE_COMPARE_MEASURED_RUN_H_
