// Naming hardware: catalog systems, overrides, inline specs, and the errors
// of bad figures.
#include "core/resolve/system_resolve.h"

#include <limits>

#include "core/system/links.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Notes(const ResolvedSystem& r) {
  std::string s;
  for (const auto& n : r.notes) s += n + "\n";
  return s;
}

TEST(SystemResolveTest, CatalogIdAlone) {
  auto r = ResolveSystem({"h100-sxm", {}}, "system", "system_spec");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.id, "h100-sxm");
  EXPECT_TRUE(r->notes.empty());
}

TEST(SystemResolveTest, OverridesReplaceFiguresAndSaySo) {
  SystemRef ref{"h100-sxm", {}};
  ref.figures.nics_per_node = 4;
  ref.figures.nic_gbps = 200;
  ref.figures.hbm_gib = 40;
  auto r = ResolveSystem(ref, "system", "system_spec");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->spec.scaleout_gbps_per_gpu, 100);  // 4 x 200 / 8
  EXPECT_DOUBLE_EQ(r->spec.hbm_gb, 40);
  EXPECT_EQ(r->spec.id, "h100-sxm+overrides");
  EXPECT_THAT(Notes(*r), HasSubstr("hbm_gib 80 -> 40"));
  EXPECT_THAT(Notes(*r), HasSubstr("4 NICs x 200 Gb/s / 8 GPUs per node"));
  EXPECT_EQ(r->spec.sources.at("hbm_gib"), "given in the request");
}

// The H800 question: NVLink 400 GB/s (marketed, both directions), 8 GPUs per
// node, 4 x 200 Gb/s InfiniBand per node, nothing else known.
TEST(SystemResolveTest, InlineSpecTakesTheArchitectureDefaultsAndNamesThem) {
  SystemRef ref;
  ref.figures.gpu_arch = "hopper";
  ref.figures.nvlink_gbps = 400;
  ref.figures.gpus_per_node = 8;
  ref.figures.nics_per_node = 4;
  ref.figures.nic_gbps = 200;
  auto r = ResolveSystem(ref, "system", "system_spec");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.gpu_arch, "hopper");
  EXPECT_DOUBLE_EQ(r->spec.nvlink_gbps_unidirectional, 200);
  EXPECT_DOUBLE_EQ(r->spec.scaleout_gbps_per_gpu, 100);
  EXPECT_DOUBLE_EQ(r->spec.bf16_dense_tflops, 989.4);  // the hopper reference (h100-sxm)
  EXPECT_THAT(Notes(*r), HasSubstr("taken from the hopper reference (h100-sxm): HBM 80 GiB"));
  EXPECT_THAT(Notes(*r), Not(HasSubstr("NVLink 900")));
}

TEST(SystemResolveTest, NoNvlinkMeansPcieBetweenGpusOfAHost) {
  SystemRef ref;
  ref.figures.gpu_arch = "blackwell";
  ref.figures.nvlink_gbps = 0;
  ref.figures.pcie_gbps = 64;
  ref.figures.gpus_per_node = 8;
  auto r = ResolveSystem(ref, "system", "system_spec");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.nvlink_domain_size, 1);
  EXPECT_EQ(LinkOfSpan(r->spec, 8), Link::kPcie);
  EXPECT_EQ(LinkOfSpan(r->spec, 16), Link::kNetwork);
  EXPECT_DOUBLE_EQ(RingBandwidth(r->spec, 8, 1), 64);
}

TEST(SystemResolveTest, BadFiguresAreFieldExact) {
  struct Case {
    SystemFigures f;
    const char* id;
    const char* field;
    const char* text;
  };
  auto with = [](auto set) {
    SystemFigures f;
    set(f);
    return f;
  };
  const Case cases[] = {
      {with([](SystemFigures& f) { f.nvlink_gbps = -5; }), "h100-sxm", "system_spec.nvlink_gbps", "-5 is out of range"},
      {with([](SystemFigures& f) { f.hbm_gib = 0; }), "h100-sxm", "system_spec.hbm_gib", "more than 0"},
      {with([](SystemFigures& f) { f.nvlink_domain_size = 5000; }), "h100-sxm", "system_spec.nvlink_domain_size",
       "allowed 1..4096"},
      {with([](SystemFigures& f) { f.gpu_arch = "volta"; }), "", "system_spec.gpu_arch", "allowed ampere, hopper"},
      {with([](SystemFigures& f) { f.hbm_gib = 80; }), "", "system_spec.gpu_arch", "give gpu_arch"},
      {with([](SystemFigures& f) { f.nics_per_node = 4; }), "h100-sxm", "system_spec.nic_gbps", "go together"},
      {with([](SystemFigures& f) {
         f.nvlink_gbps = 0;
         f.nvlink_domain_size = 8;
       }),
       "h100-sxm", "system_spec.nvlink_domain_size", "without NVLink"},
      {with([](SystemFigures& f) { f.bf16_tflops = std::numeric_limits<double>::quiet_NaN(); }), "h100-sxm",
       "system_spec.bf16_tflops", "out of range"},
  };
  for (const auto& c : cases) {
    auto r = ResolveSystem({c.id, c.f}, "system", "system_spec");
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.field));
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.text));
  }
  EXPECT_EQ(ResolveSystem({"tpu-v5", {}}, "system", "system_spec").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ResolveSystem({"", {}}, "system", "system_spec").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace parplan
