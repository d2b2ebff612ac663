// Import -> resolve -> render -> import again: the Megatron-LM arguments
// render writes give back every setting the field map carries, plan and
// model, for each Megatron-LM fixture (tests/data/import/megatron, from
// Megatron-LM's example launches at d98e8a64).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/import/field_map.h"
#include "core/import/megatron_import.h"
#include "core/render/render.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream f(std::string(PARPLAN_TEST_DATA_DIR) + "/import/megatron/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Case {
  const char* file;
  ImportFormat format;
};

class MegatronRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(MegatronRoundTrip, RenderedArgumentsImportToTheSamePlan) {
  const Case& tc = GetParam();
  const std::string text = Fixture(tc.file);
  ASSERT_FALSE(text.empty()) << tc.file;
  ImportOptions options;
  auto first = ImportMegatronLm(text, tc.format, options);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(first->model.has_value());
  const ModelSpec& m1 = *first->model;
  auto r1 = ResolveConfig(first->config, &m1, "config");
  ASSERT_TRUE(r1.ok()) << r1.status();

  const RenderedConfig rendered = RenderConfig(*r1, &m1, ResolvedPlacement{});
  ASSERT_FALSE(rendered.megatron_lm_args.empty());
  auto second = ImportMegatronLm(rendered.megatron_lm_args, ImportFormat::kMegatronLmScript, options);
  ASSERT_TRUE(second.ok()) << second.status() << "\n" << rendered.megatron_lm_args;
  ASSERT_TRUE(second->model.has_value());
  const ModelSpec& m2 = *second->model;
  auto r2 = ResolveConfig(second->config, &m2, "config");
  ASSERT_TRUE(r2.ok()) << r2.status();

  int compared = 0;
  for (const FieldEntry& e : FieldMap()) {
    if (e.get == nullptr) continue;
    const auto a = e.get(*r1, &m1);
    const auto b = e.get(*r2, &m2);
    EXPECT_EQ(a.value_or("<unset>"), b.value_or("<unset>")) << tc.file << ": " << e.field << "\nrendered:\n"
                                                            << rendered.megatron_lm_args;
    compared += a.has_value() ? 1 : 0;
  }
  EXPECT_GT(compared, 20) << tc.file;
  // Every argument of the rendered launch is one the import maps (or, like
  // --ckpt-format under Megatron FSDP, one without effect on the plan).
  for (const auto& a : second->arguments) {
    EXPECT_NE(a.status, ArgumentStatus::kNotModelled) << tc.file << ": rendered " << a.name << " " << a.note;
  }
  // The imported model is not a catalog model: Bridge gets its architecture too.
  EXPECT_THAT(rendered.bridge_python, ::testing::HasSubstr(absl::StrCat("cfg.model.hidden_size = ", m1.hidden_size)));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MegatronRoundTrip,
                         ::testing::Values(Case{"gpt3_175b.sh", ImportFormat::kMegatronLmScript},
                                           Case{"llama3_8b_h100_fp8.sh", ImportFormat::kMegatronLmScript},
                                           Case{"mixtral_8x7b.sh", ImportFormat::kMegatronLmScript},
                                           Case{"mamba_hybrid_800m.sh", ImportFormat::kMegatronLmScript},
                                           Case{"gptoss_20b_proxy.sh", ImportFormat::kMegatronLmScript},
                                           Case{"llama3_8b_fsdp_h100_fp8.sh", ImportFormat::kMegatronLmScript},
                                           Case{"deepseek_v3_fsdp.sh", ImportFormat::kMegatronLmScript},
                                           Case{"detoxify_gpt_1p3b_finetune.sh", ImportFormat::kMegatronLmScript},
                                           Case{"args_block_llama3_8b.txt", ImportFormat::kMegatronLmArgsBlock},
                                           Case{"functional_moe_proxy.yaml", ImportFormat::kMegatronLmYaml}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.file;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace parplan
