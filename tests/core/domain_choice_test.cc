#include "core/search/domain_choice.h"

#include "core/catalog/catalog.h"
#include "core/system/racks.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

SystemSpec Find(const char* id) { return *Catalog::Get().FindSystem(id); }

TEST(DomainChoiceTest, FillsRacksEvenlyWhenThatTakesNoMoreRacks) {
  SystemSpec s = Find("gb200-nvl72");
  const std::string why = ChooseGpusPerDomain(256, &s);
  EXPECT_EQ(s.nvlink_domain_used, 64);
  EXPECT_NE(why.find("GPUs per NVLink domain: 64 of 72 chosen"), std::string::npos) << why;
  EXPECT_NE(why.find("4 domains of 64"), std::string::npos) << why;
  // 288 = 4 x 72 and 260 (only 52 or 4 per rack divide it: 5 or 65 racks vs 4): all 72.
  SystemSpec full = Find("gb200-nvl72");
  EXPECT_EQ(ChooseGpusPerDomain(288, &full), "");
  EXPECT_EQ(full.nvlink_domain_used, 0);
  EXPECT_EQ(ChooseGpusPerDomain(260, &full), "");
  // 144 = 2 x 72: already even.
  EXPECT_EQ(ChooseGpusPerDomain(144, &full), "");
  // Given by the caller, or a one-host domain: untouched.
  SystemSpec given = Find("gb200-nvl72");
  given.nvlink_domain_used = 72;
  EXPECT_EQ(ChooseGpusPerDomain(256, &given), "");
  SystemSpec h100 = Find("h100-sxm");
  EXPECT_EQ(ChooseGpusPerDomain(256, &h100), "");
  EXPECT_EQ(RanksPerDomain(h100), 8);
}

}  // namespace
}  // namespace parplan
