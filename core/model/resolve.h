// Turns any of the four ways of naming a model into a ModelSpec.
#ifndef PARPLAN_CORE_MODEL_RESOLVE_H_
#define PARPLAN_CORE_MODEL_RESOLVE_H_

#include <string>

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

// FAILED_PRECONDITION-free guard for math: INVALID_ARGUMENT naming the
// missing fields when the model is incomplete, OK otherwise.
absl::Status RequireComplete(const ModelSpec& model, const std::string& field);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_RESOLVE_H_
