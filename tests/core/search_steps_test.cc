// The steps of the plan search, each on its own: which worlds, the estimate
// store, ranking, selection that reuses estimates (counted), the outcome.
#include "core/search/search_steps.h"

#include "core/search/recommender.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;
using testing_util::SearchRequestFor;

TEST(SearchStepsTest, WorldsToSearch) {
  const ModelSpec m = CatalogModel("llama3_70b");
  SearchRequest r = SearchRequestFor(&m, "h100-sxm", 64, 8192);
  EXPECT_EQ(*WorldsToSearch(r), std::vector<int64_t>({64}));
  r.gpus = 0;
  r.min_gpus = 2;
  r.max_gpus = 32;
  // Powers of two below a node of 8, then whole nodes.
  EXPECT_EQ(*WorldsToSearch(r), std::vector<int64_t>({2, 4, 8, 16, 24, 32}));
  r.min_gpus = 40;
  const auto empty = WorldsToSearch(r);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("max_gpus"), std::string::npos);
  // Fewest GPUs starts where the model states could fit (70B x 15 B / 80 GiB > 12).
  r.min_gpus = 0;
  r.max_gpus = 64;
  r.find_min_gpus = true;
  EXPECT_GE(WorldsToSearch(r)->front(), 13);
}

Scored Candidate(int64_t index, bool fits, double speed, double headroom) {
  Scored s;
  s.index = index;
  s.world = 8;
  s.fits = fits;
  s.tokens_per_gpu = speed;
  s.headroom_fraction = headroom;
  s.dims = 1;
  return s;
}

TEST(SearchStepsTest, EstimateStoreKeepsWhatARankingCanShow) {
  EstimateStore store(2, Objective::kThroughput);
  for (int i = 0; i < 10; ++i) {
    Estimates e;
    e.perf.tokens_per_s_per_gpu = 100 + i;
    store.Offer(Candidate(i, true, 100 + i, 0.5 - 0.05 * i), std::move(e));
  }
  Scored near = Candidate(20, false, 300, 0);
  near.peak_fraction = 1.1;
  Scored far = Candidate(21, false, 500, 0);
  far.peak_fraction = 3.0;
  Scored closer = Candidate(22, false, 50, 0);
  closer.peak_fraction = 1.01;
  for (const Scored& s : {near, far, closer}) store.Offer(s, Estimates{});
  // The fastest two that fit; the fastest nearly fitting; the closest to fitting.
  for (int kept : {8, 9, 20, 22}) EXPECT_NE(store.Find(Candidate(kept, true, 0, 0)), nullptr) << kept;
  for (int dropped : {0, 5, 7, 21}) EXPECT_EQ(store.Find(Candidate(dropped, true, 0, 0)), nullptr) << dropped;
  EXPECT_EQ(store.Find(Candidate(9, true, 0, 0))->perf.tokens_per_s_per_gpu, 109);
  EXPECT_EQ(store.size(), 4u);
  // The headroom objective keeps the roomiest instead.
  EstimateStore roomy(2, Objective::kHeadroom);
  for (int i = 0; i < 10; ++i) roomy.Offer(Candidate(i, true, 100 + i, 0.5 - 0.05 * i), Estimates{});
  for (int kept : {0, 1}) EXPECT_NE(roomy.Find(Candidate(kept, true, 0, 0)), nullptr) << kept;
  EXPECT_EQ(roomy.Find(Candidate(9, true, 0, 0)), nullptr);
}

TEST(SearchStepsTest, RankingPutsFittingFirstAndSimplerFirstAmongTies) {
  const ModelSpec m = CatalogModel("llama3_8b");
  SearchRequest r = SearchRequestFor(&m, "h100-sxm", 8, 4096);
  std::vector<Scored> s = {Candidate(0, false, 900, 0), Candidate(1, true, 500, 0.2), Candidate(2, true, 502, 0.2),
                           Candidate(3, true, 600, 0.1)};
  s[2].dims = 3;
  s[1].dims = 1;
  RankCandidates(r, &s);
  EXPECT_EQ(s[0].index, 3);
  EXPECT_EQ(s[1].index, 1);  // 0.4% slower than #2 but simpler: a tie goes to the simpler
  EXPECT_EQ(s[2].index, 2);
  EXPECT_EQ(s[3].index, 0);  // does not fit: last however fast
  // A tight plan yields to one with room within the between-config error.
  s = {Candidate(0, true, 1000, 0.01), Candidate(1, true, 980, 0.2)};
  s[0].tight = true;
  RankCandidates(r, &s);
  EXPECT_EQ(s[0].index, 1);
  // Headroom objective: the roomiest among those within 85% of the best speed.
  r.objective = Objective::kHeadroom;
  s = {Candidate(0, true, 1000, 0.1), Candidate(1, true, 900, 0.3), Candidate(2, true, 500, 0.9)};
  RankCandidates(r, &s);
  EXPECT_EQ(s[0].index, 1);
  EXPECT_EQ(s[2].index, 2);
}

// Every candidate is estimated once; the plans shown reuse those estimates,
// so after selection only the starting point adds one.
TEST(SearchStepsTest, PlansReuseTheirCandidatesEstimates) {
  for (const char* id : {"llama3_70b", "qwen3_30b_a3b"}) {
    const ModelSpec m = CatalogModel(id);
    SearchRequest r = SearchRequestFor(&m, "h100-sxm", 64, 8192);
    SearchResult out;
    const Evaluated e = EvaluateCandidates(r, {64}, &out);
    EXPECT_EQ(out.estimates, static_cast<int64_t>(e.scored.size())) << id;
    Evaluated ranked = e;
    RankCandidates(r, &ranked.scored);
    SelectPlans(r, ranked, &out);
    ASSERT_EQ(out.plans.size(), 5u) << id;
    EXPECT_EQ(out.estimates, static_cast<int64_t>(e.scored.size())) << id << ": a plan was estimated again";
    CompareWithStartingPoint(r, 64, &out);
    EXPECT_EQ(out.estimates, static_cast<int64_t>(e.scored.size()) + 1) << id;
    // The whole search counts these and, besides, the execution settings it
    // refines and explains (core/search/knob_refinement.h).
    auto whole = Recommend(r);
    ASSERT_TRUE(whole.ok());
    EXPECT_GT(whole->estimates, out.estimates) << id;
  }
}

// Explaining plans is bounded too: past the deadline the selection keeps the
// first plan and says it was cut (68K ranks made each explanation O(world)).
TEST(SearchStepsTest, SelectionStopsAtTheDeadlineAfterOnePlan) {
  const ModelSpec m = CatalogModel("llama3_8b");
  SearchRequest r = SearchRequestFor(&m, "h200-sxm", 68192, 8192);
  r.base.gbs = 68192 * 8;  // given: the default batch would be over the 16M-token cap (scale_checks_test.cc)
  SearchResult out;
  Evaluated e = EvaluateCandidates(r, {68192}, &out);
  ASSERT_FALSE(out.truncated);
  RankCandidates(r, &e.scored);
  r.deadline = absl::Now() - absl::Seconds(1);
  SelectPlans(r, e, &out);
  EXPECT_EQ(out.plans.size(), 1u);
  EXPECT_TRUE(out.truncated);
  EXPECT_NE(out.truncated_reason.find("deadline reached while explaining plan 2"), std::string::npos)
      << out.truncated_reason;
}

TEST(SearchStepsTest, OutcomeSaysWhyNothingFits) {
  const ModelSpec m = CatalogModel("llama31_405b");
  SearchRequest r = SearchRequestFor(&m, "h100-sxm", 8, 8192);
  auto result = Recommend(r);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->feasible);
  EXPECT_NE(result->infeasible_reason.find("No valid config fits on 8 GPUs"), std::string::npos)
      << result->infeasible_reason;
  EXPECT_NE(result->infeasible_reason.find("the model states alone need at least"), std::string::npos);
  ASSERT_FALSE(result->reasons.empty());
  EXPECT_NE(result->reasons.back().find("configurations on 1 world size(s)"), std::string::npos);
}

}  // namespace
}  // namespace parplan
