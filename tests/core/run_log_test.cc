// ParseRunLog on log excerpts written for these tests in the formats of
// Megatron-LM d98e8a64, Megatron Bridge 067f987df0 and NeMo 2 (each fixture
// under tests/data/runlog cites the printer it follows; values are made up).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "core/runlog/run_log.h"
#include "core/util/field_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

using ::testing::HasSubstr;

constexpr double kMiB = 1048576.0;

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(PARPLAN_TEST_DATA_DIR) + "/runlog/" + name, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  EXPECT_FALSE(buffer.str().empty()) << name;
  return buffer.str();
}

ParsedLog Parse(const std::string& text) {
  absl::StatusOr<ParsedLog> log = ParseRunLog(text, "log");
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : ParsedLog{};
}

const IterationRecord* Find(const ParsedLog& log, int64_t iteration) {
  for (const IterationRecord& r : log.iterations) {
    if (r.iteration == iteration) return &r;
  }
  return nullptr;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(RunLogTest, MegatronLmRecentLineFieldsInOrder) {
  const ParsedLog log = Parse(Fixture("megatron_lm_recent.log"));
  EXPECT_EQ(log.format, LogFormat::kMegatronLm);
  ASSERT_EQ(log.iterations.size(), 20u);
  const IterationRecord& first = log.iterations.front();
  EXPECT_EQ(first.iteration, 10);
  EXPECT_EQ(first.train_iters, 5000);
  EXPECT_EQ(first.consumed_samples, 5120);
  EXPECT_NEAR(first.step_s, 9.8765, 1e-9);
  EXPECT_NEAR(first.tflops_per_gpu, 208.0, 1e-9);
  EXPECT_NEAR(first.learning_rate, 1.5e-4, 1e-12);
  EXPECT_EQ(first.global_batch_size, 512);
  EXPECT_NEAR(first.loss, 10.4, 1e-9);
  EXPECT_NEAR(first.loss_scale, 1.0, 1e-12);
  EXPECT_GT(first.grad_norm, 0.79);
  EXPECT_EQ(first.skipped_iterations, 0);
  EXPECT_EQ(first.nan_iterations, 0);
  EXPECT_EQ(first.format, LogFormat::kMegatronLm);
  EXPECT_EQ(first.line, 20);  // the comment line, 13 argument-block lines, 5 start-up lines
  EXPECT_TRUE(std::isnan(first.tokens_per_s_per_gpu));
}

TEST(RunLogTest, MegatronLmMemoryReportIsMiB) {
  const ParsedLog log = Parse(Fixture("megatron_lm_recent.log"));
  ASSERT_EQ(log.memory.size(), 2u);
  EXPECT_EQ(log.memory[0].rank, 0);
  EXPECT_EQ(log.memory[0].after_iterations, 10);
  EXPECT_NEAR(log.memory[0].allocated_bytes, 12000.51 * kMiB, 1.0);
  EXPECT_NEAR(log.memory[0].max_allocated_bytes, 15000.25 * kMiB, 1.0);
  EXPECT_NEAR(log.memory[0].reserved_bytes, 16384.0 * kMiB, 1.0);
  EXPECT_NEAR(log.memory[0].max_reserved_bytes, 16384.0 * kMiB, 1.0);
  EXPECT_EQ(log.memory[1].rank, 2);
  EXPECT_EQ(log.memory[0].alloc_retries, -1);
}

TEST(RunLogTest, ArgumentBlockPairs) {
  const ParsedLog log = Parse(Fixture("megatron_lm_recent.log"));
  ASSERT_EQ(log.arguments.size(), 10u);
  EXPECT_EQ(log.arguments[0].first, "global_batch_size");
  EXPECT_EQ(log.arguments[0].second, "512");
  EXPECT_EQ(log.arguments[8].first, "tensor_model_parallel_size");
  EXPECT_EQ(log.arguments[8].second, "2");
}

TEST(RunLogTest, MegatronLmOldFormWithoutTimestampOrThroughput) {
  const ParsedLog log = Parse(Fixture("megatron_lm_old.log"));
  EXPECT_EQ(log.format, LogFormat::kMegatronLm);
  ASSERT_EQ(log.iterations.size(), 5u);
  const IterationRecord& r = log.iterations[1];
  EXPECT_EQ(r.iteration, 200);
  EXPECT_EQ(r.train_iters, 500000);
  EXPECT_EQ(r.consumed_samples, -1);
  EXPECT_TRUE(std::isnan(r.tflops_per_gpu));
  EXPECT_NEAR(r.step_s, 1.2345, 0.01);
  ASSERT_EQ(log.memory.size(), 1u);
  EXPECT_EQ(log.memory[0].rank, -1);
  EXPECT_EQ(log.memory[0].after_iterations, 100);
  EXPECT_NEAR(log.memory[0].max_allocated_bytes, 4890.7744140625 * kMiB, 1.0);
  EXPECT_NEAR(log.memory[0].max_reserved_bytes, 5438.0 * kMiB, 1.0);
  // The comment and the prose line at the top are said, not silently dropped.
  EXPECT_THAT(Joined(log.unread), HasSubstr("2 other lines"));
  EXPECT_THAT(Joined(log.unread), HasSubstr("line 2: Old log (2020-era)"));
}

TEST(RunLogTest, BridgeStepTimeAndGigabyteMemory) {
  const ParsedLog log = Parse(Fixture("bridge.log"));
  EXPECT_EQ(log.format, LogFormat::kBridge);
  ASSERT_EQ(log.iterations.size(), 15u);
  EXPECT_EQ(log.iterations[0].format, LogFormat::kBridge);
  EXPECT_NEAR(log.iterations[0].step_s, 14.8, 1e-9);
  EXPECT_NEAR(log.iterations[0].tflops_per_gpu, 113.9, 1e-9);
  EXPECT_THAT(Joined(log.notes), HasSubstr("15 Bridge \"Step Time\" line(s) attached"));
  ASSERT_EQ(log.memory.size(), 1u);
  const MemoryReport& m = log.memory[0];
  EXPECT_EQ(m.rank, 0);
  EXPECT_EQ(m.after_iterations, 2);
  EXPECT_NEAR(m.allocated_bytes, 52.581e9, 1.0);
  EXPECT_NEAR(m.max_allocated_bytes, 65.731e9, 1.0);
  EXPECT_NEAR(m.reserved_bytes, 71.34e9, 1.0);
  EXPECT_NEAR(m.max_reserved_bytes, 71.34e9, 1.0);
  EXPECT_EQ(m.alloc_retries, 0);
}

TEST(RunLogTest, BridgeStepLineFillsAnIterationLineWithoutElapsedTime) {
  const std::string text =
      "Step Time : 4.20s GPU utilization: 401.2MODEL_TFLOP/s/GPU\n"
      " [2026-01-01 10:00:01] iteration        5/     100 | consumed samples:         1280 | learning rate: "
      "1.000000E-04 | global batch size:   256 | lm loss: 1.000000E+01 | loss scale: 1.0 |\n"
      "Step Time : 4.21s GPU utilization: 400.3TFLOP/s/GPU\n"
      " [2026-01-01 10:00:02] iteration        6/     100 | consumed samples:         1536 | learning rate: "
      "1.000000E-04 | global batch size:   256 | lm loss: 9.900000E+00 | loss scale: 1.0 |\n";
  const ParsedLog log = Parse(text);
  ASSERT_EQ(log.iterations.size(), 2u);
  EXPECT_NEAR(log.iterations[0].step_s, 4.20, 1e-9);
  EXPECT_NEAR(log.iterations[0].tflops_per_gpu, 401.2, 1e-9);
  EXPECT_NEAR(log.iterations[1].tflops_per_gpu, 400.3, 1e-9);  // pre-late-2025 unit
  EXPECT_EQ(log.format, LogFormat::kBridge);
}

TEST(RunLogTest, NemoLinesInAnyKeyOrder) {
  const ParsedLog log = Parse(Fixture("nemo.log"));
  EXPECT_EQ(log.format, LogFormat::kNemo);
  ASSERT_EQ(log.iterations.size(), 12u);
  EXPECT_EQ(log.iterations[0].iteration, 0);
  EXPECT_EQ(log.iterations[0].train_iters, 99);
  EXPECT_NEAR(log.iterations[0].step_s, 9.95, 1e-9);
  EXPECT_NEAR(log.iterations[0].loss, 10.8, 1e-9);
  EXPECT_EQ(log.iterations[1].consumed_samples, 256);
  EXPECT_EQ(log.iterations[1].global_batch_size, 128);
  EXPECT_NEAR(log.iterations[1].learning_rate, 1.5e-5, 1e-12);
  EXPECT_NEAR(log.iterations[1].loss, 10.7, 1e-9);
}

TEST(RunLogTest, NemoTqdmBarSplitOnCarriageReturns) {
  const ParsedLog log = Parse(Fixture("nemo_tqdm.log"));
  ASSERT_EQ(log.iterations.size(), 2u);
  EXPECT_EQ(log.iterations[0].format, LogFormat::kNemo);
  EXPECT_EQ(log.iterations[0].iteration, 10);
  EXPECT_EQ(log.iterations[0].train_iters, 100);
  EXPECT_NEAR(log.iterations[0].step_s, 2.51, 1e-9);  // train_step_timing wins over tqdm's smoothed s/it
  EXPECT_NEAR(log.iterations[1].step_s, 3.00, 1e-9);  // only s/it
  EXPECT_NEAR(log.iterations[1].loss, 10.10, 1e-9);
  EXPECT_EQ(log.iterations[1].consumed_samples, 1408);
}

TEST(RunLogTest, MessyPasteWrappedInterleavedGapsProse) {
  const ParsedLog log = Parse(Fixture("messy.log"));
  ASSERT_EQ(log.iterations.size(), 6u);  // 10 20 30 80 90 100
  const IterationRecord* r30 = Find(log, 30);
  ASSERT_NE(r30, nullptr);  // cut mid-word over three lines
  EXPECT_NEAR(r30->step_s, 5.1198, 1e-9);
  EXPECT_NEAR(r30->loss, 2.345678, 1e-9);
  EXPECT_EQ(r30->nan_iterations, 0);
  const IterationRecord* r80 = Find(log, 80);
  ASSERT_NE(r80, nullptr);  // cut at a field separator
  EXPECT_EQ(r80->global_batch_size, 512);
  EXPECT_EQ(r80->skipped_iterations, 0);
  const IterationRecord* r20 = Find(log, 20);
  ASSERT_NE(r20, nullptr);
  EXPECT_EQ(r20->rank, 3);  // the lower rank of the two that printed it
  EXPECT_NEAR(r20->step_s, 5.1219, 1e-9);
  EXPECT_EQ(Find(log, 10)->rank, 15);
  ASSERT_EQ(log.memory.size(), 1u);
  EXPECT_EQ(log.memory[0].rank, 0);
  const std::string notes = Joined(log.notes);
  EXPECT_THAT(notes, HasSubstr("3 hard-wrapped line(s) joined"));
  EXPECT_THAT(notes, HasSubstr("1 repeated iteration line(s)"));
  EXPECT_THAT(notes, HasSubstr("1 gap(s) in the iteration numbers (log interval 10; first gap 30 -> 80)"));
  const std::string unread = Joined(log.unread);
  EXPECT_THAT(unread, HasSubstr("1 iteration-like lines that did not parse (line 14: iteration 110 | this line"));
  EXPECT_THAT(unread, HasSubstr("3 other lines"));
  EXPECT_EQ(log.lines, 15);
}

TEST(RunLogTest, BridgeMemoryLineWrappedAtASeparator) {
  const ParsedLog log = Parse(
      "[Rank 0] (after 2 iterations) memory (GB) | mem-allocated-gigabytes: 52.581 | mem-reserved-gigabytes: 71.\n"
      "34 | mem-max-allocated-gigabytes: 65.731 |\n"
      " mem-max-reserved-gigabytes: 71.34 | mem-alloc-retires: 3\n");
  ASSERT_EQ(log.memory.size(), 1u);
  EXPECT_NEAR(log.memory[0].reserved_bytes, 71.34e9, 1.0);
  EXPECT_NEAR(log.memory[0].max_reserved_bytes, 71.34e9, 1.0);
  EXPECT_EQ(log.memory[0].alloc_retries, 3);
  EXPECT_TRUE(log.unread.empty()) << Joined(log.unread);
}

TEST(RunLogTest, ATracebackCutBeforeItsExceptionStopsSwallowingLines) {
  std::string text = "Traceback (most recent call last):\n";
  for (int i = 0; i < 500; ++i) text += "    some_call()\n";
  const ParsedLog log = Parse(text);
  EXPECT_TRUE(log.failures.empty());
  EXPECT_THAT(Joined(log.unread), HasSubstr("100 other lines"));
}

TEST(RunLogTest, OomInTheFirstIteration) {
  const ParsedLog log = Parse(Fixture("oom_first_iteration.log"));
  EXPECT_TRUE(log.iterations.empty());
  ASSERT_EQ(log.failures.size(), 1u);
  const LogFailure& f = log.failures[0];
  EXPECT_EQ(f.kind, "oom");
  EXPECT_EQ(f.rank, 0);
  EXPECT_EQ(f.repeats, 2);  // rank 1 printed the same message
  EXPECT_NEAR(f.tried_bytes, 3.91 * 1073741824.0, 1e3);
  EXPECT_NEAR(f.capacity_bytes, 79.10 * 1073741824.0, 1e3);
  EXPECT_NEAR(f.free_bytes, 1.02 * 1073741824.0, 1e3);
  EXPECT_EQ(f.after_iteration, -1);
  EXPECT_EQ(f.moment, "the first iteration (training had started; no iteration logged yet)");
  EXPECT_EQ(f.raised_at, "megatron/core/pipeline_parallel/schedules.py:520 in forward_backward_no_pipelining");
  EXPECT_EQ(f.rule_id, "memory.does_not_fit");
  EXPECT_THAT(f.fix, HasSubstr("asked for 3.91 GiB on a 79.10 GiB GPU with 1.02 GiB free"));
  EXPECT_EQ(f.line, 18);
  EXPECT_EQ(log.lines_read, 11);  // the traceback (10 lines) and the repeat on rank 1
}

TEST(RunLogTest, OldOomFormDuringOptimizerInit) {
  const ParsedLog log = Parse(Fixture("oom_startup.log"));
  ASSERT_EQ(log.failures.size(), 1u);
  const LogFailure& f = log.failures[0];
  EXPECT_EQ(f.kind, "oom");
  EXPECT_NEAR(f.tried_bytes, 20.0 * kMiB, 1.0);
  EXPECT_NEAR(f.capacity_bytes, 15.78 * 1073741824.0, 1e3);
  EXPECT_NEAR(f.free_bytes, 5.56 * kMiB, 1.0);
  EXPECT_EQ(f.moment, "start-up: optimizer initialisation (before the first logged iteration)");
}

TEST(RunLogTest, OomAfterALoggedIteration) {
  const std::string text =
      " [2026-01-01 10:00:00.000001] iteration      120/    5000 | consumed samples:        61440 | elapsed time "
      "per iteration (ms): 5123.4 | global batch size:   512 | lm loss: 2.345678E+00 | loss scale: 1.0 | number of "
      "skipped iterations:   0 | number of nan iterations:   0 |\n"
      "[rank3]: Traceback (most recent call last):\n"
      "[rank3]:   File \"/opt/megatron/training/training.py\", line 1380, in train_step\n"
      "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 3 has a total "
      "capacity of 139.80 GiB of which 200.00 MiB is free.\n";
  const ParsedLog log = Parse(text);
  ASSERT_EQ(log.failures.size(), 1u);
  EXPECT_EQ(log.failures[0].after_iteration, 120);
  EXPECT_EQ(log.failures[0].moment, "after iteration 120 (in a training step)");
  EXPECT_EQ(log.failures[0].rank, 3);
  EXPECT_NEAR(log.failures[0].tried_bytes, 512 * kMiB, 1.0);
  EXPECT_NEAR(log.failures[0].free_bytes, 200 * kMiB, 1.0);
}

TEST(RunLogTest, RejectsEmptyOversizedAndBinaryText) {
  absl::StatusOr<ParsedLog> empty = ParseRunLog("  \n\n", "request.log");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_EQ(FieldViolationsOf(empty.status()).size(), 1u);
  EXPECT_EQ(FieldViolationsOf(empty.status())[0].field, "request.log");
  EXPECT_THAT(FieldViolationsOf(empty.status())[0].description, HasSubstr("is empty"));

  const std::string big(kMaxLogBytes + 1, 'x');
  absl::StatusOr<ParsedLog> oversized = ParseRunLog(big, "log");
  ASSERT_FALSE(oversized.ok());
  EXPECT_THAT(oversized.status().message(), HasSubstr(absl::StrCat("at most ", kMaxLogBytes, " bytes")));

  const std::string binary("iteration 1\0\x01\x02", 14);
  absl::StatusOr<ParsedLog> nul = ParseRunLog(binary, "log");
  ASSERT_FALSE(nul.ok());
  EXPECT_THAT(nul.status().message(), HasSubstr("NUL byte at offset 11"));
}

TEST(RunLogTest, ProseOnlyIsOkAndSaysNothingWasRecognised) {
  const ParsedLog log = Parse("The run was slow, about 5 seconds per step.\nThen it crashed.\n");
  EXPECT_TRUE(log.iterations.empty());
  EXPECT_EQ(log.lines, 2);
  EXPECT_EQ(log.lines_read, 0);
  EXPECT_THAT(Joined(log.unread), HasSubstr("nothing recognised"));
  EXPECT_THAT(Joined(log.unread), HasSubstr("2 other lines"));
}

TEST(RunLogTest, UnreadExamplesAndLineLengthAreBounded) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "prose line number " + std::to_string(i) + "\n";
  text += std::string(100000, 'y') + "\n";
  const ParsedLog log = Parse(text);
  ASSERT_EQ(log.unread.size(), 3u);  // other lines, the cut line, "nothing recognised"
  EXPECT_THAT(Joined(log.unread), HasSubstr("5001 other lines"));
  EXPECT_THAT(Joined(log.unread), HasSubstr("1 line(s) longer than 65536 bytes, cut"));
  EXPECT_LT(Joined(log.unread).size(), 1200u);
}

TEST(RunLogTest, LargestLogIsReadWhole) {
  const std::string line =
      " [2026-01-01 10:00:00.000001] iteration %8d/  100000 | consumed samples:      1024000 | elapsed time per "
      "iteration (ms): 5123.4 | throughput per GPU (TFLOP/s/GPU): 401.2 | learning rate: 2.500000E-04 | global "
      "batch size:   512 | lm loss: 2.345678E+00 | loss scale: 1.0 | grad norm: 0.812 | number of skipped "
      "iterations:   0 | number of nan iterations:   0 |\n";
  std::string text;
  int count = 0;
  char buf[512];
  while (true) {
    std::snprintf(buf, sizeof(buf), line.c_str(), count + 1);
    if (text.size() + std::strlen(buf) > kMaxLogBytes) break;
    text += buf;
    ++count;
  }
  const ParsedLog log = Parse(text);
  EXPECT_EQ(static_cast<int>(log.iterations.size()), count);
  EXPECT_GT(count, 10000);  // a 4 MiB log
  EXPECT_EQ(ChooseSteadyWindow(log).records, count - 1);
}

TEST(RunLogTest, LogFormatNames) {
  EXPECT_STREQ(LogFormatName(LogFormat::kMegatronLm), "megatron-lm");
  EXPECT_STREQ(LogFormatName(LogFormat::kBridge), "megatron-bridge");
  EXPECT_STREQ(LogFormatName(LogFormat::kNemo), "nemo");
  EXPECT_STREQ(LogFormatName(LogFormat::kUnknown), "unknown");
}

}  // namespace
}  // namespace parplan
