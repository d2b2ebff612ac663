// A JSON Schema 2020-12 checker for the keywords parplan's generated schemas
// use (tests only): $ref to "#/..." pointers of the same document, type
// (one or a list), properties, required, additionalProperties (false or a
// schema), items, enum, minimum, maximum, exclusiveMinimum, maxLength,
// maxItems, minProperties, maxProperties, pattern. Annotations (title,
// description, contentEncoding, $schema, $id) are ignored. Any other keyword
// is reported as an error, so a schema that grows a keyword this checker
// does not know cannot pass unchecked.
#ifndef PARPLAN_TESTS_SERVER_JSON_SCHEMA_CHECK_H_
#define PARPLAN_TESTS_SERVER_JSON_SCHEMA_CHECK_H_

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace testing_schema {

using Json = nlohmann::json;

class SchemaChecker {
 public:
  // `root` holds the schemas and every "#/..." a $ref names.
  explicit SchemaChecker(const Json& root) : root_(root) {}

  // The problems of `value` against `schema` ("path: what"); empty = valid.
  std::vector<std::string> Check(const Json& value, const Json& schema) {
    errors_.clear();
    Visit(value, schema, "$", 0);
    return errors_;
  }

 private:
  void Fail(const std::string& path, const std::string& what) { errors_.push_back(absl::StrCat(path, ": ", what)); }

  const Json* Resolve(const std::string& ref, const std::string& path) {
    if (ref.rfind("#/", 0) != 0) {
      Fail(path, absl::StrCat("$ref ", ref, " is not a local pointer"));
      return nullptr;
    }
    const Json* node = &root_;
    for (absl::string_view part : absl::StrSplit(ref.substr(2), '/')) {
      const std::string key = absl::StrReplaceAll(part, {{"~1", "/"}, {"~0", "~"}});
      if (!node->is_object() || !node->contains(key)) {
        Fail(path, absl::StrCat("$ref ", ref, " names nothing"));
        return nullptr;
      }
      node = &(*node)[key];
    }
    return node;
  }

  static bool HasType(const Json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    if (type == "number") return v.is_number();
    if (type == "integer") {
      return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<int64_t>(v.get<double>()));
    }
    return false;
  }

  void Visit(const Json& v, const Json& schema, const std::string& path, int depth) {
    if (depth > 64) {
      Fail(path, "schema nested too deep (a $ref cycle?)");
      return;
    }
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) Fail(path, "no value is allowed here");
      return;
    }
    if (!schema.is_object()) {
      Fail(path, "schema is not an object");
      return;
    }
    static const std::set<std::string> kIgnored = {"title",   "description", "contentEncoding",
                                                   "$schema", "$id",         "$defs"};
    static const std::set<std::string> kKnown = {
        "$ref",      "type",     "properties",    "required",      "additionalProperties",
        "items",     "enum",     "minimum",       "maximum",       "exclusiveMinimum",
        "maxLength", "maxItems", "minProperties", "maxProperties", "pattern"};
    for (const auto& [key, unused] : schema.items()) {
      if (kIgnored.count(key) == 0 && kKnown.count(key) == 0) Fail(path, absl::StrCat("unknown keyword ", key));
    }
    if (schema.contains("$ref")) {
      if (const Json* target = Resolve(schema["$ref"].get<std::string>(), path)) Visit(v, *target, path, depth + 1);
    }
    if (schema.contains("type")) {
      const Json& t = schema["type"];
      bool ok = false;
      if (t.is_string()) ok = HasType(v, t.get<std::string>());
      for (const Json& one : t.is_array() ? t : Json::array()) ok = ok || HasType(v, one.get<std::string>());
      if (!ok) {
        Fail(path, absl::StrCat("expected type ", t.dump(), ", got ", v.dump().substr(0, 80)));
        return;
      }
    }
    if (schema.contains("enum")) {
      bool found = false;
      for (const Json& e : schema["enum"]) found = found || e == v;
      if (!found) Fail(path, absl::StrCat(v.dump(), " is not one of ", schema["enum"].dump()));
    }
    if (v.is_number()) {
      const double x = v.get<double>();
      if (schema.contains("minimum") && x < schema["minimum"].get<double>()) Fail(path, "below minimum");
      if (schema.contains("maximum") && x > schema["maximum"].get<double>()) Fail(path, "above maximum");
      if (schema.contains("exclusiveMinimum") && x <= schema["exclusiveMinimum"].get<double>()) {
        Fail(path, "not above exclusiveMinimum");
      }
    }
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      if (schema.contains("maxLength") && s.size() > schema["maxLength"].get<size_t>()) Fail(path, "too long");
      if (schema.contains("pattern") && !std::regex_search(s, std::regex(schema["pattern"].get<std::string>()))) {
        Fail(path, absl::StrCat("\"", s.substr(0, 40), "\" does not match ", schema["pattern"].get<std::string>()));
      }
    }
    if (v.is_array()) {
      if (schema.contains("maxItems") && v.size() > schema["maxItems"].get<size_t>()) Fail(path, "too many items");
      if (schema.contains("items")) {
        for (size_t i = 0; i < v.size(); ++i) Visit(v[i], schema["items"], absl::StrCat(path, "[", i, "]"), depth + 1);
      }
    }
    if (v.is_object()) {
      if (schema.contains("minProperties") && v.size() < schema["minProperties"].get<size_t>()) {
        Fail(path, "too few properties");
      }
      if (schema.contains("maxProperties") && v.size() > schema["maxProperties"].get<size_t>()) {
        Fail(path, "too many properties");
      }
      for (const Json& name : schema.value("required", Json::array())) {
        if (!v.contains(name.get<std::string>())) Fail(path, absl::StrCat("missing required ", name.dump()));
      }
      const Json properties = schema.value("properties", Json::object());
      for (const auto& [key, item] : v.items()) {
        const std::string child = absl::StrCat(path, ".", key);
        if (properties.contains(key)) {
          Visit(item, properties[key], child, depth + 1);
        } else if (schema.contains("additionalProperties")) {
          Visit(item, schema["additionalProperties"], child, depth + 1);
        }
      }
    }
  }

  const Json& root_;
  std::vector<std::string> errors_;
};

}  // namespace testing_schema
}  // namespace parplan

#endif  // PARPLAN_TESTS_SERVER_JSON_SCHEMA_CHECK_H_
