#include "core/compare/measured_run.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace parplan {

int64_t ArgumentInt(const ParsedLog& log, const std::string& name) {
  for (const auto& [key, value] : log.arguments) {
    int64_t v = 0;
    if (key == name && absl::SimpleAtoi(value, &v) && v > 0) return v;
  }
  return 0;
}

MeasuredRun MeasureRun(const ParsedLog& log, const RunShape& shape) {
  MeasuredRun m;
  m.window = ChooseSteadyWindow(log);
  m.step_s = m.window.median_step_s;
  m.tflops_per_gpu = m.window.median_tflops_per_gpu;
  // NaN / skipped iterations counted from the records themselves too (the
  // window's own counts when it has them, whichever is larger).
  for (const IterationRecord& r : log.iterations) {
    if (m.window.records == 0 || r.iteration < m.window.first_iteration || r.iteration > m.window.last_iteration)
      continue;
    if (r.nan_iterations > 0) m.nan_iterations += r.nan_iterations;
    if (r.skipped_iterations > 0) m.skipped_iterations += r.skipped_iterations;
  }
  m.nan_iterations = std::max(m.nan_iterations, m.window.nan_iterations);
  m.skipped_iterations = std::max(m.skipped_iterations, m.window.skipped_iterations);

  // The batch: the log's (what the run ran), else the config's, else the
  // start-up arguments'.
  if (m.window.global_batch_size > 0) {
    m.gbs = m.window.global_batch_size;
    m.gbs_source = "the log's global batch size";
  } else if (shape.config_gbs > 0) {
    m.gbs = shape.config_gbs;
    m.gbs_source = "the config's gbs (the log prints no global batch size)";
  } else if (int64_t g = ArgumentInt(log, "global_batch_size"); g > 0) {
    m.gbs = g;
    m.gbs_source = "the log's start-up arguments (global_batch_size)";
  }
  m.seq_length = shape.seq_length > 0 ? shape.seq_length : ArgumentInt(log, "seq_length");
  m.world = shape.world > 0 ? shape.world : ArgumentInt(log, "world_size");
  const bool step_known = std::isfinite(m.step_s) && m.step_s > 0;
  if (step_known && m.gbs > 0 && m.seq_length > 0 && m.world > 0) {
    m.tokens_per_s_per_gpu = static_cast<double>(m.gbs) * m.seq_length / m.step_s / m.world;
    m.tokens_source = absl::StrFormat("%d sequences (%s) x %d tokens / %.3f s / %d GPUs", m.gbs, m.gbs_source,
                                      m.seq_length, m.step_s, m.world);
  } else if (std::isfinite(m.window.median_tokens_per_s_per_gpu)) {
    m.tokens_per_s_per_gpu = m.window.median_tokens_per_s_per_gpu;
    m.tokens_source = "as logged";
  } else {
    m.tokens_source =
        absl::StrCat("not known: needs ", !step_known ? "a step time, " : "", m.gbs <= 0 ? "the global batch, " : "",
                     m.seq_length <= 0 ? "the sequence length, " : "", m.world <= 0 ? "the GPU count, " : "",
                     "or a logged tokens/s");
  }

  for (const MemoryReport& r : log.memory) {
    if (std::isfinite(r.max_allocated_bytes)) {
      m.max_allocated_bytes = std::isfinite(m.max_allocated_bytes)
                                  ? std::max(m.max_allocated_bytes, r.max_allocated_bytes)
                                  : r.max_allocated_bytes;
    }
    if (std::isfinite(r.max_reserved_bytes)) {
      m.max_reserved_bytes = std::isfinite(m.max_reserved_bytes) ? std::max(m.max_reserved_bytes, r.max_reserved_bytes)
                                                                 : r.max_reserved_bytes;
    }
  }
  if (std::isfinite(m.max_allocated_bytes) && std::isfinite(m.max_reserved_bytes) && m.max_reserved_bytes > 0) {
    m.fragmentation = (m.max_reserved_bytes - m.max_allocated_bytes) / m.max_reserved_bytes;
  }
  return m;
}

AbVerdict CompareRunWindows(const ParsedLog& a, const ParsedLog& b) {
  return CompareWindows(a, ChooseSteadyWindow(a), b, ChooseSteadyWindow(b));
}

}  // namespace parplan
