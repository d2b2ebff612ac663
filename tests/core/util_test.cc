#include "core/util/field_error.h"
#include "core/util/text.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

TEST(FieldErrorTest, RoundTripsViolations) {
  FieldErrors errors;
  errors.CheckRange("config.tp", 0, 1, 4096);
  errors.CheckRange("config.pp", 5, 1, 4096);
  errors.Add("model.id", "tab\tand\nnewline");
  const absl::Status s = errors.ToStatus();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  const auto v = FieldViolationsOf(s);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].field, "config.tp");
  EXPECT_EQ(v[0].description, "config.tp = 0 is out of range; allowed 1..4096");
  EXPECT_EQ(v[1].description, "tab and newline");
  const auto prefixed = FieldViolationsOf(PrefixFields(s, "request"));
  EXPECT_EQ(prefixed[0].field, "request.config.tp");
  EXPECT_TRUE(FieldErrors().ToStatus().ok());
  EXPECT_TRUE(FieldViolationsOf(absl::NotFoundError("x")).empty());
}

TEST(TextTest, NormalizeAndClosest) {
  EXPECT_EQ(NormalizeName("  DeepSeek-V3 "), "deepseek_v3");
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
  const auto closest = ClosestNames("lama3-70", {"llama3_70b", "qwen3_8b", "llama3_8b"}, 2);
  ASSERT_EQ(closest.size(), 2u);
  EXPECT_EQ(closest[0], "llama3_70b");
}

TEST(TextTest, Numbers) {
  EXPECT_EQ(HumanCount(70.55e9), "70.5B");
  EXPECT_EQ(HumanCount(1.2e12), "1.20T");
  EXPECT_EQ(Lcm(6, 4), 12);
  EXPECT_EQ(Gcd(12, 18), 6);
}

}  // namespace
}  // namespace parplan
