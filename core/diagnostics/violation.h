// A rule finding: which rule, how bad, which fields, what and how to fix.
#ifndef PARPLAN_CORE_DIAGNOSTICS_VIOLATION_H_
#define PARPLAN_CORE_DIAGNOSTICS_VIOLATION_H_

#include <string>
#include <vector>

namespace parplan {

enum class Severity { kError, kWarning, kInfo };

struct Violation {
  std::string rule;  // stable id, e.g. "tp.heads_divisible"
  Severity severity = Severity::kError;
  std::vector<std::string> fields;  // e.g. {"tp", "model.num_attention_heads"}
  std::string message;              // one line with the numbers
  std::string fix;
};

// "error" | "warning" | "info".
std::string SeverityName(Severity severity);

// Orders errors first, then warnings, then infos; stable within a severity.
void SortViolations(std::vector<Violation>* violations);

}  // namespace parplan

#endif  // PARPLAN_CORE_DIAGNOSTICS_VIOLATION_H_
