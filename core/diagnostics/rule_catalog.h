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
  // True for checks that live only in Megatron-LM's argument validation
  // (megatron/training/arguments.py validate_args): a Megatron Bridge launch
  // never runs them, so under front_end bridge they are warnings that say so.
  bool megatron_lm_only = false;
};

// "megatron-lm" for a Megatron-LM-only check, else "all" (Megatron-Core,
// Transformer Engine, Bridge and parplan's own checks apply to every launch).
std::string RuleFrontEnds(const RuleInfo& rule);

const std::vector<RuleInfo>& RuleCatalog();

// The entry for `id`, or nullptr.
const RuleInfo* FindRule(const std::string& id);

}  // namespace parplan

#endif  // PARPLAN_CORE_DIAGNOSTICS_RULE_CATALOG_H_
