// Racks: the GPUs used per NVLink domain drive the rank layout, the topology
// warnings and the performance estimate alike (issue 23, "Racks").
#include "core/perf/group_links.h"

#include <algorithm>
#include <map>

#include "core/layout/rank_layout.h"
#include "core/model/layer_kind.h"
#include "core/perf/collectives.h"
#include "core/perf/perf_steps.h"
#include "core/pipeline/stage_plan.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

struct RackRun {
  ResolvedPlacement placement;
  ValidationResult validation;
  PerfEstimate estimate;
  StepInputs inputs;
};

// EP=64 (ETP 1, TP 1) Qwen3-30B-A3B on 256 GB200 NVL72 GPUs with `used`
// GPUs of each rack (0 = all 72).
class Ep64OnNvl72 : public ::testing::Test {
 protected:
  Ep64OnNvl72() : model_(CatalogModel("qwen3_30b_a3b")) {
    ParallelConfig c;
    c.tp = 1;
    c.ep = 64;
    c.etp = 1;
    c.mbs = 1;
    c.gbs = 512;
    c.seq_length = 4096;
    c.precision = "bf16";
    config_ = *ResolveConfig(c, &model_, "config");
    plan_ = *PlanStages(model_, config_);
  }

  RackRun RunWith(int64_t used) {
    Placement p;
    p.system = "gb200-nvl72";
    p.gpus = 256;
    p.gpus_per_nvlink_domain = used;
    RackRun r;
    auto placement = ResolvePlacement(p, "placement");
    EXPECT_TRUE(placement.ok()) << placement.status();
    r.placement = *placement;
    ValidationInput in;
    in.model = &model_;
    in.config = config_;
    in.placement = r.placement;
    r.validation = Validate(in);
    r.estimate = EstimatePerformance(model_, config_, plan_, 256, *r.placement.system, CalibratedPerfParams());
    r.inputs = PrepareStep(model_, config_, plan_, 256, *r.placement.system, CalibratedPerfParams());
    return r;
  }

  // Seconds of one EP all-to-all of the estimate (a MoE layer's share).
  double EstimatedAllToAll(const RackRun& r) {
    return ShareOfLayer(r.inputs, KindOfLayer(model_, 0), 0, false, false).ep_one_s;
  }
  double EpBytes(const RackRun& r) {
    return ShareOfLayer(r.inputs, KindOfLayer(model_, 0), 0, false, false).layer.ep_bytes;
  }

  ModelSpec model_;
  ResolvedConfig config_;
  StagePlan plan_;
};

const Violation* Find(const ValidationResult& v, const std::string& rule) {
  for (const auto& x : v.violations) {
    if (x.rule == rule) return &x;
  }
  return nullptr;
}

bool Says(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

// Per EP group, from its own ranks: the fewest members in one rack.
struct EpGroup {
  bool crosses = false;  // as the warning counts it: first and last rank in different racks
  GroupSpread spread;
};
std::vector<EpGroup> EpGroups(int64_t block) {
  const RankLayout layout(MeshDims{1, 1, 1, 64, 1}, 256);
  std::vector<EpGroup> out;
  for (int64_t i = 0; i < layout.GroupCount(GroupKind::kEp); ++i) {
    std::map<int64_t, int64_t> per_rack;
    for (int64_t rank : layout.Group(GroupKind::kEp, i)) ++per_rack[rank / block];
    EpGroup g;
    const auto span = layout.GroupSpan(GroupKind::kEp, i);
    g.crosses = span.first / block != span.second / block;
    g.spread.size = 64;
    g.spread.domain_local = 64;
    for (const auto& [rack, n] : per_rack) g.spread.domain_local = std::min(g.spread.domain_local, n);
    g.spread.host_local = g.spread.domain_local;
    out.push_back(g);
  }
  return out;
}

TEST_F(Ep64OnNvl72, SixtyFourPerRackNoGroupCrossesAndTheEstimateSaysSo) {
  const RackRun r = RunWith(64);
  EXPECT_EQ(r.placement.gpus_per_nvlink_domain, 64);
  EXPECT_EQ(Find(r.validation, "topology.ep_crosses_nvlink"), nullptr);
  const SystemSpec& sys = *r.placement.system;
  EXPECT_EQ(r.inputs.links.ep.crossing, 0);
  EXPECT_EQ(r.inputs.links.ep.spread.domain_local, 64);
  EXPECT_EQ(r.inputs.links.domains, 4);
  EXPECT_EQ(LinkOfGroup(sys, r.inputs.links.ep.spread), Link::kNvlink);
  // The estimate's all-to-all is the all-NVLink one every group runs.
  for (const EpGroup& g : EpGroups(64)) {
    EXPECT_FALSE(g.crosses);
    EXPECT_NEAR(EstimatedAllToAll(r), AllToAllSeconds(EpBytes(r), g.spread, sys, CalibratedPerfParams()), 1e-12);
  }
  EXPECT_TRUE(Says(r.estimate.assumptions, "EP (64): all 4 groups inside one domain, NVLink"))
      << r.estimate.assumptions.back();
  EXPECT_TRUE(Says(r.estimate.assumptions, "64 of each 72 GPUs used"));
  EXPECT_TRUE(Says(r.placement.notes, "256 GPUs take 4 NVLink domains (racks)"));
}

TEST_F(Ep64OnNvl72, AllSeventyTwoTheWarnedGroupsAreTheOnesChargedAtNetworkSpeed) {
  // All 72 filled, as asked (the default is the even split: 64).
  const RackRun r = RunWith(72);
  const RackRun aligned = RunWith(64);
  EXPECT_EQ(r.placement.gpus_per_nvlink_domain, 72);
  EXPECT_EQ(RunWith(0).placement.gpus_per_nvlink_domain, 64);
  const Violation* warning = Find(r.validation, "topology.ep_crosses_nvlink");
  ASSERT_NE(warning, nullptr);
  EXPECT_NE(warning->message.find("3 of 4 EP groups"), std::string::npos) << warning->message;
  EXPECT_NE(warning->fix.find("gpus_per_nvlink_domain 64"), std::string::npos) << warning->fix;
  const SystemSpec& sys = *r.placement.system;
  const PerfParams& P = CalibratedPerfParams();
  EXPECT_EQ(r.inputs.links.ep.crossing, 3);
  // Each group the warning counts runs its all-to-all over the network; the
  // one it does not count stays on NVLink; the estimate charges the slowest.
  double slowest = 0;
  int crossing = 0;
  for (const EpGroup& g : EpGroups(72)) {
    crossing += g.crosses;
    EXPECT_EQ(LinkOfGroup(sys, g.spread), g.crosses ? Link::kNetwork : Link::kNvlink);
    const double t = AllToAllSeconds(EpBytes(r), g.spread, sys, P);
    if (g.crosses) {
      EXPECT_GT(t, 5 * EstimatedAllToAll(aligned));
    }
    slowest = std::max(slowest, t);
  }
  EXPECT_EQ(crossing, 3);
  EXPECT_EQ(r.inputs.links.ep.spread.domain_local, 8);  // ranks 64..127: 8 in rack 0
  EXPECT_NEAR(EstimatedAllToAll(r), slowest, 1e-12);
  // 56 of 64 destinations over the network vs none: the step is slower.
  EXPECT_GT(r.estimate.breakdown.ep_comm_s, 3 * aligned.estimate.breakdown.ep_comm_s);
  EXPECT_GT(r.estimate.step_time_s, aligned.estimate.step_time_s);
  EXPECT_DOUBLE_EQ(r.estimate.breakdown.compute_s, aligned.estimate.breakdown.compute_s);
  EXPECT_TRUE(Says(r.estimate.assumptions, "EP (64): 3 of 4 groups span domains; the worst-placed GPU has 8 of the 64"))
      << r.estimate.assumptions.back();
}

// Aligned layouts keep the old span-based answer: H100 nodes, TP=8 DP=16.
TEST(GroupLinksTest, AlignedGroupsMatchTheAlignedSpread) {
  const SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  const GroupLinks links = LinksOfGroups(MeshDims{8, 1, 1, 1, 1}, 128, h100);
  const GroupSpread dp = AlignedSpread(h100, 16, 8);
  EXPECT_EQ(links.dp_cp.spread.size, dp.size);
  EXPECT_EQ(links.dp_cp.spread.domain_local, dp.domain_local);
  EXPECT_EQ(links.dp_cp.spread.host_local, dp.host_local);
  EXPECT_EQ(links.tp.crossing, 0);
  EXPECT_EQ(LinkOfGroup(h100, links.tp.spread), Link::kNvlink);
  EXPECT_EQ(LinkOfGroup(h100, links.dp_cp.spread), Link::kNetwork);
  EXPECT_EQ(links.domains, 16);
}

}  // namespace
}  // namespace parplan
