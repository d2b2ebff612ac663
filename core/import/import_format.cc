#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/import/imported_config.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

struct FormatName {
  ImportFormat format;
  const char* name;
};
constexpr FormatName kFormats[] = {
    {ImportFormat::kAuto, "auto"},
    {ImportFormat::kMegatronLmScript, "megatron-lm-script"},
    {ImportFormat::kMegatronLmArgsBlock, "megatron-lm-args"},
    {ImportFormat::kMegatronLmYaml, "megatron-lm-yaml"},
    {ImportFormat::kBridgeRecipe, "bridge-recipe"},
    {ImportFormat::kBridgeOverrides, "bridge-overrides"},
    {ImportFormat::kBridgeYaml, "bridge-yaml"},
    {ImportFormat::kHfConfig, "hf-config"},
};

}  // namespace

const char* ImportFormatName(ImportFormat format) {
  for (const auto& f : kFormats)
    if (f.format == format) return f.name;
  return "auto";
}

const std::vector<std::string>& ImportFormatNames() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>();
    for (const auto& f : kFormats) v->push_back(f.name);
    return v;
  }();
  return *names;
}

absl::StatusOr<ImportFormat> ParseImportFormat(const std::string& name, const std::string& field) {
  if (name.empty()) return ImportFormat::kAuto;
  std::string allowed;
  for (const auto& f : kFormats) {
    if (name == f.name) return f.format;
    absl::StrAppend(&allowed, allowed.empty() ? "" : ", ", f.name);
  }
  return FieldError(field, absl::StrCat("unknown format \"", name, "\"; allowed: ", allowed));
}

const char* ArgumentStatusName(ArgumentStatus status) {
  switch (status) {
    case ArgumentStatus::kMapped:
      return "mapped";
    case ArgumentStatus::kNotModelled:
      return "not_modelled";
    case ArgumentStatus::kNoEffect:
      return "no_effect";
  }
  return "not_modelled";
}

}  // namespace parplan
