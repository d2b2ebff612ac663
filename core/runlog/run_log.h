// A training log as Megatron-LM, Megatron Bridge and NeMo print it, read into
// records: iteration lines, memory reports, failures (OOM, assertions) and
// Megatron-LM's start-up argument block. Pasted logs are messy (wrapped
// lines, interleaved ranks, gaps, prose); the reader keeps what it can read
// and says what it could not. Formats: ../shared/reference/run_artifacts.md
// and the printers it names (Megatron-LM megatron/training/training.py
// training_log, megatron/training/utils.py report_memory; Bridge
// src/megatron/bridge/training/utils/train_utils.py).
#ifndef PARPLAN_CORE_RUNLOG_RUN_LOG_H_
#define PARPLAN_CORE_RUNLOG_RUN_LOG_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace parplan {

inline constexpr double kNotLogged = std::numeric_limits<double>::quiet_NaN();

// Which printer a line came from.
enum class LogFormat { kUnknown, kMegatronLm, kBridge, kNemo };
const char* LogFormatName(LogFormat format);  // "unknown" "megatron-lm" "megatron-bridge" "nemo"

// One logged iteration (a log interval's line). NaN / -1 = not in the line.
struct IterationRecord {
  int64_t iteration = -1;
  int64_t train_iters = -1;  // the "/ 5000" part
  LogFormat format = LogFormat::kUnknown;
  double step_s = kNotLogged;                // elapsed time per iteration (Megatron ms, Bridge "Step Time", NeMo s)
  double tflops_per_gpu = kNotLogged;        // throughput per GPU (TFLOP/s/GPU) or Bridge's MODEL_TFLOP/s/GPU
  double tokens_per_s_per_gpu = kNotLogged;  // forks that print it
  int64_t global_batch_size = -1;
  int64_t consumed_samples = -1;
  double learning_rate = kNotLogged;
  double loss = kNotLogged;  // lm loss / reduced_train_loss
  double loss_scale = kNotLogged;
  double grad_norm = kNotLogged;
  int64_t skipped_iterations = -1;  // in this interval
  int64_t nan_iterations = -1;
  int rank = -1;     // when the line names one
  int64_t line = 0;  // 1-based line of the log where the record starts
};

// One memory report: "[Rank R] (after N iterations) memory (MB) | allocated:
// ..." (MiB) or Bridge's decimal-GB form. Bytes; NaN when absent.
struct MemoryReport {
  int64_t after_iterations = -1;
  int rank = -1;
  double allocated_bytes = kNotLogged;
  double max_allocated_bytes = kNotLogged;
  double reserved_bytes = kNotLogged;
  double max_reserved_bytes = kNotLogged;
  int64_t alloc_retries = -1;  // Bridge mem-alloc-retires
  int64_t line = 0;
};

// A failure the log shows: PyTorch's CUDA OOM, an AssertionError /
// ValueError / RuntimeError raised by Megatron-Core, Megatron-LM or Bridge.
struct LogFailure {
  std::string kind;     // "oom" | "assertion" | "error"
  std::string message;  // the exception's message (one line, as printed)
  int64_t line = 0;
  // OOM: sizes from the message (bytes; NaN when absent).
  double tried_bytes = kNotLogged;
  double capacity_bytes = kNotLogged;
  double free_bytes = kNotLogged;
  // The last iteration logged before the failure (-1: none, the failure
  // came at start-up: model build, optimizer init or the first iteration).
  int64_t after_iteration = -1;
  std::string moment;  // "start-up (before the first logged iteration)", "after iteration 120", ...
  // The parplan rule the message corresponds to ("" when none does) and
  // its fix in words.
  std::string rule_id;
  std::string fix;
  // Added: where the upstream template is (file:line at the pinned commit),
  // the innermost traceback frame ("megatron/core/parallel_state.py:823 in
  // initialize_model_parallel"), the rank that printed it, and how many
  // times the same message appeared (other ranks print it too).
  std::string rule_source;
  std::string raised_at;
  int rank = -1;
  int64_t repeats = 1;
};

struct ParsedLog {
  LogFormat format = LogFormat::kUnknown;   // the format of most iteration lines
  std::vector<IterationRecord> iterations;  // in log order, one per iteration (rank 0 / first rank kept)
  std::vector<MemoryReport> memory;
  std::vector<LogFailure> failures;
  // Megatron-LM's "-------- arguments --------" block: (name, value) as printed.
  std::vector<std::pair<std::string, std::string>> arguments;
  int64_t lines = 0;                // lines in the text
  int64_t lines_read = 0;           // lines that gave a record
  std::vector<std::string> unread;  // what could not be read, summarised ("12 wrapped lines joined", ...)
  std::vector<std::string> notes;   // what the reader decided (ranks dropped, duplicate iterations, ...)
  // Added: the profiled iterations when the log declares them (Megatron-LM's
  // argument block with profile True, or a Bridge/Megatron-Core config dump
  // with use_nsys_profiler / use_pytorch_profiler true); -1 when not.
  int64_t profile_step_start = -1;
  int64_t profile_step_end = -1;
};

// Reads `text` (at most kMaxLogBytes). INVALID_ARGUMENT naming `field` for
// empty, oversized or binary text; otherwise OK even when nothing was read
// (then `unread` says why).
// The doors' default request size (gRPC and HTTP, core/util/limits.h
// kDefaultMaxMessageBytes), so a log reads the same on every door.
inline constexpr size_t kMaxLogBytes = 4u << 20;
absl::StatusOr<ParsedLog> ParseRunLog(std::string_view text, const std::string& field);

// The steady-state window of a log's iterations: the first iterations
// (compilation, CUDA-graph capture, allocator warm-up), profiling windows and
// outliers left out, each exclusion said with its reason.
struct SteadyWindow {
  int64_t first_iteration = -1, last_iteration = -1;
  int64_t records = 0;  // iteration records inside the window with a step time
  double median_step_s = kNotLogged;
  double mean_step_s = kNotLogged;
  double stddev_step_s = kNotLogged;  // across records
  double mad_step_s = kNotLogged;     // added: median absolute deviation (the noise estimate's input)
  double min_step_s = kNotLogged, max_step_s = kNotLogged;
  double spread = kNotLogged;  // (p90 - p10) / median
  double median_tflops_per_gpu = kNotLogged;
  double median_tokens_per_s_per_gpu = kNotLogged;  // as logged by forks; NaN otherwise
  int64_t global_batch_size = -1;                   // the batch the window ran (-1 when not logged)
  int64_t skipped_iterations = 0;                   // inside the window
  int64_t nan_iterations = 0;
  std::vector<std::string> excluded;  // "iterations 1-10: warm-up (first 10 lines 2.1x the median)"
  std::string reason;                 // why this window
};

// nullopt-like: records == 0 and `reason` saying why when no window exists.
// The exclusion rules and their thresholds are listed at the top of
// steady_window.cc.
SteadyWindow ChooseSteadyWindow(const ParsedLog& log);

// Two runs' windows set side by side: the difference and whether it is
// larger than the noise of either window.
struct AbVerdict {
  double step_a_s = kNotLogged, step_b_s = kNotLogged;
  double step_change = kNotLogged;  // (b - a) / a
  double step_noise = kNotLogged;   // the change noise alone could make (fraction)
  bool step_real = false;
  double peak_a_bytes = kNotLogged, peak_b_bytes = kNotLogged;  // max reserved (else max allocated)
  double peak_change_bytes = kNotLogged;
  bool peak_real = false;
  double peak_noise_bytes = kNotLogged;  // added: the allocator granularity / print rounding used as memory noise
  std::string verdict;                   // one sentence with the numbers
};
// The noise model (standard error of the medians from the windows' MAD, a
// 3x margin; the allocator's 20 MiB segment for memory) is described at the
// top of ab_compare.cc.
AbVerdict CompareWindows(const ParsedLog& a, const SteadyWindow& wa, const ParsedLog& b, const SteadyWindow& wb);

}  // namespace parplan

#endif  // PARPLAN_CORE_RUNLOG_RUN_LOG_H_
