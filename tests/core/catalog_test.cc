#include "core/catalog/catalog.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

TEST(CatalogTest, HoldsEveryReferenceModelAndSystem) {
  EXPECT_EQ(Catalog::Get().models().size(), 32u);
  EXPECT_EQ(Catalog::Get().systems().size(), 7u);
  std::vector<std::string> ids;
  for (const auto& s : Catalog::Get().systems()) ids.push_back(s.id);
  EXPECT_THAT(ids, ::testing::UnorderedElementsAre("a100-80gb", "h100-sxm", "h200-sxm", "b200", "b300",
                                                   "gb200-nvl72", "gb300-nvl72"));
}

TEST(CatalogTest, FindsModelsByIdAliasAndHfId) {
  for (const char* name : {"deepseek_v3", "DeepSeek-V3", "deepseek-ai/DeepSeek-V3", "DEEPSEEK_V3", "dsv3"}) {
    auto m = Catalog::Get().FindModel(name);
    ASSERT_TRUE(m.ok()) << name;
    EXPECT_EQ(m->id, "deepseek_v3");
  }
  auto llama = Catalog::Get().FindModel("meta-llama/Meta-Llama-3-70B");
  ASSERT_TRUE(llama.ok());
  EXPECT_EQ(llama->id, "llama3_70b");
}

TEST(CatalogTest, UnknownModelIsNotFoundWithClosestNames) {
  auto m = Catalog::Get().FindModel("deepseek_v33");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(m.status().message()).find("deepseek_v3"), std::string::npos) << m.status();
}

TEST(CatalogTest, SystemsByAlias) {
  auto s = Catalog::Get().FindSystem("DGX-H100");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->id, "h100-sxm");
  EXPECT_EQ(s->gpus_per_node, 8);
  EXPECT_EQ(s->nvlink_domain_size, 8);
  auto gb = Catalog::Get().FindSystem("dgx_gb200");
  ASSERT_TRUE(gb.ok());
  EXPECT_EQ(gb->nvlink_domain_size, 72);
  EXPECT_EQ(gb->gpus_per_node, 4);
  auto bad = Catalog::Get().FindSystem("h100-pcie");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(bad.status().message()).find("h100-sxm"), std::string::npos);
}

TEST(CatalogTest, IncompleteModelsNameTheirMissingFields) {
  auto m = Catalog::Get().FindModel("nemotron_3_super");
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->complete());
  EXPECT_THAT(m->missing_fields, ::testing::IsSupersetOf({"num_attention_heads", "vocab_size"}));
  EXPECT_TRUE(Catalog::Get().FindModel("nemotron_3_ultra")->missing_fields.size() > 5);
}

TEST(CatalogTest, CompletionsCarryTheirSource) {
  auto m = Catalog::Get().FindModel("mixtral_8x7b");
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->complete());
  EXPECT_EQ(m->vocab_size, 32000);
  ASSERT_TRUE(m->completions.count("vocab_size"));
  EXPECT_NE(m->completions.at("vocab_size").find("Megatron-LM"), std::string::npos);
  auto ds = Catalog::Get().FindModel("deepseek_v3");
  EXPECT_EQ(ds->num_query_groups, 128);  // MLA: Megatron sets groups = heads
  EXPECT_EQ(ds->first_k_dense_layers, 3);
  EXPECT_EQ(ds->mtp_num_layers, 1);
}

TEST(CatalogTest, EveryCompleteModelHasSaneShape) {
  for (const auto& m : Catalog::Get().models()) {
    if (!m.complete()) continue;
    EXPECT_GT(m.num_layers, 0) << m.id;
    EXPECT_GT(m.hidden_size, 0) << m.id;
    EXPECT_GT(m.vocab_size, 0) << m.id;
    EXPECT_EQ(m.num_attention_heads % m.num_query_groups, 0) << m.id;
  }
}

}  // namespace
}  // namespace parplan
