#include "server/api/tool_schemas.h"

#include <cctype>
#include <algorithm>
#include <cstdio>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/util/field_error.h"
#include "server/api/output_schemas.h"
#include "server/api/schema_rules.h"
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

// How a schema is written. kLean (MCP, OpenAI arguments): inline, first
// sentences as descriptions, the inline model architecture and system
// figures field by field with types only, config fields the tool does not
// read left out. kShared (JSON Schema export): every message once under
// $defs with its full comments, referenced by $ref.
enum class Detail { kLean, kShared };

// How a collapsed object names the tool that lists its fields.
constexpr char kFieldsPointer[] = " Fields: as in ";

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

// The first sentence, whole (it ends at the first ". "); the lean form
// leaves out the sentences after it but never cuts one.
std::string LeanText(const std::string& text) {
  std::string out = text;
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '.' && out[i + 1] == ' ') {
      out.resize(i + 1);
      break;
    }
  }
  return out;
}

void AddDescription(OrderedJson* schema, const std::string& text) {
  if (!text.empty()) (*schema)["description"] = text;
}

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

// True when every field of `d` is a member of one oneof (ModelRef).
bool AllOneOf(const Descriptor& d) {
  if (d.field_count() == 0 || d.real_oneof_decl_count() != 1) return false;
  return d.oneof_decl(0)->field_count() == d.field_count() && !d.oneof_decl(0)->is_synthetic();
}

class SchemaWriter {
 public:
  SchemaWriter(Detail detail, Direction dir, std::string rpc, OrderedJson* defs, bool bare = false)
      : detail_(detail), dir_(dir), rpc_(std::move(rpc)), defs_(defs), bare_(bare) {}

  // The schema of a request or response message, written inline at the top
  // (its required fields depend on the tool).
  OrderedJson Top(const Descriptor& d) { return Body(d, ""); }

 private:
  // A scalar field's type with its bounds or values from server/api/schema_rules.h.
  OrderedJson Scalar(const FieldDescriptor& f, const FieldRule* rule) {
    OrderedJson s;
    switch (f.cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_UINT32:
        s = {{"type", "integer"}};
        break;
      case FieldDescriptor::CPPTYPE_INT64:
      case FieldDescriptor::CPPTYPE_UINT64:
        // proto3 JSON prints 64-bit integers as strings and parses either form.
        if (dir_ == Direction::kOutput) return {{"type", "string"}, {"pattern", "^-?[0-9]+$"}};
        s = {{"type", "integer"}};
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
      case FieldDescriptor::CPPTYPE_FLOAT:
        s = {{"type", "number"}};
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        return {{"type", "boolean"}};
      case FieldDescriptor::CPPTYPE_STRING:
        if (f.type() == FieldDescriptor::TYPE_BYTES) return {{"type", "string"}, {"contentEncoding", "base64"}};
        s = {{"type", "string"}};
        break;
      case FieldDescriptor::CPPTYPE_ENUM: {
        OrderedJson names = OrderedJson::array();
        for (int i = 0; i < f.enum_type()->value_count(); ++i) names.push_back(f.enum_type()->value(i)->name());
        return {{"type", "string"}, {"enum", names}};
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return OrderedJson::object();
    }
    if (rule == nullptr || dir_ == Direction::kOutput) return s;
    if (!rule->choices.empty()) s["enum"] = rule->choices;
    if (bare_) return s;
    const bool integer = s["type"] == "integer";
    auto bound = [integer](double v) { return integer ? OrderedJson(static_cast<int64_t>(v)) : OrderedJson(v); };
    if (rule->minimum) s["minimum"] = bound(*rule->minimum);
    if (rule->exclusive_minimum) s["exclusiveMinimum"] = bound(*rule->exclusive_minimum);
    if (rule->maximum) s["maximum"] = bound(*rule->maximum);
    if (rule->max_length && !f.is_repeated()) s["maxLength"] = *rule->max_length;
    return s;
  }

  OrderedJson Field(const FieldDescriptor& f, const std::string& path) {
    const FieldRule* rule = FieldRuleOf(f.containing_type()->name(), f.name());
    OrderedJson schema;
    if (f.is_map()) {
      const FieldDescriptor& v = *f.message_type()->map_value();
      schema = {
          {"type", "object"},
          {"additionalProperties",
           v.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ? Message(*v.message_type(), path) : Scalar(v, nullptr)}};
    } else {
      OrderedJson value =
          f.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ? Message(*f.message_type(), path) : Scalar(f, rule);
      if (!f.is_repeated()) {
        schema = std::move(value);
      } else {
        schema = {{"type", "array"}, {"items", std::move(value)}};
        if (rule != nullptr && rule->max_length && dir_ == Direction::kInput && !bare_) {
          schema["maxItems"] = *rule->max_length;
        }
      }
    }
    std::string text = CommentOf(f);
    const bool lean = detail_ == Detail::kLean;
    if (const auto* oneof = f.real_containing_oneof(); oneof != nullptr && !AllOneOf(*f.containing_type())) {
      std::vector<std::string> members;
      for (int i = 0; i < oneof->field_count(); ++i) members.push_back(oneof->field(i)->name());
      absl::StrAppend(&text, text.empty() ? "" : " ", "(Set at most one of ", absl::StrJoin(members, ", "), ".)");
    }
    if (lean) {
      // Config fields are named as in Megatron and need no words here, nor
      // do the fields of a bare (collapsed) message.
      if (bare_ || f.containing_type()->name() == "ParallelConfig") return schema;
      text = LeanText(text);
    }
    // An inline nested message's own comment goes after the field's.
    if (schema.contains("description") && f.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      const std::string inner = schema["description"].get<std::string>();
      const size_t pointer = inner.find(kFieldsPointer);  // where a collapsed object's fields are listed
      if (lean && pointer != std::string::npos && !text.empty()) {
        text = absl::StrCat(text, absl::EndsWith(text, ".") ? "" : ".", inner.substr(pointer));
      } else {
        text = text.empty() ? inner : (lean ? text : absl::StrCat(text, " ", inner));
      }
    }
    // Beside a $ref the description applies to the field (JSON Schema 2020-12).
    AddDescription(&schema, text);
    return schema;
  }

  // A nested message: a $ref (shared) or inline (lean), plus what this tool
  // requires at `path`.
  OrderedJson Message(const Descriptor& d, const std::string& path) {
    OrderedJson schema;
    if (WellKnownSchema(d, &schema)) return schema;
    const std::vector<std::string> required =
        dir_ == Direction::kInput ? RequiredFields(rpc_, path) : std::vector<std::string>{};
    if (detail_ == Detail::kShared) {
      const std::string key = dir_ == Direction::kInput ? d.name() : absl::StrCat(d.name(), ".result");
      if (!defs_->contains(key)) {
        (*defs_)[key] = OrderedJson::object();  // placeholder: recursion stops here
        SchemaWriter shared(detail_, dir_, "", defs_);
        (*defs_)[key] = shared.Body(d, "");
      }
      schema = {{"$ref", absl::StrCat("#/$defs/", key)}};
      if (!required.empty()) schema["required"] = required;
      return schema;
    }
    for (const Descriptor* open : stack_) {
      if (open == &d) return {{"type", "object"}, {"description", absl::StrCat(d.full_name(), " (recursive)")}};
    }
    if (dir_ == Direction::kInput && !bare_) {
      // The request parts most tools share (model, placement, config) are
      // listed in full in one tool, their home; the others point there (a
      // config naming the fields the tool reads), so tools/list carries each
      // list once.
      const LeanHome home = LeanHomeOf(d.name());
      if (!home.tool.empty() && (ToolName(rpc_) != home.tool || !home.listed)) return Pointer(d, home, path);
    }
    if (dir_ == Direction::kInput && CollapsedInLeanSchemas(d.name()) && !bare_) {
      // Field by field (types and closed sets of values, without words or
      // bounds: those are in the JSON Schema export, and the server names any
      // wrong field precisely) in the tool that resolves it, get_model or
      // get_system.
      SchemaWriter bare(detail_, dir_, "", nullptr, /*bare=*/true);
      OrderedJson out = bare.Body(d, "");
      out["description"] = LeanText(CommentOf(d));
      return out;
    }
    stack_.push_back(&d);
    schema = Body(d, path);
    stack_.pop_back();
    return schema;
  }

  // `d` where another tool lists it: its first sentence, where its fields
  // are listed, what this tool requires of it; a config names the fields
  // this tool reads.
  OrderedJson Pointer(const Descriptor& d, const LeanHome& home, const std::string& path) {
    std::string text = absl::StrCat(LeanText(CommentOf(d)), kFieldsPointer, home.tool, "'s ", home.path);
    const std::vector<std::string>* read = d.name() == "ParallelConfig" ? ConfigFieldsRead(rpc_) : nullptr;
    if (read != nullptr) absl::StrAppend(&text, " (reads ", absl::StrJoin(*read, ", "), ")");
    text += ".";
    OrderedJson schema = {{"type", "object"}, {"description", text}};
    const std::vector<std::string> required = RequiredFields(rpc_, path);
    if (!required.empty()) schema["required"] = required;
    if (AllOneOf(d)) schema["maxProperties"] = 1;
    return schema;
  }

  // An object's properties, required fields and description.
  OrderedJson Body(const Descriptor& d, const std::string& path) {
    const bool lean = detail_ == Detail::kLean;
    OrderedJson properties = OrderedJson::object();
    for (int i = 0; i < d.field_count(); ++i) {
      const FieldDescriptor& f = *d.field(i);
      if (lean && HiddenInLeanSchemas(d.name(), f.name())) continue;
      properties[f.name()] = Field(f, path.empty() ? f.name() : absl::StrCat(path, ".", f.name()));
    }
    // What a call must give. The export's results name none (MCP's
    // outputSchemas do: server/api/output_schemas.h).
    const std::vector<std::string> required =
        dir_ == Direction::kInput ? RequiredFields(rpc_, path) : std::vector<std::string>{};
    for (const std::string& name : required) {
      // A required "one of four ways" message needs exactly one.
      const FieldDescriptor* f = d.FindFieldByName(name);
      if (f != nullptr && f->message_type() != nullptr && AllOneOf(*f->message_type())) {
        properties[name]["minProperties"] = 1;
      }
    }
    OrderedJson schema = {{"type", "object"}};
    std::string text = CommentOf(d);
    if (lean) text = LeanText(text);
    AddDescription(&schema, text);
    schema["properties"] = std::move(properties);
    if (!required.empty()) schema["required"] = required;
    if (AllOneOf(d) && dir_ == Direction::kInput) schema["maxProperties"] = 1;
    if (path.empty() && dir_ == Direction::kInput && NeedsSomeField(rpc_)) schema["minProperties"] = 1;
    if (!lean) schema["additionalProperties"] = false;
    return schema;
  }

  Detail detail_;
  Direction dir_;
  std::string rpc_;
  OrderedJson* defs_;
  bool bare_;
  std::vector<const Descriptor*> stack_;
};

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
  std::vector<OrderedJson> outputs = McpOutputSchemas(service);
  for (int i = 0; i < service.method_count(); ++i) {
    const auto& method = *service.method(i);
    ToolSchema t;
    t.rpc = method.name();
    t.name = ToolName(method.name());
    t.title = TitleOf(method.name());
    t.description = CommentOf(method);
    t.input_schema = SchemaWriter(Detail::kLean, Direction::kInput, t.rpc, nullptr).Top(*method.input_type());
    t.shared_defs = OrderedJson::object();
    t.shared_input_schema =
        SchemaWriter(Detail::kShared, Direction::kInput, t.rpc, &t.shared_defs).Top(*method.input_type());
    t.shared_output_schema =
        SchemaWriter(Detail::kShared, Direction::kOutput, t.rpc, &t.shared_defs).Top(*method.output_type());
    t.output_schema = std::move(outputs[i]);
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
  // Read-only (so the destructive and idempotent hints, which MCP defines
  // only for tools that write, are left out) and closed-world.
  t["annotations"] = {{"readOnlyHint", true}, {"openWorldHint", false}};
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
        list.push_back(
            {{"type", "function"},
             {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.input_schema}}}});
      }
      return list;
    }
    case ToolFormat::kJsonSchema: {
      // One document: each tool's arguments and result, and every message
      // they use once (input forms by name, result forms as "<name>.result").
      OrderedJson defs = OrderedJson::object();
      for (const ToolSchema& t : tools) {
        OrderedJson in = t.shared_input_schema, out = t.shared_output_schema;
        in["title"] = absl::StrCat(t.name, " arguments");
        out["title"] = absl::StrCat(t.name, " result");
        defs[absl::StrCat(t.name, ".input")] = std::move(in);
        defs[absl::StrCat(t.name, ".output")] = std::move(out);
      }
      std::map<std::string, OrderedJson> messages;  // sorted, so the document is stable
      for (const ToolSchema& t : tools) {
        for (const auto& [key, schema] : t.shared_defs.items()) messages.emplace(key, schema);
      }
      for (auto& [key, schema] : messages) defs[key] = std::move(schema);
      return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"$id", "urn:parplan:v1:tools"},
              {"title", "parplan tools (parplan.v1.Planner)"},
              {"description",
               "Arguments and results of every parplan tool: $defs[\"<tool>.input\"] and $defs[\"<tool>.output\"]; "
               "the messages they use are defined once under their proto names (results as \"<name>.result\")."},
              {"$defs", defs}};
    }
  }
  return OrderedJson::object();
}

}  // namespace api
}  // namespace parplan
