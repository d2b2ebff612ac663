#include "server/api/import_api.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/search/split_repair.h"
#include "core/util/field_error.h"
#include "server/api/convert.h"
#include "server/api/resolve_request.h"

namespace parplan {
namespace api {
namespace {

constexpr int kMaxOverrides = 512;
constexpr size_t kMaxOverrideBytes = 4096;

void ToImportedArgument(const ImportedArgument& a, v1::ImportedArgument* out) {
  out->set_name(a.name);
  out->set_value(a.value);
  out->set_status(ArgumentStatusName(a.status));
  out->set_maps_to(a.maps_to);
  out->set_note(a.note);
  out->set_line(a.line);
  out->set_origin(a.origin);
}

}  // namespace

absl::StatusOr<ImportedRequestParts> ImportRequestParts(
    const std::string& text, const std::string& format,
    const google::protobuf::RepeatedPtrField<std::string>& overrides, const std::string& bridge_version,
    const v1::Placement& placement, const std::string& field, const std::string& field_prefix) {
  FieldErrors errors;
  if (overrides.size() > kMaxOverrides) {
    errors.Add(field_prefix + "overrides", absl::StrCat(overrides.size(), " overrides; at most ", kMaxOverrides));
  }
  for (int i = 0; i < overrides.size() && i < kMaxOverrides; ++i) {
    if (overrides[i].size() > kMaxOverrideBytes) {
      errors.Add(absl::StrCat(field_prefix, "overrides[", i, "]"),
                 absl::StrCat(overrides[i].size(), " bytes; at most ", kMaxOverrideBytes));
    }
  }
  auto parsed_format = ParseImportFormat(format, field_prefix + "format");
  if (!parsed_format.ok()) return parsed_format.status();
  if (!errors.empty()) return errors.ToStatus();
  ImportOptions options;
  options.format = *parsed_format;
  options.field = field;
  options.overrides.assign(overrides.begin(), overrides.end());
  options.bridge_version = bridge_version;
  auto imported = parplan::ImportConfig(text, options);
  if (!imported.ok()) return imported.status();

  ImportedRequestParts parts;
  parts.imported = *std::move(imported);
  const ImportedConfig& in = parts.imported;
  if (in.format == ImportFormat::kHfConfig) {
    parts.model.set_hf_config_json(text);
  } else if (in.model.has_value()) {
    ToModelArchitecture(*in.model, parts.model.mutable_spec());
  } else if (!in.model_id.empty()) {
    parts.model.set_id(in.model_id);
  }
  FromParallelConfig(in.config, &parts.config);
  parts.placement = placement;
  if (parts.placement.gpus() == 0 && in.gpus > 0) parts.placement.set_gpus(in.gpus);
  if (parts.placement.gpus_per_node() == 0 && in.gpus_per_node > 0) {
    parts.placement.set_gpus_per_node(static_cast<int32_t>(in.gpus_per_node));
  }
  if (parts.placement.system().empty() && !parts.placement.has_system_spec() && !in.system.empty()) {
    parts.placement.set_system(in.system);
  }
  return parts;
}

absl::Status ImportConfig(const v1::ImportConfigRequest& request, v1::ImportConfigResponse* response) {
  // The caller's own placement is checked before the text is read.
  Resolved given;
  if (absl::Status s = Resolve(nullptr, request.placement(), v1::ParallelConfig(), &given); !s.ok()) return s;
  auto parts = ImportRequestParts(request.text(), request.format(), request.overrides(), request.bridge_version(),
                                  request.placement(), "text", "");
  if (!parts.ok()) return parts.status();
  const ImportedConfig& in = parts->imported;
  response->set_format(ImportFormatName(in.format));
  response->set_recipe(in.recipe);
  *response->mutable_model() = parts->model;
  *response->mutable_config() = parts->config;
  *response->mutable_placement() = parts->placement;
  int counts[3] = {0, 0, 0};
  for (const ImportedArgument& a : in.arguments) {
    ToImportedArgument(a, response->add_arguments());
    ++counts[static_cast<int>(a.status)];
  }
  response->set_mapped(counts[static_cast<int>(ArgumentStatus::kMapped)]);
  response->set_not_modelled(counts[static_cast<int>(ArgumentStatus::kNotModelled)]);
  response->set_no_effect(counts[static_cast<int>(ArgumentStatus::kNoEffect)]);
  for (const auto& w : in.warnings) response->add_warnings(w);
  for (const auto& n : in.notes) response->add_notes(n);
  response->add_reasons(absl::StrCat("Read ", in.arguments.size(), " settings as ", ImportFormatName(in.format),
                                     in.recipe.empty() ? "" : absl::StrCat(" (recipe ", in.recipe, ")"), ": ",
                                     response->mapped(), " mapped, ", response->not_modelled(), " not modelled, ",
                                     response->no_effect(), " without effect on the plan."));
  if (response->not_modelled() > 0) {
    std::string names;
    int listed = 0;
    for (const ImportedArgument& a : in.arguments) {
      if (a.status != ArgumentStatus::kNotModelled) continue;
      if (listed++ < 12) absl::StrAppend(&names, listed > 1 ? ", " : "", a.name);
    }
    response->add_reasons(
        absl::StrCat("Not modelled (they may change speed or training in ways parplan does not "
                     "predict): ",
                     names, listed > 12 ? absl::StrCat(" and ", listed - 12, " more") : "", "."));
  }
  for (const auto& w : in.warnings) response->add_reasons(absl::StrCat("Warning: ", w));

  // The resolved plan and its validation, as Validate answers it.
  Resolved r;
  const v1::ModelRef* model = HasModel(parts->model) ? &parts->model : nullptr;
  if (absl::Status s = Resolve(model, parts->placement, parts->config, &r); !s.ok()) {
    response->set_valid(false);
    response->add_reasons(absl::StrCat("Not resolved: ", s.message()));
    return absl::OkStatus();
  }
  const ValidationResult v = ValidateResolved(r);
  response->set_valid(v.valid);
  ToViolations(v.violations, response->mutable_violations());
  if (r.model.has_value()) ToModelSummary(*r.model, response->mutable_model_summary());
  ResolvedConfig listed = r.config;
  if (v.stages.has_value()) listed.vpp = v.stages->vpp;
  ToResolvedConfig(listed, response->mutable_resolved_config());
  FillResolvedPlan(listed, r.placement, r.model_ptr(), v.world.has_value() ? v.world->dp : 0,
                   v.world.has_value() ? v.world->edp : 0, SettingsScope::kConfig, response);
  for (const auto& reason : v.reasons) response->add_reasons(reason);
  return absl::OkStatus();
}

}  // namespace api
}  // namespace parplan
