#include "core/model/size_model.h"

#include "core/model/param_count.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

TEST(SizeModelTest, ParsesPhrases) {
  auto a = ParseSizePhrase("70B dense", "f");
  ASSERT_TRUE(a.ok());
  EXPECT_DOUBLE_EQ(a->total, 70e9);
  EXPECT_FALSE(a->moe);
  auto b = ParseSizePhrase("235B total, 22B active MoE", "f");
  ASSERT_TRUE(b.ok());
  EXPECT_DOUBLE_EQ(b->total, 235e9);
  EXPECT_DOUBLE_EQ(b->active, 22e9);
  EXPECT_TRUE(b->moe);
  auto c = ParseSizePhrase("Qwen-style 30B-A3B", "f");
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->active, 3e9);
  auto d = ParseSizePhrase("671B/37B MoE", "f");
  ASSERT_TRUE(d.ok());
  EXPECT_DOUBLE_EQ(d->active, 37e9);
  auto e = ParseSizePhrase("1.5T total 60b active", "f");
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(e->total, 1.5e12);
}

TEST(SizeModelTest, RejectsBadPhrases) {
  EXPECT_FALSE(ParseSizePhrase("big model", "f").ok());
  EXPECT_FALSE(ParseSizePhrase("100T dense", "f").ok());
  EXPECT_FALSE(ParseSizePhrase("300B MoE", "f").ok());  // no active count
  EXPECT_FALSE(ParseSizePhrase("30B total 40B active", "f").ok());
  EXPECT_FALSE(ParseSizePhrase(std::string(300, '1'), "f").ok());
}

TEST(SizeModelTest, DenseShapeHitsTheTarget) {
  for (double target : {1e9, 8e9, 70e9, 405e9, 1e12}) {
    auto m = ModelFromSize(absl::StrCat(target / 1e9, "B dense"), "f");
    ASSERT_TRUE(m.ok()) << target << m.status();
    EXPECT_TRUE(m->approximate);
    EXPECT_FALSE(m->approximation_note.empty());
    EXPECT_TRUE(m->complete());
    EXPECT_NEAR(CountParams(*m).total / target, 1.0, 0.06) << target;
  }
  auto m70 = ModelFromSize("70B dense", "f");
  EXPECT_EQ(m70->hidden_size, 8192);  // Llama-3-70B width
}

TEST(SizeModelTest, MoeShapeHitsTotalAndActive) {
  auto m = ModelFromSize("235B total, 22B active MoE", "f");
  ASSERT_TRUE(m.ok()) << m.status();
  const ParamCounts c = CountParams(*m);
  EXPECT_NEAR(c.total / 235e9, 1.0, 0.06);
  EXPECT_NEAR(c.active / 22e9, 1.0, 0.1);
  EXPECT_EQ(m->kind, "moe");
}

TEST(SizeModelTest, LooksLikeSize) {
  EXPECT_TRUE(LooksLikeSizePhrase("70B dense"));
  EXPECT_TRUE(LooksLikeSizePhrase("70B"));
  EXPECT_TRUE(LooksLikeSizePhrase("235B total, 22B active MoE"));
  EXPECT_FALSE(LooksLikeSizePhrase("qwen3-72b"));
  EXPECT_FALSE(LooksLikeSizePhrase("llama3_70b"));
}

}  // namespace
}  // namespace parplan
