// The built-in catalog: every model of shared/data/models.json and every
// system of hardware.json, embedded in the binary (core/catalog/catalog.json,
// made by scripts/build_catalog.py). Parsed once, on first use; read-only and
// thread-safe afterwards.
#ifndef PARPLAN_CORE_CATALOG_CATALOG_H_
#define PARPLAN_CORE_CATALOG_CATALOG_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/model/model_spec.h"
#include "core/system/system_spec.h"

namespace parplan {

class Catalog {
 public:
  // The process-wide catalog.
  static const Catalog& Get();

  const std::vector<ModelSpec>& models() const { return models_; }
  const std::vector<SystemSpec>& systems() const { return systems_; }

  // Finds a model by id, alias, HF id or the last part of an HF id;
  // case-insensitive with '-' == '_'. NOT_FOUND names the closest ids.
  absl::StatusOr<ModelSpec> FindModel(absl::string_view name) const;

  // Finds a system by id or alias, same matching. NOT_FOUND names the
  // closest ids.
  absl::StatusOr<SystemSpec> FindSystem(absl::string_view name) const;

  // The catalog's per-field source citations of a model ("hidden_size" ->
  // where the value comes from); empty for an unknown id. Parsed on first
  // use (the catalog loads without them, for start-up time); thread-safe.
  std::map<std::string, std::string> ModelFieldSources(const std::string& model_id) const;

 private:
  Catalog();
  std::vector<ModelSpec> models_;
  std::vector<SystemSpec> systems_;
};

// The embedded JSON text (generated translation unit).
extern const char* const kCatalogJson;
extern const char* const kCatalogSourcesJson;  // {model id: {field: source}}

}  // namespace parplan

#endif  // PARPLAN_CORE_CATALOG_CATALOG_H_
