#include "core/import/megatron_import.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/import/megatron_args.h"
#include "core/import/megatron_sources.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

bool HasLineStarting(std::string_view text, std::string_view prefix) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.substr(0, prefix.size()) == prefix) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace

ImportFormat DetectMegatronLm(std::string_view text) {
  const absl::string_view t(text.data(), text.size());
  if (absl::StrContains(t, "-- arguments --") && absl::StrContains(t, " ....")) {
    return ImportFormat::kMegatronLmArgsBlock;
  }
  if (HasLineStarting(text, "MODEL_ARGS:")) return ImportFormat::kMegatronLmYaml;
  for (const auto& entry : MegatronEntryPoints()) {
    if (absl::StrContains(t, entry)) return ImportFormat::kMegatronLmScript;
  }
  for (const char* flag : {"--tensor-model-parallel-size", "--num-layers", "--hidden-size", "--micro-batch-size",
                           "--pipeline-model-parallel-size"}) {
    if (absl::StrContains(t, flag)) return ImportFormat::kMegatronLmScript;
  }
  return ImportFormat::kAuto;
}

absl::StatusOr<ImportedConfig> ImportMegatronLm(std::string_view text, ImportFormat format,
                                                const ImportOptions& options) {
  const std::string& field = options.field;
  if (text.size() > kMaxImportBytes) {
    return FieldError(field, absl::StrCat("the text is ", text.size(), " bytes; at most ", kMaxImportBytes));
  }
  if (!options.overrides.empty()) {
    return FieldError(field, absl::StrCat("overrides (", options.overrides.front(),
                                          ", ...) apply to Megatron Bridge sources; for a Megatron-LM ",
                                          ImportFormatName(format), " change its arguments instead"));
  }
  ImportedConfig out;
  out.format = format;
  std::vector<MegatronArgument> args;
  MegatronSource source = MegatronSource::kScript;
  switch (format) {
    case ImportFormat::kMegatronLmScript: {
      auto launch = ReadMegatronLaunch(text, field);
      if (!launch.ok()) return launch.status();
      args = std::move(launch->arguments);
      out.gpus = launch->gpus;
      out.gpus_per_node = launch->gpus_per_node;
      out.notes = std::move(launch->notes);
      out.config.expandable_segments = launch->expandable_segments;
      break;
    }
    case ImportFormat::kMegatronLmArgsBlock: {
      auto block = ReadMegatronArgsBlock(text, field);
      if (!block.ok()) return block.status();
      args = std::move(*block);
      source = MegatronSource::kArgsBlock;
      out.notes.push_back("Megatron-LM's printed argument block: every value is the one Megatron-LM ran with");
      break;
    }
    case ImportFormat::kMegatronLmYaml: {
      auto yaml = ReadMegatronModelArgsYaml(text, field);
      if (!yaml.ok()) return yaml.status();
      args = std::move(*yaml);
      source = MegatronSource::kYaml;
      out.notes.push_back("functional-test MODEL_ARGS: true passes a switch, false leaves it out");
      break;
    }
    default:
      return FieldError(field, absl::StrCat("format ", ImportFormatName(format),
                                            " is not a Megatron-LM format; allowed: megatron-lm-script, "
                                            "megatron-lm-args, megatron-lm-yaml"));
  }
  if (absl::Status s = ApplyMegatronArguments(args, source, field, &out); !s.ok()) return s;
  // Megatron-LM needs world % (TP x PP x CP) == 0 (initialize_model_parallel).
  const ParallelConfig& c = out.config;
  const int64_t model_parallel = std::max<int64_t>(c.tp, 1) * std::max<int64_t>(c.pp, 1) * std::max<int64_t>(c.cp, 1);
  if (out.gpus > 0 && out.gpus % model_parallel != 0) {
    out.warnings.push_back(absl::StrCat("the launch starts ", out.gpus, " GPUs but TP x PP x CP = ", model_parallel,
                                        " needs a multiple of ", model_parallel,
                                        "; Megatron-LM refuses this world size"));
  }
  return out;
}

}  // namespace parplan
