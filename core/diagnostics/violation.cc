#include "core/diagnostics/violation.h"

#include <algorithm>

namespace parplan {

std::string SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "error";
}

void SortViolations(std::vector<Violation>* violations) {
  std::stable_sort(violations->begin(), violations->end(), [](const Violation& a, const Violation& b) {
    return static_cast<int>(a.severity) < static_cast<int>(b.severity);
  });
}

}  // namespace parplan
