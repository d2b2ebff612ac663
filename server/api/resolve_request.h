// Resolves the config-shaped part of a request (model reference, placement,
// parallel config) into core types. Shared by the API's handlers.
#ifndef PARPLAN_SERVER_RESOLVE_REQUEST_H_
#define PARPLAN_SERVER_RESOLVE_REQUEST_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/config/nemo_containers.h"
#include "core/config/parallel_config.h"
#include "core/config/resolved_settings.h"
#include "core/util/field_error.h"
#include "core/model/model_spec.h"
#include "core/rules/validate.h"
#include "parplan/v1/planner.pb.h"
#include "server/api/convert.h"

namespace parplan {
namespace api {

// Everything a config-shaped request resolves to.
struct Resolved {
  std::optional<ModelSpec> model;
  ResolvedConfig config;
  ResolvedPlacement placement;
  const ModelSpec* model_ptr() const { return model.has_value() ? &*model : nullptr; }
};

// `model_ref` may be null (no model). Checks the config's bounds first (every
// field out of bounds named together), then resolves the model, the
// placement and the config in that order, returning the first part's
// error: INVALID_ARGUMENT naming the fields, NOT_FOUND for an unknown model
// or system.
absl::Status Resolve(const v1::ModelRef* model_ref, const v1::Placement& placement, const v1::ParallelConfig& config,
                     Resolved* out);

// Megatron's rules on the resolved model (if any), config and placement.
ValidationResult ValidateResolved(const Resolved& r);

// Fills an answer's `resolved` (every setting of the resolved plan with its
// source and effect class) and `assumes` (the front end and Bridge release)
// from `config` on `placement`; dp/edp of 0 are left out. Returns the
// settings (for the answer's EffectWarnings).
template <typename Response>
std::vector<ResolvedSetting> FillResolvedPlan(const ResolvedConfig& config, const ResolvedPlacement& placement,
                                              const ModelSpec* model, int64_t dp, int64_t edp, SettingsScope scope,
                                              Response* response) {
  std::vector<ResolvedSetting> settings = ListResolvedSettings(config, placement, model, dp, edp, scope);
  ToResolvedSettings(settings, response->mutable_resolved());
  response->set_assumes(AssumesLine(config.front_end, config.bridge_version) + ContainerAssumes(config));
  return settings;
}

// The memory reserve a request asks for: `value` when `given`, else the
// default (core/memory/memory_margin.h). Out of 0..kMaxMemoryReserve (or not
// a number) adds an error naming `field` and returns the default.
double MemoryReserveOf(bool given, double value, const std::string& field, FieldErrors* errors);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_RESOLVE_REQUEST_H_
