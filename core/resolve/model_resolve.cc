#include "core/resolve/model_resolve.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/model/assume_missing.h"
#include "core/catalog/catalog.h"
#include "core/model/hf_config.h"
#include "core/model/inline_spec.h"
#include "core/model/model_checks.h"
#include "core/model/size_model.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"

namespace parplan {

absl::StatusOr<ModelSpec> ResolveModel(const ModelSource& source, const std::string& field) {
  switch (source.kind) {
    case ModelSource::Kind::kNone:
      return FieldError(field, "no model given; set one of id, spec, hf_config_json or size");
    case ModelSource::Kind::kId: {
      if (source.text.empty() || static_cast<int64_t>(source.text.size()) > kMaxNameChars) {
        return FieldError(absl::StrCat(field, ".id"),
                          absl::StrCat("model id must be 1..", kMaxNameChars, " characters"));
      }
      return Catalog::Get().FindModel(source.text);
    }
    case ModelSource::Kind::kHfConfig:
      return ParseHfConfig(source.text, absl::StrCat(field, ".hf_config_json"));
    case ModelSource::Kind::kSize:
      return ModelFromSize(source.text, absl::StrCat(field, ".size"));
    case ModelSource::Kind::kSpec: {
      ModelSpec m = source.spec;
      const std::string prefix = absl::StrCat(field, ".spec");
      if (absl::Status s = CheckArchitectureBounds(m, prefix); !s.ok()) return s;
      // Refused where it leaves the MLP, norm or position embedding open;
      // every field it left out is named (core/model/inline_spec.h).
      if (absl::Status s = CheckInlineSpecSettled(m, prefix); !s.ok()) return s;
      DefaultInlineSpec(&m);
      m.origin = "inline";
      if (m.id.empty()) m.id = "inline";
      if (m.name.empty()) m.name = "inline architecture";
      m.missing_fields = MissingFields(m);
      return m;
    }
  }
  return FieldError(field, "unknown model source");
}

absl::StatusOr<std::vector<std::string>> CompleteForEstimate(ModelSpec* model, const std::string& field) {
  std::vector<std::string> assumed = AssumeMissingFields(model);
  if (model->complete()) return assumed;
  return FieldError(
      field, absl::StrCat("model '", model->id, "' is incomplete: unknown ", absl::StrJoin(model->missing_fields, ", "),
                          " and no rule can assume them; pass an inline spec or its config.json "
                          "with these fields"));
}

}  // namespace parplan
