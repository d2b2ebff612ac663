// The performance model: its arithmetic, its physics (directions), and its
// calibrated accuracy on the published runs.
#include "core/perf/perf_model.h"
#include "core/perf/flops.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "bench/calibration_rows.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

struct PerfCase {
  ModelSpec model;
  ResolvedConfig config;
  StagePlan plan;
};

PerfCase Make(const char* id, int64_t tp, int64_t pp, int64_t vpp, int64_t gbs, int64_t seq = 8192) {
  PerfCase r{CatalogModel(id), {}, {}};
  r.config.tp = tp;
  r.config.etp = 1;
  r.config.sp = tp > 1;
  r.config.pp = pp;
  r.config.vpp = vpp;
  r.config.vpp_given = vpp > 1;
  r.config.gbs = gbs;
  r.config.seq_length = seq;
  r.config.precision = Precision::kFp8Cs;
  std::vector<Violation> v;
  r.plan = *PlanStages(r.model, r.config, &v);
  return r;
}

PerfEstimate Estimate(const PerfCase& r, int64_t world, const char* system = "h100-sxm") {
  return EstimatePerformance(r.model, r.config, r.plan, world, *Catalog::Get().FindSystem(system),
                             CalibratedPerfParams());
}

TEST(PerfModelTest, ThroughputFollowsFromStepTime) {
  const PerfEstimate e = Estimate(Make("llama3_70b", 4, 8, 5, 256), 64);
  const PerfBreakdown& b = e.breakdown;
  EXPECT_DOUBLE_EQ(e.step_time_s, b.compute_s + b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.dp_comm_s + b.pp_comm_s +
                                      b.fsdp_comm_s + b.bubble_s + b.optimizer_s);
  // 256 sequences of 8192 tokens over 64 GPUs.
  EXPECT_DOUBLE_EQ(e.tokens_per_s_per_gpu, 256.0 * 8192 / e.step_time_s / 64);
  const PerfCase c = Make("llama3_70b", 4, 8, 5, 256);
  const double flops_per_token = ModelFlopsPerToken(c.model, 8192, 4, 0).total;
  // 6 x (non-embedding parameters incl. output layer) + causal attention 6·L·h·s.
  EXPECT_NEAR(flops_per_token, 6 * 69.5e9 + 6.0 * 80 * 8192 * 8192, 0.01 * flops_per_token);
  EXPECT_DOUBLE_EQ(e.model_tflops_per_gpu, e.tokens_per_s_per_gpu * flops_per_token / 1e12);
  EXPECT_DOUBLE_EQ(e.mfu, e.model_tflops_per_gpu / 1978.9);
  EXPECT_EQ(e.microbatches, 128);  // 256 / (1 * DP 2)
}

TEST(PerfModelTest, BubbleShrinksWithInterleavingAndMicrobatches) {
  const PerfEstimate plain = Estimate(Make("llama3_70b", 4, 8, 1, 256), 64);
  const PerfEstimate interleaved = Estimate(Make("llama3_70b", 4, 8, 5, 256), 64);
  EXPECT_NEAR(interleaved.breakdown.bubble_s * 5, plain.breakdown.bubble_s, 1e-9 + plain.breakdown.bubble_s * 1e-9);
  const PerfEstimate bigger = Estimate(Make("llama3_70b", 4, 8, 1, 1024), 64);
  EXPECT_LT(bigger.breakdown.bubble_s / bigger.step_time_s, plain.breakdown.bubble_s / plain.step_time_s);
  EXPECT_EQ(Estimate(Make("llama3_8b", 1, 1, 1, 128), 8).breakdown.bubble_s, 0);
}

TEST(PerfModelTest, TensorParallelismAcrossNodesIsExpensive) {
  // TP=8 inside the H100 NVLink domain vs TP=16 across two nodes, same world:
  // the ring crosses the network (the node's 8 NICs carry it, 400 vs 900
  // GB/s of NVLink) with network step latencies, and cannot use TP overlap.
  // vTrain measured 2.1x slower steps for TP16 vs TP8 on A100 nodes with a
  // quarter of this NIC bandwidth (bench/results/vtrain_accuracy.txt).
  PerfCase inside_case = Make("llama3_70b", 8, 4, 1, 256);
  PerfCase across_case = Make("llama3_70b", 16, 2, 1, 256);
  inside_case.config.tp_comm_overlap = true;
  across_case.config.tp_comm_overlap = true;
  const PerfEstimate inside = Estimate(inside_case, 64);
  const PerfEstimate across = Estimate(across_case, 64);
  EXPECT_GT(across.breakdown.tp_comm_s, 3 * inside.breakdown.tp_comm_s);
  EXPECT_LT(across.tokens_per_s_per_gpu, 0.85 * inside.tokens_per_s_per_gpu);
}

TEST(PerfModelTest, FasterGpuAndLowerPrecisionAreFaster) {
  const PerfCase run = Make("llama3_8b", 1, 1, 1, 128);
  EXPECT_GT(Estimate(run, 8, "b200").tokens_per_s_per_gpu, Estimate(run, 8, "h100-sxm").tokens_per_s_per_gpu);
  PerfCase bf16 = run;
  bf16.config.precision = Precision::kBf16;
  EXPECT_GT(Estimate(run, 8).tokens_per_s_per_gpu, Estimate(bf16, 8).tokens_per_s_per_gpu);
  PerfCase full = run;
  full.config.recompute = RecomputeGranularity::kFull;
  EXPECT_LT(Estimate(full, 8).tokens_per_s_per_gpu, Estimate(run, 8).tokens_per_s_per_gpu);
}

// Calibration regression: the committed parameters keep their accuracy on
// the published runs (median <= 13%, p90 <= 30% absolute error). Since kernel
// rates are measured instead of fitted (issue 22) the in-sample median is
// 12.5%, above issue 13's 12% target (core/perf/README.md, "Accuracy").
TEST(PerfModelTest, CalibratedAccuracyOnPublishedRuns) {
  std::vector<std::string> skipped;
  const auto rows = LoadCalibrationRows(PARPLAN_TEST_DATA_DIR, &skipped);
  ASSERT_GT(rows.size(), 100u);
  std::vector<double> errors;
  for (const auto& r : rows) {
    const double pred =
        EstimatePerformance(r.model, r.config, r.plan, r.gpus, r.system, CalibratedPerfParams()).tokens_per_s_per_gpu;
    errors.push_back(std::fabs(pred / r.published_tokens_per_s_per_gpu - 1));
  }
  std::sort(errors.begin(), errors.end());
  EXPECT_LE(errors[errors.size() / 2], 0.13);
  EXPECT_LE(errors[static_cast<size_t>(std::ceil(0.9 * errors.size())) - 1], 0.30);
}

// Megatron FSDP: per-microbatch weight gathers and gradient reduce-scatters
// replace the once-per-step DP reduction.
TEST(PerfModelTest, FsdpGathersEveryMicrobatch) {
  PerfCase r = Make("llama31_405b", 2, 1, 1, 768);
  r.config.fsdp = true;
  r.config.grad_fp32 = false;
  const PerfEstimate one = Estimate(r, 128, "gb300-nvl72");
  EXPECT_GT(one.breakdown.fsdp_comm_s, 0);
  EXPECT_EQ(one.breakdown.dp_comm_s, 0);
  bool named = false;
  for (const auto& a : one.assumptions) named |= a.find("Megatron FSDP") != std::string::npos;
  EXPECT_TRUE(named);
  // Twice the microbatches: twice the gathers.
  r.config.gbs = 1536;
  const PerfEstimate two = Estimate(r, 128, "gb300-nvl72");
  EXPECT_NEAR(two.breakdown.fsdp_comm_s / one.breakdown.fsdp_comm_s, 2.0, 0.01);
  // Without FSDP the gradients go once per step and no gathers are charged.
  r.config.fsdp = false;
  const PerfEstimate ddp = Estimate(r, 128, "gb300-nvl72");
  EXPECT_EQ(ddp.breakdown.fsdp_comm_s, 0);
  EXPECT_GT(ddp.breakdown.dp_comm_s, 0);
}

// An FSDP group spread over 8-GPU NVLink domains sends its collectives
// through the NICs (8 local members x 50 GB/s = 400 GB/s bus bandwidth here);
// the same 64 GPUs in one NVLink domain gather at NVLink speed. Compute is
// identical, so only the FSDP term differs.
TEST(PerfModelTest, FsdpAcrossNodesCostsMoreThanInsideNvlink) {
  PerfCase r = Make("llama3_70b", 1, 1, 1, 256);
  r.config.fsdp = true;
  r.config.sp = false;
  SystemSpec nodes = *Catalog::Get().FindSystem("h100-sxm");
  nodes.nvlink_gbps_unidirectional = 900;
  SystemSpec one_domain = nodes;
  one_domain.nvlink_domain_size = 64;
  const PerfParams& p = CalibratedPerfParams();
  const PerfEstimate across = EstimatePerformance(r.model, r.config, r.plan, 64, nodes, p);
  const PerfEstimate inside = EstimatePerformance(r.model, r.config, r.plan, 64, one_domain, p);
  EXPECT_DOUBLE_EQ(across.breakdown.compute_s, inside.breakdown.compute_s);
  EXPECT_GT(across.breakdown.fsdp_comm_s, inside.breakdown.fsdp_comm_s * 1.5);
}

// Half the scale-out bandwidth: every collective that leaves the nodes (the
// EP all-to-all of EP=32, the PP p2p, the DP reduction) is exposed longer.
TEST(PerfModelTest, HalvingScaleoutRaisesCrossNodeCommunication) {
  PerfCase r = Make("qwen3_30b_a3b", 1, 2, 1, 512, 4096);
  r.config.ep = 32;
  r.config.etp = 1;
  r.config.sp = false;
  r.config.distributed_optimizer = true;
  std::vector<Violation> v;
  r.plan = *PlanStages(r.model, r.config, &v);
  const SystemSpec full = *Catalog::Get().FindSystem("h100-sxm");
  SystemSpec half = full;
  half.scaleout_gbps_per_gpu = full.scaleout_gbps_per_gpu / 2;
  const PerfParams& p = CalibratedPerfParams();
  const PerfEstimate a = EstimatePerformance(r.model, r.config, r.plan, 128, full, p);
  const PerfEstimate b = EstimatePerformance(r.model, r.config, r.plan, 128, half, p);
  EXPECT_GT(b.breakdown.ep_comm_s, a.breakdown.ep_comm_s * 1.5);
  EXPECT_GT(b.breakdown.pp_comm_s, a.breakdown.pp_comm_s * 1.5);
  EXPECT_GT(b.breakdown.dp_comm_s, a.breakdown.dp_comm_s * 1.5);
  EXPECT_GT(b.step_time_s, a.step_time_s);
}

// A PCIe-only card: TP traffic between GPUs of a host runs over PCIe, far
// slower than the same TP over NVLink on otherwise equal hardware.
TEST(PerfModelTest, TpWithoutNvlinkRunsOverPcie) {
  PerfCase r = Make("llama3_8b", 8, 1, 1, 128);
  const SystemSpec pcie = *Catalog::Get().FindSystem("rtx-pro-6000");
  SystemSpec nvlink = pcie;
  nvlink.nvlink_domain_size = 8;
  nvlink.nvlink_gbps_unidirectional = 900;
  const PerfParams& p = CalibratedPerfParams();
  const PerfEstimate slow = EstimatePerformance(r.model, r.config, r.plan, 8, pcie, p);
  const PerfEstimate fast = EstimatePerformance(r.model, r.config, r.plan, 8, nvlink, p);
  EXPECT_GT(slow.breakdown.tp_comm_s, fast.breakdown.tp_comm_s * 5);
  bool named = false;
  for (const auto& a : slow.assumptions) named |= a.find("PCIe 64 GB/s") != std::string::npos;
  EXPECT_TRUE(named);
}

// DP across nodes moves each node's share of the gradients through its
// members' NICs (a ring per NIC), not the whole buffer through every NIC:
// Llama-3 8B, CP=2, 32 B200, GBS 16 at 8K had 0.74 s (71% of the step) of
// exposed DP communication when it was charged per NIC.
// DeepSeek-V3 on 256 H100 (TP=2 PP=8 EP=32, EP over 4 nodes): DeepEP sends
// 2.71 copies of a token off its node where the all-to-all sends 6.00, so the
// exposed EP time falls about 2x and the step speeds up by a third
// (core/perf/README.md, "MoE token dispatch by dispatcher").
TEST(PerfModelTest, DeepEpBeatsAllToAllForDeepSeekV3OnH100) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  const SystemSpec sys = *Catalog::Get().FindSystem("h100-sxm");
  auto estimate = [&](const std::string& dispatcher, const std::string& backend) {
    ParallelConfig c;
    c.tp = 2;
    c.pp = 8;
    c.ep = 32;
    c.mbs = 1;
    c.gbs = 8192;
    c.seq_length = 4096;
    c.first_stage_layers = 7;
    c.last_stage_layers = 6;
    c.recompute_granularity = "full";
    c.recompute_method = "uniform";
    c.recompute_num_layers = 1;
    c.moe_token_dispatcher_type = dispatcher;
    c.moe_flex_dispatcher_backend = backend;
    auto resolved = ResolveConfig(c, &m, "config");
    EXPECT_TRUE(resolved.ok()) << resolved.status();
    std::vector<Violation> v;
    const auto plan = PlanStages(m, *resolved, &v);
    EXPECT_TRUE(plan.has_value());
    return EstimatePerformance(m, *resolved, *plan, 256, sys, CalibratedPerfParams());
  };
  const PerfEstimate a2a = estimate("alltoall", "");
  const PerfEstimate deep = estimate("flex", "deepep");
  const double speedup = deep.tokens_per_s_per_gpu / a2a.tokens_per_s_per_gpu;
  EXPECT_GT(speedup, 1.2);
  EXPECT_LT(speedup, 1.5);
  // Exposed EP time falls by less than the 2.2x fewer off-node bytes (DeepEP's
  // 20 SMs slow the compute that hides the rest), but by more than 1.7x.
  const double ep_ratio = a2a.breakdown.ep_comm_s / deep.breakdown.ep_comm_s;
  EXPECT_GT(ep_ratio, 1.7);
  EXPECT_LT(ep_ratio, 6.00 / 2.71);
}

TEST(PerfModelTest, DataParallelAcrossNodesUsesRingBandwidth) {
  PerfCase r = Make("llama3_8b", 1, 1, 1, 16);
  r.config.cp = 2;
  r.config.precision = Precision::kBf16;
  const PerfEstimate e = Estimate(r, 32, "b200");
  // (With overlap_grad_reduce at most dp_exposed, 30%, of it shows; CP=2 on
  // NVLink hides its ring behind attention, so the step is nearly all compute
  // and the gradient all-reduce over the network is the one exposed part.)
  EXPECT_LT(e.breakdown.dp_comm_s, 0.25 * e.step_time_s) << e.breakdown.dp_comm_s;
  EXPECT_LT(e.breakdown.cp_comm_s, 0.01 * e.step_time_s) << e.breakdown.cp_comm_s;
  // The same DP group squeezed through one NIC per GPU with no node peers
  // (one GPU per node) is slower: the ring then crosses a node at every hop.
  SystemSpec lonely = *Catalog::Get().FindSystem("b200");
  lonely.gpus_per_node = 1;
  lonely.nvlink_domain_size = 1;
  const PerfEstimate slow = EstimatePerformance(r.model, r.config, r.plan, 32, lonely, CalibratedPerfParams());
  EXPECT_GT(slow.breakdown.dp_comm_s, e.breakdown.dp_comm_s * 2);
}

}  // namespace
}  // namespace parplan

namespace parplan {
namespace {

// Offloading the whole optimizer shard moves its step from HBM-speed fused
// Adam to the host: the copies and CPU AdamW of core/perf/optimizer_offload.h.
TEST(PerfModelTest, OptimizerOffloadStepsOnTheHost) {
  PerfCase r = Make("llama3_8b", 1, 1, 1, 16);
  r.config.precision = Precision::kBf16;
  r.config.distributed_optimizer = true;
  const PerfEstimate on_gpu = Estimate(r, 8);
  r.config.optimizer_cpu_offload = true;
  r.config.optimizer_offload_fraction = 1.0;
  const PerfEstimate host = Estimate(r, 8);
  // 8.0 B params / DP 8 = 1.0 B per shard: 8 GB over 64 GB/s PCIe at 75%
  // (0.17 s), plus the fused CPU AdamW's 28 B/param at one rank's measured
  // 19.3 GB/s (1.45 s): about 1.6 s.
  EXPECT_GT(host.breakdown.optimizer_s, 1.4);
  EXPECT_LT(host.breakdown.optimizer_s, 1.8);
  EXPECT_GT(host.breakdown.optimizer_s, 20 * on_gpu.breakdown.optimizer_s);
  EXPECT_DOUBLE_EQ(host.breakdown.compute_s, on_gpu.breakdown.compute_s);
  bool said = false;
  for (const std::string& a : host.assumptions) said |= a.find("Optimizer CPU offload") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace parplan

namespace parplan {
namespace {

// GPT-OSS's learnable sinks need cuDNN fused attention; the answer prices the
// unfused fallback an older container takes without CP.
TEST(PerfModelTest, SinksNameTheirKernelAndTheFallbackCost) {
  PerfCase r = Make("gpt_oss_20b", 1, 1, 1, 32);
  r.config.precision = Precision::kBf16;
  r.config.ep = 4;
  const PerfEstimate e = Estimate(r, 8, "b300");
  std::string said;
  for (const std::string& a : e.assumptions) {
    if (a.find("Attention sinks") != std::string::npos) said = a;
  }
  ASSERT_FALSE(said.empty());
  EXPECT_NE(said.find("cuDNN 9.13.1"), std::string::npos) << said;
  EXPECT_NE(said.find("falls back to unfused attention"), std::string::npos) << said;
  r.config.unfused_attention = true;
  const PerfEstimate slow = Estimate(r, 8, "b300");
  EXPECT_GT(slow.step_time_s, e.step_time_s);
  EXPECT_NE(said.find(absl::StrFormat("step %.2f s", slow.step_time_s)), std::string::npos) << said;
}

}  // namespace
}  // namespace parplan
