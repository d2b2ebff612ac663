// The tool schemas promise what the handlers do: every bound, closed set and
// required field in the generated schemas is sent through the API in process
// -- one past each bound and one unknown value must be refused naming that
// field, each bound and each listed value must not be -- and every required
// field left out must be refused naming it.
#include "server/api/schema_rules.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "core/util/field_error.h"
#include "gtest/gtest.h"
#include "server/api/api_methods.h"
#include "server/api/json_codec.h"
#include "server/api/tool_schemas.h"

namespace parplan {
namespace api {
namespace {

using Json = nlohmann::ordered_json;

// The fields a refusal names (FieldViolation.field), or {"<ok>"}.
std::vector<std::string> Refused(const std::string& rpc, const Json& arguments) {
  const ApiMethod* method = FindApiMethod(rpc);
  if (method == nullptr) return {"<no method>"};
  std::unique_ptr<google::protobuf::Message> request(method->request->New());
  std::unique_ptr<google::protobuf::Message> response(method->response->New());
  absl::Status status = JsonToMessage(arguments.dump(), "", request.get());
  if (status.ok()) status = method->call(*request, response.get(), absl::Now() + absl::Milliseconds(300));
  if (status.ok()) return {"<ok>"};
  std::vector<std::string> fields;
  for (const auto& v : FieldViolationsOf(status)) fields.push_back(v.field);
  if (fields.empty()) fields.push_back(absl::StrCat("<", status.message(), ">"));
  return fields;
}

bool Names(const std::vector<std::string>& fields, const std::string& path) {
  for (const auto& f : fields) {
    if (f == path || absl::EndsWith(f, absl::StrCat(".", path)) || f == absl::StrCat(".", path)) return true;
  }
  return false;
}

// The smallest arguments the tool accepts as a context for one field.
Json BaseArguments(const ToolSchema& tool) {
  Json a = Json::object();
  for (const std::string& field : RequiredFields(tool.rpc, "")) {
    if (field == "model") a["model"] = {{"id", "llama3_8b"}};
    if (field == "placement") a["placement"] = {{"system", "h100-sxm"}, {"gpus", 8}};
  }
  if (NeedsSomeField(tool.rpc)) a["system"] = "h100-sxm";
  // Issue 34's calls: a recipe, a log of a steady run, one calibration run.
  const std::string log =
      " iteration 1/ 100 | elapsed time per iteration (ms): 90000.0 | global batch size: 512 |\n"
      " iteration 2/ 100 | elapsed time per iteration (ms): 50000.0 | global batch size: 512 |\n"
      " iteration 3/ 100 | elapsed time per iteration (ms): 50100.0 | global batch size: 512 |\n";
  for (const std::string& field : RequiredFields(tool.rpc, "")) {
    if (field == "text") a["text"] = "recipe:llama3_8b_pretrain_config";
    if (field == "log") a["log"] = log;
    if (field == "runs") {
      a["runs"] = Json::array({{{"log", log},
                                {"config_text", "recipe:llama3_8b_pretrain_config"},
                                {"placement", {{"system", "h100-sxm"}, {"gpus", 8}}}}});
    }
  }
  return a;
}

// `base` with `value` at the dotted `path`; a value inside the model's oneof
// replaces the model.
Json With(Json base, const std::string& path, const Json& value) {
  const std::vector<std::string> parts = absl::StrSplit(path, '.');
  if (parts[0] == "model") base["model"] = Json::object();
  Json* node = &base;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!node->contains(parts[i]) || !(*node)[parts[i]].is_object()) (*node)[parts[i]] = Json::object();
    node = &(*node)[parts[i]];
  }
  (*node)[parts.back()] = value;
  return base;
}

struct Leaf {
  std::string path;
  Json schema;
  std::string enclosing;  // the comments of the messages around it
};

// Every leaf of a shared (JSON Schema export) input schema, $refs resolved.
void Leaves(const Json& schema, const Json& defs, const std::string& path, int depth, std::vector<Leaf>* out,
            const std::string& enclosing = "") {
  if (depth > 6) return;
  if (schema.contains("$ref")) {
    const std::string key = schema["$ref"].get<std::string>().substr(8);
    Leaves(defs[key], defs, path, depth + 1, out, enclosing);
    return;
  }
  if (schema.contains("properties")) {
    const std::string words = absl::StrCat(enclosing, " ", schema.value("description", ""));
    for (const auto& [name, property] : schema["properties"].items()) {
      Leaves(property, defs, path.empty() ? name : absl::StrCat(path, ".", name), depth + 1, out, words);
    }
    return;
  }
  out->push_back({path, schema, enclosing});
}

// The ways a proto comment writes `n`: 4096, 4,096, 2^12, 1e6, 1 MiB, 0.5.
std::vector<std::string> Spellings(double n) {
  std::vector<std::string> out;
  if (n != static_cast<double>(static_cast<int64_t>(n))) {
    out.push_back(absl::StrCat(n));
    return out;
  }
  const int64_t v = static_cast<int64_t>(n);
  out.push_back(absl::StrCat(v));
  std::string digits = absl::StrCat(v), grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(digits[i]);
  }
  out.push_back(grouped);
  for (int k = 10; k < 40; ++k) {
    if (v == (int64_t{1} << k)) out.push_back(absl::StrCat("2^", k));
  }
  for (int k = 3; k < 13; ++k) {
    int64_t p = 1;
    for (int i = 0; i < k; ++i) p *= 10;
    if (v == p) out.push_back(absl::StrCat("1e", k));
  }
  if (v > 0 && v % (int64_t{1} << 20) == 0) out.push_back(absl::StrCat(v >> 20, " MiB"));
  return out;
}

// The proto comments state the limits the handlers enforce (the numbers of
// core/util/limits.h): each bound appears in the field's comment or in the
// comment of a message around it.
TEST(SchemaRulesTest, ProtoCommentsStateTheLimits) {
  int checked = 0;
  for (const ToolSchema& tool : PlannerToolSchemas()) {
    std::vector<Leaf> leaves;
    Leaves(tool.shared_input_schema, tool.shared_defs, "", 0, &leaves);
    for (const Leaf& leaf : leaves) {
      const Json& item = leaf.schema.value("type", "") == "array" ? leaf.schema["items"] : leaf.schema;
      std::vector<double> bounds;
      if (item.contains("maximum")) bounds.push_back(item["maximum"].get<double>());
      if (item.contains("maxLength")) bounds.push_back(item["maxLength"].get<double>());
      const std::string words = absl::StrCat(leaf.schema.value("description", ""), " ", leaf.enclosing);
      for (double bound : bounds) {
        bool stated = false;
        for (const std::string& spelling : Spellings(bound)) stated |= words.find(spelling) != std::string::npos;
        EXPECT_TRUE(stated) << tool.name << " " << leaf.path << ": the proto comment should state the limit "
                            << Spellings(bound)[1] << " (" << leaf.schema.value("description", "") << ")";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(SchemaRulesTest, BoundsAndValuesAreWhatTheHandlersAccept) {
  int checked = 0;
  for (const ToolSchema& tool : PlannerToolSchemas()) {
    std::vector<Leaf> leaves;
    Leaves(tool.shared_input_schema, tool.shared_defs, "", 0, &leaves);
    const Json base = BaseArguments(tool);
    for (const Leaf& leaf : leaves) {
      const Json& s = leaf.schema;
      const bool array = s.value("type", "") == "array";
      const Json& item = array ? s["items"] : s;
      const std::string where = absl::StrCat(tool.name, " ", leaf.path);
      auto wrap = [array](const Json& v) { return array ? Json::array({v}) : v; };
      if (item.contains("maximum")) {
        const bool integer = item["type"] == "integer";
        const double max = item["maximum"].get<double>();
        const Json over = integer ? Json(static_cast<int64_t>(max) + 1) : Json(max * 1.5 + 1);
        EXPECT_TRUE(Names(Refused(tool.rpc, With(base, leaf.path, wrap(over))), leaf.path)) << where << " = " << over;
        // Recommend would search at the bound (its refusals are checked
        // above); a rank at the static bound exceeds this context's world,
        // GPUs per NVLink domain at it this context's domain.
        if (tool.rpc != "Recommend" && leaf.path != "rank" && leaf.path != "placement.gpus_per_nvlink_domain") {
          const auto at = Refused(tool.rpc, With(base, leaf.path, wrap(item["maximum"])));
          EXPECT_FALSE(Names(at, leaf.path)) << where << " = max: " << absl::StrJoin(at, ", ");
        }
        ++checked;
      }
      if (item.contains("minimum")) {
        const double min = item["minimum"].get<double>();
        const Json under = item["type"] == "integer" ? Json(static_cast<int64_t>(min) - 1) : Json(min - 1);
        EXPECT_TRUE(Names(Refused(tool.rpc, With(base, leaf.path, wrap(under))), leaf.path)) << where << " = " << under;
        ++checked;
      }
      if (item.contains("exclusiveMinimum")) {
        EXPECT_TRUE(Names(Refused(tool.rpc, With(base, leaf.path, wrap(item["exclusiveMinimum"]))), leaf.path))
            << where << " = exclusive minimum";
        ++checked;
      }
      if (item.contains("enum") && item["type"] == "string") {
        for (const auto& value : item["enum"]) {
          const auto got = Refused(tool.rpc, With(base, leaf.path, wrap(value)));
          EXPECT_FALSE(Names(got, leaf.path)) << where << " = " << value << ": " << absl::StrJoin(got, ", ");
        }
        EXPECT_TRUE(Names(Refused(tool.rpc, With(base, leaf.path, wrap("zz-unknown"))), leaf.path)) << where;
        ++checked;
      }
      if (s.contains("maxItems")) {
        Json many = Json::array();
        const Json one = item.contains("enum")                ? item["enum"][0]
                         : item.value("type", "") == "string" ? Json("x")
                                                              : Json::object();
        for (int i = 0; i <= s["maxItems"].get<int>(); ++i) many.push_back(one);
        EXPECT_TRUE(Names(Refused(tool.rpc, With(base, leaf.path, many)), leaf.path)) << where << " items";
        ++checked;
      }
      if (item.contains("maxLength")) {
        const std::string long_text(item["maxLength"].get<size_t>() + 1, 'a');
        EXPECT_TRUE(Names(Refused(tool.rpc, With(base, leaf.path, long_text)), leaf.path)) << where << " length";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(SchemaRulesTest, RequiredFieldsAreRequired) {
  int checked = 0;
  for (const ToolSchema& tool : PlannerToolSchemas()) {
    const Json base = BaseArguments(tool);
    for (const std::string& field : RequiredFields(tool.rpc, "")) {
      Json without = base;
      without.erase(field);
      const auto got = Refused(tool.rpc, without);
      bool named = false;
      for (const auto& f : got) named |= absl::StartsWith(f, field);
      EXPECT_TRUE(named) << tool.name << " without " << field << ": " << absl::StrJoin(got, ", ");
      ++checked;
    }
    for (const std::string& field : RequiredFields(tool.rpc, "placement")) {
      Json without = base;
      without["placement"].erase(field);
      EXPECT_TRUE(Names(Refused(tool.rpc, without), absl::StrCat("placement.", field))) << tool.name;
      ++checked;
    }
    if (NeedsSomeField(tool.rpc)) {
      EXPECT_EQ(tool.input_schema["minProperties"], 1) << tool.name;
      EXPECT_NE(Refused(tool.rpc, Json::object()), std::vector<std::string>{"<ok>"}) << tool.name;
      ++checked;
    }
    // With them all, the call goes through.
    EXPECT_EQ(Refused(tool.rpc, base), std::vector<std::string>{"<ok>"}) << tool.name;
  }
  EXPECT_GE(checked, 7);
}

}  // namespace
}  // namespace api
}  // namespace parplan
