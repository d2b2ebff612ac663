// Answers that stand alone (issue 25): every plan carries its uncertainty
// and the peak its MFU is measured against; every defaulted input is named
// in the answer's `defaults`; the default global batch is stated and stays
// within 16M tokens per step where a batch can; fewest-GPU answers honour
// the memory reserve and name the tighter fewer-GPU world; memory
// suggestions that leave less than the reserve free say "tight". No step
// time or uncertainty figure is fixed here: the performance model is refitted.
#include <map>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "server/api/json_codec.h"
#include "server/api/planner_api.h"
#include "server/api/recommend_api.h"

namespace parplan {
namespace {

namespace v1 = ::parplan::v1;

template <typename M>
M Parse(const std::string& json) {
  M m;
  EXPECT_TRUE(api::JsonToMessage(json, "", &m).ok()) << json;
  return m;
}

bool AnyContains(const google::protobuf::RepeatedPtrField<std::string>& lines, const std::string& text) {
  for (const std::string& line : lines) {
    if (absl::StrContains(line, text)) return true;
  }
  return false;
}

v1::RecommendResponse RecommendOf(const std::string& json) {
  v1::RecommendResponse response;
  const absl::Status s = api::Recommend(Parse<v1::RecommendRequest>(json), &response, absl::InfiniteFuture());
  EXPECT_TRUE(s.ok()) << s;
  return response;
}

// The resolved setting `field` of an answer (an empty one when absent).
v1::ResolvedSetting Setting(const google::protobuf::RepeatedPtrField<v1::ResolvedSetting>& settings,
                            const std::string& field) {
  for (const auto& s : settings) {
    if (s.field() == field) return s;
  }
  ADD_FAILURE() << "no resolved setting " << field;
  return {};
}

TEST(StandaloneAnswersTest, EveryPlanCarriesItsUncertaintyAndPeak) {
  for (const char* precision : {"", "fp8-cs"}) {
    SCOPED_TRACE(precision);
    const v1::RecommendResponse r =
        RecommendOf(std::string(R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},)") +
                    R"("top_k":3,"config":{"precision":")" + precision + R"("}})");
    ASSERT_TRUE(r.feasible());
    v1::GetSystemResponse system;
    ASSERT_TRUE(api::GetSystem(Parse<v1::GetSystemRequest>(R"({"system":"h100-sxm"})"), &system).ok());
    const double peak = *precision ? system.system().fp8_dense_tflops() : system.system().bf16_dense_tflops();
    for (const v1::PlanSummary& p : r.plans()) {
      SCOPED_TRACE(p.label());
      EXPECT_GT(p.uncertainty(), 0);
      EXPECT_GE(p.uncertainty_p90(), p.uncertainty());
      EXPECT_FALSE(p.uncertainty_basis().empty());
      EXPECT_DOUBLE_EQ(p.peak_tflops(), peak);
      EXPECT_TRUE(AnyContains(p.reasons(), *precision ? "against the FP8 dense peak" : "against the BF16 dense peak"));
      EXPECT_TRUE(AnyContains(p.reasons(), "Uncertainty of the step time"));
    }
    EXPECT_GT(r.starting_point().uncertainty(), 0);
    // The plan's settings are in `resolved` (with their sources); the
    // request's own options in `defaults`.
    EXPECT_EQ(Setting(r.resolved(), "precision").source(), *precision ? "user" : "bridge_default");
    EXPECT_EQ(Setting(r.resolved(), "seq_length").value(), "8192");
    EXPECT_EQ(Setting(r.resolved(), "seq_length").source(), "model");
    EXPECT_EQ(Setting(r.resolved(), "tp").source(), "parplan");  // chosen by the search
    EXPECT_TRUE(AnyContains(r.defaults(), "gbs = "));
    EXPECT_TRUE(AnyContains(r.defaults(), "memory_reserve = 0.05"));
    EXPECT_NE(r.assumes().find("Megatron Bridge 0.6.0"), std::string::npos);
  }
}

TEST(StandaloneAnswersTest, EstimatesNameTheirDefaults) {
  const std::string body =
      R"({"model":{"id":"mixtral_8x7b"},"placement":{"system":"h100-sxm"},"config":{"tp":2,"ep":8}})";
  v1::EstimatePerformanceResponse perf;
  ASSERT_TRUE(api::EstimatePerformance(Parse<v1::EstimatePerformanceRequest>(body), &perf).ok());
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"precision", {"bf16", "bridge_default"}},
      {"placement.gpus", {"8", "parplan"}},  // the smallest valid world
      {"etp", {"1", "bridge_default"}},
      {"mbs", {"1", "megatron_core_default"}},
      {"recompute_granularity", {"none", "megatron_core_default"}},
      {"sp", {"true", "bridge_default"}},
      {"moe_token_dispatcher_type", {"alltoall", "bridge_default"}},
      {"ep", {"8", "user"}}};
  for (const auto& [field, value_source] : expected) {
    SCOPED_TRACE(field);
    EXPECT_EQ(Setting(perf.resolved(), field).value(), value_source.first);
    EXPECT_EQ(Setting(perf.resolved(), field).source(), value_source.second);
  }
  EXPECT_EQ(Setting(perf.resolved(), "gbs").source(), "parplan");
  EXPECT_NE(Setting(perf.resolved(), "etp").why().find("Megatron Bridge 0.6.0 sets 1 when EP > 1"), std::string::npos);
  EXPECT_EQ(Setting(perf.resolved(), "gbs").effect(), "semantics");
  EXPECT_EQ(Setting(perf.resolved(), "precision").effect(), "numerics");
  EXPECT_TRUE(AnyContains(perf.reasons(), "against the BF16 dense peak"));
  v1::EstimateMemoryResponse memory;
  ASSERT_TRUE(api::EstimateMemory(Parse<v1::EstimateMemoryRequest>(body), &memory).ok());
  // Memory resolves the same plan: the same world and batch.
  EXPECT_EQ(Setting(memory.resolved(), "placement.gpus").value(), Setting(perf.resolved(), "placement.gpus").value());
  EXPECT_EQ(Setting(memory.resolved(), "gbs").value(), Setting(perf.resolved(), "gbs").value());
  for (const char* named : {"overhead_gib", "memory_reserve = 0.05"}) {
    EXPECT_TRUE(AnyContains(memory.defaults(), named)) << named;
  }
  // Given inputs are listed as given.
  const std::string given = R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},)"
                            R"("config":{"tp":2,"precision":"fp8-cs","gbs":128,"seq_length":4096}})";
  v1::EstimatePerformanceResponse chosen;
  ASSERT_TRUE(api::EstimatePerformance(Parse<v1::EstimatePerformanceRequest>(given), &chosen).ok());
  for (const char* field : {"precision", "gbs", "seq_length", "placement.gpus", "tp"}) {
    EXPECT_EQ(Setting(chosen.resolved(), field).source(), "user") << field;
  }
  EXPECT_EQ(Setting(chosen.resolved(), "fp8_param_gather").source(), "bridge_default");
  EXPECT_EQ(Setting(chosen.resolved(), "fp8_param_gather").value(), "true");
}

// 100,000 GPUs with DP 2,500: one sequence per DP rank is already 20M
// tokens at 8K; the answer says so rather than quietly planning it.
TEST(StandaloneAnswersTest, DefaultBatchAtHugeScaleIsStated) {
  v1::EstimatePerformanceResponse perf;
  ASSERT_TRUE(
      api::EstimatePerformance(Parse<v1::EstimatePerformanceRequest>(
                                   R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":100000},)"
                                   R"("config":{"tp":8,"pp":5,"seq_length":8192}})"),
                               &perf)
          .ok());
  EXPECT_EQ(perf.gbs(), 2500);
  EXPECT_TRUE(AnyContains(perf.reasons(), "20,480,000 tokens per step"));
  EXPECT_TRUE(AnyContains(perf.reasons(), "DP at most 2,048"));
  bool said = false;
  for (const auto& s : perf.resolved())
    said |= s.field() == "gbs" && s.why().find("DP at most 2,048") != std::string::npos;
  EXPECT_TRUE(said);
  // A world of 64: the usual 4M tokens.
  ASSERT_TRUE(
      api::EstimatePerformance(Parse<v1::EstimatePerformanceRequest>(
                                   R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},)"
                                   R"("config":{"tp":8,"pp":2,"seq_length":8192}})"),
                               &perf)
          .ok());
  EXPECT_EQ(perf.gbs() * 8192, 4194304);
}

// Past one sequence per GPU at 4M tokens the search gives each plan its own
// DP's batch, within 16M tokens where one exists.
TEST(StandaloneAnswersTest, SearchBatchPerPlanPastTheTarget) {
  const v1::RecommendResponse r =
      RecommendOf(R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":1024},"top_k":3,)"
                  R"("config":{"seq_length":8192},"constraints":{"no_cp":true}})");
  ASSERT_TRUE(r.feasible());
  EXPECT_TRUE(AnyContains(r.defaults(), "gbs: per plan"));
  for (const v1::PlanSummary& p : r.plans()) {
    SCOPED_TRACE(p.label());
    EXPECT_LE(p.config().gbs() * 8192, int64_t{1} << 24);
    EXPECT_EQ(p.config().gbs() % (p.config().mbs() * p.dp()), 0);
    EXPECT_TRUE(AnyContains(p.reasons(), "gbs not given: "));
  }
}

// With a 15% reserve, Mixtral 8x22B on B200 fits 16 GPUs only tightly: the
// answer plans the first world with room and names the tighter one.
TEST(StandaloneAnswersTest, FewestGpusHonoursTheReserve) {
  const v1::RecommendResponse r =
      RecommendOf(R"({"model":{"id":"mixtral_8x22b"},"placement":{"system":"b200"},"find_min_gpus":true,"top_k":3,)"
                  R"("memory_reserve":0.15})");
  ASSERT_TRUE(r.feasible());
  std::string line;
  for (const std::string& reason : r.reasons()) {
    if (absl::StartsWith(reason, "Fewest GPUs with room: ")) line = reason;
  }
  ASSERT_FALSE(line.empty()) << "no tighter fewer-GPU world named";
  const int64_t room = std::stoll(line.substr(std::string("Fewest GPUs with room: ").size()));
  EXPECT_NE(line.find("GPUs also fit, but every config there is tight"), std::string::npos) << line;
  for (const v1::PlanSummary& p : r.plans()) {
    EXPECT_EQ(p.gpus(), room);
    EXPECT_FALSE(p.tight()) << p.label();
  }
  // With the default reserve the fewest world's plans with room come first.
  const v1::RecommendResponse plain =
      RecommendOf(R"({"model":{"id":"mixtral_8x22b"},"placement":{"system":"b200"},"find_min_gpus":true,"top_k":3})");
  ASSERT_TRUE(plain.feasible());
  bool seen_tight = false;
  for (const v1::PlanSummary& p : plain.plans()) {
    if (p.tight()) seen_tight = true;
    EXPECT_FALSE(seen_tight && !p.tight()) << "a plan with room ranks below a tight one: " << p.label();
  }
}

TEST(StandaloneAnswersTest, MemorySuggestionsSayTight) {
  v1::EstimateMemoryResponse memory;
  ASSERT_TRUE(api::EstimateMemory(Parse<v1::EstimateMemoryRequest>(
                                      R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},)"
                                      R"("config":{"tp":2,"gbs":256},"memory_reserve":0.5,"max_suggestions":8})"),
                                  &memory)
                  .ok());
  ASSERT_FALSE(memory.fits());
  ASSERT_GT(memory.suggestions_size(), 0);
  int tight = 0;
  for (const v1::MemorySuggestion& s : memory.suggestions()) {
    const bool expected = s.fits() && memory.capacity_bytes() - s.peak_bytes() < 0.5 * memory.capacity_bytes();
    EXPECT_EQ(s.tight(), expected) << s.change();
    tight += s.tight();
  }
  EXPECT_GT(tight, 0) << "a 50% reserve makes some fitting change tight";
  EXPECT_TRUE(AnyContains(memory.reasons(), "(fits, tight: "));
}

}  // namespace
}  // namespace parplan
