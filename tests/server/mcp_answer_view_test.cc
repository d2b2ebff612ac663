// MCP's structuredContent (server/mcp/answer_view.h) against the full
// answer of the same call: every config reads back as the same config,
// every number and label kept is the same, plan 1 keeps its overrides and
// breakdown, the cuts are only those the header names; and the text block
// (server/mcp/answer_summary.h) names each plan with its numbers.
#include "server/mcp/answer_view.h"

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "parplan/v1/planner.pb.h"
#include "server/api/json_codec.h"
#include "server/api/recommend_api.h"
#include "server/mcp/answer_summary.h"

namespace parplan {
namespace mcp {
namespace {

using Json = nlohmann::ordered_json;

v1::RecommendResponse Recommend(const std::string& request_json) {
  v1::RecommendRequest request;
  EXPECT_TRUE(api::JsonToMessage(request_json, "", &request).ok());
  v1::RecommendResponse response;
  EXPECT_TRUE(api::Recommend(request, &response, absl::Now() + absl::Seconds(30)).ok());
  return response;
}

// `json` (a config printed without its defaults) read back as a config.
v1::ParallelConfig ReadConfig(const Json& json) {
  v1::ParallelConfig config;
  EXPECT_TRUE(api::JsonToMessage(json.dump(), "config", &config).ok()) << json.dump();
  return config;
}

void ExpectSameNumbers(const v1::PlanSummary& full, const Json& cut) {
  EXPECT_EQ(cut["label"], full.label());
  EXPECT_EQ(cut["gpus"], std::to_string(full.gpus()));
  EXPECT_EQ(cut["tokens_per_s_per_gpu"].get<double>(), full.tokens_per_s_per_gpu());
  EXPECT_EQ(cut["mfu"].get<double>(), full.mfu());
  EXPECT_EQ(cut["memory_peak_bytes"], std::to_string(full.memory_peak_bytes()));
  EXPECT_EQ(cut["fits"], full.fits());
  EXPECT_EQ(ReadConfig(cut["config"]).SerializeAsString(), full.config().SerializeAsString()) << full.label();
  // The config lists only what is set: no zero, false or empty field without presence.
  for (const auto& [key, value] : cut["config"].items()) {
    EXPECT_FALSE(value == 0 || value == "" || (value.is_array() && value.empty())) << key;
  }
}

TEST(McpAnswerViewTest, RecommendKeepsEveryNumberAndCutsOnlyWhatRepeats) {
  const v1::RecommendResponse full = Recommend(
      R"({"model":{"id":"deepseek_v3"},"placement":{"system":"h100-sxm","gpus":256},"config":{"seq_length":131072}})");
  ASSERT_GE(full.plans_size(), 2);
  const Json cut = StructuredAnswer(full);
  ASSERT_EQ(cut["plans"].size(), static_cast<size_t>(full.plans_size()));
  for (int i = 0; i < full.plans_size(); ++i) {
    SCOPED_TRACE(i);
    const v1::PlanSummary& p = full.plans(i);
    const Json& c = cut["plans"][i];
    ExpectSameNumbers(p, c);
    EXPECT_EQ(c["violations"].size(), static_cast<size_t>(p.violations_size()));
    // Reasons: the ones kept are the full answer's, in order; the ones left out restate a field.
    size_t kept = 0;
    for (const std::string& reason : p.reasons()) {
      if (kept < c["reasons"].size() && c["reasons"][kept] == reason) {
        ++kept;
      } else {
        EXPECT_TRUE(absl::StartsWith(reason, absl::StrFormat("%.0f tokens/s/GPU", p.tokens_per_s_per_gpu())) ||
                    absl::StartsWith(reason, "Memory: peak ") || absl::StartsWith(reason, "MFU ") ||
                    absl::StartsWith(reason, "Uncertainty of the step time ") ||
                    absl::StartsWith(reason, "gbs not given: ") ||
                    absl::StartsWith(reason, "Execution settings (searched on this mesh"))
            << "left out: " << reason;
      }
    }
    EXPECT_EQ(kept, c["reasons"].size());
    if (i == 0) {
      EXPECT_EQ(c["bridge_overrides"], p.bridge_overrides());
      EXPECT_EQ(c["breakdown"]["compute_s"].get<double>(), p.breakdown().compute_s());
      EXPECT_EQ(c["violations"][0]["fix"], p.violations(0).fix());
    } else {
      EXPECT_EQ(c["bridge_overrides"], "");
      EXPECT_FALSE(c.contains("breakdown"));
      EXPECT_EQ(c["uncertainty_basis"],
                p.uncertainty_basis() == full.plans(0).uncertainty_basis() ? std::string() : p.uncertainty_basis());
    }
  }
  ExpectSameNumbers(full.starting_point(), cut["starting_point"]);
  EXPECT_TRUE(cut["starting_point"]["reasons"].empty());
  EXPECT_EQ(cut["defaults"].size(), static_cast<size_t>(full.defaults_size()));
  EXPECT_EQ(cut["rejected"]["does_not_fit"], std::to_string(full.rejected().does_not_fit()));

  // The text: one line per plan with its mesh, speed, MFU and memory.
  const std::string text = AnswerSummary("Recommend", full);
  for (const auto& p : full.plans()) {
    EXPECT_NE(text.find(absl::StrFormat("#%d %s", p.rank(), p.label())), std::string::npos) << text;
    EXPECT_NE(text.find(absl::StrFormat("%.0f tokens/s/GPU", p.tokens_per_s_per_gpu())), std::string::npos);
    EXPECT_NE(text.find(absl::StrFormat("MFU %.1f%%", 100 * p.mfu())), std::string::npos);
  }
  EXPECT_NE(text.find("cp_comm_type " + full.plans(0).config().cp_comm_type()), std::string::npos) << text;
}

TEST(McpAnswerViewTest, OtherAnswersArePrintedWholeButTheirConfigs) {
  v1::ValidateResponse validate;
  validate.set_valid(true);
  validate.mutable_resolved_config()->set_tp(4);
  validate.mutable_resolved_config()->set_sp(false);  // optional: set, so printed
  validate.add_reasons("r");
  const Json cut = StructuredAnswer(validate);
  EXPECT_EQ(cut["resolved_config"], Json({{"tp", 4}, {"sp", false}}));
  EXPECT_EQ(cut["reasons"], Json({"r"}));
  EXPECT_EQ(cut["errors"], 0);  // outside configs every field is printed
}

TEST(McpAnswerViewTest, ListSystemsLeavesSourcesAndNotesToGetSystem) {
  v1::ListSystemsResponse systems;
  auto* s = systems.add_systems();
  s->set_id("h100-sxm");
  s->set_hbm_gb(80);
  (*s->mutable_sources())["hbm_gb"] = "datasheet";
  s->add_notes("a long note");
  const Json cut = StructuredAnswer(systems);
  EXPECT_EQ(cut["systems"][0]["id"], "h100-sxm");
  EXPECT_EQ(cut["systems"][0]["hbm_gb"], 80);
  EXPECT_TRUE(cut["systems"][0]["sources"].empty());
  EXPECT_TRUE(cut["systems"][0]["notes"].empty());
}

}  // namespace
}  // namespace mcp
}  // namespace parplan
