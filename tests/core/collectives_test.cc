#include "core/perf/collectives.h"

#include <gtest/gtest.h>

#include "core/catalog/catalog.h"
#include "core/perf/perf_model.h"

namespace parplan {
namespace {

SystemSpec H100() { return *Catalog::Get().FindSystem("h100-sxm"); }

TEST(CollectivesTest, RingOnNvlinkIsBusBandwidthPlusStepLatencies) {
  const PerfParams p;
  const double bytes = 1e9;
  const double t = RingCollectiveSeconds(bytes, AlignedSpread(H100(), 8, 1), H100(), p);
  const double rate = H100().nvlink_gbps_unidirectional * 1e9 * p.link_efficiency;
  EXPECT_NEAR(t, 7.0 / 8 * bytes / rate + 7 * p.nvlink_step_latency_us * 1e-6, 1e-12);
  EXPECT_EQ(RingCollectiveSeconds(bytes, AlignedSpread(H100(), 1, 1), H100(), p), 0);
}

TEST(CollectivesTest, RingsAcrossHostsShareEachNodesNics) {
  const PerfParams p;
  // DP=16 with TP=1: 8 members per node push through 8 NICs; with TP=8
  // (stride 8) one member per node has one NIC.
  const double wide = RingCollectiveSeconds(1e9, AlignedSpread(H100(), 16, 1), H100(), p);
  const double strided = RingCollectiveSeconds(1e9, AlignedSpread(H100(), 16, 8), H100(), p);
  EXPECT_GT(strided, 4 * wide);
}

TEST(CollectivesTest, AllToAllSplitsNvlinkAndNetworkShares) {
  const PerfParams p;
  const double bytes = 1e9;
  const double inside = AllToAllSeconds(bytes, AlignedSpread(H100(), 8, 1), H100(), p);
  const double across = AllToAllSeconds(bytes, AlignedSpread(H100(), 32, 1), H100(), p);
  // Inside one node: 7/8 of the bytes over NVLink.
  EXPECT_NEAR(inside,
              7.0 / 8 * bytes / (H100().nvlink_gbps_unidirectional * 1e9 * p.link_efficiency) +
                  3 * p.nvlink_step_latency_us * 1e-6,
              1e-12);
  // EP=32 over 4 nodes: 24/32 of the bytes through one 50 GB/s NIC per GPU.
  EXPECT_NEAR(across, 24.0 / 32 * bytes / (50e9 * p.link_efficiency) + 5 * p.network_step_latency_us * 1e-6, 1e-9);
  EXPECT_GT(across, 5 * inside);
}

// A group no wider than the domain that straddles two domains: its worst
// member reaches only its local peers over NVLink and the rest through its
// NIC (EP=64 on GB200 NVL72 ranks 64..127 with all 72 GPUs of each rack used:
// 8 of the 64 in rack 0).
TEST(CollectivesTest, AStraddlingGroupIsChargedByItsWorstMember) {
  const PerfParams p;
  const SystemSpec nvl72 = *Catalog::Get().FindSystem("gb200-nvl72");
  const GroupSpread inside{64, 64, 64};
  const GroupSpread straddling{64, 8, 8};
  EXPECT_EQ(LinkOfGroup(nvl72, inside), Link::kNvlink);
  EXPECT_EQ(LinkOfGroup(nvl72, straddling), Link::kNetwork);
  const double bytes = 1e9;
  const double network = LinkGbytesPerSecond(nvl72, Link::kNetwork) * 1e9 * p.link_efficiency;
  EXPECT_NEAR(AllToAllSeconds(bytes, straddling, nvl72, p),
              56.0 / 64 * bytes / network + 6 * p.network_step_latency_us * 1e-6, 1e-9);
  EXPECT_GT(AllToAllSeconds(bytes, straddling, nvl72, p), 5 * AllToAllSeconds(bytes, inside, nvl72, p));
  // A ring's members in the worst rack push through that many NICs.
  EXPECT_DOUBLE_EQ(RingBandwidth(nvl72, straddling), 8 * LinkGbytesPerSecond(nvl72, Link::kNetwork));
}

TEST(CollectivesTest, PcieCardsWithoutNvlinkDoNotDivideByZero) {
  const PerfParams p;
  const SystemSpec pcie = *Catalog::Get().FindSystem("rtx-pro-6000");
  const double t = AllToAllSeconds(1e9, AlignedSpread(pcie, 8, 1), pcie, p);
  EXPECT_GT(t, 0);
  EXPECT_LT(t, 1e3);
  EXPECT_GT(SendRecvSeconds(1e9, Link::kPcie, pcie, p), 0);
}

}  // namespace
}  // namespace parplan
