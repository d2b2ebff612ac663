#include "core/perf/kernel_time.h"

#include <gtest/gtest.h>

#include "core/catalog/catalog.h"

namespace parplan {
namespace {

Device H100(Precision p = Precision::kBf16) { return MakeDevice(*Catalog::Get().FindSystem("h100-sxm"), p); }

TEST(KernelTimeTest, LargeGemmRunsAtTheCeiling) {
  const Device d = H100();
  // 8192^3: 64 x 32 tiles of 128x256 = 2048 tiles = 15.5 waves of 132 SMs.
  const double t = GemmSeconds(8192, 8192, 8192, 1, d);
  const double rate = 2.0 * 8192 * 8192 * 8192 / t;
  EXPECT_GT(rate, 0.9 * d.gemm_ceiling * d.peak_flops);
  EXPECT_LE(rate, d.gemm_ceiling * d.peak_flops * (1 + 1e-12));
}

TEST(KernelTimeTest, TileAndWaveQuantizationCostTime) {
  const Device d = H100();
  // One tile more than fills the SMs: 133 tiles of 128x256 need two waves
  // (or smaller tiles), so a hair more work costs clearly more time per FLOP.
  const double full = GemmSeconds(128 * 132, 256, 4096, 1, d);
  const double over = GemmSeconds(128 * 132 + 1, 256, 4096, 1, d);
  EXPECT_GT(over / full, 1.05);
  // Padding: M = 1025 pays for a ninth tile row (or smaller tiles) and a
  // partly idle last wave.
  EXPECT_GT(GemmSeconds(1025, 8192, 8192, 1, d) / GemmSeconds(1024, 8192, 8192, 1, d), 1.2);
}

TEST(KernelTimeTest, ThinGemmsAreBoundByHbm) {
  const Device d = H100();
  // M = 16 tokens against a 7168 x 2048 weight: 16 output tiles split K over
  // the SMs, and reading the weight dominates.
  const double t = GemmSeconds(16, 2048, 7168, 1, d);
  const double weight_bytes = 2048.0 * 7168 * 2;
  EXPECT_NEAR(t,
              (weight_bytes + 16.0 * 7168 * 2 + 16.0 * 2048 * 2) / d.StreamBytesPerS() + d.rates.gemm_launch_us * 1e-6,
              1e-12);
}

TEST(KernelTimeTest, Fp8HalvesLargeGemmsButAddsQuantization) {
  const Device bf16 = H100();
  const Device fp8 = H100(Precision::kFp8Cs);
  EXPECT_EQ(bf16.quantize_bytes, 0);
  EXPECT_GT(fp8.quantize_bytes, 0);
  const TrainingGemm a = TrainingGemmSeconds(8192, 8192, 8192, 1, bf16);
  const TrainingGemm b = TrainingGemmSeconds(8192, 8192, 8192, 1, fp8);
  EXPECT_LT(b.forward + b.backward, 0.75 * (a.forward + a.backward));
  EXPECT_GT(b.forward, GemmSeconds(8192, 8192, 8192, 1, fp8));  // the quantization of X
}

TEST(KernelTimeTest, AGroupedKernelLaunchesOnceLoopedGemmsOncePerExpert) {
  Device d = H100();
  d.rates.gemm_launch_us = 0;
  const double grouped_bare = GemmSeconds(8192, 1536, 2048, 16, d);
  const double looped_bare = LoopedGemmSeconds(8192, 1536, 2048, 16, d);
  d.rates.gemm_launch_us = 5;
  EXPECT_NEAR(GemmSeconds(8192, 1536, 2048, 16, d) - grouped_bare, 5e-6, 1e-12);
  EXPECT_NEAR(LoopedGemmSeconds(8192, 1536, 2048, 16, d) - looped_bare, 16 * 5e-6, 1e-12);
  // Many small experts: one kernel per expert wastes waves (measured: 128
  // experts of 512 tokens run 2.7x slower looped than grouped).
  EXPECT_GT(LoopedGemmSeconds(512, 1536, 2048, 128, d), 1.5 * GemmSeconds(512, 1536, 2048, 128, d));
}

TEST(KernelTimeTest, TrainingGemmIsForwardPlusTwoGradients) {
  const Device d = H100();
  const TrainingGemm t = TrainingGemmSeconds(4096, 8192, 8192, 1, d);
  EXPECT_DOUBLE_EQ(t.forward, GemmSeconds(4096, 8192, 8192, 1, d));
  EXPECT_DOUBLE_EQ(t.backward, GemmSeconds(4096, 8192, 8192, 1, d) + GemmSeconds(8192, 8192, 4096, 1, d, 8.0));
}

TEST(KernelTimeTest, CausalAttentionCountsTheUnmaskedHalf) {
  AttentionCall c;
  c.heads = 32;
  c.q_len = c.k_len = 8192;
  const double causal = AttentionForwardFlops(c);
  c.causal = false;
  const double full = AttentionForwardFlops(c);
  EXPECT_NEAR(causal / full, 0.5, 0.001);
  c.causal = true;
  c.window = 1024;  // each query sees at most 1,024 keys
  EXPECT_LT(AttentionForwardFlops(c), 1025.0 * 8192 * 32 * 2 * 256);
}

TEST(KernelTimeTest, AttentionSlowsForSmallHeadsAndFewBlocks) {
  const Device d = H100();
  AttentionCall big;
  big.heads = 32;
  big.q_len = big.k_len = 8192;
  AttentionCall small_heads = big;
  small_heads.heads = 64;
  small_heads.qk_dim = small_heads.v_dim = 64;
  AttentionCall few_blocks = big;  // same FLOPs in one head's worth of 128-query blocks per SM
  few_blocks.heads = 8;
  few_blocks.q_len = few_blocks.k_len = 16384;
  const PassSeconds b = FusedAttentionSeconds(big, d);
  const double rate = AttentionForwardFlops(big) / b.forward;
  EXPECT_GT(FusedAttentionSeconds(small_heads, d).forward, b.forward);  // same FLOPs, lower rate
  // Long causal calls with many blocks run near the measured per-SM rate.
  EXPECT_GT(rate, 0.85 * d.rates.attention_forward * d.peak_bf16_flops);
  EXPECT_LE(rate, d.rates.attention_forward * d.peak_bf16_flops);
  EXPECT_GT(FusedAttentionSeconds(few_blocks, d).forward / AttentionForwardFlops(few_blocks), 1.0 / rate);
  // Backward: 2.5x the FLOPs at the backward rate, plus its fixed time and traffic.
  EXPECT_GT(b.backward, 2.5 * (b.forward - d.rates.attention_forward_us * 1e-6) * d.rates.attention_forward /
                            d.rates.attention_backward);
}

TEST(KernelTimeTest, MemoryBoundKernelsMoveTheirBytesAtMeasuredRates) {
  const Device d = H100();
  const double bytes = 1e9;
  EXPECT_NEAR(StreamSeconds(bytes, d, 1), bytes / (3.35e12 * 0.85) + d.rates.elementwise_launch_us * 1e-6, 1e-9);
  const PassSeconds norm = NormSeconds(bytes / 4, d);  // reads and writes 2 B per element
  EXPECT_NEAR(norm.forward, bytes / (3.35e12 * 0.55) + d.rates.elementwise_launch_us * 1e-6, 1e-9);
  EXPECT_DOUBLE_EQ(norm.backward, norm.forward * d.rates.norm_backward_ratio);
  EXPECT_GT(GeluSeconds(bytes / 4, d).forward, StreamSeconds(bytes, d));  // erf costs more than a copy
  // Fused AdamW: 28 B per parameter at 72% of HBM (measured 8 ps/param on an H200).
  EXPECT_NEAR(AdamSeconds(1e9, d), 28e9 / (3.35e12 * 0.72) + d.rates.elementwise_launch_us * 1e-6, 1e-9);
}

TEST(KernelTimeTest, SsdScanIsMemoryBoundAndItsBackwardSlower) {
  const Device d = H100();
  const PassSeconds s = SsdScanSeconds(32768, 4096, 64, 8, 128, d);
  EXPECT_GT(s.forward, 0);
  EXPECT_DOUBLE_EQ(s.backward, s.forward * d.rates.ssd_backward_ratio);
  EXPECT_NEAR(SsdScanSeconds(65536, 4096, 64, 8, 128, d).forward / s.forward, 2.0, 0.03);  // plus 5 launches
}

TEST(KernelTimeTest, RatesAreMeasuredPerArchitecture) {
  // Hopper from the H200 tables; Ampere and Blackwell from published
  // measurements derated from burst to sustained clocks.
  EXPECT_DOUBLE_EQ(MeasuredKernelRates(1).gemm_ceiling[0], 0.71);
  EXPECT_DOUBLE_EQ(MeasuredKernelRates(1).attention_forward, 0.60);
  EXPECT_LT(MeasuredKernelRates(2).gemm_ceiling[1], 0.76);
  EXPECT_LT(MeasuredKernelRates(0).gemm_ceiling[0], 0.87);
  EXPECT_EQ(&MeasuredKernelRates(7), &MeasuredKernelRates(2));
}

TEST(KernelTimeTest, DevicesFollowTheSystem) {
  const Device a100 = MakeDevice(*Catalog::Get().FindSystem("a100-80gb"), Precision::kFp8Cs);
  EXPECT_EQ(a100.arch, 0);
  EXPECT_EQ(a100.sm_count, 108);
  EXPECT_EQ(a100.quantize_bytes, 0);  // no FP8 tensor cores: runs in bf16
  EXPECT_EQ(a100.operand_bytes, 2);
  const Device b200 = MakeDevice(*Catalog::Get().FindSystem("b200"), Precision::kNvfp4);
  EXPECT_EQ(b200.arch, 2);
  EXPECT_LT(b200.operand_bytes, 1);
}

}  // namespace
}  // namespace parplan
