// A catalog model with its config and stage plan, and its memory estimate
// with the fixed overhead at 0 (so totals are the sum of the terms): shared
// by the memory tests.
#ifndef PARPLAN_TESTS_CORE_MEMORY_CASE_H_
#define PARPLAN_TESTS_CORE_MEMORY_CASE_H_

#include <string>
#include <vector>

#include "core/memory/memory_model.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace testing_util {

struct MemoryCase {
  ModelSpec model;
  ResolvedConfig config;
  StagePlan plan;
};

// `id` from the catalog with `c` (MTP depths from the model when unset) and
// its stage plan; a failed plan is a test failure.
inline MemoryCase MakeMemoryCase(const std::string& id, ResolvedConfig c) {
  MemoryCase s{CatalogModel(id), c, {}};
  if (s.config.mtp_num_layers == 0) s.config.mtp_num_layers = s.model.mtp_num_layers;
  std::vector<Violation> v;
  auto plan = PlanStages(s.model, s.config, &v);
  EXPECT_TRUE(plan.has_value()) << (v.empty() ? "" : v[0].message);
  if (plan) s.plan = *plan;
  return s;
}

// The memory estimate of `s` on `world` GPUs of `system`, overhead 0.
inline MemoryEstimate EstimateMemoryTerms(const MemoryCase& s, int64_t world, const char* system = "h100-sxm") {
  auto sys = Catalog::Get().FindSystem(system);
  EXPECT_TRUE(sys.ok());
  MemoryOptions o;
  o.overhead_gib = 0.0;
  return EstimateMemory(s.model, s.config, s.plan, world, &*sys, o);
}

}  // namespace testing_util
}  // namespace parplan

#endif  // PARPLAN_TESTS_CORE_MEMORY_CASE_H_
