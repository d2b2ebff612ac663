// recommend --from (SearchRequest::current) and a calibrated search
// (SearchRequest::params): the current plan evaluated and compared, each
// plan's changes from it, ties ranked toward fewer changes, and the step-time
// parameters used for every estimate.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/config/resolved_settings.h"
#include "core/perf/uncertainty.h"
#include "core/search/candidate_space.h"
#include "core/search/current_plan.h"
#include "core/search/plan_explain.h"
#include "core/search/recommender.h"
#include "core/system/racks.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;
using testing_util::SearchRequestFor;

// The plan the user runs, as an imported launch script resolves it:
// ResolveConfig of the given fields (the rest defaulted).
ResolvedConfig Resolved(const ModelSpec& m, const ParallelConfig& given) {
  auto r = ResolveConfig(given, &m, "config");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : ResolvedConfig{};
}

// The given fields that pin `c`'s searched settings: what a launch script
// running plan `c` would say.
ParallelConfig GivenOf(const ResolvedConfig& c) {
  ParallelConfig g;
  g.tp = c.tp;
  g.pp = c.pp;
  if (c.pp > 1 && c.pipeline_layout.empty()) g.vpp = std::max<int64_t>(1, c.vpp);
  g.cp = c.cp;
  g.ep = c.ep;
  if (!c.etp_defaulted) g.etp = c.etp;
  g.mbs = c.mbs;
  g.gbs = c.gbs;
  g.seq_length = c.seq_length;
  g.pipeline_layout = c.pipeline_layout;
  g.account_for_embedding = c.account_for_embedding;
  g.account_for_loss = c.account_for_loss;
  g.precision = PrecisionName(c.precision);
  g.recompute_granularity = RecomputeName(c.recompute);
  if (c.recompute == RecomputeGranularity::kSelective) g.recompute_modules = c.recompute_modules;
  if (c.cp > 1) g.cp_comm_type = c.cp_comm_type;
  return g;
}

SearchResult Search(const SearchRequest& req) {
  auto r = Recommend(req);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : SearchResult{};
}

bool Has(const std::vector<std::string>& list, const std::string& prefix) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
}

double BandUp() { return 1 + CalibratedUncertainty().between_configs.median; }

TEST(SettingChangesTest, NamesEachChangedSettingOnce) {
  const ModelSpec m = CatalogModel("llama3_8b");
  const SystemSpec sys = *Catalog::Get().FindSystem("h100-sxm");
  ParallelConfig a;
  a.tp = 4;
  a.pp = 2;
  a.mbs = 1;
  a.gbs = 128;
  a.seq_length = 8192;
  a.recompute_granularity = "full";
  ParallelConfig b = a;
  b.tp = 8;
  b.pp = 1;
  b.recompute_granularity = "selective";
  b.recompute_modules = {"mlp"};
  const std::vector<std::string> changes =
      SettingChanges(PlanSettings(m, Resolved(m, a), 8, sys), PlanSettings(m, Resolved(m, b), 8, sys));
  EXPECT_EQ(changes,
            (std::vector<std::string>{"tp 4 -> 8", "pp 2 -> 1", "recompute_granularity full -> selective(mlp)"}));
  // The same plan changes nothing; another world is a placement change.
  EXPECT_TRUE(SettingChanges(PlanSettings(m, Resolved(m, a), 8, sys), PlanSettings(m, Resolved(m, a), 8, sys)).empty());
  EXPECT_EQ(SettingChanges(PlanSettings(m, Resolved(m, a), 8, sys), PlanSettings(m, Resolved(m, a), 16, sys)),
            (std::vector<std::string>{"placement.gpus 8 -> 16"}));
  // TP 1 -> 2 turns sequence parallelism on (Bridge's default with TP > 1): a change of its own.
  ParallelConfig one = a;
  one.tp = 1;
  ParallelConfig two = a;
  two.tp = 2;
  EXPECT_EQ(SettingChanges(PlanSettings(m, Resolved(m, one), 8, sys), PlanSettings(m, Resolved(m, two), 8, sys)),
            (std::vector<std::string>{"tp 1 -> 2", "sp false -> true"}));
}

TEST(RecommendFromTest, TheCurrentRecomputeSettingIsACandidate) {
  // Megatron-Core's default selective recompute (core_attn) is none of the
  // search's own variants; with a current plan running it, it is tried.
  const ModelSpec m = CatalogModel("llama3_8b");
  const SystemSpec sys = *Catalog::Get().FindSystem("h100-sxm");
  ParallelConfig given;
  given.seq_length = 8192;
  given.gbs = 64;
  given.recompute_granularity = "selective";
  const ResolvedConfig base = Resolved(m, given);
  ASSERT_EQ(base.recompute_modules, std::vector<std::string>{"core_attn"});
  auto core_attn = [](const std::vector<ResolvedConfig>& configs) {
    return std::count_if(configs.begin(), configs.end(), [](const ResolvedConfig& c) {
      return c.recompute == RecomputeGranularity::kSelective &&
             c.recompute_modules == std::vector<std::string>{"core_attn"};
    });
  };
  SearchConstraints k;
  EXPECT_EQ(core_attn(EnumerateCandidates(m, base, 8, sys, k, false, CalibratedPerfParams())), 0);
  k.keep_base_recompute = true;
  EXPECT_GT(core_attn(EnumerateCandidates(m, base, 8, sys, k, false, CalibratedPerfParams())), 0);
}

TEST(RecommendFromTest, ACurrentPlanThatIsAlreadyTheBestIsKept) {
  const ModelSpec m = CatalogModel("llama3_8b");
  SearchRequest req = SearchRequestFor(&m, "h100-sxm", 8, 8192);
  const SearchResult plain = Search(req);
  ASSERT_TRUE(plain.feasible);
  EXPECT_FALSE(plain.current.has_value());
  EXPECT_TRUE(plain.current_comparison.empty());
  for (const PlanEval& p : plain.plans) EXPECT_TRUE(p.changes.empty());

  req.current = Resolved(m, GivenOf(plain.plans.front().config));
  const SearchResult r = Search(req);
  ASSERT_TRUE(r.feasible);
  ASSERT_TRUE(r.current.has_value());
  EXPECT_TRUE(r.current->valid);
  EXPECT_TRUE(r.current->memory.fits);
  EXPECT_TRUE(r.plans.front().changes.empty()) << testing::PrintToString(r.plans.front().changes);
  EXPECT_EQ(PlanLabel(r.plans.front().config), PlanLabel(plain.plans.front().config));
  EXPECT_DOUBLE_EQ(r.plans.front().perf.tokens_per_s_per_gpu, r.current->perf.tokens_per_s_per_gpu);
  EXPECT_EQ(r.current_comparison.rfind("Keep your current plan", 0), 0u) << r.current_comparison;
  for (size_t i = 1; i < r.plans.size(); ++i) EXPECT_FALSE(r.plans[i].changes.empty()) << i;
  // The same candidates, each estimated once; besides them the current plan
  // once, and the walk that prices freeing the settings it sets
  // (core/search/knob_refinement.h: the current plan's settings are pinned).
  EXPECT_EQ(r.evaluated, plain.evaluated);
  EXPECT_GE(r.estimates, plain.estimates + 1);
}

TEST(RecommendFromTest, ACurrentPlanThatDoesNotFitGetsTheLeastChangeThatFits) {
  // Llama 3 70B with TP 1, PP 1 on 16 H100s: the weights and Adam state alone
  // are far over 80 GB per GPU.
  const ModelSpec m = CatalogModel("llama3_70b");
  SearchRequest req = SearchRequestFor(&m, "h100-sxm", 16, 8192);
  ParallelConfig given;
  given.tp = 1;
  given.pp = 1;
  given.mbs = 1;
  given.gbs = 128;
  given.seq_length = 8192;
  req.current = Resolved(m, given);
  const SearchResult r = Search(req);
  ASSERT_TRUE(r.current.has_value());
  EXPECT_FALSE(r.current->memory.fits);
  ASSERT_TRUE(r.feasible) << r.infeasible_reason;
  const PlanEval& top = r.plans.front();
  EXPECT_TRUE(top.memory.fits);
  EXPECT_FALSE(top.changes.empty());
  EXPECT_TRUE(Has(top.changes, "tp 1 -> ") || Has(top.changes, "pp 1 -> ")) << testing::PrintToString(top.changes);
  // The current plan's fixed settings are the search's: its batch is kept.
  for (const PlanEval& p : r.plans) {
    EXPECT_EQ(p.config.gbs, 128);
    EXPECT_FALSE(Has(p.changes, "gbs")) << testing::PrintToString(p.changes);
  }
  // The mesh is the search's choice in the plan's resolved settings, not the user's TP 1.
  const std::vector<ResolvedSetting> listed =
      ListResolvedSettings(top.config, PlacementOn(req.system, 16), &m, top.dp, top.edp, SettingsScope::kSearch);
  const auto tp = std::find_if(listed.begin(), listed.end(), [](const ResolvedSetting& x) { return x.field == "tp"; });
  ASSERT_NE(tp, listed.end());
  EXPECT_EQ(tp->source, SettingSource::kParplan);
  EXPECT_NE(r.current_comparison.find("does not fit"), std::string::npos) << r.current_comparison;
  EXPECT_NE(r.current_comparison.find("least change"), std::string::npos) << r.current_comparison;
  EXPECT_NE(r.current_comparison.find(top.changes.front()), std::string::npos) << r.current_comparison;
  // Plan 1 changes no more than any plan as fast as the fastest within the
  // model's error (with as much room).
  double fastest = 0;
  for (const PlanEval& p : r.plans) fastest = std::max(fastest, p.perf.tokens_per_s_per_gpu);
  for (const PlanEval& p : r.plans) {
    if (p.perf.tokens_per_s_per_gpu * BandUp() >= fastest && p.tight == top.tight) {
      EXPECT_LE(top.changes.size(), p.changes.size()) << PlanLabel(p.config);
    }
  }
}

TEST(RecommendFromTest, TiesRankTowardFewerChanges) {
  // Without a current plan, plan 1 is the fastest; a later plan within the
  // model's between-config error of it, taken as the current plan, ranks
  // first (it changes nothing) and the former plan 1 says why it is below.
  const ModelSpec m = CatalogModel("llama3_70b");
  SearchRequest req = SearchRequestFor(&m, "h100-sxm", 64, 8192);
  req.top_k = 10;
  const SearchResult plain = Search(req);
  ASSERT_TRUE(plain.feasible);
  const PlanEval& fastest = plain.plans.front();
  const PlanEval* tie = nullptr;
  for (size_t i = 1; i < plain.plans.size() && tie == nullptr; ++i) {
    const PlanEval& p = plain.plans[i];
    if (!p.tight && !fastest.tight && p.perf.tokens_per_s_per_gpu < fastest.perf.tokens_per_s_per_gpu &&
        p.perf.tokens_per_s_per_gpu * BandUp() >= fastest.perf.tokens_per_s_per_gpu) {
      tie = &p;
    }
  }
  ASSERT_NE(tie, nullptr) << "no plan within the model's error of plan 1 to construct the tie";
  req.current = Resolved(m, GivenOf(tie->config));
  const SearchResult r = Search(req);
  ASSERT_TRUE(r.feasible);
  EXPECT_TRUE(r.plans.front().changes.empty()) << testing::PrintToString(r.plans.front().changes);
  EXPECT_EQ(PlanLabel(r.plans.front().config), PlanLabel(tie->config));
  const auto former = std::find_if(r.plans.begin(), r.plans.end(),
                                   [&](const PlanEval& p) { return PlanLabel(p.config) == PlanLabel(fastest.config); });
  ASSERT_NE(former, r.plans.end());
  EXPECT_FALSE(former->changes.empty());
  // Faster than plan 1, it says why it ranks below (with the current plan's
  // execution settings kept it may no longer be faster: core/search/
  // knob_refinement.h keeps what the current plan sets).
  if (former->perf.tokens_per_s_per_gpu > r.plans.front().perf.tokens_per_s_per_gpu) {
    EXPECT_TRUE(std::any_of(former->reasons.begin(), former->reasons.end(), [](const std::string& s) {
      return s.find("changing fewer settings of your current plan") != std::string::npos;
    })) << testing::PrintToString(former->reasons);
  }
  EXPECT_EQ(r.current_comparison.rfind("Keep your current plan", 0), 0u) << r.current_comparison;

  // Beyond the error the faster plan wins: a current plan far slower than
  // plan 1 (PP 8 with full recompute) is not kept.
  ParallelConfig slow;
  slow.tp = 8;
  slow.pp = 8;
  slow.mbs = 1;
  slow.recompute_granularity = "full";
  slow.gbs = fastest.config.gbs;
  slow.seq_length = 8192;
  req.current = Resolved(m, slow);
  const SearchResult s = Search(req);
  ASSERT_TRUE(s.current.has_value());
  ASSERT_TRUE(s.current->memory.fits);
  if (s.plans.front().perf.tokens_per_s_per_gpu > s.current->perf.tokens_per_s_per_gpu * BandUp()) {
    EXPECT_FALSE(s.plans.front().changes.empty());
    EXPECT_EQ(s.current_comparison.rfind("Plan 1 changes ", 0), 0u) << s.current_comparison;
    EXPECT_NE(s.current_comparison.find("beyond"), std::string::npos) << s.current_comparison;
  } else {
    ADD_FAILURE() << "expected full recompute at PP 8 to be well behind plan 1: " << s.current_comparison;
  }
}

TEST(RecommendFromTest, AnInvalidCurrentPlanNamesItsRules) {
  const ModelSpec m = CatalogModel("llama3_8b");
  SearchRequest req = SearchRequestFor(&m, "h100-sxm", 8, 8192);
  ParallelConfig given;
  given.tp = 8;
  given.pp = 1;
  given.cp = 2;  // TP x CP = 16 on 8 GPUs
  given.seq_length = 8192;
  given.gbs = 64;
  req.current = Resolved(m, given);
  const SearchResult r = Search(req);
  ASSERT_TRUE(r.current.has_value());
  EXPECT_FALSE(r.current->valid);
  ASSERT_TRUE(r.feasible);
  EXPECT_NE(r.current_comparison.find("cannot run"), std::string::npos) << r.current_comparison;
  EXPECT_NE(r.current_comparison.find("least change"), std::string::npos) << r.current_comparison;
}

TEST(RecommendFromTest, ACurrentPlanOutsideTheConstraintsIsComparedNotRanked) {
  const ModelSpec m = CatalogModel("llama3_8b");
  SearchRequest req = SearchRequestFor(&m, "h100-sxm", 8, 8192);
  ParallelConfig given;
  given.tp = 2;
  given.seq_length = 8192;
  given.gbs = 64;
  req.current = Resolved(m, given);
  req.constraints.tp = 4;
  const SearchResult r = Search(req);
  ASSERT_TRUE(r.feasible);
  for (const PlanEval& p : r.plans) {
    EXPECT_EQ(p.config.tp, 4);
    EXPECT_TRUE(Has(p.changes, "tp 2 -> 4")) << testing::PrintToString(p.changes);
  }
  EXPECT_NE(r.current_comparison.find("breaks the request's constraints"), std::string::npos) << r.current_comparison;
}

TEST(RecommendFromTest, FewestGpusNamesTheWorldChange) {
  // The current plan runs on 8 GPUs; the fewest that fit Llama 3 8B are
  // fewer: each plan says so as a placement change.
  const ModelSpec m = CatalogModel("llama3_8b");
  SearchRequest req = SearchRequestFor(&m, "h100-sxm", 0, 8192);
  req.find_min_gpus = true;
  ParallelConfig given;
  given.tp = 8;
  given.seq_length = 8192;
  given.gbs = 64;
  req.current = Resolved(m, given);
  req.current_gpus = 8;
  const SearchResult r = Search(req);
  ASSERT_TRUE(r.feasible) << r.infeasible_reason;
  ASSERT_TRUE(r.current.has_value());
  EXPECT_EQ(r.current->world, 8);
  ASSERT_LT(r.plans.front().world, 8);
  EXPECT_TRUE(Has(r.plans.front().changes, absl::StrCat("placement.gpus 8 -> ", r.plans.front().world)))
      << testing::PrintToString(r.plans.front().changes);
  EXPECT_NE(r.current_comparison.find("placement.gpus 8 -> "), std::string::npos) << r.current_comparison;
  req.current_gpus = -1;
  EXPECT_FALSE(Recommend(req).ok());
}

TEST(RecommendParamsTest, NullParamsAreTheCalibratedOnes) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  SearchRequest req = SearchRequestFor(&m, "h100-sxm", 16, 32768);
  const SearchResult a = Search(req);
  req.params = &CalibratedPerfParams();
  const SearchResult b = Search(req);
  ASSERT_TRUE(a.feasible);
  ASSERT_EQ(a.plans.size(), b.plans.size());
  for (size_t i = 0; i < a.plans.size(); ++i) {
    EXPECT_EQ(PlanLabel(a.plans[i].config), PlanLabel(b.plans[i].config));
    EXPECT_EQ(a.plans[i].perf.tokens_per_s_per_gpu, b.plans[i].perf.tokens_per_s_per_gpu);
    EXPECT_EQ(a.plans[i].reasons, b.plans[i].reasons);
  }
  EXPECT_EQ(a.starting_point_comparison, b.starting_point_comparison);
  EXPECT_EQ(a.estimates, b.estimates);
}

// Every plan's tokens/s/GPU under `params` is below the same plan's under
// the calibrated parameters; the starting point and current plan too.
void ExpectSlowerThanCalibrated(const ModelSpec& m, const SearchResult& r) {
  auto check = [&](const PlanEval& p, const std::string& what) {
    SystemSpec sys = *Catalog::Get().FindSystem("h100-sxm");
    ChooseDomainUse(p.world, &sys);
    const PlanEval calibrated = EvaluatePlan(m, p.config, p.world, sys);
    if (p.config.cuda_graph_impl == "full_iteration" && p.perf.breakdown.overhead_s == 0) {
      // One graph replays the whole step: no host time for a slower host to stretch.
      EXPECT_LE(p.perf.tokens_per_s_per_gpu, calibrated.perf.tokens_per_s_per_gpu) << what << PlanLabel(p.config);
    } else {
      EXPECT_LT(p.perf.tokens_per_s_per_gpu, calibrated.perf.tokens_per_s_per_gpu) << what << PlanLabel(p.config);
    }
  };
  ASSERT_TRUE(r.feasible);
  for (const PlanEval& p : r.plans) check(p, "plan ");
  ASSERT_TRUE(r.starting_point.has_value());
  check(*r.starting_point, "starting point ");
  ASSERT_TRUE(r.current.has_value());
  check(*r.current, "current ");
}

TEST(RecommendParamsTest, SlowerParamsLowerEveryPlansSpeed) {
  const ModelSpec m = CatalogModel("llama3_8b");
  SearchRequest req = SearchRequestFor(&m, "h100-sxm", 8, 8192);
  ParallelConfig given;
  given.tp = 2;
  given.seq_length = 8192;
  given.gbs = 64;
  req.current = Resolved(m, given);
  PerfParams slow = CalibratedPerfParams();
  slow.host_launch_us = 5000;  // a host far slower at issuing kernels than the GPU runs them
  req.params = &slow;
  ExpectSlowerThanCalibrated(m, Search(req));
}

TEST(RecommendParamsTest, ComputeScaleTwoLowersEveryPlansSpeed) {
  // A cluster calibration that finds compute twice as slow as the model
  // (core/calibrate): every estimate the search reports uses it.
  const ModelSpec m = CatalogModel("llama3_8b");
  SearchRequest req = SearchRequestFor(&m, "h100-sxm", 8, 8192);
  ParallelConfig given;
  given.tp = 2;
  given.seq_length = 8192;
  given.gbs = 64;
  req.current = Resolved(m, given);
  PerfParams scaled = CalibratedPerfParams();
  scaled.compute_scale = 2.0;
  req.params = &scaled;
  ExpectSlowerThanCalibrated(m, Search(req));
}

}  // namespace
}  // namespace parplan
