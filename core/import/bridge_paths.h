// Megatron Bridge ConfigContainer paths that parplan's field table
// (core/import/field_map.h) does not map, each said by name: not modelled
// (changes training or its speed in ways parplan does not model) or without
// effect on the plan (logging, checkpoints, data, tokenizer, the config
// class). Known paths are the dataclass fields of each section
// (scripts/bridge_recipes.py reads them from Bridge's training/config.py and
// model providers and from Megatron-Core), every path a catalog recipe sets,
// and whole sections of no effect (logger.*, checkpoint.*, dataset.* ...).
#ifndef PARPLAN_CORE_IMPORT_BRIDGE_PATHS_H_
#define PARPLAN_CORE_IMPORT_BRIDGE_PATHS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/import/imported_config.h"

namespace parplan {

struct BridgePathClass {
  ArgumentStatus status = ArgumentStatus::kNotModelled;
  std::string note;  // why, in words
};

// What a path field_map does not map is; nullopt for a path Bridge's
// ConfigContainer does not have (as far as parplan knows it).
std::optional<BridgePathClass> ClassifyBridgePath(std::string_view path);

// True when `path` is a ConfigContainer section name ("model", "train", ...).
bool IsBridgeSection(std::string_view section);

// Up to `limit` known paths nearest `path` (mapped ones first in ties), for
// unknown-path errors.
std::vector<std::string> NearestBridgePaths(std::string_view path, int limit = 5);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_BRIDGE_PATHS_H_
