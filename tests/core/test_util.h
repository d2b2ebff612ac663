// Helpers shared by the core tests.
#ifndef PARPLAN_TESTS_CORE_TEST_UTIL_H_
#define PARPLAN_TESTS_CORE_TEST_UTIL_H_

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/config/parallel_config.h"
#include "core/rules/validate.h"
#include "core/search/search_types.h"
#include "gtest/gtest.h"

namespace parplan {
namespace testing_util {

inline ModelSpec CatalogModel(const std::string& id) {
  auto m = Catalog::Get().FindModel(id);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : ModelSpec{};
}

// A search for `model` on `gpus` GPUs of catalog `system` at `seq` tokens,
// with the model's MTP depth.
inline SearchRequest SearchRequestFor(const ModelSpec* model, const char* system, int64_t gpus, int64_t seq) {
  SearchRequest r;
  r.model = model;
  r.system = *Catalog::Get().FindSystem(system);
  r.gpus = gpus;
  r.base.seq_length = seq;
  r.base.mtp_num_layers = model->mtp_num_layers;
  return r;
}

// Validates `config` for `model` (may be absent) on `system` with `gpus`.
inline ValidationResult ValidateConfigFor(const std::optional<ModelSpec>& model, const ParallelConfig& config,
                                          const std::string& system = "", int64_t gpus = 0) {
  Placement placement;
  placement.system = system;
  placement.gpus = gpus;
  auto resolved_placement = ResolvePlacement(placement, "placement");
  EXPECT_TRUE(resolved_placement.ok()) << resolved_placement.status();
  auto resolved = ResolveConfig(config, model ? &*model : nullptr, "config");
  EXPECT_TRUE(resolved.ok()) << resolved.status();
  ValidationInput in;
  in.model = model ? &*model : nullptr;
  in.config = *resolved;
  in.placement = *resolved_placement;
  return Validate(in);
}

// Validates `config` for the catalog model `model_id` (may be empty) on `system` with `gpus`.
inline ValidationResult ValidateConfig(const std::string& model_id, const ParallelConfig& config,
                                       const std::string& system = "", int64_t gpus = 0) {
  std::optional<ModelSpec> model;
  if (!model_id.empty()) model = CatalogModel(model_id);
  return ValidateConfigFor(model, config, system, gpus);
}

inline std::vector<std::string> ErrorRules(const ValidationResult& r) {
  std::vector<std::string> out;
  for (const auto& v : r.violations) {
    if (v.severity == Severity::kError) out.push_back(v.rule);
  }
  return out;
}

inline bool HasRule(const ValidationResult& r, const std::string& rule) {
  return std::any_of(r.violations.begin(), r.violations.end(), [&](const Violation& v) { return v.rule == rule; });
}

}  // namespace testing_util
}  // namespace parplan

#endif  // PARPLAN_TESTS_CORE_TEST_UTIL_H_
