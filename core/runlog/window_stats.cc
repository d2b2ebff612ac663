#include "core/runlog/window_stats.h"

#include <algorithm>
#include <cmath>

namespace parplan {

double Percentile(std::vector<double> values, double pct) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(pct, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

double Median(const std::vector<double>& values) { return Percentile(values, 50.0); }

double MedianAbsoluteDeviation(const std::vector<double>& values) {
  if (values.empty()) return NAN;
  const double m = Median(values);
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double v : values) dev.push_back(std::fabs(v - m));
  return Median(dev);
}

}  // namespace parplan
