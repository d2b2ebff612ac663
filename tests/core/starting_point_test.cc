// The rule-of-thumb starting point is always a config Megatron accepts: for
// every catalog model, system and a spread of world sizes it validates with
// no error (layer splits that do not divide get the nearest valid split).
#include "core/search/starting_point.h"

#include "absl/strings/str_cat.h"
#include "core/catalog/catalog.h"
#include "core/resolve/model_resolve.h"
#include "core/search/candidate_space.h"
#include "core/search/recommender.h"
#include "core/search/search_types.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

TEST(StartingPointTest, AlwaysAValidConfig) {
  int checked = 0;
  for (const ModelSpec& catalog_model : Catalog::Get().models()) {
    ModelSpec m = catalog_model;
    if (!CompleteForEstimate(&m, "model").ok()) continue;
    for (const char* system_id : {"h100-sxm", "gb200-nvl72"}) {
      const SystemSpec sys = *Catalog::Get().FindSystem(system_id);
      for (int64_t world : {8, 24, 64, 96, 256, 1024}) {
        ResolvedConfig base;
        base.seq_length = m.DefaultSeqLength();
        base.gbs = SearchGlobalBatch(base.seq_length, world);
        const StartingPoint s = RuleOfThumbConfig(m, base, world, sys);
        const PlanEval p = EvaluatePlan(m, s.config, world, sys);
        std::string errors;
        for (const Violation& v : p.violations) {
          if (v.severity == Severity::kError) absl::StrAppend(&errors, v.rule, ": ", v.message, "; ");
        }
        EXPECT_TRUE(p.valid) << m.id << " on " << world << " " << system_id << " (" << s.rule << "): " << errors;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace parplan
