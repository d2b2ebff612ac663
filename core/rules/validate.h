// Validation: every rule of a config against a model and a placement.
#ifndef PARPLAN_CORE_RULES_VALIDATE_H_
#define PARPLAN_CORE_RULES_VALIDATE_H_

#include <optional>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/mesh/mesh.h"
#include "core/model/model_spec.h"
#include "core/pipeline/stage_plan.h"
#include "core/diagnostics/violation.h"

namespace parplan {

struct ValidationInput {
  const ModelSpec* model = nullptr;  // optional
  ResolvedConfig config;
  ResolvedPlacement placement;
};

struct ValidationResult {
  bool valid = true;  // no error-severity violation
  int errors = 0, warnings = 0, infos = 0;
  std::vector<Violation> violations;  // errors, then warnings, then infos
  MinGpusResult min_gpus;
  std::optional<WorldSizing> world;  // when placement.gpus > 0
  std::optional<StagePlan> stages;   // when the split could be planned
  std::vector<std::string> reasons;  // short summary lines with numbers
};

// Runs every rule. Checks that need a missing input (model, GPU count,
// system, sequence length) are skipped with an info violation saying so.
ValidationResult Validate(const ValidationInput& input);

}  // namespace parplan

#endif  // PARPLAN_CORE_RULES_VALIDATE_H_
