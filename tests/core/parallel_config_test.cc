#include "core/config/parallel_config.h"

#include "core/util/field_error.h"
#include "gmock/gmock.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using ::testing::HasSubstr;

TEST(ParallelConfigTest, Defaults) {
  ParallelConfig c;
  c.tp = 4;
  const ModelSpec m = testing_util::CatalogModel("qwen3_30b_a3b");
  auto r = ResolveConfig(c, &m, "config");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->pp, 1);
  EXPECT_EQ(r->vpp, 1);
  EXPECT_EQ(r->etp, 4);  // Megatron-Core: ETP = TP when unset
  EXPECT_TRUE(r->etp_defaulted);
  EXPECT_TRUE(r->sp);  // planner default: on when TP > 1
  EXPECT_EQ(r->mbs, 1);
  // The pretraining recipe's 4096, not the 40,960-token native context.
  EXPECT_EQ(r->seq_length, 4096);
  EXPECT_EQ(m.seq_length, 40960);
  EXPECT_NE(r->seq_length_note.find("published pretraining recipe"), std::string::npos) << r->seq_length_note;
  EXPECT_NE(r->seq_length_note.find("--seq"), std::string::npos) << r->seq_length_note;
  EXPECT_EQ(r->precision, Precision::kBf16);
  EXPECT_GE(r->notes.size(), 3u);
}

// Without a known recipe: the native context capped at 8192 (an HF config of
// a long-context model would otherwise plan for 131,072 tokens).
TEST(ParallelConfigTest, DefaultSequenceWithoutARecipeIsCappedAt8192) {
  ModelSpec m = testing_util::CatalogModel("llama3_8b");
  m.pretrain_seq_length = 0;
  m.seq_length = 131072;
  auto r = ResolveConfig(ParallelConfig{}, &m, "config");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->seq_length, 8192);
  EXPECT_NE(r->seq_length_note.find("native context of 131072 capped at 8192"), std::string::npos)
      << r->seq_length_note;
  ParallelConfig given;
  given.seq_length = 2048;
  auto g = ResolveConfig(given, &m, "config");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->seq_length, 2048);
  EXPECT_TRUE(g->seq_length_note.empty());
}

TEST(ParallelConfigTest, BoundsNameEveryField) {
  ParallelConfig c;
  c.tp = -1;
  c.pp = 5000;
  c.etp = 0;
  c.gbs = -4;
  c.pipeline_layout = std::string(70000, 't');
  auto r = ResolveConfig(c, nullptr, "config");
  ASSERT_FALSE(r.ok());
  std::vector<std::string> fields;
  for (const auto& v : FieldViolationsOf(r.status())) fields.push_back(v.field);
  EXPECT_THAT(fields,
              ::testing::ElementsAre("config.tp", "config.pp", "config.etp", "config.gbs", "config.pipeline_layout"));
}

// The op fuser and the in-flight offload cap: unset = Megatron's defaults
// (False, None); the cap is 0..1024 and its error names the value and range.
TEST(ParallelConfigTest, OpFuserAndInflightOffloads) {
  auto r = ResolveConfig(ParallelConfig{}, nullptr, "config");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->use_transformer_engine_op_fuser);
  EXPECT_FALSE(r->op_fuser_given);
  EXPECT_FALSE(r->fine_grained_offloading_max_inflight_offloads.has_value());
  ParallelConfig c;
  c.use_transformer_engine_op_fuser = true;
  c.fine_grained_offloading_max_inflight_offloads = 0;
  r = ResolveConfig(c, nullptr, "config");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->use_transformer_engine_op_fuser);
  EXPECT_TRUE(r->op_fuser_given);
  EXPECT_EQ(r->fine_grained_offloading_max_inflight_offloads, 0);
  c.use_transformer_engine_op_fuser = false;
  r = ResolveConfig(c, nullptr, "config");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->use_transformer_engine_op_fuser);
  EXPECT_TRUE(r->op_fuser_given);
  for (int64_t bad : {int64_t{-1}, int64_t{1025}}) {
    c.fine_grained_offloading_max_inflight_offloads = bad;
    r = ResolveConfig(c, nullptr, "config");
    ASSERT_FALSE(r.ok());
    const auto violations = FieldViolationsOf(r.status());
    ASSERT_EQ(violations.size(), 1u);
    EXPECT_EQ(violations[0].field, "config.fine_grained_offloading_max_inflight_offloads");
    EXPECT_THAT(violations[0].description, HasSubstr(std::to_string(bad)));
    EXPECT_THAT(violations[0].description, HasSubstr("0..1024"));
  }
}

// Long-context inputs: cp_comm_type (unset = Megatron's p2p), the
// hierarchical CP sizes, and the optimizer offload (unset = off, fraction
// Megatron-Core's 0.0); each bound names the field, the value and the range.
TEST(ParallelConfigTest, CpCommTypeHierarchicalSizesAndOptimizerOffload) {
  auto r = ResolveConfig(ParallelConfig{}, nullptr, "config");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cp_comm_type, "p2p");
  EXPECT_FALSE(r->cp_comm_type_given);
  EXPECT_TRUE(r->hierarchical_cp_sizes.empty());
  EXPECT_FALSE(r->optimizer_cpu_offload);
  EXPECT_EQ(r->optimizer_offload_fraction, 0.0);
  EXPECT_FALSE(r->offload_fraction_given);
  EXPECT_EQ(r->OffloadedOptimizerShare(), 0.0);
  ParallelConfig c;
  c.cp = 4;
  c.cp_comm_type = "A2A+P2P";
  c.hierarchical_context_parallel_sizes = {2, 2};
  c.optimizer_cpu_offload = true;
  c.optimizer_offload_fraction = 0.5;
  r = ResolveConfig(c, nullptr, "config");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cp_comm_type, "a2a+p2p");
  EXPECT_TRUE(r->cp_comm_type_given);
  EXPECT_EQ(r->hierarchical_cp_sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(r->OffloadedOptimizerShare(), 0.5);
  // A fraction without the offload moves nothing.
  c.optimizer_cpu_offload.reset();
  r = ResolveConfig(c, nullptr, "config");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->OffloadedOptimizerShare(), 0.0);
  auto refused = [](const ParallelConfig& bad, const std::string& field, const std::string& text) {
    auto got = ResolveConfig(bad, nullptr, "config");
    ASSERT_FALSE(got.ok()) << field;
    const auto violations = FieldViolationsOf(got.status());
    ASSERT_EQ(violations.size(), 1u) << field;
    EXPECT_EQ(violations[0].field, field);
    EXPECT_THAT(violations[0].description, HasSubstr(text));
  };
  ParallelConfig bad;
  bad.cp_comm_type = "ring";
  refused(bad, "config.cp_comm_type", "ring");
  bad = ParallelConfig{};
  bad.hierarchical_context_parallel_sizes = {2, 0};
  refused(bad, "config.hierarchical_context_parallel_sizes", "0");
  bad.hierarchical_context_parallel_sizes = {4097};
  refused(bad, "config.hierarchical_context_parallel_sizes", "4097");
  bad.hierarchical_context_parallel_sizes = std::vector<int64_t>(9, 1);
  refused(bad, "config.hierarchical_context_parallel_sizes", "at most 8");
  bad = ParallelConfig{};
  for (double x : {-0.1, 1.5}) {
    bad.optimizer_offload_fraction = x;
    refused(bad, "config.optimizer_offload_fraction", "0..1");
  }
}

TEST(ParallelConfigTest, Precision) {
  EXPECT_EQ(*ParsePrecision("MXFP8", "p"), Precision::kFp8Mx);
  EXPECT_EQ(*ParsePrecision("fp8_cs", "p"), Precision::kFp8Cs);
  EXPECT_EQ(*ParsePrecision("nvfp4", "p"), Precision::kNvfp4);
  // "fp8" alone names no recipe: an error listing the four, not a guess.
  auto ambiguous = ParsePrecision("FP8", "config.precision");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.status().message().find("ambiguous"), std::string::npos) << ambiguous.status();
  for (const char* name : {"fp8-cs", "fp8-mx", "fp8-sc", "fp8-ds"}) {
    EXPECT_NE(ambiguous.status().message().find(name), std::string::npos) << name;
  }
  auto bad = ParsePrecision("fp16", "config.precision");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("allowed bf16, fp8-cs"));
  EXPECT_EQ(BridgeMixedPrecisionRecipe(Precision::kFp8Mx), "bf16_with_mxfp8_mixed");
}

TEST(ParallelConfigTest, Placement) {
  Placement p;
  p.system = "DGX-GB200";
  p.gpus = 144;
  auto r = ResolvePlacement(p, "placement");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->gpus_per_node, 4);
  EXPECT_EQ(r->nvlink_domain_size, 72);
  p.gpus_per_node = 8;
  EXPECT_EQ(ResolvePlacement(p, "placement")->gpus_per_node, 8);
  p.system = "tpu-v5";
  EXPECT_EQ(ResolvePlacement(p, "placement").status().code(), absl::StatusCode::kNotFound);
  Placement custom;
  custom.gpus_per_node = 4;
  EXPECT_EQ(ResolvePlacement(custom, "placement")->nvlink_domain_size, 4);
  custom.gpus = -1;
  EXPECT_EQ(ResolvePlacement(custom, "placement").status().code(), absl::StatusCode::kInvalidArgument);
}

// gpus_per_nvlink_domain: the system and the placement carry the same
// number; bad values name the field (CheckGpusPerDomain has the wording).
TEST(ParallelConfigTest, PlacementGpusPerNvlinkDomain) {
  Placement p;
  p.system = "gb200-nvl72";
  p.gpus = 256;
  // Not given: the even split (64 of 72 over 4 racks), chosen and said.
  auto even = ResolvePlacement(p, "placement");
  ASSERT_TRUE(even.ok());
  EXPECT_EQ(even->gpus_per_nvlink_domain, 64);
  EXPECT_EQ(even->system->nvlink_domain_used, 64);
  EXPECT_FALSE(even->domain_use_reason.empty());
  p.gpus_per_nvlink_domain = 72;
  auto all = ResolvePlacement(p, "placement");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->gpus_per_nvlink_domain, 72);
  EXPECT_EQ(all->system->nvlink_domain_used, 72);
  EXPECT_TRUE(all->domain_use_reason.empty());
  p.gpus_per_nvlink_domain = 64;
  auto racks = ResolvePlacement(p, "placement");
  ASSERT_TRUE(racks.ok());
  EXPECT_EQ(racks->gpus_per_nvlink_domain, 64);
  EXPECT_EQ(racks->system->nvlink_domain_used, 64);
  EXPECT_EQ(PlacementOn(*racks->system, 256).gpus_per_nvlink_domain, 64);
  EXPECT_THAT(absl::StrJoin(racks->notes, " "), HasSubstr("256 GPUs take 4 NVLink domains (racks)"));
  for (int64_t bad : {int64_t{73}, int64_t{62}, int64_t{-4}}) {
    p.gpus_per_nvlink_domain = bad;
    const auto r = ResolvePlacement(p, "placement");
    ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("placement.gpus_per_nvlink_domain")) << bad;
  }
  Placement none;
  none.gpus_per_nvlink_domain = 8;
  EXPECT_THAT(std::string(ResolvePlacement(none, "placement").status().message()), HasSubstr("needs a system"));
}

}  // namespace
}  // namespace parplan
