#include "core/perf/kernel_time.h"

#include <gtest/gtest.h>

#include "core/catalog/catalog.h"
#include "core/perf/perf_model.h"

namespace parplan {
namespace {

Device H100(Precision p = Precision::kBf16) {
  return MakeDevice(*Catalog::Get().FindSystem("h100-sxm"), p, PerfParams{});
}

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
  EXPECT_NEAR(t, (weight_bytes + 16.0 * 7168 * 2 + 16.0 * 2048 * 2) / d.hbm_bytes_per_s + d.kernel_overhead_s, 1e-12);
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

TEST(KernelTimeTest, EveryKernelPaysAFixedTimeAGroupedGemmOnePerExpert) {
  Device d = H100();
  d.kernel_overhead_s = 0;
  const double bare = GemmSeconds(8192, 1536, 2048, 16, d);
  d.kernel_overhead_s = 5e-6;
  EXPECT_NEAR(GemmSeconds(8192, 1536, 2048, 16, d) - bare, 16 * 5e-6, 1e-12);
}

TEST(KernelTimeTest, TrainingGemmIsForwardPlusTwoGradients) {
  const Device d = H100();
  const TrainingGemm t = TrainingGemmSeconds(4096, 8192, 8192, 1, d);
  EXPECT_DOUBLE_EQ(t.forward, GemmSeconds(4096, 8192, 8192, 1, d));
  EXPECT_DOUBLE_EQ(t.backward, GemmSeconds(4096, 8192, 8192, 1, d) + GemmSeconds(8192, 8192, 4096, 1, d, 8.0));
}

TEST(KernelTimeTest, AttentionSlowsForSmallHeadsAndShortCalls) {
  const Device d = H100();
  const PerfParams p;
  const AttentionSeconds big = FlashAttentionSeconds(8192, 4096, 32, 128, 128, 8192, d, p);
  const AttentionSeconds small_heads = FlashAttentionSeconds(8192, 4096, 64, 64, 64, 8192, d, p);
  const AttentionSeconds short_calls = FlashAttentionSeconds(8192, 4096, 32, 128, 128, 512, d, p);
  // Same FLOPs, lower rate.
  EXPECT_GT(small_heads.forward, big.forward);
  EXPECT_GT(short_calls.forward, 1.3 * big.forward);  // 512 vs 8192 queries per call: 0.69 vs 0.97
  // Backward: 2.5x the forward FLOPs at attention_backward_ratio of its rate.
  EXPECT_NEAR(big.backward, big.forward * 2.5 / p.attention_backward_ratio, 1e-12);
}

TEST(KernelTimeTest, DevicesFollowTheSystem) {
  const Device a100 = MakeDevice(*Catalog::Get().FindSystem("a100-80gb"), Precision::kFp8Cs, PerfParams{});
  EXPECT_EQ(a100.arch, 0);
  EXPECT_EQ(a100.sm_count, 108);
  EXPECT_EQ(a100.quantize_bytes, 0);  // no FP8 tensor cores: runs in bf16
  EXPECT_EQ(a100.operand_bytes, 2);
  const Device b200 = MakeDevice(*Catalog::Get().FindSystem("b200"), Precision::kNvfp4, PerfParams{});
  EXPECT_EQ(b200.arch, 2);
  EXPECT_LT(b200.operand_bytes, 1);
}

}  // namespace
}  // namespace parplan
