// Every rule the validator knows: stable id, default severity, one-line
// summary and the upstream source it follows. The audit of Megatron's own
// checks (scripts/megatron_checks.py, core/rules/MEGATRON_CHECKS.md) names
// rules by these ids, and tests check that every emitted id is listed here.
#ifndef PARPLAN_CORE_DIAGNOSTICS_RULE_CATALOG_H_
#define PARPLAN_CORE_DIAGNOSTICS_RULE_CATALOG_H_

#include <string>
#include <vector>

#include "core/diagnostics/violation.h"

namespace parplan {

struct RuleInfo {
  const char* id;
  Severity severity;
  const char* summary;
  const char* source;
};

const std::vector<RuleInfo>& RuleCatalog();

// The entry for `id`, or nullptr.
const RuleInfo* FindRule(const std::string& id);

}  // namespace parplan

#endif  // PARPLAN_CORE_DIAGNOSTICS_RULE_CATALOG_H_
