#include "server/api/resolve_request.h"

#include "core/memory/memory_margin.h"
#include "core/resolve/model_resolve.h"
#include "core/util/field_error.h"
#include "server/api/convert.h"

namespace parplan {
namespace api {

absl::Status Resolve(const v1::ModelRef* model_ref, const v1::Placement& placement, const v1::ParallelConfig& config,
                     Resolved* out) {
  // The config's bounds first, all of them together, before any lookup.
  FieldErrors errors;
  for (const auto& v : FieldViolationsOf(CheckConfigBounds(ToParallelConfig(config), "config"))) {
    errors.Add(v.field, v.description);
  }
  for (const auto& v : FieldViolationsOf(CheckSystemSpecSpellings(placement.system_spec(), "placement.system_spec"))) {
    errors.Add(v.field, v.description);
  }
  if (!errors.empty()) return errors.ToStatus();
  if (model_ref != nullptr && HasModel(*model_ref)) {
    auto model = ResolveModel(ToModelSource(*model_ref), "model");
    if (!model.ok()) return model.status();
    out->model = *std::move(model);
  }
  auto resolved_placement = ResolvePlacement(ToPlacement(placement), "placement");
  if (!resolved_placement.ok()) return resolved_placement.status();
  out->placement = *resolved_placement;
  auto resolved_config = ResolveConfig(ToParallelConfig(config), out->model_ptr(), "config");
  if (!resolved_config.ok()) return resolved_config.status();
  out->config = *resolved_config;
  // The system's overrides and defaults travel with the config's defaults
  // into every answer's reasons.
  out->config.notes.insert(out->config.notes.begin(), out->placement.notes.begin(), out->placement.notes.end());
  return absl::OkStatus();
}

ValidationResult ValidateResolved(const Resolved& r) {
  ValidationInput in;
  in.model = r.model_ptr();
  in.config = r.config;
  in.placement = r.placement;
  return Validate(in);
}

double MemoryReserveOf(bool given, double value, const std::string& field, FieldErrors* errors) {
  if (!given) return kDefaultMemoryReserve;
  const absl::Status checked = CheckMemoryReserve(value, field);
  for (const auto& v : FieldViolationsOf(checked)) errors->Add(v.field, v.description);
  return checked.ok() ? value : kDefaultMemoryReserve;
}

}  // namespace api
}  // namespace parplan
