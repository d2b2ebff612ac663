#include "core/import/bridge_recipes.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "core/import/bridge_recipe_data.h"
#include "core/util/text.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace {

using nlohmann::json;

std::vector<std::string> Strings(const json& obj, const char* key) {
  std::vector<std::string> out;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) return out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::string Str(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

struct Parsed {
  std::vector<BridgeRecipe> recipes;
  std::vector<std::string> others;
};

Parsed Parse() {
  std::string text;
  for (size_t i = 0; i < kBridgeRecipeJsonPartCount; ++i) text += kBridgeRecipeJsonParts[i];
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.contains("recipes")) {
    // The data is generated and committed; a broken file is a build defect.
    std::cerr << "parplan: embedded Bridge recipe catalog is not valid JSON\n";
    std::abort();
  }
  std::vector<BridgeRecipe> out;
  for (const auto& r : doc["recipes"]) {
    BridgeRecipe recipe;
    recipe.name = Str(r, "name");
    recipe.aliases = Strings(r, "aliases");
    recipe.task = Str(r, "task");
    recipe.model_id = Str(r, "model_id");
    recipe.provider = Str(r, "provider");
    recipe.hf_model_id = Str(r, "hf_model_id");
    recipe.gpus = r.value("gpus", int64_t{0});
    recipe.gpu = Str(r, "gpu");
    recipe.source = Str(r, "source");
    recipe.kind = Str(r, "kind");
    recipe.versions = Strings(r, "versions");
    recipe.unevaluated = Strings(r, "unevaluated");
    for (const auto& s : r["settings"]) {
      if (s.is_array() && s.size() == 2 && s[0].is_string() && s[1].is_string())
        recipe.settings.push_back({s[0].get<std::string>(), s[1].get<std::string>()});
    }
    if (auto h = r.find("history"); h != r.end() && h->is_array()) {
      for (const auto& v : *h) {
        BridgeRecipeVersion version;
        version.version = Str(v, "version");
        version.function = Str(v, "function");
        for (const auto& d : v["differs"]) {
          if (d.is_array() && d.size() == 2 && d[0].is_string() && d[1].is_string())
            version.differs.push_back({d[0].get<std::string>(), d[1].get<std::string>()});
        }
        recipe.history.push_back(std::move(version));
      }
    }
    out.push_back(std::move(recipe));
  }
  std::sort(out.begin(), out.end(), [](const BridgeRecipe& a, const BridgeRecipe& b) { return a.name < b.name; });
  return {std::move(out), Strings(doc, "other_recipes")};
}

const Parsed& Data() {
  static const Parsed* parsed = new Parsed(Parse());
  return *parsed;
}

// "recipe:Llama3-70B_pretrain_config" -> "llama3_70b_pretrain".
std::string Key(std::string_view name) {
  std::string s = absl::AsciiStrToLower(absl::StripAsciiWhitespace(absl::string_view(name.data(), name.size())));
  if (absl::StartsWith(s, "recipe:")) s = s.substr(7);
  absl::StrReplaceAll({{"-", "_"}}, &s);
  if (absl::EndsWith(s, "_config")) s.resize(s.size() - 7);
  return s;
}

}  // namespace

const std::vector<BridgeRecipe>& BridgeRecipes() { return Data().recipes; }

std::string BridgeRecipeOutsideCatalog(std::string_view name) {
  if (name.size() > 256) return "";
  const std::string key = Key(name);
  for (const auto& other : Data().others)
    if (Key(other) == key) return other;
  return "";
}

const BridgeRecipe* FindBridgeRecipe(std::string_view name) {
  if (name.size() > 256) return nullptr;
  const std::string key = Key(name);
  if (key.empty()) return nullptr;
  for (const auto& r : BridgeRecipes()) {
    if (Key(r.name) == key) return &r;
  }
  for (const auto& r : BridgeRecipes()) {
    for (const auto& a : r.aliases)
      if (Key(a) == key) return &r;
  }
  return nullptr;
}

std::vector<std::string> NearestBridgeRecipes(std::string_view name, int limit) {
  std::vector<std::string> names;
  for (const auto& r : BridgeRecipes()) {
    names.push_back(r.name);
    for (const auto& a : r.aliases) names.push_back(a);
  }
  return ClosestNames(Key(name), names, limit);
}

const BridgeSetting* FindRecipeSetting(const BridgeRecipe& recipe, std::string_view path) {
  for (const auto& s : recipe.settings)
    if (s.path == path) return &s;
  return nullptr;
}

bool RecipeInVersion(const BridgeRecipe& recipe, std::string_view version) {
  return std::find(recipe.versions.begin(), recipe.versions.end(), version) != recipe.versions.end();
}

const BridgeRecipeVersion* RecipeAtVersion(const BridgeRecipe& recipe, std::string_view version) {
  for (const auto& v : recipe.history)
    if (v.version == version) return &v;
  return nullptr;
}

}  // namespace parplan
