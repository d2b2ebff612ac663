// Blackwell kernel rates against their published sources
// (tests/data/blackwell_kernels/published.csv), the head-dimension and
// exponential-throughput model of fused attention, tile and wave
// quantization at GPT-OSS's hidden size 2,880, and sliding-window attention.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/perf/kernel_time.h"

namespace parplan {
namespace {

Device Gpu(const char* id, Precision p = Precision::kBf16) { return MakeDevice(*Catalog::Get().FindSystem(id), p); }

// One CSV line split on commas outside double quotes.
std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (const char ch : line) {
    if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

// figure/gpu -> value of the published table.
std::map<std::string, double> Published() {
  std::ifstream in(std::string(PARPLAN_TEST_DATA_DIR) + "/blackwell_kernels/published.csv");
  std::map<std::string, double> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const std::vector<std::string> f = SplitCsv(line);
    if (f.size() < 7) continue;
    EXPECT_FALSE(f[5].empty()) << "no source for " << f[0];
    out[f[0] + "/" + f[1]] = std::stod(f[2]);
  }
  return out;
}

TEST(BlackwellKernelRatesTest, RatesFollowThePublishedTable) {
  const std::map<std::string, double> p = Published();
  ASSERT_GE(p.size(), 15u);
  const double derate = p.at("sustained_over_burst/H200");
  const KernelRates& bw = MeasuredKernelRates(2);
  EXPECT_NEAR(bw.gemm_ceiling[0], p.at("gemm_bf16_mamf_burst/B200") / 2250 * derate, 0.005);
  EXPECT_NEAR(bw.gemm_ceiling[1], p.at("gemm_fp8_share_burst/B200") * derate, 0.005);
  EXPECT_NEAR(bw.attention_forward, p.at("attention_fwd_fa4_bf16/B200") / 1.3 / 2250 * derate, 0.005);
  EXPECT_EQ(MeasuredKernelRates(0).tensor_flops_per_clock_per_sm, p.at("tensor_bf16_flops_per_clock_per_sm/A100"));
  EXPECT_EQ(MeasuredKernelRates(1).tensor_flops_per_clock_per_sm, p.at("tensor_bf16_flops_per_clock_per_sm/H100"));
  EXPECT_EQ(bw.tensor_flops_per_clock_per_sm, p.at("tensor_bf16_flops_per_clock_per_sm/B200"));
  EXPECT_EQ(bw.exp_per_clock_per_sm, p.at("exp2_per_clock_per_sm/B200"));
  EXPECT_EQ(MeasuredKernelRates(1).exp_per_clock_per_sm, p.at("exp2_per_clock_per_sm/H100"));
  // Blackwell Ultra's doubled SFU throughput comes from the catalog.
  EXPECT_EQ(Gpu("b300").exp_per_clock_per_sm, p.at("exp2_per_clock_per_sm/B300"));
  EXPECT_EQ(Gpu("gb300-nvl72").exp_per_clock_per_sm, p.at("exp2_per_clock_per_sm/B300"));
  EXPECT_EQ(Gpu("b200").exp_per_clock_per_sm, p.at("exp2_per_clock_per_sm/B200"));
  EXPECT_EQ(Gpu("gb200-nvl72").exp_per_clock_per_sm, p.at("exp2_per_clock_per_sm/B200"));
  // The per-tile clocks besides MMA and exponentials reproduce the measured
  // Hopper head-dimension 64 / 128 ratios they were solved from.
  const Device h200 = Gpu("h200-sxm");
  EXPECT_NEAR(AttentionHeadShare(64, false, h200), p.at("attention_fwd_d64_over_d128/H200"), 0.01);
  EXPECT_NEAR(AttentionHeadShare(64, true, h200), p.at("attention_bwd_d64_over_d128/H200"), 0.01);
  EXPECT_EQ(Gpu("b200").sm_count, p.at("sm_count/B200"));
}

TEST(BlackwellKernelRatesTest, RatiosToH200StayWithinPublishedBounds) {
  const Device h200 = Gpu("h200-sxm");
  const Device b200 = Gpu("b200");
  const double peak_ratio = b200.peak_bf16_flops / h200.peak_bf16_flops;  // 2,250 / 989.4
  // Large bf16 GEMM: more than 80% of the peak ratio (both near their
  // ceilings), never more than the peak ratio.
  const double n = 8192;
  const double gemm = GemmSeconds(n, n, n, 1, h200) / GemmSeconds(n, n, n, 1, b200);
  EXPECT_GT(gemm, 0.8 * peak_ratio);
  EXPECT_LE(gemm, peak_ratio);
  // Long causal attention at head dim 128: the tensor cores doubled per SM
  // but the exponential unit did not (FlashAttention-4), so B200 gains less
  // than its peak ratio; cuDNN's published 0.55 of the peak bounds it below.
  AttentionCall c;
  c.heads = 64;
  c.q_len = c.k_len = 16384;
  const double attention = FusedAttentionSeconds(c, h200).forward / FusedAttentionSeconds(c, b200).forward;
  EXPECT_GT(attention, 1.5);
  EXPECT_LT(attention, peak_ratio);
  // Memory-bound kernels: the HBM ratio (8 / 4.8 TB/s).
  EXPECT_NEAR(StreamSeconds(1e10, h200, 0) / StreamSeconds(1e10, b200, 0), 8.0 / 4.8, 1e-9);
}

TEST(BlackwellKernelRatesTest, SmallHeadsAreExponentialBoundOnBlackwell) {
  const Device h200 = Gpu("h200-sxm");
  const Device b200 = Gpu("b200");
  const Device b300 = Gpu("b300");
  // Head dim 128 is each GPU's reference.
  EXPECT_DOUBLE_EQ(AttentionHeadShare(128, false, b200), 1.0);
  // At head dim 64 the MMA halves but the exponentials per tile do not: B200
  // (exp and MMA equal at d = 128) loses more than Hopper (exp half the MMA).
  EXPECT_LT(AttentionHeadShare(64, false, b200), AttentionHeadShare(64, false, h200) - 0.05);
  // Blackwell Ultra doubles the exponential rate: faster than B200 at every
  // head dimension, at most by the SFU's factor 2, and its GEMMs unchanged.
  for (const double d : {64.0, 128.0, 160.0}) {
    const double gain = AttentionHeadShare(d, false, b300) / AttentionHeadShare(d, false, b200);
    EXPECT_GT(gain, 1.1) << d;
    EXPECT_LT(gain, 2.0) << d;
    EXPECT_GT(AttentionHeadShare(d, true, b300), AttentionHeadShare(d, true, b200)) << d;
  }
  // MLA (192/128, mean 160) runs at the d = 128 rate per FLOP, as measured
  // on the H200 (0.98-1.00).
  EXPECT_DOUBLE_EQ(AttentionHeadShare(160, false, h200), 1.0);
  EXPECT_DOUBLE_EQ(AttentionHeadShare(160, true, b200), 1.0);
  EXPECT_DOUBLE_EQ(GemmSeconds(8192, 8192, 8192, 1, b300), GemmSeconds(8192, 8192, 8192, 1, b200));
  // GPT-OSS's attention (64 heads of 64) is slower per FLOP on B200 than
  // head dim 128 by the exponential bound.
  AttentionCall wide;
  wide.heads = 32;
  wide.q_len = wide.k_len = 8192;
  AttentionCall narrow = wide;
  narrow.heads = 64;
  narrow.qk_dim = narrow.v_dim = 64;
  const double slowdown = (FusedAttentionSeconds(narrow, b200).forward / AttentionForwardFlops(narrow)) /
                          (FusedAttentionSeconds(wide, b200).forward / AttentionForwardFlops(wide));
  // (Within 3%: the two calls' causal tails differ a little.)
  EXPECT_NEAR(slowdown * AttentionHeadShare(64, false, b200), 1.0, 0.03);
}

TEST(BlackwellKernelRatesTest, WaveQuantizationAtHidden2880) {
  // GPT-OSS: hidden 2,880 = 11.25 tiles of 256 or 22.5 of 128. 8,192 tokens x
  // 2,880 x 2,880 in bf16.
  const double m = 8192, n = 2880, k = 2880;
  const double flops = 2 * m * n * k;
  // H100 (132 SMs): 128x256 tiles, 64 x 12 = 768 tiles in 6 waves (5.8 full):
  // useful 2,880 / 3,072 of the padded columns, 768 / 792 of the SM slots.
  const Device h100 = Gpu("h100-sxm");
  const double h100_share = (2880.0 / 3072) * (768.0 / 792);
  EXPECT_NEAR(GemmSeconds(m, n, k, 1, h100) - h100.rates.gemm_launch_us * 1e-6,
              flops / (h100.peak_flops * h100.gemm_ceiling * h100_share), 1e-9);
  // B200 (148 SMs): 768 large tiles would leave 5.2 waves (0.86 busy); the
  // 128x128 tile (0.9 of the large tile's rate) fits 1,472 tiles in 10 waves
  // of 1,480 slots, with 2,880 / 2,944 useful columns.
  const Device b200 = Gpu("b200");
  const double b200_share = 0.9 * (2880.0 / 2944) * (1472.0 / 1480);
  EXPECT_NEAR(GemmSeconds(m, n, k, 1, b200) - b200.rates.gemm_launch_us * 1e-6,
              flops / (b200.peak_flops * b200.gemm_ceiling * b200_share), 1e-9);
  // Against the tile-aligned 3,072 on H100: the padding alone.
  const double aligned = GemmSeconds(m, 3072, k, 1, h100) - h100.rates.gemm_launch_us * 1e-6;
  EXPECT_NEAR((GemmSeconds(m, n, k, 1, h100) - h100.rates.gemm_launch_us * 1e-6) / aligned, 1.0, 1e-9);
  // GPT-OSS expert GEMMs (fc1: 2,880 -> 2 x 2,880) one per expert as
  // Transformer Engine runs them: 1,024 tokens per expert leave 8 x 45 tiles
  // of 128x128 in 3 waves (0.91 busy), where one grouped kernel over 32
  // experts fills 45 waves at 0.99.
  const double looped = LoopedGemmSeconds(1024, 5760, 2880, 32, h100);
  const double grouped = GemmSeconds(1024, 5760, 2880, 32, h100);
  EXPECT_GT(looped, grouped * 1.15);
}

TEST(BlackwellKernelRatesTest, SlidingWindowCostScalesWithTheWindow) {
  const Device b200 = Gpu("b200");
  auto forward = [&](double window) {
    AttentionCall c;
    c.heads = 64;
    c.qk_dim = c.v_dim = 64;
    c.q_len = c.k_len = 32768;
    c.window = window;
    return FusedAttentionSeconds(c, b200).forward - b200.rates.attention_forward_us * 1e-6;
  };
  // Each 128-query block sees ceil(window / 128) + 1 key blocks (its window
  // straddles one more block boundary): c = 3, 5, 9, 17 blocks, fewer for
  // the first c - 1 query blocks: 256 c - c (c - 1) / 2 units per head.
  auto units = [](double c) { return 256 * c - c * (c - 1) / 2; };
  EXPECT_NEAR(forward(512) / forward(256), units(5) / units(3), 0.01);
  EXPECT_NEAR(forward(1024) / forward(512), units(9) / units(5), 0.01);
  EXPECT_NEAR(forward(2048) / forward(1024), units(17) / units(9), 0.01);
  EXPECT_LT(forward(2048), forward(0) / 5);  // full causal: 128.5 blocks per query block on average
}

}  // namespace
}  // namespace parplan
