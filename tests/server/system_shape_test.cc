// One system shape (issue 25): what GetSystem prints (SystemInfo) passes
// back unchanged as an inline system_spec and describes the same system;
// the two spellings of a figure mean the same and conflicting ones are
// named; the CLI's --system-file takes `parplan system --json` output as is.
#include <cstdio>
#include <fstream>
#include <string>

#include "core/util/field_error.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/api/json_codec.h"
#include "server/api/planner_api.h"

namespace parplan {
namespace {

namespace v1 = ::parplan::v1;

v1::SystemInfo Printed(const std::string& id) {
  v1::GetSystemRequest request;
  request.set_system(id);
  v1::GetSystemResponse response;
  EXPECT_TRUE(api::GetSystem(request, &response).ok());
  return response.system();
}

void ExpectSameFigures(const v1::SystemInfo& a, const v1::SystemInfo& b) {
  EXPECT_EQ(a.gpu_arch(), b.gpu_arch());
  EXPECT_EQ(a.gpus_per_node(), b.gpus_per_node());
  EXPECT_EQ(a.nvlink_domain_size(), b.nvlink_domain_size());
  EXPECT_DOUBLE_EQ(a.hbm_gb(), b.hbm_gb());
  EXPECT_DOUBLE_EQ(a.hbm_bw_tbps(), b.hbm_bw_tbps());
  EXPECT_DOUBLE_EQ(a.bf16_dense_tflops(), b.bf16_dense_tflops());
  EXPECT_DOUBLE_EQ(a.fp8_dense_tflops(), b.fp8_dense_tflops());
  EXPECT_DOUBLE_EQ(a.fp4_dense_tflops(), b.fp4_dense_tflops());
  EXPECT_DOUBLE_EQ(a.nvlink_gbps_unidirectional(), b.nvlink_gbps_unidirectional());
  EXPECT_DOUBLE_EQ(a.scaleout_gbps_per_gpu(), b.scaleout_gbps_per_gpu());
  EXPECT_DOUBLE_EQ(a.pcie_gbps_unidirectional(), b.pcie_gbps_unidirectional());
}

TEST(SystemShapeTest, PrintedSystemPassesBackAsInlineSpec) {
  for (const char* id : {"h100-sxm", "b200", "gb200-nvl72", "a100-80gb"}) {
    SCOPED_TRACE(id);
    const v1::SystemInfo printed = Printed(id);
    // The printed JSON, unchanged, as system_spec.
    v1::GetSystemRequest request;
    const std::string json = api::MessageToJson(printed, /*pretty=*/true);
    ASSERT_TRUE(api::JsonToMessage(json, "system_spec", request.mutable_system_spec()).ok()) << json;
    v1::GetSystemResponse response;
    const absl::Status s = api::GetSystem(request, &response);
    ASSERT_TRUE(s.ok()) << s;
    ExpectSameFigures(printed, response.system());
  }
}

TEST(SystemShapeTest, BothSpellingsMeanTheSame) {
  v1::GetSystemRequest a, b;
  ASSERT_TRUE(api::JsonToMessage(R"({"gpu_arch":"hopper","hbm_gib":96,"nvlink_gbps":400,"scaleout_gbps":200})", "",
                                 a.mutable_system_spec())
                  .ok());
  ASSERT_TRUE(api::JsonToMessage(
                  R"({"gpu_arch":"hopper","hbm_gb":96,"nvlink_gbps_unidirectional":200,"scaleout_gbps_per_gpu":200})",
                  "", b.mutable_system_spec())
                  .ok());
  v1::GetSystemResponse ra, rb;
  ASSERT_TRUE(api::GetSystem(a, &ra).ok());
  ASSERT_TRUE(api::GetSystem(b, &rb).ok());
  ExpectSameFigures(ra.system(), rb.system());
  EXPECT_DOUBLE_EQ(rb.system().nvlink_gbps_unidirectional(), 200);
  EXPECT_DOUBLE_EQ(rb.system().hbm_gb(), 96);
}

TEST(SystemShapeTest, ConflictingSpellingsAreNamed) {
  v1::GetSystemRequest request;
  ASSERT_TRUE(
      api::JsonToMessage(R"({"gpu_arch":"hopper","hbm_gib":96,"hbm_gb":80})", "", request.mutable_system_spec()).ok());
  v1::GetSystemResponse response;
  const absl::Status s = api::GetSystem(request, &response);
  ASSERT_FALSE(s.ok());
  ASSERT_EQ(FieldViolationsOf(s).size(), 1u);
  EXPECT_EQ(FieldViolationsOf(s)[0].field, "system_spec.hbm_gb");
  EXPECT_NE(std::string(s.message()).find("give one spelling"), std::string::npos) << s;
  // The same value twice is fine.
  request.mutable_system_spec()->set_hbm_gb(96);
  EXPECT_TRUE(api::GetSystem(request, &response).ok());
}

// The CLI: `parplan system --json` output, written to a file, is a
// --system-file; a flag on top replaces one figure.
TEST(SystemShapeTest, CliSystemFileTakesPrintedOutput) {
  const std::string cli = std::string(PARPLAN_BINARY_DIR) + "/parplan";
  const std::string file = testing::TempDir() + "/printed_system.json";
  auto run = [](const std::string& command) {
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return out;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    const int rc = pclose(pipe);
    EXPECT_EQ(rc, 0) << command << "\n" << out;
    return out;
  };
  const std::string printed = run(cli + " system --system b200 --json");
  std::ofstream(file) << printed;
  const auto before = nlohmann::json::parse(printed)["system"];
  const auto after = nlohmann::json::parse(run(cli + " system --system-file " + file + " --json"))["system"];
  for (const char* key : {"gpu_arch", "hbm_gb", "hbm_bw_tbps", "bf16_dense_tflops", "fp8_dense_tflops",
                          "fp4_dense_tflops", "nvlink_gbps_unidirectional", "nvlink_domain_size", "gpus_per_node",
                          "scaleout_gbps_per_gpu", "pcie_gbps_unidirectional"}) {
    EXPECT_EQ(before[key], after[key]) << key;
  }
  const auto edited =
      nlohmann::json::parse(run(cli + " system --system-file " + file + " --hbm-gib 150 --json"))["system"];
  EXPECT_EQ(edited["hbm_gb"], 150);
  EXPECT_EQ(edited["bf16_dense_tflops"], before["bf16_dense_tflops"]);
  std::remove(file.c_str());
}

}  // namespace
}  // namespace parplan
