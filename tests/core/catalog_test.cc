#include "core/catalog/catalog.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

TEST(CatalogTest, HoldsEveryReferenceModelAndSystem) {
  // 32 of the reference data and GPT-3 175B (scripts/catalog/extra_models.json).
  EXPECT_EQ(Catalog::Get().models().size(), 33u);
  EXPECT_EQ(Catalog::Get().systems().size(), 18u);
  std::vector<std::string> ids;
  for (const auto& s : Catalog::Get().systems()) ids.push_back(s.id);
  EXPECT_THAT(ids, ::testing::UnorderedElementsAre(
                       "a100-80gb", "h100-sxm", "h200-sxm", "b200", "b300", "gb200-nvl72", "gb300-nvl72",
                       // beyond the reference data (scripts/catalog/extra_systems.json)
                       "a100-40gb", "a100-80gb-pcie", "h100-pcie", "h100-nvl", "h800-sxm", "h20", "h200-nvl",
                       "gb200-nvl36", "b200-400g", "b200-800g", "rtx-pro-6000"));
}

// Every figure of every system cites a source, and PCIe-only cards have no
// NVLink peers.
TEST(CatalogTest, SystemFiguresAreSourced) {
  for (const auto& s : Catalog::Get().systems()) {
    EXPECT_GT(s.bf16_dense_tflops, 0) << s.id;
    EXPECT_GT(s.hbm_gb, 0) << s.id;
    EXPECT_GT(s.pcie_gbps_unidirectional, 0) << s.id;
    EXPECT_GT(s.scaleout_gbps_per_gpu, 0) << s.id;
    EXPECT_FALSE(s.sources.empty()) << s.id;
  }
  for (const char* id : {"a100-40gb", "h800-sxm", "rtx-pro-6000", "h20", "gb200-nvl36", "b200-800g"}) {
    const SystemSpec s = *Catalog::Get().FindSystem(id);
    for (const char* field : {"bf16_dense_tflops", "hbm_gb", "hbm_bw_tbps", "nvlink_gbps_unidirectional",
                              "nvlink_domain_size", "pcie_gbps_unidirectional", "scaleout_gbps_per_gpu"}) {
      EXPECT_TRUE(s.sources.count(field)) << id << " " << field;
    }
  }
  const SystemSpec rtx = *Catalog::Get().FindSystem("rtx-pro-6000");
  EXPECT_EQ(rtx.nvlink_domain_size, 1);
  EXPECT_EQ(rtx.nvlink_gbps_unidirectional, 0);
  EXPECT_EQ(Catalog::Get().FindSystem("h800")->nvlink_gbps_unidirectional, 200);
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
  auto bad = Catalog::Get().FindSystem("h100-sxm6");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(bad.status().message()).find("h100-sxm"), std::string::npos);
}

// No catalog model is incomplete any more; the four the reference data left
// open (Nemotron 3 Super/Ultra, Nemotron 3.5 Lightning, DeepSeek-V4-Flash)
// were completed from cited public sources (scripts/build_catalog.py).
TEST(CatalogTest, EveryModelIsComplete) {
  for (const auto& m : Catalog::Get().models()) {
    EXPECT_TRUE(m.complete()) << m.id << " misses " << m.missing_fields.size() << " fields";
  }
}

TEST(CatalogTest, LateCompletionsCiteTheirSources) {
  struct Case {
    const char* id;
    std::vector<std::string> fields;
  };
  for (const Case& k :
       {Case{"nemotron_3_super",
             {"num_attention_heads", "num_query_groups", "kv_channels", "vocab_size", "mamba_num_groups"}},
        Case{"nemotron_3_ultra",
             {"hybrid_layer_pattern", "hidden_size", "moe_latent_size", "vocab_size", "mamba_num_heads"}},
        Case{"nemotron_3_5_lightning", {"hybrid_layer_pattern", "hidden_size", "vocab_size"}},
        Case{"deepseek_v4_flash",
             {"multi_latent_attention", "num_attention_heads", "q_lora_rank", "kv_lora_rank", "qk_head_dim",
              "v_head_dim"}}}) {
    auto m = Catalog::Get().FindModel(k.id);
    ASSERT_TRUE(m.ok()) << k.id;
    for (const auto& f : k.fields) {
      ASSERT_TRUE(m->completions.count(f)) << k.id << " " << f;
      EXPECT_FALSE(m->completions.at(f).empty()) << k.id << " " << f;
    }
    EXPECT_FALSE(m->notes.empty()) << k.id;  // weak values and approximations are named there
  }
  // Megatron-LM's argument bundles for the Nemotron 3 checkpoints.
  auto ultra = Catalog::Get().FindModel("nemotron_3_ultra");
  EXPECT_EQ(ultra->num_layers, 108);
  EXPECT_EQ(ultra->hidden_size, 8192);
  EXPECT_EQ(ultra->moe_latent_size, 2048);
  EXPECT_NE(ultra->completions.at("hidden_size").find("Megatron-LM"), std::string::npos);
  // Lightning is Nano's shape (the Megatron Bridge recipes build the Nano provider).
  auto nano = Catalog::Get().FindModel("nemotron_3_nano");
  auto lightning = Catalog::Get().FindModel("nemotron_3_5_lightning");
  EXPECT_EQ(lightning->hybrid_layer_pattern, nano->hybrid_layer_pattern);
  EXPECT_EQ(lightning->hidden_size, nano->hidden_size);
  EXPECT_EQ(lightning->mtp_num_layers, 1);
  // DeepSeek-V4-Flash: Megatron Bridge builds it as an MLA model, so the
  // tuned recipes' mla_up_proj recompute applies.
  auto v4 = Catalog::Get().FindModel("deepseek_v4_flash");
  EXPECT_TRUE(v4->multi_latent_attention);
  EXPECT_EQ(v4->num_query_groups, v4->num_attention_heads);              // MLA: groups = heads
  EXPECT_EQ(v4->qk_head_dim + v4->qk_pos_emb_head_dim, v4->v_head_dim);  // head_dim 512 = 448 + 64
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
