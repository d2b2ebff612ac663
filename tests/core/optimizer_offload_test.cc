// Optimizer CPU offload: the host side of the optimizer step.
#include "core/perf/optimizer_offload.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/memory/memory_model.h"
#include "core/perf/perf_model.h"
#include "core/pipeline/stage_plan.h"
#include "gtest/gtest.h"
#include "tests/core/csv_reader.h"

namespace parplan {
namespace {

TEST(OptimizerOffloadTest, CopiesFollowTheHostLink) {
  const SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  const SystemSpec gb200 = *Catalog::Get().FindSystem("gb200-nvl72");
  EXPECT_EQ(HostLinkGbps(h100), 64);    // PCIe Gen5 x16
  EXPECT_EQ(HostLinkGbps(gb200), 450);  // NVLink-C2C
  const OffloadSeconds pcie = CpuOptimizerSeconds(1e9, h100, 1.0);
  // 4 GB of fp32 gradients down, 4 GB of fp32 weights back at 64 GB/s.
  EXPECT_DOUBLE_EQ(pcie.d2h, 4e9 / 64e9);
  EXPECT_DOUBLE_EQ(pcie.h2d, 4e9 / 64e9);
  const OffloadSeconds c2c = CpuOptimizerSeconds(1e9, gb200, 1.0);
  EXPECT_LT(c2c.d2h, pcie.d2h / 7);
  // The fused CPU AdamW streams 28 B per parameter at one rank's measured
  // rate, below either host's DRAM share per GPU: the host link differs, the
  // CPU step does not.
  EXPECT_DOUBLE_EQ(pcie.cpu, 28e9 / 19.3e9);
  EXPECT_DOUBLE_EQ(c2c.cpu, pcie.cpu);
  EXPECT_EQ(CpuOptimizerSeconds(0, h100, 1.0).Total(), 0);
}

TEST(OptimizerOffloadTest, UnknownHostFallsBackAndSaysSo) {
  SystemSpec custom;
  custom.pcie_gbps_unidirectional = 32;
  EXPECT_EQ(HostLinkGbps(custom), 32);
  EXPECT_EQ(HostMemoryGbps(custom), 50);
  EXPECT_NE(DescribeOptimizerOffload(1e9, custom, 0.75).find("assumed"), std::string::npos);
}

// A host whose DRAM share per GPU is below one rank's stream binds the step.
TEST(OptimizerOffloadTest, SlowHostMemoryBindsTheCpuStep) {
  SystemSpec slow;
  slow.host_memory_gbps_per_gpu = 10;
  EXPECT_EQ(CpuAdamGbps(slow), 10);
  EXPECT_DOUBLE_EQ(CpuOptimizerSeconds(1e9, slow, 1.0).cpu, 28e9 / 10e9);
}

// Megatron Bridge's measured sweep (tests/data/optimizer_offload_ab.csv:
// Qwen3-30B-A3B, TP2 PP2 EP4 on 16 H100): every arm's step-time and
// allocated-memory difference from the baseline, predicted through the whole
// estimate. The card gives neither batch nor sequence; the differences depend
// on the optimizer shard only (checked: two batch sizes give the same).
TEST(OptimizerOffloadTest, MatchesBridgesMeasuredSweep) {
  const ModelSpec m = *Catalog::Get().FindModel("qwen3_30b_a3b");
  const SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  auto config = [](double fraction, int64_t gbs) {
    ResolvedConfig c;
    c.tp = 2;
    c.sp = true;
    c.pp = 2;
    c.ep = 4;
    c.etp = 1;
    c.mbs = 1;
    c.gbs = gbs;
    c.seq_length = 4096;
    c.precision = Precision::kBf16;
    c.distributed_optimizer = true;
    c.optimizer_cpu_offload = fraction > 0;
    c.optimizer_offload_fraction = fraction;
    return c;
  };
  struct Point {
    double step_s, allocated_gb;
  };
  auto predict = [&](double fraction, int64_t gbs) {
    const ResolvedConfig c = config(fraction, gbs);
    std::vector<Violation> v;
    const StagePlan plan = *PlanStages(m, c, &v);
    const PerfEstimate perf = EstimatePerformance(m, c, plan, 16, h100, CalibratedPerfParams());
    const MemoryEstimate mem = EstimateMemory(m, c, plan, 16, &h100, MemoryOptions{});
    double state = 0;
    for (const StageMemory& st : mem.stages) {
      state = std::max(state, st.optimizer_dense_bytes + st.optimizer_expert_bytes);
    }
    return Point{perf.step_time_s, state / 1e9};
  };
  const std::vector<std::map<std::string, std::string>> rows =
      ReadCsv(std::string(PARPLAN_TEST_DATA_DIR) + "/optimizer_offload_ab.csv");
  ASSERT_EQ(rows.size(), 6u);
  const double base_ms = std::stod(rows[0].at("measured_iter_ms"));
  const double base_gb = std::stod(rows[0].at("measured_allocated_gb"));
  for (int64_t gbs : {32, 128}) {
    const Point base = predict(0, gbs);
    for (size_t i = 1; i < rows.size(); ++i) {
      if (rows[i].at("overlap_cpu_optimizer_d2h_h2d") == "true") continue;  // not an input: checked below
      const double f = std::stod(rows[i].at("optimizer_offload_fraction"));
      const Point p = predict(f, gbs);
      const double measured_dt = (std::stod(rows[i].at("measured_iter_ms")) - base_ms) / 1e3;
      const double measured_dm = base_gb - std::stod(rows[i].at("measured_allocated_gb"));
      EXPECT_NEAR(p.step_s - base.step_s, measured_dt, 0.15 * measured_dt) << rows[i].at("arm") << " GBS " << gbs;
      EXPECT_NEAR(base.allocated_gb - p.allocated_gb, measured_dm, 0.10 * measured_dm) << rows[i].at("arm");
    }
  }
  // The overlap arm hides what the model charges for the copies.
  const OffloadSeconds full = CpuOptimizerSeconds(1.905e9, h100, CalibratedPerfParams().link_efficiency);
  const double hidden = (std::stod(rows[4].at("measured_iter_ms")) - std::stod(rows[5].at("measured_iter_ms"))) / 1e3;
  EXPECT_NEAR(full.d2h + full.h2d, hidden, 0.15 * hidden);
}

}  // namespace
}  // namespace parplan
