// The memory fix search (core/search/memory_fixes.h) against a brute-force
// enumeration written apart from it: every single change and every pair of
// changes of different levers, each validated and estimated; the search's
// first fix must be no slower than the fastest fitting one found here.
#include "core/search/memory_fixes.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/memory/memory_planner.h"
#include "core/perf/perf_model.h"
#include "core/util/limits.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

struct FixCase {
  ModelSpec model;
  ResolvedConfig config;
  ResolvedPlacement placement;
};

FixCase Make(const std::string& model_id, const ParallelConfig& given, int64_t gpus) {
  FixCase s;
  s.model = CatalogModel(model_id);
  auto c = ResolveConfig(given, &s.model, "config");
  EXPECT_TRUE(c.ok()) << c.status();
  s.config = *c;
  Placement placement;
  placement.system = "h100-sxm";
  placement.gpus = gpus;
  auto p = ResolvePlacement(placement, "placement");
  EXPECT_TRUE(p.ok()) << p.status();
  s.placement = *p;
  ResolveWorldAndBatch(&s.config, &s.placement);
  return s;
}

// One value of one lever, written out for the brute force.
using Change = std::function<void(ResolvedConfig*)>;

std::vector<std::vector<Change>> LeverValues(const FixCase& s) {
  const ResolvedConfig& b = s.config;
  const ModelSpec& m = s.model;
  std::vector<std::vector<Change>> levers;
  std::vector<Change> mbs;
  for (int64_t v = 1; v < b.mbs; ++v) mbs.push_back([v](ResolvedConfig* c) { c->mbs = v; });
  levers.push_back(mbs);
  auto selective = [](std::vector<std::string> add) {
    return [add](ResolvedConfig* c) {
      std::vector<std::string> mods =
          c->recompute == RecomputeGranularity::kSelective ? c->recompute_modules : std::vector<std::string>{};
      for (const auto& a : add) {
        if (std::find(mods.begin(), mods.end(), a) == mods.end()) mods.push_back(a);
      }
      c->recompute = RecomputeGranularity::kSelective;
      c->recompute_modules = mods;
    };
  };
  std::vector<std::string> cheap = {"layernorm"};
  if (m.num_moe_experts > 0) cheap.push_back("moe_act");
  std::vector<std::string> mlp = {m.num_moe_experts > 0 ? "moe" : "mlp"};
  levers.push_back({selective(cheap), selective(mlp),
                    [](ResolvedConfig* c) {
                      c->recompute = RecomputeGranularity::kFull;
                      c->recompute_modules.clear();
                      c->recompute_method = RecomputeMethod::kUniform;
                      c->recompute_num_layers = 1;
                    },
                    [&m](ResolvedConfig* c) {
                      c->recompute = RecomputeGranularity::kFull;
                      c->recompute_modules.clear();
                      c->recompute_method = RecomputeMethod::kBlock;
                      c->recompute_num_layers = m.num_layers / (c->pp * std::max<int64_t>(1, c->vpp)) / 2;
                    }});
  std::vector<Change> offload;
  for (double f : {0.5, 1.0}) {
    offload.push_back([f](ResolvedConfig* c) {
      c->optimizer_cpu_offload = true;
      c->optimizer_offload_fraction = f;
      c->distributed_optimizer = true;
    });
  }
  levers.push_back(offload);
  levers.push_back({[](ResolvedConfig* c) { c->distributed_optimizer = true; }});
  std::vector<Change> tp, pp, cp, ep;
  for (int64_t k : {2, 4}) {
    tp.push_back([k](ResolvedConfig* c) {
      c->tp *= k;
      if (c->etp_defaulted) c->etp = c->tp;
      c->sp = true;
    });
    pp.push_back([k](ResolvedConfig* c) {
      c->pp *= k;
      c->first_stage_layers = c->last_stage_layers = 0;
    });
    cp.push_back([k](ResolvedConfig* c) { c->cp *= k; });
    if (m.num_moe_experts > 0) ep.push_back([k](ResolvedConfig* c) { c->ep *= k; });
  }
  levers.push_back(tp);
  levers.push_back(pp);
  levers.push_back(cp);
  levers.push_back(ep);
  levers.push_back({[](ResolvedConfig* c) {
    c->fsdp = true;
    c->optimizer_cpu_offload = false;
  }});
  return levers;
}

struct Best {
  double step_time_s = std::numeric_limits<double>::infinity();
  std::string change;
  int fitting = 0;
};

// The fastest fitting config among every single change and every pair of
// changes of different levers (TP within the 8-GPU NVLink domain).
Best BruteForce(const FixCase& s) {
  const auto levers = LeverValues(s);
  Best best;
  auto consider = [&](const ResolvedConfig& c) {
    if (c.tp > 8) return;
    const MemoryAnswer a = AnswerMemory(s.model, c, s.placement, MemoryOptions{});
    if (!a.estimate.has_value() || !a.validation.valid || !a.estimate->fits) return;
    ++best.fitting;
    ResolvedConfig effective = c;
    effective.vpp = a.validation.stages->vpp;
    const double t = EstimatePerformance(s.model, effective, *a.validation.stages, a.world, *s.placement.system,
                                         CalibratedPerfParams())
                         .step_time_s;
    if (t < best.step_time_s) {
      best.step_time_s = t;
      best.change = DescribeConfigChange(s.config, c);
    }
  };
  for (size_t i = 0; i < levers.size(); ++i) {
    for (const Change& x : levers[i]) {
      ResolvedConfig c = s.config;
      x(&c);
      consider(c);
      for (size_t j = i + 1; j < levers.size(); ++j) {
        for (const Change& y : levers[j]) {
          ResolvedConfig d = c;
          y(&d);
          consider(d);
        }
      }
    }
  }
  return best;
}

void ExpectFirstFixIsCheapest(const FixCase& s) {
  const MemoryAnswer before = AnswerMemory(s.model, s.config, s.placement, MemoryOptions{});
  ASSERT_TRUE(before.estimate.has_value());
  ASSERT_FALSE(before.estimate->fits) << "the case must not fit as given";
  const Best best = BruteForce(s);
  ASSERT_GT(best.fitting, 0) << "the brute force finds no fitting change";
  const MemoryFixSearch found =
      SearchMemoryFixes(s.model, s.config, s.placement, MemoryOptions{}, CalibratedPerfParams(), 5);
  ASSERT_FALSE(found.fixes.empty());
  EXPECT_LE(found.evaluated, kMaxMemoryFixEvaluations);
  const MemoryFix& first = found.fixes.front();
  EXPECT_TRUE(first.fits);
  EXPECT_LE(first.step_time_s, best.step_time_s * (1 + 1e-9))
      << "search: " << first.change << " " << first.step_time_s << " s; brute force: " << best.change << " "
      << best.step_time_s << " s";
  EXPECT_GT(found.current_step_time_s, 0);
  EXPECT_NEAR(first.step_time_delta_s, first.step_time_s - found.current_step_time_s, 1e-9);
  for (size_t i = 1; i < found.fixes.size(); ++i) {
    EXPECT_TRUE(found.fixes[i].fits);
    EXPECT_LE(found.fixes[i - 1].step_time_s, found.fixes[i].step_time_s) << "ranked by step time";
    EXPECT_LT(found.fixes[i].peak_bytes, before.estimate->peak_bytes);
  }
}

TEST(MemoryFixesTest, Qwen3MoeMbs4On8H100MatchesBruteForce) {
  ParallelConfig c;
  c.tp = 1;
  c.pp = 1;
  c.ep = 8;
  c.mbs = 4;
  c.gbs = 256;
  c.seq_length = 4096;
  ExpectFirstFixIsCheapest(Make("qwen3_30b_a3b", c, 8));
}

TEST(MemoryFixesTest, DenseLlama70bMatchesBruteForce) {
  ParallelConfig c;
  c.tp = 8;
  c.pp = 2;
  c.mbs = 2;
  c.gbs = 256;
  c.seq_length = 8192;
  ExpectFirstFixIsCheapest(Make("llama3_70b", c, 64));
}

TEST(MemoryFixesTest, DenseLlama8bWithoutDistributedOptimizerMatchesBruteForce) {
  ParallelConfig c;
  c.tp = 1;
  c.pp = 1;
  c.mbs = 4;
  c.gbs = 64;
  c.seq_length = 8192;
  c.use_distributed_optimizer = false;
  ExpectFirstFixIsCheapest(Make("llama3_8b", c, 8));
}

TEST(MemoryFixesTest, NothingFitsGivesTheLargestImprovementsMarkedAsShort) {
  ParallelConfig c;
  c.tp = 1;
  c.pp = 1;
  c.mbs = 1;
  c.gbs = 8;
  c.seq_length = 4096;
  const FixCase s = Make("llama31_405b", c, 8);
  const MemoryFixSearch found =
      SearchMemoryFixes(s.model, s.config, s.placement, MemoryOptions{}, CalibratedPerfParams(), 3);
  ASSERT_FALSE(found.fixes.empty());
  for (const auto& f : found.fixes) {
    EXPECT_FALSE(f.fits) << f.change;
    EXPECT_NE(f.note.find("not enough"), std::string::npos) << f.note;
  }
  for (size_t i = 1; i < found.fixes.size(); ++i) {
    EXPECT_LE(found.fixes[i - 1].peak_bytes, found.fixes[i].peak_bytes);
  }
}

}  // namespace
}  // namespace parplan
