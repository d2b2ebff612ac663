// The CLI's text rendering: headers show what applies and never zeros.
#include "skill/cli/cli_table.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cli
}  // namespace parplan
