// ImportConfig: which reader a text goes to (core/import/imported_config.h).
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/import/bridge_import.h"
#include "core/import/imported_config.h"
#include "core/import/megatron_import.h"
#include "core/model/hf_config.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

// absl's string_view is not std's on Debian 12's Abseil.
absl::string_view AsAbsl(std::string_view text) { return absl::string_view(text.data(), text.size()); }

// A JSON object whose keys a Hugging Face config has.
bool LooksLikeHfConfig(std::string_view text) {
  const absl::string_view t = absl::StripLeadingAsciiWhitespace(AsAbsl(text));
  return !t.empty() && t.front() == '{' && HasHfConfigKeys(t);
}

absl::StatusOr<ImportedConfig> ImportHfConfig(std::string_view text, const ImportOptions& options) {
  auto model = ParseHfConfig(AsAbsl(text), options.field);
  if (!model.ok()) return model.status();
  ImportedConfig imported;
  imported.format = ImportFormat::kHfConfig;
  imported.model = *std::move(model);
  imported.notes.push_back(
      "A Hugging Face config.json gives the architecture only: parallelism, batch and precision take their "
      "defaults unless given on top.");
  if (!options.overrides.empty()) {
    return FieldError(absl::StrCat(options.field, ".overrides"),
                      "overrides apply to a Megatron Bridge recipe or YAML, not to a Hugging Face config.json; "
                      "give the settings as config fields or flags instead");
  }
  return imported;
}

ImportFormat Detect(std::string_view text) {
  const absl::string_view t = absl::StripLeadingAsciiWhitespace(AsAbsl(text));
  if (absl::StartsWith(t, "recipe:")) return ImportFormat::kBridgeRecipe;
  if (LooksLikeHfConfig(text)) return ImportFormat::kHfConfig;
  if (ImportFormat f = DetectMegatronLm(text); f != ImportFormat::kAuto) return f;
  return DetectBridge(text);
}

}  // namespace

absl::StatusOr<ImportedConfig> ImportConfig(std::string_view text, const ImportOptions& options) {
  if (text.size() > kMaxImportBytes) {
    return FieldError(options.field, absl::StrCat("the text is ", text.size(), " bytes; at most ", kMaxImportBytes,
                                                  " bytes are read"));
  }
  if (absl::StripAsciiWhitespace(AsAbsl(text)).empty()) {
    return FieldError(options.field,
                      "empty: give a Megatron-LM launch script or command line, its printed arguments block or "
                      "MODEL_ARGS YAML, \"recipe:NAME\" with Hydra-style overrides, a Megatron Bridge YAML, or a "
                      "Hugging Face config.json");
  }
  ImportFormat format = options.format == ImportFormat::kAuto ? Detect(text) : options.format;
  absl::StatusOr<ImportedConfig> imported;
  switch (format) {
    case ImportFormat::kMegatronLmScript:
    case ImportFormat::kMegatronLmArgsBlock:
    case ImportFormat::kMegatronLmYaml:
      imported = ImportMegatronLm(text, format, options);
      break;
    case ImportFormat::kBridgeRecipe:
    case ImportFormat::kBridgeOverrides:
    case ImportFormat::kBridgeYaml:
      imported = ImportBridge(text, format, options);
      break;
    case ImportFormat::kHfConfig:
      imported = ImportHfConfig(text, options);
      break;
    case ImportFormat::kAuto:
      return FieldError(options.field,
                        "not a format parplan reads: no pretrain_*.py command or --flags (Megatron-LM), no "
                        "\"-------- arguments --------\" block, no recipe:NAME or a.b=value overrides or model:/train: "
                        "sections (Megatron Bridge), no Hugging Face config keys");
  }
  if (!imported.ok()) return imported.status();
  imported->format = format;
  if (options.format == ImportFormat::kAuto) {
    imported->notes.insert(imported->notes.begin(), absl::StrCat("Read as ", ImportFormatName(format), "."));
  }
  return imported;
}

}  // namespace parplan
