// The CLI's text rendering: headers show what applies and never zeros.
#include "skill/cli/cli_table.h"

#include <gtest/gtest.h>

#include <tuple>

#include "server/api/planner_api.h"

namespace parplan {
namespace cli {
namespace {

v1::EstimatePerformanceResponse Invalid(const char* kind, int ep) {
  v1::EstimatePerformanceResponse r;
  r.mutable_model()->set_id("m");
  r.mutable_model()->set_kind(kind);
  auto* c = r.mutable_resolved_config();
  c->set_tp(4);
  c->set_pp(7);
  c->set_vpp(1);
  c->set_cp(1);
  c->set_ep(ep);
  c->set_etp(1);
  c->set_mbs(1);
  c->set_gbs(256);  // given by the user; the response's own gbs stays 0 (no estimate)
  c->set_seq_length(8192);
  c->set_precision("bf16");
  c->set_recompute_granularity("none");
  return r;
}

TEST(CliTableTest, InvalidConfigHeaderShowsTheGivenBatchAndNoZeros) {
  const std::string out = FormatEstimatePerformance(Invalid("dense", 1));
  EXPECT_NE(out.find("GBS=256"), std::string::npos) << out;
  EXPECT_EQ(out.find("DP=0"), std::string::npos) << out;
  EXPECT_EQ(out.find("GBS=0"), std::string::npos) << out;
  EXPECT_EQ(out.find("microbatches"), std::string::npos) << out;
}

TEST(CliTableTest, DenseModelsShowNoExpertDimensions) {
  v1::EstimatePerformanceResponse r = Invalid("dense", 1);
  r.set_dp(2);
  r.set_edp(2);
  r.set_gbs(256);
  r.set_microbatches(128);
  const std::string out = FormatEstimatePerformance(r);
  EXPECT_NE(out.find("; DP=2, 128 microbatches"), std::string::npos) << out;
  EXPECT_EQ(out.find("ETP="), std::string::npos) << out;
  EXPECT_EQ(out.find("EDP="), std::string::npos) << out;
  // An MoE model shows them.
  v1::EstimatePerformanceResponse moe = Invalid("moe", 8);
  moe.set_dp(16);
  moe.set_edp(2);
  moe.set_microbatches(16);
  const std::string moe_out = FormatEstimatePerformance(moe);
  EXPECT_NE(moe_out.find("EP=8 ETP=1"), std::string::npos) << moe_out;
  EXPECT_NE(moe_out.find("DP=16 EDP=2"), std::string::npos) << moe_out;
}

TEST(CliTableTest, MemoryAndValidateHeadersFollowTheSameRules) {
  v1::EstimateMemoryResponse m;
  m.mutable_model()->set_kind("dense");
  *m.mutable_resolved_config() = Invalid("dense", 1).resolved_config();
  const std::string mem = FormatEstimateMemory(m);
  EXPECT_NE(mem.find("GBS=256"), std::string::npos) << mem;
  EXPECT_EQ(mem.find("DP=0"), std::string::npos) << mem;
  EXPECT_EQ(mem.find("ETP="), std::string::npos) << mem;
  v1::ValidateResponse v;
  v.mutable_model()->set_kind("dense");
  *v.mutable_resolved_config() = Invalid("dense", 1).resolved_config();
  const std::string val = FormatValidate(v);
  EXPECT_EQ(val.find("ETP="), std::string::npos) << val;
  EXPECT_NE(val.find("GBS=256"), std::string::npos) << val;
}

// A dense model at EP = 1 with ETP unset (ETP defaults to TP): min-gpus,
// validate and layout answers name no EP, ETP or EDP, and the naive product
// is TP*PP*CP (ETP multiplied in made it 256 for Llama 3 70B at TP 8 PP 4).
// An MoE plan keeps them.
TEST(CliTableTest, DenseAnswersNameNoExpertMeshEndToEnd) {
  auto answers = [](const char* model, int ep) {
    v1::ParallelConfig c;
    c.set_tp(8);
    c.set_pp(4);
    if (ep > 0) c.set_ep(ep);
    v1::MinGpusRequest min;
    min.mutable_model()->set_id(model);
    *min.mutable_config() = c;
    min.mutable_placement()->set_system("h100-sxm");
    min.mutable_placement()->set_gpus(64);
    v1::MinGpusResponse min_r;
    EXPECT_TRUE(api::MinGpus(min, &min_r).ok());
    v1::ValidateRequest val;
    val.mutable_model()->set_id(model);
    *val.mutable_config() = c;
    *val.mutable_placement() = min.placement();
    v1::ValidateResponse val_r;
    EXPECT_TRUE(api::Validate(val, &val_r).ok());
    v1::ExplainLayoutRequest lay;
    lay.mutable_model()->set_id(model);
    *lay.mutable_config() = c;
    *lay.mutable_placement() = min.placement();
    lay.set_rank(5);
    v1::ExplainLayoutResponse lay_r;
    EXPECT_TRUE(api::ExplainLayout(lay, &lay_r).ok());
    return std::make_tuple(min_r, FormatMinGpus(min_r) + FormatValidate(val_r) + FormatExplainLayout(lay_r));
  };
  const auto [dense, dense_text] = answers("llama3_70b", 0);
  EXPECT_EQ(dense.min_gpus(), 32);
  EXPECT_EQ(dense.naive_product(), 32);
  EXPECT_EQ(dense.expert_mesh(), 0);
  for (const char* word : {"EDP", "ETP", "expert DP", "EP*ETP", "EP=", "\nedp ", "\netp ", "  edp:", "  etp:"}) {
    EXPECT_EQ(dense_text.find(word), std::string::npos) << word << "\n" << dense_text;
  }
  EXPECT_NE(dense_text.find("DP=2"), std::string::npos) << dense_text;
  const auto [moe, moe_text] = answers("mixtral_8x7b", 8);
  EXPECT_EQ(moe.expert_mesh(), 8);
  EXPECT_NE(moe_text.find("EDP"), std::string::npos) << moe_text;
  EXPECT_NE(moe_text.find("EP*ETP"), std::string::npos) << moe_text;
}

}  // namespace
}  // namespace cli
}  // namespace parplan
