// ChooseSteadyWindow and CompareWindows on logs written for these tests in
// Megatron-LM d98e8a64's training_log format (megatron/training/training.py:
// 3567-3641) and report_memory (megatron/training/utils/common_utils.py:
// 313-333); step times are made up.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/runlog/run_log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

using ::testing::HasSubstr;

struct Interval {
  int64_t iteration;
  double step_ms;
  int64_t gbs = 512;
  int skipped = 0;
  int nan = 0;
};

std::string Line(const Interval& i) {
  char buf[600];
  std::snprintf(buf, sizeof(buf),
                " [2026-01-01 10:00:00.%06d] iteration %8lld/%8d | consumed samples: %12lld | elapsed time per "
                "iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: 2.500000E-04 | "
                "global batch size: %5lld | lm loss: 2.345678E+00 | loss scale: 1.0 | grad norm: 0.812 | number of "
                "skipped iterations: %3d | number of nan iterations: %3d |\n",
                static_cast<int>(i.iteration % 1000000), static_cast<long long>(i.iteration), 5000,
                static_cast<long long>(i.iteration * i.gbs), i.step_ms, 2048000.0 / i.step_ms,
                static_cast<long long>(i.gbs), i.skipped, i.nan);
  return buf;
}

std::string Memory(double max_reserved_mib) {
  char buf[300];
  std::snprintf(buf, sizeof(buf),
                "[Rank 0] (after 10 iterations) memory (MB) | allocated: 12000.51 | max allocated: 15000.25 | "
                "reserved: %.2f | max reserved: %.2f\n",
                max_reserved_mib, max_reserved_mib);
  return buf;
}

// Step times around `center_ms`: a fixed +-`jitter_ms` pattern (no RNG, so
// the expectations are exact).
std::vector<Interval> Steady(int64_t first, int64_t count, double center_ms, double jitter_ms) {
  static const double kPattern[] = {0.3, -0.8, 0.5, -0.1, 0.9, -0.6, 0.2, -0.4, 0.7, -0.2};
  std::vector<Interval> out;
  for (int64_t k = 0; k < count; ++k) out.push_back({first + 10 * k, center_ms + jitter_ms * kPattern[k % 10]});
  return out;
}

ParsedLog Parse(const std::string& text) {
  absl::StatusOr<ParsedLog> log = ParseRunLog(text, "log");
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : ParsedLog{};
}

ParsedLog ParseIntervals(const std::vector<Interval>& intervals, const std::string& extra = "") {
  std::string text = extra;
  for (const Interval& i : intervals) text += Line(i);
  return Parse(text);
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(SteadyWindowTest, DropsWarmUpAndAnIsolatedOutlier) {
  std::ifstream in(std::string(PARPLAN_TEST_DATA_DIR) + "/runlog/megatron_lm_recent.log");
  std::stringstream text;
  text << in.rdbuf();
  const ParsedLog log = Parse(text.str());
  const SteadyWindow w = ChooseSteadyWindow(log);
  EXPECT_EQ(w.first_iteration, 20);
  EXPECT_EQ(w.last_iteration, 200);
  EXPECT_EQ(w.records, 18);
  ASSERT_EQ(w.excluded.size(), 2u) << Joined(w.excluded);
  EXPECT_THAT(w.excluded[0], HasSubstr("iteration 10: warm-up (1 leading interval(s), the first interval of the run"));
  EXPECT_THAT(w.excluded[0], HasSubstr("slowest 9.88 s vs the later median 5.12 s"));
  EXPECT_THAT(w.excluded[1], HasSubstr("iteration 150: outlier 7.91 s vs the median 5.11 s (1.55x)"));
  EXPECT_NEAR(w.median_step_s, 5.12, 0.03);
  EXPECT_LT(w.spread, 0.02);
  EXPECT_GT(w.stddev_step_s, 0.0);
  EXPECT_LE(w.min_step_s, w.median_step_s);
  EXPECT_GE(w.max_step_s, w.median_step_s);
  EXPECT_NEAR(w.median_tflops_per_gpu, 401.2, 2.0);
  EXPECT_TRUE(std::isnan(w.median_tokens_per_s_per_gpu));
  EXPECT_EQ(w.global_batch_size, 512);
  EXPECT_THAT(w.reason, HasSubstr("iterations 20-200: 18 logged interval(s) at global batch 512"));
}

TEST(SteadyWindowTest, LongerWarmUpWhileStepsStaySlow) {
  std::vector<Interval> iv = {{10, 15000}, {20, 7000}, {30, 6100}};
  for (const Interval& i : Steady(40, 12, 5000, 10)) iv.push_back(i);
  const SteadyWindow w = ChooseSteadyWindow(ParseIntervals(iv));
  EXPECT_EQ(w.first_iteration, 40);
  ASSERT_EQ(w.excluded.size(), 1u);
  EXPECT_THAT(w.excluded[0], HasSubstr("iterations 10-30: warm-up (3 leading interval(s)"));
}

TEST(SteadyWindowTest, AnExcerptFromMidRunKeepsItsFirstIntervalWhenNotSlow) {
  const SteadyWindow w = ChooseSteadyWindow(ParseIntervals(Steady(5000, 8, 5000, 10)));
  EXPECT_EQ(w.first_iteration, 5000);
  EXPECT_EQ(w.records, 8);
  EXPECT_TRUE(w.excluded.empty());
  EXPECT_THAT(w.reason, HasSubstr("nothing excluded"));
}

TEST(SteadyWindowTest, ProfilingWindowFromTheArgumentBlock) {
  const std::string args =
      "------------------------ arguments ------------------------\n"
      "  profile ......................................... True\n"
      "  profile_step_end ................................ 60\n"
      "  profile_step_start .............................. 52\n"
      "-------------------- end of arguments ---------------------\n";
  std::vector<Interval> iv = Steady(10, 12, 5000, 10);
  iv[4].step_ms = 5600;  // 50: covers 41-50, outside the profile range, a mild bump that is kept
  iv[5].step_ms = 5900;  // 60: covers 51-60
  const SteadyWindow w = ChooseSteadyWindow(ParseIntervals(iv, args));
  ASSERT_EQ(w.excluded.size(), 3u) << Joined(w.excluded);
  EXPECT_THAT(w.excluded[0], HasSubstr("iteration 10: warm-up"));
  EXPECT_EQ(w.excluded[1],
            "iteration 60: profiling window (--profile with profile_step_start=52, profile_step_end=60)");
  EXPECT_THAT(w.excluded[2], HasSubstr("iteration 50: outlier 5.6 s"));
  EXPECT_EQ(w.records, 9);
}

TEST(SteadyWindowTest, SkippedAndNanIntervalsAreExcluded) {
  std::vector<Interval> iv = Steady(5000, 10, 5000, 10);
  iv[3].skipped = 2;
  iv[6].nan = 1;
  const SteadyWindow w = ChooseSteadyWindow(ParseIntervals(iv));
  ASSERT_EQ(w.excluded.size(), 2u) << Joined(w.excluded);
  EXPECT_EQ(w.excluded[0], "iteration 5030: 2 skipped and 0 NaN iteration(s) in its interval");
  EXPECT_EQ(w.excluded[1], "iteration 5060: 0 skipped and 1 NaN iteration(s) in its interval");
  EXPECT_EQ(w.records, 8);
  EXPECT_EQ(w.skipped_iterations, 2);  // inside the window's span, though its interval is left out
  EXPECT_EQ(w.nan_iterations, 1);
}

TEST(SteadyWindowTest, BatchRampUpKeepsTheFinalBatch) {
  std::vector<Interval> iv;
  int64_t it = 5000;
  for (int64_t gbs : {128, 256, 384}) iv.push_back({it += 10, 2000.0 * gbs / 512, gbs});
  for (const Interval& i : Steady(it + 10, 8, 5000, 10)) iv.push_back(i);
  const SteadyWindow w = ChooseSteadyWindow(ParseIntervals(iv));
  ASSERT_GE(w.excluded.size(), 1u);
  EXPECT_EQ(
      w.excluded[0],
      "iterations 5010-5030: batch-size ramp-up (3 interval(s) at global batch 128..384; the final batch is 512)");
  EXPECT_EQ(w.global_batch_size, 512);
  EXPECT_EQ(w.first_iteration, 5040);
}

TEST(SteadyWindowTest, NoWindowWithoutStepTimesOrIterations) {
  SteadyWindow w = ChooseSteadyWindow(ParsedLog{});
  EXPECT_EQ(w.records, 0);
  EXPECT_EQ(w.reason, "no window: the log has no iteration lines");
  const ParsedLog no_time =
      Parse(" iteration      100/  500000 | learning rate: 1.5E-04 | lm loss: 7.2 | loss scale: 65536.0 |\n");
  ASSERT_EQ(no_time.iterations.size(), 1u);
  w = ChooseSteadyWindow(no_time);
  EXPECT_EQ(w.records, 0);
  EXPECT_THAT(w.reason, HasSubstr("none of the 1 iteration lines carries a step time"));
}

TEST(SteadyWindowTest, NoisyRunKeepsItsIntervalsAndSaysSo) {
  std::vector<Interval> iv = Steady(5000, 8, 5000, 10);
  for (size_t k = 1; k < iv.size(); k += 2) iv[k].step_ms = 6500;  // half of them slow: not "isolated"
  const SteadyWindow w = ChooseSteadyWindow(ParseIntervals(iv));
  EXPECT_EQ(w.records, 8);
  EXPECT_THAT(w.reason, HasSubstr("step time varies widely"));
  EXPECT_GT(w.spread, 0.2);
}

TEST(CompareWindowsTest, RealSlowdownAndMemoryGrowth) {
  std::vector<Interval> a = {{10, 12000}}, b = {{10, 12500}};
  for (const Interval& i : Steady(20, 20, 5120, 10)) a.push_back(i);
  for (const Interval& i : Steady(20, 20, 5300, 10)) b.push_back(i);
  const ParsedLog la = ParseIntervals(a, Memory(16384));
  const ParsedLog lb = ParseIntervals(b, Memory(17408));
  const AbVerdict v = CompareWindows(la, ChooseSteadyWindow(la), lb, ChooseSteadyWindow(lb));
  EXPECT_NEAR(v.step_a_s, 5.12, 0.005);
  EXPECT_NEAR(v.step_b_s, 5.30, 0.005);
  EXPECT_NEAR(v.step_change, 0.0352, 0.002);
  EXPECT_LT(v.step_noise, 0.002);
  EXPECT_TRUE(v.step_real);
  EXPECT_NEAR(v.peak_a_bytes, 16384.0 * 1048576.0, 1.0);
  EXPECT_NEAR(v.peak_change_bytes, 1024.0 * 1048576.0, 1.0);
  EXPECT_NEAR(v.peak_noise_bytes, 20.0 * 1048576.0, 1.0);
  EXPECT_TRUE(v.peak_real);
  EXPECT_THAT(v.verdict, HasSubstr("B is 3.5% slower"));
  EXPECT_THAT(v.verdict, HasSubstr("peak memory 16.00 GiB vs 17.00 GiB (+1.00 GiB, real)"));
}

TEST(CompareWindowsTest, DifferenceWithinTheNoise) {
  std::vector<Interval> a = {{10, 12000}}, b = {{10, 12500}};
  for (const Interval& i : Steady(20, 12, 5120, 150)) a.push_back(i);
  for (const Interval& i : Steady(20, 12, 5135, 150)) b.push_back(i);
  const ParsedLog la = ParseIntervals(a, Memory(16384));
  const ParsedLog lb = ParseIntervals(b, Memory(16394));
  const AbVerdict v = CompareWindows(la, ChooseSteadyWindow(la), lb, ChooseSteadyWindow(lb));
  EXPECT_FALSE(v.step_real);
  EXPECT_GT(v.step_noise * 3, std::fabs(v.step_change));
  EXPECT_FALSE(v.peak_real);
  EXPECT_THAT(v.verdict, HasSubstr("no real difference"));
  EXPECT_THAT(v.verdict, HasSubstr("peak memory 16.00 GiB vs 16.01 GiB (+10 MiB, within the allocator's granularity)"));
}

TEST(CompareWindowsTest, TooFewIntervalsOrNoWindow) {
  const ParsedLog la = ParseIntervals(Steady(5000, 2, 5000, 10));
  const ParsedLog lb = ParseIntervals(Steady(5000, 2, 6000, 10));
  AbVerdict v = CompareWindows(la, ChooseSteadyWindow(la), lb, ChooseSteadyWindow(lb));
  EXPECT_FALSE(v.step_real);
  EXPECT_THAT(v.verdict, HasSubstr("too few steady intervals"));
  EXPECT_THAT(v.verdict, HasSubstr("peak memory not compared"));
  v = CompareWindows(la, ChooseSteadyWindow(la), ParsedLog{}, ChooseSteadyWindow(ParsedLog{}));
  EXPECT_TRUE(std::isnan(v.step_change));
  EXPECT_THAT(v.verdict, HasSubstr("B has no steady window"));
}

}  // namespace
}  // namespace parplan
