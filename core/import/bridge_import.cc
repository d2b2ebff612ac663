#include "core/import/bridge_import.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/catalog/catalog.h"
#include "core/config/front_end.h"
#include "core/config/nemo_containers.h"
#include "core/import/bridge_overrides.h"
#include "core/import/bridge_paths.h"
#include "core/import/bridge_recipes.h"
#include "core/import/bridge_settings.h"
#include "core/import/bridge_yaml.h"
#include "core/model/model_checks.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"

namespace parplan {
namespace {

bool IsBridgeFormat(ImportFormat f) {
  return f == ImportFormat::kBridgeRecipe || f == ImportFormat::kBridgeOverrides || f == ImportFormat::kBridgeYaml;
}

// Takes the recipe `name` named at `where`, refusing a second, different one.
absl::Status NameRecipe(const std::string& name, const std::string& where, const std::string& field,
                        std::string* recipe, std::string* named_at) {
  if (name.empty()) return absl::OkStatus();
  if (!recipe->empty() && *recipe != name)
    return FieldError(field, absl::StrCat("two recipes named: \"", *recipe, "\" (", *named_at, ") and \"", name, "\" (",
                                          where, "); name one"));
  *recipe = name;
  *named_at = where;
  return absl::OkStatus();
}

// torchrun's --nproc-per-node / --nnodes among the launcher words: the GPUs
// the launch asks for (torchrun's nnodes defaults to 1).
void ReadTorchrun(ImportedConfig* out) {
  int64_t per_node = 0, nodes = 1;
  ImportedArgument* per_node_arg = nullptr;
  ImportedArgument* nodes_arg = nullptr;
  for (size_t i = 0; i < out->arguments.size(); ++i) {
    ImportedArgument& a = out->arguments[i];
    if (a.origin != "launcher") continue;
    std::string name = a.name, value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < out->arguments.size() && out->arguments[i + 1].origin == "launcher") {
      value = out->arguments[i + 1].name;
    }
    int64_t n = 0;
    if (!absl::SimpleAtoi(value, &n) || n < 1 || n > kMaxGpus) continue;
    if (name == "--nproc-per-node" || name == "--nproc_per_node") {
      per_node = n;
      per_node_arg = &a;
    } else if (name == "--nnodes") {
      nodes = n;
      nodes_arg = &a;
    }
  }
  if (per_node == 0) return;
  out->gpus_per_node = per_node;
  out->gpus = per_node * nodes;
  per_node_arg->status = ArgumentStatus::kMapped;
  per_node_arg->maps_to = "placement.gpus_per_node";
  per_node_arg->note = absl::StrCat("torchrun: ", out->gpus, " GPUs (", per_node, " per node x ", nodes, " nodes)");
  if (nodes_arg != nullptr) {
    nodes_arg->status = ArgumentStatus::kMapped;
    nodes_arg->maps_to = "placement.gpus";
  }
}

void AddLauncherFlags(const std::vector<LauncherFlag>& flags, ImportedConfig* out) {
  for (const auto& f : flags) {
    ImportedArgument a;
    a.name = f.name;
    a.value = f.value;
    a.status = !f.maps_to.empty()   ? ArgumentStatus::kMapped
               : f.affects_training ? ArgumentStatus::kNotModelled
                                    : ArgumentStatus::kNoEffect;
    a.maps_to = f.maps_to;
    a.note = f.note;
    a.line = f.line;
    a.origin = "launcher";
    out->arguments.push_back(std::move(a));
  }
}

// run_recipe.py's -sl sets dataset.seq_length and the runner copies it to
// model.seq_length after the overrides (scripts/training/run_recipe.py:38).
void SyncSeqLength(std::vector<BridgeOverride>* overrides) {
  const BridgeOverride* from_flag = nullptr;
  bool model_set = false;
  for (const auto& o : *overrides) {
    if (o.path == "dataset.seq_length" && absl::StrContains(o.note, "run_recipe.py")) from_flag = &o;
    if (o.path == "model.seq_length") model_set = true;
  }
  if (from_flag == nullptr || model_set) return;
  BridgeOverride sync = *from_flag;
  sync.path = "model.seq_length";
  sync.note = absl::StrCat(from_flag->note, "; run_recipe.py copies dataset.seq_length to model.seq_length");
  overrides->push_back(std::move(sync));
}

// A model read from a whole YAML's model section: Megatron-Core's defaults
// for what the section leaves out (a ConfigContainer Bridge wrote states
// every field), its kind, the fields still unknown, and range checks.
absl::Status FinishYamlModel(const std::vector<BridgeValue>& settings, const std::string& field, ModelSpec* m) {
  std::string provider;
  for (const auto& s : settings)
    if (s.path == "model._target_") provider = s.value;
  m->origin = "import";
  m->name = provider.empty() ? "model from a Megatron Bridge ConfigContainer YAML"
                             : absl::StrCat("model from a Megatron Bridge ConfigContainer YAML (", provider, ")");
  ApplyMegatronDefaults(m);
  m->missing_fields = MissingFields(*m);
  return PrefixFields(CheckArchitectureBounds(*m, "model"), field);
}

}  // namespace

absl::StatusOr<ImportedConfig> ImportBridge(std::string_view text, ImportFormat format, const ImportOptions& options) {
  const std::string& field = options.field;
  if (!IsBridgeFormat(format))
    return FieldError(field, absl::StrCat("format ", ImportFormatName(format),
                                          " is not a Megatron Bridge format; allowed: bridge-recipe, "
                                          "bridge-overrides, bridge-yaml"));
  if (text.size() > kMaxImportBytes)
    return FieldError(field, absl::StrCat("the text is ", text.size(), " bytes; at most ", kMaxImportBytes));
  auto version = ParseBridgeVersion(options.bridge_version, "bridge_version");
  if (!version.ok()) return version.status();

  ImportedConfig out;
  out.format = format;
  out.config.front_end = "bridge";
  // A container tag stays a tag, so its known issues are checked downstream.
  const NemoContainer* image = FindNemoContainer(options.bridge_version);
  out.config.bridge_version = image != nullptr ? image->tag : BridgeVersionName(*version);

  std::string recipe_name, named_at;
  int64_t launch_gpus = 0, launch_gpus_per_node = 0;
  std::vector<BridgeOverride> overrides;
  std::optional<BridgeYaml> yaml;
  if (format == ImportFormat::kBridgeYaml) {
    auto y = ReadBridgeYaml(text, field);
    if (!y.ok()) return y.status();
    yaml = std::move(*y);
    if (auto s = NameRecipe(yaml->recipe, absl::StrCat("line ", yaml->recipe_line), field, &recipe_name, &named_at);
        !s.ok())
      return s;
    for (const auto& n : yaml->notes) out.notes.push_back(n);
  } else {
    auto list = ParseBridgeOverrides(text, field);
    if (!list.ok()) return list.status();
    if (auto s = NameRecipe(list->recipe, absl::StrCat("line ", list->recipe_line), field, &recipe_name, &named_at);
        !s.ok())
      return s;
    overrides = std::move(list->overrides);
    AddLauncherFlags(list->launcher_flags, &out);
    launch_gpus = list->gpus;
    launch_gpus_per_node = list->gpus_per_node;
    for (const auto& n : list->notes) out.notes.push_back(n);
  }
  std::vector<BridgeOverride> on_top;
  for (size_t i = 0; i < options.overrides.size(); ++i) {
    const std::string where = absl::StrCat("overrides[", i, "]");
    auto list = ParseBridgeOverrides(options.overrides[i], where);
    if (!list.ok()) return list.status();
    if (auto s = NameRecipe(list->recipe, where, field, &recipe_name, &named_at); !s.ok()) return s;
    for (auto& o : list->overrides) {
      o.line = 0;
      o.note = o.note.empty() ? where : absl::StrCat(where, "; ", o.note);
      on_top.push_back(std::move(o));
    }
    AddLauncherFlags(list->launcher_flags, &out);
  }

  if (yaml.has_value() && yaml->full) {
    if (!recipe_name.empty())
      return FieldError(field, absl::StrCat("a whole ConfigContainer YAML is the config itself; it takes no recipe (\"",
                                            recipe_name, "\" named at ", named_at, ")"));
    std::vector<BridgeValue> settings = yaml->settings;
    if (auto s = ApplyBridgeOverrides(on_top, field, &settings); !s.ok()) return s;
    if (auto s = ApplyBridgeSettings(settings, field, nullptr, &out); !s.ok()) return s;
    if (out.model.has_value()) {
      if (auto s = FinishYamlModel(settings, field, &*out.model); !s.ok()) return s;
    }
    ReadTorchrun(&out);
    return out;
  }

  if (recipe_name.empty())
    return FieldError(field,
                      "name the Megatron Bridge recipe the settings apply to: a token recipe:NAME or --recipe NAME "
                      "(e.g. recipe:llama3_8b_pretrain_config model.tensor_model_parallel_size=2)");
  const BridgeRecipe* recipe = FindBridgeRecipe(recipe_name);
  if (const std::string other = BridgeRecipeOutsideCatalog(recipe_name); recipe == nullptr && !other.empty())
    return FieldError(field, absl::StrCat("Megatron Bridge recipe ", other, " (", named_at,
                                          ") trains a model parplan's catalog does not have; import the model's "
                                          "Hugging Face config.json or the whole ConfigContainer YAML Bridge "
                                          "writes for the run"));
  if (recipe == nullptr)
    return FieldError(
        field, absl::StrCat("unknown Megatron Bridge recipe \"", recipe_name.substr(0, 120), "\" (", named_at,
                            "); nearest: ", absl::StrJoin(NearestBridgeRecipes(recipe_name), ", "),
                            ". parplan lists the recipes of its catalog models at Bridge ", kPinnedBridgeCommit));
  std::vector<BridgeValue> settings;
  settings.reserve(recipe->settings.size());
  for (const auto& s : recipe->settings)
    settings.push_back({s.path, NormalizeBridgeValue(s.value), "recipe", 0, "", false, false});
  // An older release named explicitly: the recipe as that release had it.
  const std::string v = BridgeVersionName(*version);
  const BridgeRecipeVersion* then = options.bridge_version.empty() ? nullptr : RecipeAtVersion(*recipe, v);
  if (then != nullptr && !then->differs.empty()) {
    for (const auto& d : then->differs) {
      auto it = std::find_if(settings.begin(), settings.end(), [&](const BridgeValue& s) { return s.path == d.path; });
      if (d.value == "<unset>") {
        if (it != settings.end()) settings.erase(it);
        continue;
      }
      BridgeValue value{d.path,
                        NormalizeBridgeValue(d.value),
                        "recipe",
                        0,
                        absl::StrCat("as in Bridge ", v, " (", then->function, ")"),
                        false,
                        true};
      if (it != settings.end()) {
        *it = value;
      } else {
        settings.push_back(value);
      }
    }
    out.notes.push_back(absl::StrCat("the recipe as Bridge ", v, " has it (", then->function,
                                     "): ", then->differs.size(), " settings differ from ", kPinnedBridgeCommit));
  }
  if (yaml.has_value()) overrides = YamlOverrides(*yaml);
  for (auto& o : on_top) overrides.push_back(std::move(o));
  SyncSeqLength(&overrides);
  if (auto s = ApplyBridgeOverrides(overrides, field, &settings); !s.ok()) return s;
  if (recipe->kind == "performance") {
    // The performance launcher builds the (mock) dataset from
    // model.seq_length (scripts/performance/utils/overrides.py:515-527), so
    // the base recipe's dataset.seq_length does not survive unless the
    // overrides set it.
    bool dataset_given = false;
    for (const auto& o : overrides) dataset_given = dataset_given || o.path == "dataset.seq_length";
    std::string model_seq;
    for (const auto& s : settings)
      if (s.path == "model.seq_length" && !s.deleted) model_seq = s.value;
    for (auto& s : settings) {
      if (!dataset_given && s.path == "dataset.seq_length" && !model_seq.empty() && s.value != model_seq) {
        s.note =
            absl::StrCat("the recipe function leaves ", s.value,
                         "; scripts/performance builds the dataset from model.seq_length (utils/overrides.py:522)");
        s.value = model_seq;
      }
    }
  }

  std::optional<ModelSpec> catalog_model;
  if (auto m = Catalog::Get().FindModel(recipe->model_id); m.ok()) catalog_model = std::move(*m);
  if (auto s = ApplyBridgeSettings(settings, field, catalog_model ? &*catalog_model : nullptr, &out); !s.ok()) return s;

  if (out.model.has_value()) {
    // The catalog model with the source's changes to its architecture.
    out.model->missing_fields = MissingFields(*out.model);
    if (auto s = PrefixFields(CheckArchitectureBounds(*out.model, "model"), field); !s.ok()) return s;
  }
  out.recipe = recipe->name;
  out.model_id = recipe->model_id;
  out.notes.push_back(absl::StrCat("Megatron Bridge recipe ", recipe->name, " (", recipe->task, ", ", recipe->source,
                                   " at ", kPinnedBridgeCommit, ")"));
  if (recipe->gpus > 0) {
    out.gpus = recipe->gpus;
    out.notes.push_back(absl::StrCat("the recipe's name states ", recipe->gpus, recipe->gpus == 1 ? " GPU" : " GPUs"));
  }
  if (!recipe->gpu.empty()) {
    if (auto sys = Catalog::Get().FindSystem(recipe->gpu); sys.ok()) {
      out.system = sys->id;
      out.notes.push_back(absl::StrCat("the recipe's name states ", recipe->gpu, " (system ", sys->id, ")"));
    }
  }
  ReadTorchrun(&out);
  if (launch_gpus > 0) out.gpus = launch_gpus;
  if (launch_gpus_per_node > 0) out.gpus_per_node = launch_gpus_per_node;
  if (!RecipeInVersion(*recipe, v)) {
    out.warnings.push_back(
        absl::StrCat("Megatron Bridge ", v, " has no recipe named ", recipe->name,
                     recipe->aliases.empty() ? "" : absl::StrCat(" or ", absl::StrJoin(recipe->aliases, ", ")),
                     recipe->versions.empty()
                         ? ""
                         : absl::StrCat(" (releases that have it: ", absl::StrJoin(recipe->versions, ", "), ")"),
                     "; the settings are those at ", kPinnedBridgeCommit));
  } else if (then == nullptr && !options.bridge_version.empty()) {
    out.notes.push_back(absl::StrCat("the settings are the recipe's at ", kPinnedBridgeCommit, "; Bridge ", v,
                                     "'s version of it was not read"));
  }
  for (const auto& u : recipe->unevaluated) {
    if (absl::StrContains(u, "os.")) continue;  // output paths only
    out.notes.push_back(absl::StrCat("decided by Bridge at run time, not read by parplan: ", u));
  }
  return out;
}

ImportFormat DetectBridge(std::string_view text) {
  if (text.size() > kMaxImportBytes) return ImportFormat::kAuto;
  auto list = ParseBridgeOverrides(text, "text");
  if (list.ok()) {
    // The first token, past blank and comment lines.
    absl::string_view rest(text.data(), text.size());
    while (true) {
      rest = absl::StripLeadingAsciiWhitespace(rest);
      if (!absl::StartsWith(rest, "#")) break;
      const size_t nl = rest.find('\n');
      rest = nl == absl::string_view::npos ? absl::string_view() : rest.substr(nl + 1);
    }
    if (absl::StartsWith(rest, "recipe:")) return ImportFormat::kBridgeRecipe;
    if (!list->recipe.empty()) return ImportFormat::kBridgeOverrides;
    bool all_sections = !list->overrides.empty();
    for (const auto& o : list->overrides)
      all_sections = all_sections && IsBridgeSection(o.path.substr(0, o.path.find('.')));
    if (all_sections) return ImportFormat::kBridgeOverrides;
  }
  if (LooksLikeBridgeYaml(text)) return ImportFormat::kBridgeYaml;
  return ImportFormat::kAuto;
}

}  // namespace parplan
