// Internal to core/rules: the state rule families share while validating.
#ifndef PARPLAN_CORE_RULES_RULE_CONTEXT_H_
#define PARPLAN_CORE_RULES_RULE_CONTEXT_H_

#include <optional>
#include <string>
#include <vector>

#include "core/mesh/mesh.h"
#include "core/rules/validate.h"

namespace parplan {

struct RuleContext {
  const ValidationInput& in;
  const MeshDims dims;
  std::optional<WorldSizing> world;
  std::vector<Violation>* out;

  // Adds a violation of a catalogued rule at its catalogued severity.
  void Add(const char* rule, std::vector<std::string> fields, std::string message, std::string fix) const;
};

// Rule families; each appends to ctx.out.
void CheckMeshRules(const RuleContext& ctx);
void CheckModelRules(const RuleContext& ctx);
void CheckTopologyRules(const RuleContext& ctx);
void CheckPrecisionRules(const RuleContext& ctx);
void CheckTrainingRules(const RuleContext& ctx);
void CheckLayerRules(const RuleContext& ctx);
void CheckDispatchGraphRules(const RuleContext& ctx);
void CheckContextParallelRules(const RuleContext& ctx);
// Known issues of the NeMo container named (container_rules.cc).
void CheckContainerRules(const RuleContext& ctx);

}  // namespace parplan

#endif  // PARPLAN_CORE_RULES_RULE_CONTEXT_H_
