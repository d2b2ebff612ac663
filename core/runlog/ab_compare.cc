// CompareWindows: is run B's step time / peak memory different from run A's
// by more than noise?
//
// Step time. Each window's median has standard error
//   SE = 1.2533 * sigma / sqrt(n),  sigma = max(1.4826 * MAD, 0.1% of median)
// (1.2533 = sqrt(pi/2), the median's efficiency for normal data; 1.4826 * MAD
// is the robust sigma, so one stray interval does not inflate it; the 0.1%
// floor covers print rounding and windows whose logged values are all equal).
// The noise of the change is sqrt(SE_a^2 + SE_b^2) / median_a; the change is
// real when |change| > 3 x noise and both windows have >= 3 intervals.
//
// Peak memory. The peak is the largest max-reserved (else max-allocated) of
// any memory report in the log. PyTorch's caching allocator reserves in 2 MiB
// pages and 20 MiB segments (c10/cuda/CUDACachingAllocator.cpp kRoundLarge,
// kLargeBuffer), so a 20 MiB segment (plus the log's print rounding: Bridge's
// 5 significant GB digits) is the noise; the change is real when it exceeds
// twice that.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/runlog/run_log.h"

namespace parplan {
namespace {

constexpr double kMedianEfficiency = 1.2533;
constexpr double kMadToSigma = 1.4826;
constexpr double kSigmaFloorFraction = 0.001;
constexpr double kStepMargin = 3.0;
constexpr int64_t kMinRecords = 3;
constexpr double kSegmentBytes = 20.0 * 1048576.0;
constexpr double kPeakMargin = 2.0;

double MedianStandardError(const SteadyWindow& w) {
  double sigma = kMadToSigma * (std::isfinite(w.mad_step_s) ? w.mad_step_s : 0.0);
  sigma = std::max(sigma, kSigmaFloorFraction * w.median_step_s);
  return kMedianEfficiency * sigma / std::sqrt(static_cast<double>(std::max<int64_t>(w.records, 1)));
}

// Largest max-reserved (else max-allocated) and the print rounding of it.
double PeakBytes(const ParsedLog& log, double* rounding) {
  double reserved = NAN, allocated = NAN;
  for (const MemoryReport& m : log.memory) {
    if (std::isfinite(m.max_reserved_bytes))
      reserved = std::isnan(reserved) ? m.max_reserved_bytes : std::max(reserved, m.max_reserved_bytes);
    if (std::isfinite(m.max_allocated_bytes)) {
      allocated = std::isnan(allocated) ? m.max_allocated_bytes : std::max(allocated, m.max_allocated_bytes);
    }
  }
  const double peak = std::isfinite(reserved) ? reserved : allocated;
  // Bridge prints GB with 5 significant digits; Megatron-LM MB with 2 decimals.
  *rounding = 0;
  if (std::isfinite(peak) && log.format == LogFormat::kBridge && peak > 0) {
    *rounding = std::pow(10.0, std::floor(std::log10(peak / 1e9)) - 4) * 1e9;
  }
  return peak;
}

// GiB with two decimals, or MiB below 1 GiB (differences are often small).
std::string Gib(double bytes) {
  if (std::fabs(bytes) < 1073741824.0) return absl::StrFormat("%.0f MiB", bytes / 1048576.0);
  return absl::StrFormat("%.2f GiB", bytes / 1073741824.0);
}

}  // namespace

AbVerdict CompareWindows(const ParsedLog& a, const SteadyWindow& wa, const ParsedLog& b, const SteadyWindow& wb) {
  AbVerdict v;
  std::string step_text;
  if (wa.records > 0 && wb.records > 0 && wa.median_step_s > 0) {
    v.step_a_s = wa.median_step_s;
    v.step_b_s = wb.median_step_s;
    v.step_change = (v.step_b_s - v.step_a_s) / v.step_a_s;
    const double se_a = MedianStandardError(wa), se_b = MedianStandardError(wb);
    v.step_noise = std::sqrt(se_a * se_a + se_b * se_b) / v.step_a_s;
    const bool enough = wa.records >= kMinRecords && wb.records >= kMinRecords;
    v.step_real = enough && std::fabs(v.step_change) > kStepMargin * v.step_noise;
    const std::string direction = v.step_change > 0 ? "slower" : "faster";
    step_text =
        absl::StrFormat("median step %.3f s (A) vs %.3f s (B), %+.1f%%", v.step_a_s, v.step_b_s, 100.0 * v.step_change);
    if (!enough) {
      absl::StrAppend(&step_text, absl::StrFormat(": too few steady intervals to tell (%d and %d; at least %d each)",
                                                  wa.records, wb.records, kMinRecords));
    } else if (v.step_real) {
      absl::StrAppend(&step_text,
                      absl::StrFormat(": B is %.1f%% %s, beyond %.0fx the noise of %.2f%%",
                                      100.0 * std::fabs(v.step_change), direction, kStepMargin, 100.0 * v.step_noise));
    } else {
      absl::StrAppend(&step_text, absl::StrFormat(": within %.0fx the noise of %.2f%%, no real difference", kStepMargin,
                                                  100.0 * v.step_noise));
    }
  } else {
    step_text = absl::StrCat("step time not compared (", wa.records > 0 ? "" : "A has no steady window",
                             wa.records > 0 || wb.records > 0 ? "" : " and ",
                             wb.records > 0 ? "" : "B has no steady window", ")");
  }

  double round_a = 0, round_b = 0;
  v.peak_a_bytes = PeakBytes(a, &round_a);
  v.peak_b_bytes = PeakBytes(b, &round_b);
  std::string peak_text;
  if (std::isfinite(v.peak_a_bytes) && std::isfinite(v.peak_b_bytes)) {
    v.peak_change_bytes = v.peak_b_bytes - v.peak_a_bytes;
    v.peak_noise_bytes = kSegmentBytes + std::max(round_a, round_b);
    v.peak_real = std::fabs(v.peak_change_bytes) > kPeakMargin * v.peak_noise_bytes;
    peak_text = absl::StrCat("; peak memory ", Gib(v.peak_a_bytes), " vs ", Gib(v.peak_b_bytes), " (",
                             v.peak_change_bytes >= 0 ? "+" : "-", Gib(std::fabs(v.peak_change_bytes)),
                             v.peak_real ? ", real" : ", within the allocator's granularity", ")");
  } else {
    peak_text = "; peak memory not compared (a memory report is missing)";
  }
  v.verdict = step_text + peak_text + ".";
  return v;
}

}  // namespace parplan
