#include "core/pipeline/layout_builder.h"

#include <gtest/gtest.h>

#include "core/pipeline/layout_parser.h"

namespace parplan {
namespace {

// The layer types of every stage, as Megatron's parser expands them.
std::vector<std::vector<LayerType>> Expanded(const std::string& layout) {
  auto stages = ParseLayoutStages(layout, "layout");
  EXPECT_TRUE(stages.ok()) << layout << ": " << stages.status();
  std::vector<std::vector<LayerType>> out;
  if (stages.ok()) {
    out = *stages;
  }
  return out;
}

TEST(LayoutBuilderTest, CompactLayoutWritesRunsAsRepeatGroups) {
  EXPECT_EQ(CompactLayout("Et*4|t*4|t*4|t*4|tmL"), "Et*4|(t*4|)*3tmL");
  EXPECT_EQ(CompactLayout("Et*2|t*2|t*2|t*2"), "Et*2|(t*2|)*2t*2");
  EXPECT_EQ(CompactLayout("Et|t*2|tL"), "Et|t*2|tL");                  // nothing repeats three times
  EXPECT_EQ(CompactLayout("Et*4|(t*4|)*14tmL"), "Et*4|(t*4|)*14tmL");  // already compact
  EXPECT_EQ(CompactLayout(""), "");
}

TEST(LayoutBuilderTest, CompactLayoutExpandsToTheSameStages) {
  for (const std::string& layout : {std::string("Et*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4|tmL"),
                                    std::string("Et*2|t*3|t*2|t*2|t*2|t*2|t*2|t*2|t|mL"), std::string("E|t|t|t|L")}) {
    EXPECT_EQ(Expanded(CompactLayout(layout)), Expanded(layout)) << layout << " -> " << CompactLayout(layout);
  }
}

TEST(LayoutBuilderTest, BuiltLayoutsAreCompactAndMatchBridgesDeepSeekV3Layouts) {
  // Bridge recipes/deepseek/h100/deepseek_v3.py: PP 16 -> embedding + 4, 14 x 4, 1 + MTP + loss.
  const std::string pp16 = BalancedLayout(61, 1, 16, 3);
  EXPECT_EQ(pp16, "Et*4|(t*4|)*14tmL");
  EXPECT_LT(pp16.size(), 40u);
  EXPECT_EQ(Expanded(BalancedLayout(61, 1, 8, 3)).back().size(), 7u);  // 5 decoders + MTP + loss
}

TEST(LayoutBuilderTest, EndUnitsCountTheOutputLayersInDecoderLayers) {
  EXPECT_EQ(EndUnits(11.1, 4.0, 1), 3);  // DeepSeek-V3 at 4K: 2 whole layers of logits + MTP
  EXPECT_EQ(EndUnits(6.3, 5.5, 0), 1);   // Llama-3 70B
  EXPECT_EQ(EndUnits(0.1, 5.0, 0), 1);   // at least one
}

}  // namespace
}  // namespace parplan
