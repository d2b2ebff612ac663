#include "core/import/bridge_yaml.h"

#include <exception>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/import/bridge_paths.h"
#include "core/import/imported_config.h"
#include "core/util/field_error.h"
#include "core/util/text.h"
#include "yaml-cpp/yaml.h"

namespace parplan {
namespace {

constexpr int kMaxDepth = 32;
constexpr int64_t kMaxNodes = 100000;

struct Walker {
  std::string field;
  int64_t nodes = 0;
  std::vector<BridgeValue>* out;
};

int64_t LineOf(const YAML::Node& n) { return static_cast<int64_t>(n.Mark().line) + 1; }

std::string ScalarText(const YAML::Node& n) {
  if (n.IsNull()) return "null";
  return NormalizeBridgeValue(n.Scalar());
}

// A value Bridge's YAML representers wrote as a mapping: a torch dtype or a
// function ({_target_, _call_: false}), an enum (_name_), a partial.
bool IsRepresentedValue(const YAML::Node& n, std::string* value) {
  if (!n.IsMap() || !n["_target_"]) return false;
  if (n["_name_"] && n["_name_"].IsScalar()) {
    *value = n["_name_"].Scalar();
    return true;
  }
  if ((n["_call_"] && n["_call_"].IsScalar()) || n["_partial_"]) {
    *value = n["_target_"].IsScalar() ? n["_target_"].Scalar() : "";
    return true;
  }
  return false;
}

absl::StatusOr<std::string> SequenceText(const YAML::Node& n, Walker* w, int depth);

absl::StatusOr<std::string> LeafText(const YAML::Node& n, Walker* w, int depth) {
  if (++w->nodes > kMaxNodes) return FieldError(w->field, absl::StrCat("more than ", kMaxNodes, " YAML nodes"));
  if (depth > kMaxDepth)
    return FieldError(w->field, absl::StrCat("line ", LineOf(n), ": nesting deeper than ", kMaxDepth));
  std::string v;
  if (IsRepresentedValue(n, &v)) return v;
  if (n.IsSequence()) return SequenceText(n, w, depth + 1);
  if (n.IsMap()) {
    std::vector<std::string> parts;
    for (const auto& kv : n) {
      auto t = LeafText(kv.second, w, depth + 1);
      if (!t.ok()) return t.status();
      parts.push_back(absl::StrCat(kv.first.Scalar(), ":", *t));
    }
    return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
  }
  return ScalarText(n);
}

absl::StatusOr<std::string> SequenceText(const YAML::Node& n, Walker* w, int depth) {
  std::vector<std::string> items;
  for (const auto& item : n) {
    auto t = LeafText(item, w, depth);
    if (!t.ok()) return t.status();
    const bool bare = item.IsSequence() || item.IsNull() || *t == "true" || *t == "false";
    bool number = !bare && item.IsScalar() && !t->empty();
    if (number) {
      char* end = nullptr;
      std::strtod(t->c_str(), &end);
      number = end == t->c_str() + t->size();
    }
    items.push_back(bare || number ? *t : absl::StrCat("\"", *t, "\""));
  }
  return NormalizeBridgeValue(absl::StrCat("[", absl::StrJoin(items, ","), "]"));
}

absl::Status Walk(const YAML::Node& n, const std::string& path, Walker* w, int depth) {
  if (++w->nodes > kMaxNodes) return FieldError(w->field, absl::StrCat("more than ", kMaxNodes, " YAML nodes"));
  if (depth > kMaxDepth)
    return FieldError(w->field, absl::StrCat("line ", LineOf(n), ": nesting deeper than ", kMaxDepth));
  std::string represented;
  if (n.IsMap() && !IsRepresentedValue(n, &represented)) {
    for (const auto& kv : n) {
      if (!kv.first.IsScalar())
        return FieldError(w->field, absl::StrCat("line ", LineOf(kv.first), ": a key under ", path, " is not a name"));
      const std::string key = kv.first.Scalar();
      if (auto s = Walk(kv.second, absl::StrCat(path, ".", key), w, depth + 1); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  auto text = LeafText(n, w, depth);
  if (!text.ok()) return text.status();
  w->out->push_back({path, *text, "yaml", LineOf(n), "", false, false});
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BridgeYaml> ReadBridgeYaml(std::string_view text, const std::string& field) {
  if (text.size() > kMaxImportBytes)
    return FieldError(field, absl::StrCat("the YAML is ", text.size(), " bytes; at most ", kMaxImportBytes));
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return FieldError(field, absl::StrCat("not valid YAML: line ", e.mark.line + 1, ": ", e.msg));
  }
  if (!root.IsMap())
    return FieldError(field, "a Bridge YAML is a mapping of ConfigContainer sections (model:, train:, ...)");
  BridgeYaml out;
  Walker w{field, 0, &out.settings};
  out.full =
      static_cast<bool>(root["_target_"]) || (root["model"] && root["model"].IsMap() && root["model"]["_target_"]);
  try {
    for (const auto& kv : root) {
      if (!kv.first.IsScalar())
        return FieldError(field, absl::StrCat("line ", LineOf(kv.first), ": a top-level key is not a name"));
      const std::string key = kv.first.Scalar();
      const int64_t line = LineOf(kv.first);
      if (key == "_target_") {
        out.settings.push_back({"_target_", ScalarText(kv.second), "yaml", line, "", false, false});
        continue;
      }
      if (key == "recipe") {
        if (!kv.second.IsScalar())
          return FieldError(field, absl::StrCat("line ", line, ": recipe: takes a recipe name"));
        out.recipe = kv.second.Scalar();
        out.recipe_line = line;
        continue;
      }
      if (!IsBridgeSection(key)) {
        std::vector<std::string> sections = {
            "model",     "train",      "optimizer",           "ddp",          "scheduler", "dataset", "logger",
            "tokenizer", "checkpoint", "mixed_precision",     "comm_overlap", "dist",      "rng",     "validation",
            "peft",      "profiling",  "rerun_state_machine", "env_vars"};
        return FieldError(field, absl::StrCat("line ", line, ": \"", key.substr(0, 80),
                                              "\" is not a ConfigContainer section; nearest: ",
                                              absl::StrJoin(ClosestNames(key, sections, 3), ", ")));
      }
      const YAML::Node& v = kv.second;
      const bool sectioned = key != "mixed_precision" && key != "peft" && key != "comm_overlap" && key != "env_vars";
      if (sectioned && !v.IsMap() && !v.IsNull())
        return FieldError(field, absl::StrCat("line ", line, ": section ", key,
                                              " must be a mapping of its fields (e.g. ", key, ":\\n  field: value)"));
      if (v.IsNull()) {
        out.settings.push_back({key, "null", "yaml", line, "", false, false});
        continue;
      }
      if (auto s = Walk(v, key, &w, 1); !s.ok()) return s;
    }
  } catch (const YAML::Exception& e) {
    return FieldError(field, absl::StrCat("line ", e.mark.line + 1, ": ", e.msg));
  }
  if (out.full) {
    for (auto& s : out.settings) s.lenient = true;
    out.notes.push_back("a whole Megatron Bridge ConfigContainer YAML: the model comes from its model section");
  }
  return out;
}

std::vector<BridgeOverride> YamlOverrides(const BridgeYaml& yaml) {
  std::vector<BridgeOverride> out;
  for (const auto& s : yaml.settings)
    out.push_back({OverrideOp::kSet, s.path, s.value, absl::StrCat(s.path, ": ", s.value), s.line, s.note});
  return out;
}

bool LooksLikeBridgeYaml(std::string_view text) {
  if (text.size() > kMaxImportBytes) return false;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
    if (!root.IsMap() || root.size() == 0) return false;
    bool section = false;
    for (const auto& kv : root) {
      if (!kv.first.IsScalar()) return false;
      const std::string key = kv.first.Scalar();
      if (key == "_target_" || key == "recipe") continue;
      if (!IsBridgeSection(key)) return false;
      section = true;
    }
    return section;
  } catch (const YAML::Exception&) {
    return false;
  }
}

}  // namespace parplan
