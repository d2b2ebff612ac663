// Sane at any scale (issue 36, item 5): the default batch never above the
// 16M-token cap (Llama-3 8B on 68,192 H200: every config needs at least
// 2,131 DP ranks, so the search says why instead of planning 1.1B tokens
// per step), the rule-of-thumb comparison signed, bubble and one-microbatch
// warnings, and "Not searched" for a search cut before evaluating anything.
#include "core/search/scale_checks.h"

#include "absl/time/clock.h"
#include "core/catalog/catalog.h"
#include "core/search/plan_explain.h"
#include "core/search/recommender.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;
using testing_util::SearchRequestFor;

TEST(ScaleChecksTest, DefaultBatchNeverAboveTheCap) {
  const ModelSpec m = CatalogModel("llama3_8b");
  // 68,192 = 32 x 2,131 (a prime): at least 2,131 DP ranks x 8,192 tokens.
  auto none = Recommend(SearchRequestFor(&m, "h200-sxm", 68192, 8192));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->feasible);
  EXPECT_TRUE(none->plans.empty());
  EXPECT_GT(none->rejected.over_batch_cap, 0);
  EXPECT_NE(none->infeasible_reason.find("needs more than 16,777,216 tokens per step"), std::string::npos)
      << none->infeasible_reason;
  EXPECT_NE(none->infeasible_reason.find("give config.gbs"), std::string::npos);
  // 65,536 GPUs: plans exist, each within the cap.
  auto some = Recommend(SearchRequestFor(&m, "h200-sxm", 65536, 8192));
  ASSERT_TRUE(some.ok()) << some.status();
  ASSERT_TRUE(some->feasible) << some->infeasible_reason;
  for (const PlanEval& p : some->plans) EXPECT_LE(p.config.gbs * 8192, int64_t{1} << 24) << PlanLabel(p.config);
  // Its rule of thumb (DP 32,768) is not: the comparison says so, signed.
  EXPECT_NE(some->starting_point_comparison.find("% slower."), std::string::npos) << some->starting_point_comparison;
  EXPECT_NE(some->starting_point_comparison.find("is above the 16M-token cap the plans keep to"), std::string::npos)
      << some->starting_point_comparison;
  // And its plans, one microbatch per DP rank, say so.
  bool warned = false;
  for (const PlanEval& p : some->plans) {
    for (const Violation& v : p.violations) warned |= v.rule == "batch.one_microbatch";
  }
  EXPECT_TRUE(warned);
}

PlanEval Evaluated(int64_t tp, double tokens_per_s) {
  PlanEval p;
  p.config.tp = tp;
  p.perf.tokens_per_s_per_gpu = tokens_per_s;
  p.memory.fits = true;
  return p;
}

TEST(ScaleChecksTest, ComparisonWithTheRuleOfThumbIsSigned) {
  const PlanEval start = Evaluated(1, 1000);
  PlanEval slower = Evaluated(2, 654);
  EXPECT_NE(CompareWithStartingPoint("rule", start, &slower).find("predicted 34.6% slower."), std::string::npos)
      << CompareWithStartingPoint("rule", start, &slower);
  PlanEval faster = Evaluated(2, 1200);
  EXPECT_NE(CompareWithStartingPoint("rule", start, &faster).find("predicted 20.0% faster."), std::string::npos);
}

TEST(ScaleChecksTest, BubbleAndOneMicrobatchAreWarnings) {
  PlanEval p;
  p.dp = 4096;
  p.perf.step_time_s = 10;
  p.perf.breakdown.bubble_s = 4.9;
  p.perf.microbatches = 1;
  AddScaleWarnings(&p);
  ASSERT_EQ(p.violations.size(), 2u);
  EXPECT_EQ(p.violations[0].rule, "pipeline.bubble_over_25pct");
  EXPECT_EQ(p.violations[0].severity, Severity::kWarning);
  EXPECT_NE(p.violations[0].message.find("49% of the step"), std::string::npos) << p.violations[0].message;
  EXPECT_EQ(p.violations[1].rule, "batch.one_microbatch");
  EXPECT_NE(p.violations[1].message.find("4,096 DP ranks"), std::string::npos) << p.violations[1].message;
  ASSERT_EQ(p.reasons.size(), 2u);
  EXPECT_EQ(p.reasons[0].rfind("Warning (pipeline.bubble_over_25pct): the pipeline bubble is 49%", 0), 0u)
      << p.reasons[0];
  PlanEval calm;
  calm.perf.step_time_s = 10;
  calm.perf.breakdown.bubble_s = 2.5;  // exactly 25%: not above
  calm.perf.microbatches = 8;
  AddScaleWarnings(&calm);
  EXPECT_TRUE(calm.violations.empty());
}

TEST(ScaleChecksTest, SearchCutBeforeEvaluatingSaysNotSearched) {
  const ModelSpec m = CatalogModel("llama3_8b");
  SearchRequest r = SearchRequestFor(&m, "h100-sxm", 8, 8192);
  r.deadline = absl::Now() - absl::Seconds(1);
  auto result = Recommend(r);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->feasible);
  EXPECT_TRUE(result->truncated);
  EXPECT_EQ(result->evaluated, 0);
  EXPECT_EQ(result->infeasible_reason.rfind("Not searched: deadline reached", 0), 0u) << result->infeasible_reason;
}

}  // namespace
}  // namespace parplan
