// Order statistics for the steady-window and A/B code (kept apart so both
// use the same definitions).
#ifndef PARPLAN_CORE_RUNLOG_WINDOW_STATS_H_
#define PARPLAN_CORE_RUNLOG_WINDOW_STATS_H_

#include <vector>

namespace parplan {

// Linear-interpolated percentile (0..100) of `values` (copied, sorted);
// NaN when empty.
double Percentile(std::vector<double> values, double pct);
double Median(const std::vector<double>& values);
// Median absolute deviation from the median (unscaled); NaN when empty.
double MedianAbsoluteDeviation(const std::vector<double>& values);

}  // namespace parplan

#endif  // PARPLAN_CORE_RUNLOG_WINDOW_STATS_H_
