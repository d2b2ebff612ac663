#include "core/system/racks.h"

#include "core/catalog/catalog.h"
#include "core/util/field_error.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

SystemSpec Nvl72(int used = 0) {
  SystemSpec s = *Catalog::Get().FindSystem("gb200-nvl72");
  s.nvlink_domain_used = used;
  return s;
}

TEST(RacksTest, RanksFillTheUsedGpusOfEachDomain) {
  EXPECT_EQ(RanksPerDomain(Nvl72()), 72);
  EXPECT_EQ(RanksPerDomain(Nvl72(64)), 64);
  EXPECT_EQ(RanksPerHost(Nvl72(64)), 4);  // whole trays
  EXPECT_EQ(DomainsTaken(Nvl72(), 256), 4);
  EXPECT_EQ(DomainsTaken(Nvl72(64), 256), 4);
  EXPECT_EQ(DomainsTaken(Nvl72(64), 257), 5);
  SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  EXPECT_EQ(RanksPerDomain(h100), 8);
  h100.nvlink_domain_used = 4;  // half of each 8-GPU host
  EXPECT_EQ(RanksPerHost(h100), 4);
  const SystemSpec rtx = *Catalog::Get().FindSystem("rtx-pro-6000");
  EXPECT_EQ(RanksPerDomain(rtx), 1);
  EXPECT_EQ(RanksPerHost(rtx), 8);
}

TEST(RacksTest, BoundsNameTheFieldValueAndWhatIsAllowed) {
  const std::string f = "placement.gpus_per_nvlink_domain";
  EXPECT_TRUE(CheckGpusPerDomain(0, 72, 4, f).ok());
  EXPECT_TRUE(CheckGpusPerDomain(64, 72, 4, f).ok());
  EXPECT_TRUE(CheckGpusPerDomain(72, 72, 4, f).ok());
  EXPECT_TRUE(CheckGpusPerDomain(4, 8, 8, f).ok());  // a one-host domain: any part of it
  auto message = [](const absl::Status& s) {
    const auto v = FieldViolationsOf(s);
    return v.empty() ? std::string() : v[0].field + ": " + v[0].description;
  };
  EXPECT_EQ(message(CheckGpusPerDomain(80, 72, 4, f)),
            "placement.gpus_per_nvlink_domain: 80 exceeds the 72-GPU NVLink domain; allowed 1..72");
  EXPECT_EQ(message(CheckGpusPerDomain(66, 72, 4, f)),
            "placement.gpus_per_nvlink_domain: 66 is not a whole number of 4-GPU hosts of the 72-GPU NVLink domain "
            "(jobs take whole hosts); use 64 or 68");
  EXPECT_EQ(message(CheckGpusPerDomain(2, 72, 4, f)),
            "placement.gpus_per_nvlink_domain: 2 is not a whole number of 4-GPU hosts of the 72-GPU NVLink domain "
            "(jobs take whole hosts); use 4");
  EXPECT_EQ(message(CheckGpusPerDomain(-1, 72, 4, f)),
            "placement.gpus_per_nvlink_domain: -1 is out of range; allowed 0 (all of the domain) or 1..72");
  EXPECT_NE(message(CheckGpusPerDomain(1, 2, 8, f)).find("smaller than a 8-GPU host"), std::string::npos);
  EXPECT_NE(message(CheckGpusPerDomain(8, 0, 0, f)).find("needs a system"), std::string::npos);
}

TEST(RacksTest, DescribesDomainsTakenAndGpusUsed) {
  EXPECT_EQ(DescribeDomainUse(Nvl72(64), 256),
            "256 GPUs take 4 NVLink domains (racks) of gb200-nvl72, 64 of each 72-GPU domain's GPUs used (16 of its "
            "18 hosts): rank r sits in domain r / 64.");
  EXPECT_EQ(DescribeDomainUse(Nvl72(), 256),
            "256 GPUs take 4 NVLink domains (racks) of gb200-nvl72, all 72 GPUs of each domain used"
            "; the last domain holds 40: rank r sits in domain r / 72.");
  EXPECT_EQ(DescribeDomainUse(*Catalog::Get().FindSystem("h100-sxm"), 64), "");
}

SystemSpec FindSys(const char* id) { return *Catalog::Get().FindSystem(id); }

TEST(RacksTest, FillsRacksEvenlyWhenThatTakesNoMoreRacks) {
  SystemSpec s = FindSys("gb200-nvl72");
  const std::string why = ChooseDomainUse(256, &s);
  EXPECT_EQ(s.nvlink_domain_used, 64);
  EXPECT_NE(why.find("GPUs per NVLink domain: 64 of 72 chosen"), std::string::npos) << why;
  EXPECT_NE(why.find("4 domains of 64"), std::string::npos) << why;
  // 288 = 4 x 72 and 260 (only 52 or 4 per rack divide it: 5 or 65 racks vs 4): all 72.
  SystemSpec full = FindSys("gb200-nvl72");
  EXPECT_EQ(ChooseDomainUse(288, &full), "");
  EXPECT_EQ(full.nvlink_domain_used, 0);
  EXPECT_EQ(ChooseDomainUse(260, &full), "");
  // 144 = 2 x 72: already even.
  EXPECT_EQ(ChooseDomainUse(144, &full), "");
  // Given by the caller, or a one-host domain: untouched.
  SystemSpec given = FindSys("gb200-nvl72");
  given.nvlink_domain_used = 72;
  EXPECT_EQ(ChooseDomainUse(256, &given), "");
  SystemSpec h100 = FindSys("h100-sxm");
  EXPECT_EQ(ChooseDomainUse(256, &h100), "");
  EXPECT_EQ(RanksPerDomain(h100), 8);
}

}  // namespace
}  // namespace parplan
