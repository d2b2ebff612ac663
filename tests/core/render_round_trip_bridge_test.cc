// Import -> resolve -> render -> import again, for Megatron Bridge: a recipe
// with overrides (the fixtures under tests/data/import/bridge, and every
// recipe of the catalog on its own) imports to a plan whose rendered
// bridge_cli overrides, applied on the same recipe, give back every setting
// the field map carries.
#include <fstream>
#include <sstream>
#include <string>

#include "core/catalog/catalog.h"
#include "core/config/parallel_config.h"
#include "core/import/bridge_import.h"
#include "core/import/bridge_recipes.h"
#include "core/import/field_map.h"
#include "core/render/render.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream f(std::string(PARPLAN_TEST_DATA_DIR) + "/import/bridge/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Round-trips `text`; returns how many settings were compared.
int RoundTrip(const std::string& text, ImportFormat format, const std::string& what) {
  SCOPED_TRACE(what);
  ImportOptions options;
  auto first = ImportBridge(text, format, options);
  EXPECT_TRUE(first.ok()) << first.status();
  if (!first.ok()) return 0;
  auto catalog = Catalog::Get().FindModel(first->model_id);
  EXPECT_TRUE(first->model.has_value() || catalog.ok()) << first->model_id;
  if (!first->model.has_value() && !catalog.ok()) return 0;
  const ModelSpec& m1 = first->model.has_value() ? *first->model : *catalog;
  auto r1 = ResolveConfig(first->config, &m1, "config");
  EXPECT_TRUE(r1.ok()) << r1.status();
  if (!r1.ok()) return 0;

  const RenderedConfig rendered = RenderConfig(*r1, &m1, ResolvedPlacement{});
  const std::string again = absl::StrCat("recipe:", first->recipe, " ", rendered.bridge_cli);
  auto second = ImportBridge(again, ImportFormat::kBridgeRecipe, options);
  EXPECT_TRUE(second.ok()) << second.status() << "\n" << again;
  if (!second.ok()) return 0;
  const ModelSpec& m2 = second->model.has_value() ? *second->model : *catalog;
  auto r2 = ResolveConfig(second->config, &m2, "config");
  EXPECT_TRUE(r2.ok()) << r2.status();
  if (!r2.ok()) return 0;

  int compared = 0;
  for (const FieldEntry& e : FieldMap()) {
    if (e.get == nullptr) continue;
    const auto a = e.get(*r1, &m1);
    const auto b = e.get(*r2, &m2);
    EXPECT_EQ(a.value_or("<unset>"), b.value_or("<unset>")) << e.field << "\nrendered: " << rendered.bridge_cli;
    compared += a.has_value() ? 1 : 0;
  }
  return compared;
}

TEST(BridgeRoundTrip, Fixtures) {
  EXPECT_GT(RoundTrip(Fixture("llama3_70b_overrides.txt"), ImportFormat::kBridgeRecipe, "llama3_70b_overrides.txt"),
            20);
  EXPECT_GT(RoundTrip(Fixture("llama3_8b_run_recipe.sh"), ImportFormat::kBridgeOverrides, "llama3_8b_run_recipe.sh"),
            20);
  EXPECT_GT(RoundTrip(Fixture("llama32_1b_override.yaml"), ImportFormat::kBridgeYaml, "llama32_1b_override.yaml"), 20);
  EXPECT_GT(
      RoundTrip(Fixture("llama3_70b_perf_launch.sh"), ImportFormat::kBridgeOverrides, "llama3_70b_perf_launch.sh"), 20);
  EXPECT_GT(RoundTrip(Fixture("llama32_1b_skill_parallelism.sh"), ImportFormat::kBridgeOverrides,
                      "llama32_1b_skill_parallelism.sh"),
            20);
}

TEST(BridgeRoundTrip, EveryRecipe) {
  for (const auto& r : BridgeRecipes()) {
    EXPECT_GT(RoundTrip("recipe:" + r.name, ImportFormat::kBridgeRecipe, r.name), 10);
  }
}

}  // namespace
}  // namespace parplan
