// Model FLOPs per token against the calibration data's ground truth
// (gflops_per_token_derived = reported TFLOP/s / tokens/s), within 2%.
#include "core/perf/flops.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "gtest/gtest.h"
#include "tests/core/csv_reader.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

// Llama 3 8B at 8192 by hand: MLP 6*4096*3*14336*32 = 33,822,867,456; attention
// projections 6*32*(4096*(4096+2*1024) + 4096*4096) = 8,053,063,680; core
// 6*32*4096*8192 = 6,442,450,944; logits 6*4096*128256 = 3,152,019,456.
TEST(FlopsTest, Llama3_8bByHand) {
  const FlopsPerToken f = ModelFlopsPerToken(CatalogModel("llama3_8b"), 8192, 1, 0);
  EXPECT_DOUBLE_EQ(f.total, 33822867456.0 + 8053063680.0 + 6442450944.0 + 3152019456.0);
  EXPECT_DOUBLE_EQ(f.attention_core, 6442450944.0);
}

// Local attention on an inline spec: h = 1024, 8 heads of 128, 4 layers, no MLP
// FLOPs checked. A chunk of 3000 over 8192 tokens leaves chunks 3000, 3000, 2192:
// (2*3000^2 + 2192^2) / (2*8192) keys per token.
TEST(FlopsTest, LocalAttentionPatternsAndPartialChunks) {
  ModelSpec m;
  m.num_layers = 4;
  m.hidden_size = 1024;
  m.ffn_hidden_size = 4096;
  m.num_attention_heads = 8;
  m.num_query_groups = 8;
  m.kv_channels = 128;
  m.vocab_size = 1024;
  auto core = [&m](int64_t index) {
    return LayerFlopsPerToken(m, KindOfLayer(m, index), index, 8192, false).attention_core;
  };
  const double full = 12 * 1024 * 4096.0;
  EXPECT_DOUBLE_EQ(core(0), full);
  m.attention_chunk_size = 3000;
  m.window_attn_pattern = "FSSF";
  EXPECT_DOUBLE_EQ(core(0), full);
  EXPECT_DOUBLE_EQ(core(1), 12 * 1024 * ((2 * 3000.0 * 3000 + 2192.0 * 2192) / (2 * 8192)));
  EXPECT_DOUBLE_EQ(core(3), full);
  EXPECT_DOUBLE_EQ(core(4), full);  // an MTP depth past the pattern
  m.attention_chunk_size = 0;
  m.window_size = 1023;  // 1024 keys: 1024 - 1024*1023/(2*8192)
  m.window_attn_pattern.clear();
  m.window_attn_skip_freq = 4;  // layers 0-2 local, layer 3 full
  EXPECT_DOUBLE_EQ(core(2), 12 * 1024 * (1024 - 1024.0 * 1023 / (2 * 8192)));
  EXPECT_DOUBLE_EQ(core(3), full);
}

// Rows whose own numbers disagree with the other rows of the same model and
// sequence length (the TFLOP/s column does not match tokens/s x FLOPs/token):
//  * performance-summary-archive.md:207 (26.04.01, H100, FP8, Llama-3 70B 8K):
//    731 TFLOP/s / 1664 tok/s = 439.3 GF/token, 1.8% below the 447.4 of every
//    other Llama-3 70B 8K row; we match 447.4 exactly, so this row reads 2.3% off.
const std::set<std::string> kInconsistentRows = {"docs/performance-summary-archive.md:207"};

// Complete models whose FLOPs the planner's formulas do not yet reproduce,
// and why (compared below only for the direction of the gap):
//  * nemotron_3_5_lightning (28.15 GF/token at 8K): the run uses two MTP depths
//    of a hybrid model ('*E' each, mtp_use_repeated_layer) while the catalog
//    holds the checkpoint's one shared block, and flops.cc counts hybrid MTP
//    depths by their logits only, not their attention + MoE layers;
//  * deepseek_v4_flash (90.95 GF/token at 4K): V4's CSA/HCA sparse attention and
//    grouped low-rank output projection are approximated as standard MLA in the
//    catalog, whose full causal attention and full-width projections count more.
const std::map<std::string, double> kKnownGaps = {{"nemotron_3_5_lightning", -1}, {"deepseek_v4_flash", +1}};

TEST(FlopsTest, MatchesEveryCompleteCalibrationModel) {
  const auto rows = ReadCsv(std::string(PARPLAN_TEST_DATA_DIR) + "/benchmarks_calibration.csv");
  std::set<std::string> checked;
  double worst = 0;
  std::string worst_row;
  for (const auto& r : rows) {
    if (r.at("task") != "pretrain" || r.at("variant") != "primary" || !r.at("flags").empty()) continue;
    if (kInconsistentRows.count(r.at("source_file") + ":" + r.at("source_line"))) continue;
    const ModelSpec m = CatalogModel(r.at("model_key"));
    ASSERT_TRUE(m.complete()) << r.at("model_key");
    const int64_t tp = std::stoll(r.at("tp"));
    const double want = std::stod(r.at("gflops_per_token_derived")) * 1e9;
    const double got = ModelFlopsPerToken(m, std::stoll(r.at("seq_len")), tp, m.mtp_num_layers).total;
    auto gap = kKnownGaps.find(r.at("model_key"));
    if (gap != kKnownGaps.end()) {
      std::printf("known gap %s seq %s: %.2f vs %.2f GF/token (%+.1f%%)\n", r.at("model_key").c_str(),
                  r.at("seq_len").c_str(), got / 1e9, want / 1e9, 100 * (got / want - 1));
      EXPECT_GT(gap->second * (got / want - 1), 0.02) << r.at("model_key") << ": gap closed? update kKnownGaps";
      continue;
    }
    EXPECT_NEAR(got / want, 1.0, 0.02) << r.at("model_key") << " seq " << r.at("seq_len") << " row "
                                       << r.at("source_line");
    checked.insert(r.at("model_key"));
    if (std::fabs(got / want - 1) > worst) {
      worst = std::fabs(got / want - 1);
      worst_row = r.at("model_key") + " " + r.at("source_file") + ":" + r.at("source_line");
    }
  }
  std::printf("largest FLOPs/token deviation: %.2f%% (%s)\n", 100 * worst, worst_row.c_str());
  EXPECT_EQ(checked,
            (std::set<std::string>{"deepseek_v3", "llama3_70b", "llama3_8b", "nemotron_3_nano", "qwen3_30b_a3b"}));
}

}  // namespace
}  // namespace parplan
