// Optimizer CPU offload: the host side of the optimizer step.
#include "core/perf/optimizer_offload.h"

#include "core/catalog/catalog.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

TEST(OptimizerOffloadTest, CopiesFollowTheHostLink) {
  const SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  const SystemSpec gb200 = *Catalog::Get().FindSystem("gb200-nvl72");
  EXPECT_EQ(HostLinkGbps(h100), 64);    // PCIe Gen5 x16
  EXPECT_EQ(HostLinkGbps(gb200), 450);  // NVLink-C2C
  const OffloadSeconds pcie = CpuOptimizerSeconds(1e9, h100, 1.0);
  // 4 GB of fp32 gradients down, 4 GB of fp32 weights back at 64 GB/s.
  EXPECT_DOUBLE_EQ(pcie.d2h, 4e9 / 64e9);
  EXPECT_DOUBLE_EQ(pcie.h2d, 4e9 / 64e9);
  const OffloadSeconds c2c = CpuOptimizerSeconds(1e9, gb200, 1.0);
  EXPECT_LT(c2c.d2h, pcie.d2h / 7);
  // Grace's LPDDR5X feeds the CPU AdamW faster than an x86 host's share.
  EXPECT_LT(c2c.cpu, pcie.cpu);
  EXPECT_EQ(CpuOptimizerSeconds(0, h100, 1.0).Total(), 0);
}

TEST(OptimizerOffloadTest, UnknownHostFallsBackAndSaysSo) {
  SystemSpec custom;
  custom.pcie_gbps_unidirectional = 32;
  EXPECT_EQ(HostLinkGbps(custom), 32);
  EXPECT_EQ(HostMemoryGbps(custom), 50);
  EXPECT_NE(DescribeOptimizerOffload(1e9, custom, 0.75).find("assumed"), std::string::npos);
}

}  // namespace
}  // namespace parplan
