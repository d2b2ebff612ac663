#include "core/perf/uncertainty.h"

#include <cmath>

#include <gtest/gtest.h>

#include "core/catalog/catalog.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

UncertaintyTable Table() {
  UncertaintyTable t;
  t.models = {"llama3_70b", "deepseek_v3"};
  t.families = {"dense", "MLA+MoE"};
  t.generations = {"hopper", "blackwell"};
  t.seen = {0.10, 0.20, 100};
  t.model_unseen = {0.14, 0.35, 80};
  t.family_unseen = {0.16, 0.40, 30};
  t.generation_unseen = {0.12, 0.30, 100};
  t.between_configs = {0.07, 0.30, 200};
  return t;
}

SystemSpec System(const char* id) { return *Catalog::Get().FindSystem(id); }

TEST(UncertaintyTest, GroupFollowsWhatTheCalibrationSaw) {
  const UncertaintyTable t = Table();
  const Uncertainty seen = PerfUncertainty(CatalogModel("llama3_70b"), System("h100-sxm"), t);
  EXPECT_DOUBLE_EQ(seen.median, 0.10);
  EXPECT_DOUBLE_EQ(seen.p90, 0.20);
  EXPECT_NE(seen.basis.find("±10% typical, ±20% at p90"), std::string::npos) << seen.basis;
  EXPECT_NE(seen.basis.find("calibrated model"), std::string::npos) << seen.basis;

  const Uncertainty sibling = PerfUncertainty(CatalogModel("llama3_8b"), System("b200"), t);
  EXPECT_DOUBLE_EQ(sibling.median, 0.14);
  EXPECT_NE(sibling.basis.find("its family (dense) is"), std::string::npos) << sibling.basis;

  const Uncertainty stranger = PerfUncertainty(CatalogModel("qwen3_30b_a3b"), System("b200"), t);
  EXPECT_DOUBLE_EQ(stranger.median, 0.16);
  EXPECT_NE(stranger.basis.find("no MoE model"), std::string::npos) << stranger.basis;
}

TEST(UncertaintyTest, UnseenGenerationUsesLeaveOneGenerationOut) {
  const UncertaintyTable t = Table();
  const Uncertainty a100 = PerfUncertainty(CatalogModel("llama3_70b"), System("a100-80gb"), t);
  EXPECT_DOUBLE_EQ(a100.median, 0.12);
  EXPECT_NE(a100.basis.find("no ampere GPU"), std::string::npos) << a100.basis;
  // Both unseen: combined in quadrature.
  const Uncertainty both = PerfUncertainty(CatalogModel("qwen3_30b_a3b"), System("a100-80gb"), t);
  EXPECT_NEAR(both.median, std::hypot(0.16, 0.12), 1e-12);
  EXPECT_NEAR(both.p90, std::hypot(0.40, 0.30), 1e-12);
}

TEST(UncertaintyTest, AnInlineModelWithACatalogIdIsNotTheCalibratedOne) {
  ModelSpec m = CatalogModel("llama3_70b");
  m.origin = "inline";
  EXPECT_DOUBLE_EQ(PerfUncertainty(m, System("h100-sxm"), Table()).median, 0.14);
}

TEST(UncertaintyTest, FamiliesAsTheTargetsGroupThem) {
  EXPECT_EQ(ModelFamily(CatalogModel("llama3_8b")), "dense");
  EXPECT_EQ(ModelFamily(CatalogModel("qwen3_30b_a3b")), "MoE");
  EXPECT_EQ(ModelFamily(CatalogModel("deepseek_v3")), "MLA+MoE");
  EXPECT_EQ(ModelFamily(CatalogModel("nemotron_3_nano")), "hybrid Mamba");
}

TEST(UncertaintyTest, TheGeneratedTableCoversTheCalibrationData) {
  const UncertaintyTable& t = CalibratedUncertainty();
  EXPECT_FALSE(t.models.empty());
  EXPECT_GT(t.seen.rows, 0);
  EXPECT_GT(t.seen.p90, t.seen.median);
  EXPECT_GT(t.model_unseen.rows, 0);
  EXPECT_GT(t.between_configs.rows, 0);
}

// An unseen model is never quoted as more certain than a calibrated one,
// even where the leave-one-model-out median comes out below the in-sample one.
TEST(UncertaintyTest, UnseenModelsAreNeverMoreCertainThanSeenOnes) {
  UncertaintyTable t = Table();
  t.model_unseen = {t.seen.median / 2, t.seen.p90 / 2, 10};
  ModelSpec m = CatalogModel("llama3_8b");
  m.id = "some_other_dense_model";
  m.origin = "inline";
  const Uncertainty u = PerfUncertainty(m, System("h100-sxm"), t);
  EXPECT_DOUBLE_EQ(u.median, t.seen.median);
  EXPECT_DOUBLE_EQ(u.p90, t.seen.p90);
}

TEST(UncertaintyTest, AGenerationWithoutAKernelTableStatesItsOwnWiderSpread) {
  UncertaintyTable t = Table();
  t.seen_by_generation = {{"blackwell", {0.13, 0.24, 80}}, {"hopper", {0.05, 0.12, 20}}};
  const ModelSpec m = CatalogModel("llama3_70b");
  // Blackwell's own in-sample spread is wider than the pooled one: stated.
  const Uncertainty b = PerfUncertainty(m, System("gb200-nvl72"), t);
  EXPECT_DOUBLE_EQ(b.median, 0.13);
  EXPECT_DOUBLE_EQ(b.p90, 0.24);
  EXPECT_NE(b.basis.find("wider than the pooled one"), std::string::npos) << b.basis;
  // Hopper's narrower one never lowers the pooled figure.
  const Uncertainty h = PerfUncertainty(m, System("h100-sxm"), t);
  EXPECT_DOUBLE_EQ(h.median, t.seen.median);
  EXPECT_EQ(h.basis.find("wider"), std::string::npos) << h.basis;
  // An unseen model on Blackwell: the larger of its group and the generation's.
  ModelSpec other = CatalogModel("llama3_8b");
  other.id = "another_dense_model";
  other.origin = "inline";
  EXPECT_DOUBLE_EQ(PerfUncertainty(other, System("b200"), t).median, 0.14);
  EXPECT_DOUBLE_EQ(PerfUncertainty(other, System("b200"), t).p90, 0.35);
}

}  // namespace
}  // namespace parplan
