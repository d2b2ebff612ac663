// ChooseSteadyWindow: which logged iterations measure the steady state.
//
// Order of the exclusions: batch-size ramp-up (keep the final batch),
// intervals with skipped/NaN iterations, the warm-up at the start, a logged
// profiling range (Megatron-LM --profile --profile-step-start/-end, read from
// the argument block), then isolated outliers. Thresholds:
//   warm-up   the first logged interval of a run (iteration <= the log
//             interval) always, and further leading intervals while their
//             step time is > 1.10x the median of the later half;
//   outliers  |step - median| > max(5 * 1.4826 * MAD, 10% of the median),
//             excluded only when at most a quarter of the intervals are
//             (otherwise the run is noisy, and the reason says so, as it
//             does when the window's (p90 - p10) / median exceeds 10%).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/runlog/run_log.h"
#include "core/runlog/window_stats.h"

namespace parplan {
namespace {

constexpr double kWarmupFactor = 1.10;
constexpr double kOutlierMads = 5.0;
constexpr double kOutlierFraction = 0.10;
constexpr double kMadToSigma = 1.4826;
constexpr size_t kMaxExclusionLines = 12;
constexpr double kNoisySpread = 0.10;

std::string Range(int64_t a, int64_t b) {
  return a == b ? absl::StrCat("iteration ", a) : absl::StrCat("iterations ", a, "-", b);
}

std::string Seconds(double s) { return absl::StrFormat("%.3g s", s); }

const std::string* Argument(const ParsedLog& log, const std::string& name) {
  for (const auto& [k, v] : log.arguments) {
    if (k == name) return &v;
  }
  return nullptr;
}

class Exclusions {
 public:
  void Add(std::string text) {
    if (lines_.size() < kMaxExclusionLines) {
      lines_.push_back(std::move(text));
    } else {
      ++more_;
    }
  }
  std::vector<std::string> Take() {
    if (more_ > 0) lines_.push_back(absl::StrCat("and ", more_, " more exclusion(s)"));
    return std::move(lines_);
  }

 private:
  std::vector<std::string> lines_;
  int64_t more_ = 0;
};

}  // namespace

SteadyWindow ChooseSteadyWindow(const ParsedLog& log) {
  SteadyWindow w;
  if (log.iterations.empty()) {
    w.reason = "no window: the log has no iteration lines";
    return w;
  }
  std::vector<const IterationRecord*> recs;
  for (const IterationRecord& r : log.iterations) {
    if (std::isfinite(r.step_s) && r.step_s > 0 && r.iteration >= 0) recs.push_back(&r);
  }
  if (recs.empty()) {
    w.reason = absl::StrCat("no window: none of the ", log.iterations.size(),
                            " iteration lines carries a step time (elapsed time per iteration, Step Time or "
                            "train_step_timing)");
    return w;
  }
  std::stable_sort(recs.begin(), recs.end(),
                   [](const IterationRecord* a, const IterationRecord* b) { return a->iteration < b->iteration; });
  const size_t n = recs.size();
  std::vector<bool> keep(n, true);
  Exclusions excluded;
  auto kept_indices = [&] {
    std::vector<size_t> out;
    for (size_t i = 0; i < n; ++i) {
      if (keep[i]) out.push_back(i);
    }
    return out;
  };

  // 1. Batch ramp-up: keep the final batch.
  int64_t final_gbs = -1;
  for (auto it = recs.rbegin(); it != recs.rend() && final_gbs < 0; ++it) final_gbs = (*it)->global_batch_size;
  if (final_gbs > 0) {
    int64_t first = -1, last = -1, lo = INT64_MAX, hi = 0, count = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t g = recs[i]->global_batch_size;
      if (g < 0 || g == final_gbs) continue;
      keep[i] = false;
      if (first < 0) first = recs[i]->iteration;
      last = recs[i]->iteration;
      lo = std::min(lo, g);
      hi = std::max(hi, g);
      ++count;
    }
    if (count > 0) {
      excluded.Add(absl::StrCat(Range(first, last), ": batch-size ramp-up (", count, " interval(s) at global batch ",
                                lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, "..", hi), "; the final batch is ",
                                final_gbs, ")"));
    }
  }

  // 2. Intervals with skipped or NaN iterations.
  for (size_t i = 0; i < n; ++i) {
    const int64_t skipped = std::max<int64_t>(recs[i]->skipped_iterations, 0);
    const int64_t nans = std::max<int64_t>(recs[i]->nan_iterations, 0);
    if (!keep[i] || (skipped == 0 && nans == 0)) continue;
    keep[i] = false;
    excluded.Add(absl::StrCat(Range(recs[i]->iteration, recs[i]->iteration), ": ", skipped, " skipped and ", nans,
                              " NaN iteration(s) in its interval"));
  }

  // 3. Warm-up.
  std::vector<size_t> rest = kept_indices();
  if (rest.size() >= 2) {
    const int64_t interval = recs[rest[1]]->iteration - recs[rest[0]]->iteration;
    const bool run_start = recs[rest[0]]->iteration <= std::max<int64_t>(interval, 1);
    std::vector<double> later;
    for (size_t k = rest.size() / 2; k < rest.size(); ++k) later.push_back(recs[rest[k]]->step_s);
    const double reference = Median(later);
    size_t count = 0;
    while (count < rest.size() / 2) {
      const double step = recs[rest[count]]->step_s;
      const bool slow = step > kWarmupFactor * reference;
      if (!(slow || (count == 0 && run_start))) break;
      ++count;
    }
    if (count > 0) {
      double worst = 0;
      for (size_t k = 0; k < count; ++k) {
        keep[rest[k]] = false;
        worst = std::max(worst, recs[rest[k]]->step_s);
      }
      excluded.Add(absl::StrCat(Range(recs[rest[0]]->iteration, recs[rest[count - 1]]->iteration), ": warm-up (", count,
                                " leading interval(s)", run_start ? ", the first interval of the run" : "",
                                "; slowest ", Seconds(worst), " vs the later median ", Seconds(reference),
                                absl::StrFormat(", %.2fx", worst / reference),
                                "; compilation, CUDA-graph capture, allocator warm-up)"));
    }
  }

  // 4. A profiling range the argument block declares.
  const std::string* profile = Argument(log, "profile");
  const std::string* p_start = Argument(log, "profile_step_start");
  const std::string* p_end = Argument(log, "profile_step_end");
  int64_t ps = 0, pe = 0;
  if (profile != nullptr && *profile == "True" && p_start != nullptr && p_end != nullptr &&
      absl::SimpleAtoi(*p_start, &ps) && absl::SimpleAtoi(*p_end, &pe)) {
    int64_t first = -1, last = -1;
    for (size_t i = 0; i < n; ++i) {
      const int64_t prev = i == 0 ? recs[i]->iteration - 1 : recs[i - 1]->iteration;
      if (!keep[i] || recs[i]->iteration < ps || prev >= pe) continue;  // interval (prev, it] misses [ps, pe]
      keep[i] = false;
      if (first < 0) first = recs[i]->iteration;
      last = recs[i]->iteration;
    }
    if (first >= 0) {
      excluded.Add(absl::StrCat(Range(first, last), ": profiling window (--profile with profile_step_start=", ps,
                                ", profile_step_end=", pe, ")"));
    }
  }

  // 5. Isolated outliers.
  rest = kept_indices();
  std::string noisy;
  if (rest.size() >= 4) {
    std::vector<double> steps;
    for (size_t i : rest) steps.push_back(recs[i]->step_s);
    const double med = Median(steps);
    const double mad = MedianAbsoluteDeviation(steps);
    const double limit = std::max(kOutlierMads * kMadToSigma * mad, kOutlierFraction * med);
    std::vector<size_t> outliers;
    for (size_t i : rest) {
      if (std::fabs(recs[i]->step_s - med) > limit) outliers.push_back(i);
    }
    if (!outliers.empty() && outliers.size() * 4 <= rest.size()) {
      for (size_t i : outliers) {
        keep[i] = false;
        excluded.Add(absl::StrCat(Range(recs[i]->iteration, recs[i]->iteration), ": outlier ", Seconds(recs[i]->step_s),
                                  " vs the median ", Seconds(med), absl::StrFormat(" (%.2fx)", recs[i]->step_s / med),
                                  "; a profiling range, checkpoint save or evaluation in its interval?"));
      }
    } else if (!outliers.empty()) {
      noisy = absl::StrCat("; step time varies widely (", outliers.size(), " of ", rest.size(),
                           " intervals beyond the outlier limit, kept)");
    }
  }

  w.excluded = excluded.Take();
  rest = kept_indices();
  if (rest.empty()) {
    if (noisy.empty() && w.spread > kNoisySpread) {
      noisy = absl::StrFormat("; step time varies widely (spread above %.0f%%): the median is uncertain",
                              100.0 * kNoisySpread);
    }
    w.reason = absl::StrCat("no window: all ", n, " logged intervals with a step time were excluded");
    return w;
  }
  std::vector<double> steps, tflops, tokens;
  for (size_t i : rest) {
    steps.push_back(recs[i]->step_s);
    if (std::isfinite(recs[i]->tflops_per_gpu)) tflops.push_back(recs[i]->tflops_per_gpu);
    if (std::isfinite(recs[i]->tokens_per_s_per_gpu)) tokens.push_back(recs[i]->tokens_per_s_per_gpu);
  }
  w.records = static_cast<int64_t>(rest.size());
  w.first_iteration = recs[rest.front()]->iteration;
  w.last_iteration = recs[rest.back()]->iteration;
  w.median_step_s = Median(steps);
  double sum = 0;
  for (double s : steps) sum += s;
  w.mean_step_s = sum / static_cast<double>(steps.size());
  double sq = 0;
  for (double s : steps) sq += (s - w.mean_step_s) * (s - w.mean_step_s);
  w.stddev_step_s = steps.size() > 1 ? std::sqrt(sq / static_cast<double>(steps.size() - 1)) : 0.0;
  w.mad_step_s = MedianAbsoluteDeviation(steps);
  w.min_step_s = *std::min_element(steps.begin(), steps.end());
  w.max_step_s = *std::max_element(steps.begin(), steps.end());
  w.spread = (Percentile(steps, 90) - Percentile(steps, 10)) / w.median_step_s;
  if (!tflops.empty()) w.median_tflops_per_gpu = Median(tflops);
  if (!tokens.empty()) w.median_tokens_per_s_per_gpu = Median(tokens);
  w.global_batch_size = final_gbs;
  for (const IterationRecord* r : recs) {
    if (r->iteration < w.first_iteration || r->iteration > w.last_iteration) continue;
    w.skipped_iterations += std::max<int64_t>(r->skipped_iterations, 0);
    w.nan_iterations += std::max<int64_t>(r->nan_iterations, 0);
  }
  if (noisy.empty() && w.spread > kNoisySpread) {
    noisy = absl::StrFormat("; step time varies widely (spread above %.0f%%): the median is uncertain",
                            100.0 * kNoisySpread);
  }
  if (noisy.empty() && w.spread > kNoisySpread) {
    noisy = absl::StrFormat("; step time varies widely (spread above %.0f%%): the median is uncertain",
                            100.0 * kNoisySpread);
  }
  w.reason = absl::StrCat(
      Range(w.first_iteration, w.last_iteration), ": ", w.records, " logged interval(s)",
      final_gbs > 0 ? absl::StrCat(" at global batch ", final_gbs) : std::string(), ", median step ",
      Seconds(w.median_step_s), absl::StrFormat(", spread (p90-p10)/median %.1f%%", 100.0 * w.spread),
      w.excluded.empty() ? "; nothing excluded" : absl::StrCat("; ", n - rest.size(), " interval(s) excluded"), noisy,
      w.records < 3 ? "; fewer than 3 intervals: a rough estimate" : "");
  return w;
}

}  // namespace parplan
