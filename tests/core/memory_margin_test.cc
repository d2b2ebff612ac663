// The memory safety margin: "tight" is a fit with less free than the reserve.
#include "core/memory/memory_margin.h"

#include "gtest/gtest.h"

namespace parplan {
namespace {

MemoryEstimate Estimate(double peak_gib, double capacity_gib) {
  MemoryEstimate e;
  e.peak_bytes = peak_gib * kGiB;
  e.capacity_bytes = capacity_gib * kGiB;
  e.fits = e.peak_bytes <= e.capacity_bytes;
  e.headroom_bytes = e.capacity_bytes - e.peak_bytes;
  return e;
}

TEST(MemoryMarginTest, TightIsAFitInsideTheReserve) {
  EXPECT_TRUE(IsTight(Estimate(79.9, 80), kDefaultMemoryReserve));
  EXPECT_TRUE(IsTight(Estimate(76.1, 80), kDefaultMemoryReserve));   // 3.9 GiB free < 4 GiB
  EXPECT_FALSE(IsTight(Estimate(75.9, 80), kDefaultMemoryReserve));  // 4.1 GiB free
  EXPECT_FALSE(IsTight(Estimate(81, 80), kDefaultMemoryReserve));    // does not fit: not "tight"
  EXPECT_FALSE(IsTight(Estimate(79.9, 0), kDefaultMemoryReserve));   // no capacity
  EXPECT_FALSE(IsTight(Estimate(79.9, 80), 0));                      // no reserve
  EXPECT_TRUE(IsTight(Estimate(50, 80), 0.5));
}

TEST(MemoryMarginTest, ReasonsCarryTheNumbers) {
  EXPECT_EQ(TightReason(Estimate(70, 80), kDefaultMemoryReserve), "");
  const std::string tight = TightReason(Estimate(78.7, 80), kDefaultMemoryReserve);
  EXPECT_NE(tight.find("Tight: 1.3 GiB free is under the 5% of HBM (4.0 GiB)"), std::string::npos) << tight;
  const std::string stated = ReserveStatement(80 * kGiB, 0.1);
  EXPECT_NE(stated.find("under 10% of HBM (8.0 GiB of 80.0 GiB)"), std::string::npos) << stated;
  EXPECT_NE(stated.find("--memory-reserve"), std::string::npos) << stated;
}

}  // namespace
}  // namespace parplan
