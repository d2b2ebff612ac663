#include "server/api/output_schemas.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/api/tool_schemas.h"

namespace parplan {
namespace api {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using Json = nlohmann::ordered_json;

// A field every answer prints (json_codec.h: every field without presence).
bool AlwaysPrinted(const FieldDescriptor& f) {
  if (f.is_repeated()) return true;
  return f.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE && !f.has_presence();
}

bool WellKnown(const Descriptor& d) { return d.file()->package() == "google.protobuf"; }

// The messages described field by field (the rest are objects): the items
// an assistant reads one by one (plans, violations, stages, groups, memory
// suggestions, models, resolved settings) and what ranks a plan.
// More do not fit tools/list's budget (tests/server/mcp_sizes_test.cc);
// every message is described in the JSON Schema export.
bool Described(const std::string& message) {
  static const auto* described = new std::set<std::string>{
      "PlanSummary", "PerformanceBreakdown", "RejectedPlans",    "Violation",        "ResolvedSetting",
      "StageLayers", "StageMemory",          "MemorySuggestion", "GroupKindSummary", "ModelSummary"};
  return described->count(message) > 0;
}

class OutputWriter {
 public:
  // `homes`: the tool whose schema defines each message, filled as tools are written.
  OutputWriter(std::string tool, std::map<std::string, std::string>* homes) : tool_(std::move(tool)), homes_(homes) {}

  Json Top(const Descriptor& d) {
    Json schema = Body(d);
    if (!defs_.empty()) schema["$defs"] = std::move(defs_);
    return schema;
  }

 private:
  Json Body(const Descriptor& d) {
    Json properties = Json::object();
    Json required = Json::array();
    for (int i = 0; i < d.field_count(); ++i) {
      const FieldDescriptor& f = *d.field(i);
      Json field = Field(f);
      if (!field.empty()) properties[f.name()] = std::move(field);
      if (AlwaysPrinted(f)) required.push_back(f.name());
    }
    Json schema = {{"type", "object"}};
    if (!properties.empty()) schema["properties"] = std::move(properties);
    if (!required.empty()) schema["required"] = std::move(required);
    return schema;
  }

  // A message field's schema; scalars are named in `required` only.
  Json Field(const FieldDescriptor& f) {
    if (f.is_map()) return {{"type", "object"}};
    if (f.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return Json::object();
    const Descriptor& d = *f.message_type();
    if (WellKnown(d)) return Json::object();
    // A message described in another tool's schema (or in the arguments):
    // inside a described item (a plan's config, breakdown, violations) a
    // definition naming where; at the answer's top level a bare object (a
    // pointer there costs tools/list ~75 bytes, tests/server/mcp_sizes_test.cc).
    const auto home = homes_->find(d.name());
    const bool elsewhere = !ArgumentFieldList(d.name()).empty() || (home != homes_->end() && home->second != tool_);
    if ((!Described(d.name()) && ArgumentFieldList(d.name()).empty()) || (elsewhere && depth_ == 0)) {
      return {{"type", f.is_repeated() ? "array" : "object"}};
    }
    Define(d);
    Json value = {{"$ref", absl::StrCat("#/$defs/", d.name())}};
    if (!f.is_repeated()) return value;
    return {{"type", "array"}, {"items", std::move(value)}};
  }

  // Puts `d` in this schema's $defs: in full where it is first met, else
  // an object naming where its fields are listed.
  void Define(const Descriptor& d) {
    const std::string& name = d.name();
    if (defs_.contains(name)) return;
    const std::string argument = ArgumentFieldList(name);
    if (!argument.empty()) {
      defs_[name] = {{"type", "object"}, {"description", absl::StrCat("Fields as in ", argument, ".")}};
      return;
    }
    const auto home = homes_->find(name);
    if (home != homes_->end() && home->second != tool_) {
      defs_[name] = {{"type", "object"}, {"description", absl::StrCat("See ", home->second, ".")}};
      return;
    }
    (*homes_)[name] = tool_;
    defs_[name] = Json::object();  // placeholder: a recursive message stops here
    ++depth_;
    defs_[name] = Body(d);
    --depth_;
  }

  std::string tool_;
  std::map<std::string, std::string>* homes_;
  int depth_ = 0;  // 0 = the answer's own fields
  Json defs_ = Json::object();
};

}  // namespace

std::string ArgumentFieldList(const std::string& message) {
  static const auto* lists = new std::map<std::string, std::string>{
      {"ParallelConfig", "validate's config (only the fields set are printed)"},
      {"Placement", "validate's placement"},
      {"ModelArchitecture", "the arguments' model.spec"},
      {"SystemSpec", "get_system's system_spec"},
  };
  const auto it = lists->find(message);
  return it == lists->end() ? "" : it->second;
}

std::vector<Json> McpOutputSchemas(const google::protobuf::ServiceDescriptor& service) {
  std::map<std::string, std::string> homes;
  std::vector<Json> out;
  for (int i = 0; i < service.method_count(); ++i) {
    const auto& method = *service.method(i);
    out.push_back(OutputWriter(ToolName(method.name()), &homes).Top(*method.output_type()));
  }
  return out;
}

}  // namespace api
}  // namespace parplan
