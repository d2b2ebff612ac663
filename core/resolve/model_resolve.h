// Turns any of the four ways of naming a model into a ModelSpec.
#ifndef PARPLAN_CORE_RESOLVE_MODEL_RESOLVE_H_
#define PARPLAN_CORE_RESOLVE_MODEL_RESOLVE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model_spec.h"

namespace parplan {

struct ModelSource {
  enum class Kind { kNone, kId, kSpec, kHfConfig, kSize };
  Kind kind = Kind::kNone;
  std::string text;  // id, config.json text or size phrase
  ModelSpec spec;    // inline spec (kSpec)
};

// Resolves `source`; `field` is the request path used in errors ("model").
// kNone is INVALID_ARGUMENT; an unknown id NOT_FOUND with the closest names;
// an inline spec gets Megatron's defaults, bounds checks and missing fields.
absl::StatusOr<ModelSpec> ResolveModel(const ModelSource& source, const std::string& field);

// Makes `model` usable for an estimate: unknown fields are filled by the
// named rules of AssumeMissingFields (the model is then marked approximate).
// Returns one line per assumed field (empty for a complete model), or
// INVALID_ARGUMENT naming the fields no rule can fill (a hybrid model without
// its layer pattern; a layer count with no published size to solve it from).
absl::StatusOr<std::vector<std::string>> CompleteForEstimate(ModelSpec* model, const std::string& field);

}  // namespace parplan

#endif  // PARPLAN_CORE_RESOLVE_MODEL_RESOLVE_H_
