// Every NVIDIA tuned config whose system is in the catalog validates without
// an error-severity violation -- except the recipes whose settings cannot run
// as filed, which must be rejected with the exact reason.
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/csv_reader.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::ErrorRules;
using testing_util::ValidateConfig;

const std::map<std::string, std::string> kSystems = {{"DGX-H100", "dgx-h100"},
                                                     {"DGX-B200", "dgx-b200"},
                                                     {"DGX-B300", "dgx-b300"},
                                                     {"DGX-GB200", "dgx-gb200"},
                                                     {"DGX-GB300", "dgx-gb300"}};

bool Given(const std::string& v) { return !v.empty() && v != "None"; }

ParallelConfig RowConfig(const std::map<std::string, std::string>& row) {
  ParallelConfig c;
  c.tp = std::stoll(row.at("tp"));
  c.pp = std::stoll(row.at("pp"));
  c.cp = std::stoll(row.at("cp"));
  if (Given(row.at("vp"))) c.vpp = std::stoll(row.at("vp"));
  if (Given(row.at("ep"))) c.ep = std::stoll(row.at("ep"));
  if (Given(row.at("etp"))) c.etp = std::stoll(row.at("etp"));
  c.sp = row.at("sequence_parallel") == "True";
  c.mbs = std::stoll(row.at("mbs"));
  c.gbs = std::stoll(row.at("gbs"));
  c.seq_length = std::stoll(row.at("seq_length"));
  if (Given(row.at("pipeline_model_parallel_layout"))) c.pipeline_layout = row.at("pipeline_model_parallel_layout");
  if (Given(row.at("num_layers_in_first_pipeline_stage"))) {
    c.first_stage_layers = std::stoll(row.at("num_layers_in_first_pipeline_stage"));
  }
  if (Given(row.at("num_layers_in_last_pipeline_stage"))) {
    c.last_stage_layers = std::stoll(row.at("num_layers_in_last_pipeline_stage"));
  }
  if (Given(row.at("mtp_num_layers"))) c.mtp_num_layers = std::stoll(row.at("mtp_num_layers"));
  std::string precision = row.at("precision");
  precision = precision.substr(0, precision.find(' '));  // "fp8_sc (blockwise/sub-channel)"
  c.precision = precision;
  return c;
}

// Recipes that cannot run as filed, and the rules that say why:
//  * the 64-GPU H100 DeepSeek-V3 recipes carry EP=64 with PP=8 from the 1024-GPU run:
//    PP*EP*ETP = 512 does not divide 64 GPUs;
//  * the GB200/GB300 "partial_cg_dev" recipes set VPP=2 but keep a 16-stage layout
//    (PP=4 x VPP=4), which Megatron-Core's TransformerConfig rejects. (They also
//    inherit sequence_parallel=True at TP=1, which Megatron Bridge turns off
//    silently: a warning, not a rejection.)
const std::map<std::string, std::set<std::string>> kRejected = {
    {"deepseek_v3_pretrain_64gpu_h100_bf16_config", {"mesh.world_expert_divisible"}},
    {"deepseek_v3_pretrain_64gpu_h100_fp8cs_config", {"mesh.world_expert_divisible"}},
    {"deepseek_v3_pretrain_256gpu_gb200_fp8mx_partial_cg_dev_config", {"layout.vpp_conflict"}},
    {"deepseek_v3_pretrain_256gpu_gb300_fp8mx_partial_cg_dev_config", {"layout.vpp_conflict"}},
};

TEST(TunedConfigsTest, CatalogSystemsValidate) {
  const auto rows = ReadCsv(std::string(PARPLAN_TEST_DATA_DIR) + "/tuned_configs_calibration.csv");
  ASSERT_GT(rows.size(), 150u);
  int checked = 0, rejected = 0;
  for (const auto& row : rows) {
    auto system = kSystems.find(row.at("system"));
    if (system == kSystems.end()) continue;
    ++checked;
    const std::string recipe = row.at("recipe_function");
    const ValidationResult r =
        ValidateConfig(row.at("model_key"), RowConfig(row), system->second, std::stoll(row.at("num_gpus")));
    const auto errors = ErrorRules(r);
    auto expected = kRejected.find(recipe);
    if (expected == kRejected.end()) {
      EXPECT_TRUE(errors.empty()) << recipe << ": " << (errors.empty() ? "" : errors[0]);
    } else {
      ++rejected;
      EXPECT_EQ(std::set<std::string>(errors.begin(), errors.end()), expected->second) << recipe;
    }
  }
  EXPECT_EQ(checked, 176);
  EXPECT_EQ(rejected, static_cast<int>(kRejected.size()));
}

}  // namespace
}  // namespace parplan
