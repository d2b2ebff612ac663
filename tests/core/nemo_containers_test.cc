// NeMo container tags as a Bridge version: the release each ships, the
// libraries every answer then names, and the refusal of unknown tags.
// Container -> Bridge pairs and versions: Megatron Bridge
// docs/releases/software-versions.md at 067f987df0.
#include "core/config/nemo_containers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config/parallel_config.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

TEST(NemoContainersTest, TagsMapToTheBridgeReleaseTheyShip) {
  EXPECT_EQ(BridgeVersionName(*ParseBridgeVersion("26.04", "config.bridge_version")), "0.4.0");
  EXPECT_EQ(BridgeVersionName(*ParseBridgeVersion("nemo:26.02.01", "config.bridge_version")), "0.3.1");
  EXPECT_EQ(BridgeVersionName(*ParseBridgeVersion("25.11", "config.bridge_version")), "0.2.0");
  EXPECT_EQ(BridgeVersionName(*ParseBridgeVersion("26.08", "config.bridge_version")), "0.6.0");
  // Bridge releases still read as releases.
  EXPECT_EQ(BridgeVersionName(*ParseBridgeVersion("0.4", "config.bridge_version")), "0.4.0");
  EXPECT_FALSE(LooksLikeContainerTag("0.6.0"));
  EXPECT_TRUE(LooksLikeContainerTag("26.06.01"));
  EXPECT_FALSE(LooksLikeContainerTag("26.6.1.1"));
}

TEST(NemoContainersTest, UnknownTagNamesFieldValueAndKnownRange) {
  const absl::Status s = ParseBridgeVersion("25.09", "config.bridge_version").status();
  ASSERT_FALSE(s.ok());
  const auto fv = FieldViolationsOf(s);
  ASSERT_EQ(fv.size(), 1u);
  EXPECT_EQ(fv[0].field, "config.bridge_version");
  EXPECT_THAT(fv[0].description, ::testing::HasSubstr("'25.09'"));
  EXPECT_THAT(fv[0].description, ::testing::HasSubstr("25.11..26.08"));
  EXPECT_FALSE(ParseBridgeVersion("27.01", "config.bridge_version").ok());
}

TEST(NemoContainersTest, ResolvedConfigKeepsTheTagAndAnswersNameTheLibraries) {
  ParallelConfig c;
  c.bridge_version = "26.04";
  auto r = ResolveConfig(c, nullptr, "config");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_NE(ContainerOf(*r), nullptr);
  EXPECT_EQ(ContainerOf(*r)->tag, "26.04");
  EXPECT_EQ(BridgeVersionName(r->bridge_version), "0.4.0");
  const std::string line = ContainerAssumes(*r);
  EXPECT_THAT(line, ::testing::HasSubstr("NeMo 26.04 container: Megatron Bridge 0.4.0, Megatron-Core 0.17.0, "
                                         "Transformer Engine 2.14, PyTorch 2.11.0, CUDA 13.1.1, cuDNN 9.20.0"));
  // A patch container says its libraries are not published rather than guess.
  c.bridge_version = "26.06.01";
  r = ResolveConfig(c, nullptr, "config");
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(ContainerAssumes(*r), ::testing::HasSubstr("Megatron Bridge 0.5.1 (library versions not published)"));
  // A Bridge release alone names no container.
  c.bridge_version = "0.4.0";
  r = ResolveConfig(c, nullptr, "config");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ContainerOf(*r), nullptr);
  EXPECT_EQ(ContainerAssumes(*r), "");
}

}  // namespace
}  // namespace parplan
