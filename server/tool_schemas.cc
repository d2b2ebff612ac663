#include "server/tool_schemas.h"

#include <cctype>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/util/field_error.h"
#include "google/protobuf/descriptor.pb.h"

namespace parplan {
extern const unsigned char kPlannerDescriptorSet[];
extern const std::size_t kPlannerDescriptorSetSize;

namespace api {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::SourceLocation;

enum class Direction { kInput, kOutput };

// A comment block as one paragraph: lines trimmed and joined by spaces.
std::string Paragraph(const std::string& text) {
  std::vector<std::string> words;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) words.emplace_back(line);
  }
  return absl::StrJoin(words, " ");
}

template <typename D>
std::string CommentOf(const D& d) {
  SourceLocation loc;
  if (!d.GetSourceLocation(&loc)) return "";
  const std::string lead = Paragraph(loc.leading_comments), trail = Paragraph(loc.trailing_comments);
  if (lead.empty()) return trail;
  if (trail.empty()) return lead;
  return absl::StrCat(lead, " ", trail);
}

void AddDescription(OrderedJson* schema, const std::string& text) {
  if (!text.empty()) (*schema)["description"] = text;
}

OrderedJson MessageSchema(const Descriptor& d, Direction dir, std::vector<const Descriptor*>* stack);

// Well-known types keep their proto3 JSON forms.
bool WellKnownSchema(const Descriptor& d, OrderedJson* out) {
  const std::string& name = d.full_name();
  if (name == "google.protobuf.Struct") {
    *out = {{"type", "object"}};
  } else if (name == "google.protobuf.Value") {
    *out = OrderedJson::object();
  } else if (name == "google.protobuf.ListValue") {
    *out = {{"type", "array"}};
  } else if (name == "google.protobuf.Duration" || name == "google.protobuf.Timestamp" ||
             name == "google.protobuf.FieldMask") {
    *out = {{"type", "string"}};
  } else {
    return false;
  }
  return true;
}

// The schema of one value of `f` (an element when repeated).
OrderedJson ValueSchema(const FieldDescriptor& f, Direction dir, std::vector<const Descriptor*>* stack) {
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return {{"type", "integer"}, {"minimum", INT32_MIN}, {"maximum", INT32_MAX}};
    case FieldDescriptor::CPPTYPE_UINT32:
      return {{"type", "integer"}, {"minimum", 0}, {"maximum", UINT32_MAX}};
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT64:
      // proto3 JSON prints 64-bit integers as strings and parses either form.
      if (dir == Direction::kOutput) return {{"type", "string"}, {"pattern", "^-?[0-9]+$"}};
      return {{"type", "integer"}};
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      return {{"type", "number"}};
    case FieldDescriptor::CPPTYPE_BOOL:
      return {{"type", "boolean"}};
    case FieldDescriptor::CPPTYPE_STRING:
      if (f.type() == FieldDescriptor::TYPE_BYTES) return {{"type", "string"}, {"contentEncoding", "base64"}};
      return {{"type", "string"}};
    case FieldDescriptor::CPPTYPE_ENUM: {
      OrderedJson names = OrderedJson::array();
      for (int i = 0; i < f.enum_type()->value_count(); ++i) names.push_back(f.enum_type()->value(i)->name());
      return {{"type", "string"}, {"enum", names}};
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return MessageSchema(*f.message_type(), dir, stack);
  }
  return OrderedJson::object();
}

OrderedJson FieldSchema(const FieldDescriptor& f, Direction dir, std::vector<const Descriptor*>* stack) {
  OrderedJson schema;
  if (f.is_map()) {
    schema = {{"type", "object"},
              {"additionalProperties", ValueSchema(*f.message_type()->map_value(), dir, stack)}};
  } else if (f.is_repeated()) {
    schema = {{"type", "array"}, {"items", ValueSchema(f, dir, stack)}};
  } else {
    schema = ValueSchema(f, dir, stack);
  }
  std::string text = CommentOf(f);
  if (const auto* oneof = f.real_containing_oneof(); oneof != nullptr) {
    std::vector<std::string> members;
    for (int i = 0; i < oneof->field_count(); ++i) members.push_back(oneof->field(i)->name());
    absl::StrAppend(&text, text.empty() ? "" : " ", "(Set at most one of ", absl::StrJoin(members, ", "), ".)");
  }
  // A nested message's own comment goes after the field's.
  if (schema.contains("description") && f.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    const std::string inner = schema["description"].get<std::string>();
    text = text.empty() ? inner : absl::StrCat(text, " ", inner);
  }
  AddDescription(&schema, text);
  return schema;
}

OrderedJson MessageSchema(const Descriptor& d, Direction dir, std::vector<const Descriptor*>* stack) {
  OrderedJson schema;
  if (WellKnownSchema(d, &schema)) return schema;
  for (const Descriptor* open : *stack) {
    if (open == &d) return {{"type", "object"}, {"description", absl::StrCat(d.full_name(), " (recursive)")}};
  }
  stack->push_back(&d);
  OrderedJson properties = OrderedJson::object();
  for (int i = 0; i < d.field_count(); ++i) {
    properties[d.field(i)->name()] = FieldSchema(*d.field(i), dir, stack);
  }
  stack->pop_back();
  schema = {{"type", "object"}};
  AddDescription(&schema, CommentOf(d));
  schema["properties"] = std::move(properties);
  schema["additionalProperties"] = false;
  return schema;
}

std::string TitleOf(absl::string_view rpc) {
  std::vector<std::string> words;
  for (char c : rpc) {
    if (std::isupper(static_cast<unsigned char>(c)) || words.empty()) words.emplace_back();
    words.back().push_back(c);
  }
  for (std::string& w : words) {
    if (w == "Gpus") w = "GPUs";
  }
  return absl::StrJoin(words, " ");
}

}  // namespace

absl::StatusOr<ToolFormat> ParseToolFormat(absl::string_view text, const std::string& field) {
  if (text == "mcp") return ToolFormat::kMcp;
  if (text == "openai") return ToolFormat::kOpenAi;
  if (text == "json-schema") return ToolFormat::kJsonSchema;
  return FieldError(field, absl::StrCat(field, " = \"", text, "\"; allowed mcp, openai, json-schema"));
}

std::string ToolName(absl::string_view rpc) {
  std::string out;
  for (char c : rpc) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!out.empty()) out.push_back('_');
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::vector<ToolSchema> ToolSchemasOf(const google::protobuf::ServiceDescriptor& service) {
  std::vector<ToolSchema> tools;
  for (int i = 0; i < service.method_count(); ++i) {
    const auto& method = *service.method(i);
    ToolSchema t;
    t.rpc = method.name();
    t.name = ToolName(method.name());
    t.title = TitleOf(method.name());
    t.description = CommentOf(method);
    std::vector<const Descriptor*> stack;
    t.input_schema = MessageSchema(*method.input_type(), Direction::kInput, &stack);
    t.output_schema = MessageSchema(*method.output_type(), Direction::kOutput, &stack);
    tools.push_back(std::move(t));
  }
  return tools;
}

absl::StatusOr<std::unique_ptr<google::protobuf::DescriptorPool>> PoolFromDescriptorSet(absl::string_view bytes) {
  google::protobuf::FileDescriptorSet set;
  if (!set.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError("descriptor set: not a serialized google.protobuf.FileDescriptorSet");
  }
  auto pool = std::make_unique<google::protobuf::DescriptorPool>();
  for (const auto& file : set.file()) {
    if (pool->BuildFile(file) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("descriptor set: cannot build ", file.name()));
    }
  }
  return pool;
}

const std::vector<ToolSchema>& PlannerToolSchemas() {
  static const std::vector<ToolSchema>* const tools = [] {
    auto* out = new std::vector<ToolSchema>();
    auto pool = PoolFromDescriptorSet(
        absl::string_view(reinterpret_cast<const char*>(kPlannerDescriptorSet), kPlannerDescriptorSetSize));
    const google::protobuf::ServiceDescriptor* service =
        pool.ok() ? (*pool)->FindServiceByName("parplan.v1.Planner") : nullptr;
    if (service == nullptr) {
      std::fprintf(stderr, "parplan: the embedded API descriptor set is unreadable (a build error)\n");
    } else {
      *out = ToolSchemasOf(*service);
    }
    return out;
  }();
  return *tools;
}

OrderedJson McpTool(const ToolSchema& tool) {
  OrderedJson t;
  t["name"] = tool.name;
  t["title"] = tool.title;
  t["description"] = tool.description;
  t["inputSchema"] = tool.input_schema;
  t["outputSchema"] = tool.output_schema;
  t["annotations"] = {{"title", tool.title},
                      {"readOnlyHint", true},
                      {"destructiveHint", false},
                      {"idempotentHint", true},
                      {"openWorldHint", false}};
  return t;
}

OrderedJson ExportTools(const std::vector<ToolSchema>& tools, ToolFormat format) {
  switch (format) {
    case ToolFormat::kMcp: {
      OrderedJson list = OrderedJson::array();
      for (const ToolSchema& t : tools) list.push_back(McpTool(t));
      return {{"tools", list}};
    }
    case ToolFormat::kOpenAi: {
      OrderedJson list = OrderedJson::array();
      for (const ToolSchema& t : tools) {
        list.push_back({{"type", "function"},
                        {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.input_schema}}}});
      }
      return list;
    }
    case ToolFormat::kJsonSchema: {
      OrderedJson defs = OrderedJson::object();
      for (const ToolSchema& t : tools) {
        OrderedJson in = t.input_schema, out = t.output_schema;
        in["title"] = absl::StrCat(t.name, " arguments");
        out["title"] = absl::StrCat(t.name, " result");
        defs[absl::StrCat(t.name, ".input")] = std::move(in);
        defs[absl::StrCat(t.name, ".output")] = std::move(out);
      }
      return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"$id", "urn:parplan:v1:tools"},
              {"title", "parplan tools (parplan.v1.Planner)"},
              {"description",
               "Arguments and results of every parplan tool; $defs[\"<tool>.input\"] and $defs[\"<tool>.output\"]."},
              {"$defs", defs}};
    }
  }
  return OrderedJson::object();
}

}  // namespace api
}  // namespace parplan
