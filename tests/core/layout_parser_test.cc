#include "core/pipeline/layout_parser.h"

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

std::string Render(const std::vector<LayoutStage>& stages) {
  std::vector<std::string> parts;
  for (const auto& s : stages) {
    std::string p;
    for (LayerType t : s) p += LayerTypeName(t);
    parts.push_back(p);
  }
  return absl::StrJoin(parts, "|");
}

TEST(LayoutParserTest, MegatronDocstringExample) {
  // parse_str_to_list: "Ettt|(tt|)*29,m|L" -> [E,t,t,t] + [t,t]*29 + [m] + [L].
  auto stages = ParseLayoutStages("Ettt|(tt|)*29,m|L", "f");
  ASSERT_TRUE(stages.ok()) << stages.status();
  ASSERT_EQ(stages->size(), 32u);
  EXPECT_EQ(Render(*stages).substr(0, 10), "Ettt|tt|tt");
  EXPECT_EQ((*stages)[30].size(), 1u);
  EXPECT_EQ((*stages)[30][0], LayerType::kMtp);
  EXPECT_EQ((*stages)[31][0], LayerType::kLoss);
}

TEST(LayoutParserTest, DeepSeekRecipeLayouts) {
  auto a = ParseLayoutStages("Et*4|(t*4|)*14tmL", "f");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size(), 16u);
  EXPECT_EQ(Render(*a).substr(0, 11), "Etttt|tttt|");
  EXPECT_EQ(Render({a->back()}), "tmL");
  auto b = ParseLayoutStages("Et|(tt|)*30mL", "f");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->size(), 32u);
}

TEST(LayoutParserTest, CommasAreCosmetic) {
  auto a = ParseLayoutStages("Et*2|(t*2|)*34,t*3|(t*2|)*3,tL", "f");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->size(), 40u);
  size_t decoders = 0;
  for (const auto& s : *a) decoders += std::count(s.begin(), s.end(), LayerType::kDecoder);
  EXPECT_EQ(decoders, 80u);
}

TEST(LayoutParserTest, ListForm) {
  auto a = ParseLayoutStages(R"([["embedding","decoder"],[" Decoder ","mtp","loss"]])", "f");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(Render(*a), "Et|tmL");
}

TEST(LayoutParserTest, EmptyStagesAreKept) {
  auto a = ParseLayoutStages("Et||tL", "f");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size(), 3u);
  EXPECT_TRUE((*a)[1].empty());
}

TEST(LayoutParserTest, Errors) {
  EXPECT_FALSE(ParseLayoutStages("", "f").ok());
  EXPECT_FALSE(ParseLayoutStages("Ext|L", "f").ok());                     // unknown char
  EXPECT_FALSE(ParseLayoutStages("((t|)*2)*3L", "f").ok());               // nesting unsupported
  EXPECT_FALSE(ParseLayoutStages("[[\"embedding\"], \"x\"]", "f").ok());  // not list of lists
  EXPECT_FALSE(ParseLayoutStages("[[\"embedding\", \"attention\"]]", "f").ok());
  EXPECT_FALSE(ParseLayoutStages("[[\"embedding\"", "f").ok());  // bad JSON
  EXPECT_FALSE(ParseLayoutStages("t*99999999999", "f").ok());    // bounded expansion
  EXPECT_FALSE(ParseLayoutStages("(tttttttt)*9999999", "f").ok());
  auto status = ParseLayoutStages("EtX", "config.pipeline_layout").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("'X'"), std::string::npos);
}

}  // namespace
}  // namespace parplan
