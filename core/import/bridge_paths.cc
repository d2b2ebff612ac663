#include "core/import/bridge_paths.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/import/bridge_recipe_data.h"
#include "core/import/bridge_recipes.h"
#include "core/import/field_map.h"
#include "core/util/text.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace {

// Sections whose every field is data, logging, checkpointing or tooling:
// no effect on memory or step time (training/config.py:962 ConfigContainer).
struct Section {
  const char* name;
  ArgumentStatus status;
  const char* note;
  bool any_field;  // every field accepted (the section is not listed field by field)
};
constexpr Section kSections[] = {
    {"logger", ArgumentStatus::kNoEffect, "logging", true},
    {"checkpoint", ArgumentStatus::kNoEffect, "checkpoint paths and intervals", true},
    {"dataset", ArgumentStatus::kNoEffect, "data source and loader", true},
    {"tokenizer", ArgumentStatus::kNoEffect, "tokenizer", true},
    {"profiling", ArgumentStatus::kNoEffect, "profiling", false},
    {"ft", ArgumentStatus::kNoEffect, "fault tolerance", true},
    {"straggler", ArgumentStatus::kNoEffect, "straggler detection", true},
    {"nvrx_straggler", ArgumentStatus::kNoEffect, "straggler detection", true},
    {"inprocess_restart", ArgumentStatus::kNoEffect, "in-process restart", true},
    {"tensor_inspect", ArgumentStatus::kNoEffect, "tensor inspection", true},
    {"validation", ArgumentStatus::kNoEffect, "evaluation schedule", false},
    {"rng", ArgumentStatus::kNoEffect, "random seeds", false},
    {"scheduler", ArgumentStatus::kNoEffect, "learning-rate schedule: numerics only, no effect on memory or step time",
     false},
    {"rerun_state_machine", ArgumentStatus::kNotModelled, "loss checks and reruns", false},
    {"env_vars", ArgumentStatus::kNotModelled, "process environment (NCCL, allocator): may change speed", true},
    {"optimizer", ArgumentStatus::kNotModelled, "optimizer setting parplan does not model", false},
    {"ddp", ArgumentStatus::kNotModelled, "data-parallel setting parplan does not model", false},
    {"train", ArgumentStatus::kNotModelled, "training-loop setting parplan does not model", false},
    {"dist", ArgumentStatus::kNotModelled, "distributed-init setting parplan does not model", false},
    {"comm_overlap", ArgumentStatus::kNotModelled, "communication-overlap tuning parplan does not model", false},
    {"mixed_precision", ArgumentStatus::kNotModelled, "mixed-precision detail parplan does not model", false},
    {"model", ArgumentStatus::kNotModelled, "model-provider setting parplan does not model", false},
    {"peft", ArgumentStatus::kNotModelled, "adapter detail parplan does not model (rank, alpha, targets)", false},
    {"optimizer_config_override_provider", ArgumentStatus::kNotModelled, "per-parameter optimizer overrides", true},
};

// Individual paths whose status or reason differs from their section's.
struct Named {
  const char* path;
  ArgumentStatus status;
  const char* note;
};
constexpr Named kNamed[] = {
    {"train.train_iters", ArgumentStatus::kNoEffect, "run length: no effect on the step"},
    {"train.train_samples", ArgumentStatus::kNoEffect, "run length: no effect on the step"},
    {"train.exit_interval", ArgumentStatus::kNoEffect, "run length"},
    {"train.exit_duration_in_mins", ArgumentStatus::kNoEffect, "run length"},
    {"train.eval_interval", ArgumentStatus::kNoEffect, "evaluation schedule"},
    {"train.eval_iters", ArgumentStatus::kNoEffect, "evaluation schedule"},
    {"optimizer.lr", ArgumentStatus::kNoEffect, "learning rate: numerics only"},
    {"optimizer.min_lr", ArgumentStatus::kNoEffect, "learning rate: numerics only"},
    {"optimizer.weight_decay", ArgumentStatus::kNoEffect, "numerics only"},
    {"optimizer.adam_beta1", ArgumentStatus::kNoEffect, "numerics only"},
    {"optimizer.adam_beta2", ArgumentStatus::kNoEffect, "numerics only"},
    {"optimizer.adam_eps", ArgumentStatus::kNoEffect, "numerics only"},
    {"optimizer.clip_grad", ArgumentStatus::kNoEffect, "numerics only"},
    {"model.init_method_std", ArgumentStatus::kNoEffect, "initialisation: numerics only"},
    {"model.hidden_dropout", ArgumentStatus::kNotModelled, "dropout (a mask per element when > 0)"},
    {"model.attention_dropout", ArgumentStatus::kNotModelled, "dropout (a mask per element when > 0)"},
    {"model.pipeline_dtype", ArgumentStatus::kNotModelled, "dtype of pipeline sends (the precision preset's)"},
    {"model.params_dtype", ArgumentStatus::kNotModelled, "parameter dtype (the precision preset's)"},
    {"model.transformer_impl", ArgumentStatus::kNotModelled, "Transformer Engine or local layers: parplan models TE"},
};

struct Known {
  std::set<std::string> paths;          // every known path
  std::vector<std::string> candidates;  // for nearest-name suggestions
};

const Known& KnownPaths() {
  static const Known* known = [] {
    auto* k = new Known;
    for (const auto& e : FieldMap())
      for (const auto& p : e.bridge) k->paths.insert(p);
    for (const auto& r : BridgeRecipes())
      for (const auto& s : r.settings) k->paths.insert(s.path);
    std::string text;
    for (size_t i = 0; i < kBridgeRecipeJsonPartCount; ++i) text += kBridgeRecipeJsonParts[i];
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (!doc.is_discarded() && doc.contains("config_fields")) {
      for (auto it = doc["config_fields"].begin(); it != doc["config_fields"].end(); ++it) {
        for (const auto& f : it.value()) {
          if (f.is_string() && !absl::StartsWith(f.get<std::string>(), "_"))
            k->paths.insert(absl::StrCat(it.key(), ".", f.get<std::string>()));
        }
      }
    }
    for (const auto& s : kSections) k->paths.insert(s.name);
    k->candidates.assign(k->paths.begin(), k->paths.end());
    return k;
  }();
  return *known;
}

const Section* SectionOf(std::string_view path) {
  const std::string_view head = path.substr(0, path.find('.'));
  for (const auto& s : kSections)
    if (head == s.name) return &s;
  return nullptr;
}

}  // namespace

bool IsBridgeSection(std::string_view section) {
  for (const auto& s : kSections)
    if (section == s.name) return true;
  return false;
}

std::optional<BridgePathClass> ClassifyBridgePath(std::string_view path) {
  for (const auto& n : kNamed)
    if (path == n.path) return BridgePathClass{n.status, n.note};
  if (path == "_target_") return BridgePathClass{ArgumentStatus::kNoEffect, "the ConfigContainer class"};
  const Section* section = SectionOf(path);
  if (section == nullptr) return std::nullopt;
  if (absl::EndsWith(absl::string_view(path.data(), path.size()), "._target_"))
    return BridgePathClass{ArgumentStatus::kNoEffect, "the config class the section is built from"};
  // A nested object's field (comm_overlap.tp_comm_overlap_cfg.fc1_fprop.num_sm):
  // known when its first field is.
  std::string_view top = path;
  if (size_t second = path.find('.', path.find('.') + 1); second != std::string_view::npos)
    top = path.substr(0, second);
  const auto& known = KnownPaths().paths;
  if (section->any_field || known.count(std::string(path)) || known.count(std::string(top)))
    return BridgePathClass{section->status, section->note};
  return std::nullopt;
}

std::vector<std::string> NearestBridgePaths(std::string_view path, int limit) {
  return ClosestNames(absl::string_view(path.data(), path.size()), KnownPaths().candidates, limit);
}

}  // namespace parplan
