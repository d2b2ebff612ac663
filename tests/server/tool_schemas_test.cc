// Tool schemas generated from the proto: every RPC is a tool, the schemas
// match the committed goldens, and a proto change changes the schemas with no
// hand edits (a modified copy of planner.proto is compiled by protoc here).
//
// After an intended API change, regenerate the goldens with
//   PARPLAN_UPDATE_GOLDENS=1 build/tests/server_tool_schemas_test
#include "server/api/tool_schemas.h"

#include <cstdio>
#include <functional>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parplan/v1/planner.pb.h"
#include "server/api/api_methods.h"

namespace parplan {
namespace api {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const google::protobuf::ServiceDescriptor* GeneratedService() {
  return google::protobuf::DescriptorPool::generated_pool()->FindServiceByName("parplan.v1.Planner");
}

TEST(ToolSchemasTest, EveryRpcIsAToolWithItsTypesAndACall) {
  const auto* service = GeneratedService();
  ASSERT_NE(service, nullptr);
  const auto& tools = PlannerToolSchemas();
  ASSERT_EQ(static_cast<int>(tools.size()), service->method_count());
  ASSERT_EQ(static_cast<int>(ApiMethods().size()), service->method_count());
  for (int i = 0; i < service->method_count(); ++i) {
    const auto* method = service->method(i);
    EXPECT_EQ(tools[i].rpc, method->name());
    EXPECT_FALSE(tools[i].description.empty()) << method->name() << " needs a comment in the proto";
    const ApiMethod* call = FindApiMethod(method->name());
    ASSERT_NE(call, nullptr) << method->name() << " is missing from server/api/api_methods.cc";
    EXPECT_EQ(call->request->GetDescriptor()->full_name(), method->input_type()->full_name());
    EXPECT_EQ(call->response->GetDescriptor()->full_name(), method->output_type()->full_name());
  }
  EXPECT_EQ(ToolName("MinGpus"), "min_gpus");
  EXPECT_EQ(ToolName("EstimatePerformance"), "estimate_performance");
}

// Every argument is described (from a proto comment) in the full schemas;
// the lean ones describe every argument but the config's Megatron-named
// fields and the bare field lists of the inline model and system.
// A $ref without words of its own is described by its definition's comment.
bool Described(const OrderedJson& property, const OrderedJson& defs) {
  if (property.contains("description")) return true;
  if (!property.contains("$ref")) return false;
  const std::string key = property["$ref"].get<std::string>().substr(8);
  return defs.contains(key) && defs[key].contains("description");
}

void ExpectDescribed(const OrderedJson& schema, const std::string& path, bool lean,
                     const OrderedJson& defs = OrderedJson::object()) {
  if (!schema.contains("properties")) return;
  for (const auto& [name, property] : schema["properties"].items()) {
    const std::string where = absl::StrCat(path, ".", name);
    const bool config_field = lean && absl::EndsWith(path, ".config");
    // The lean field lists of the inline model and system are bare (types only).
    const bool bare_field = lean && (absl::EndsWith(path, ".spec") || absl::EndsWith(path, ".system_spec"));
    if (!config_field && !bare_field) {
      EXPECT_TRUE(Described(property, defs)) << where << " has no comment in planner.proto";
    }
    ExpectDescribed(property, where, lean, defs);
    if (property.contains("items")) ExpectDescribed(property["items"], where, lean, defs);
  }
}

TEST(ToolSchemasTest, EveryArgumentIsDescribed) {
  for (const auto& tool : PlannerToolSchemas()) {
    EXPECT_EQ(tool.input_schema["type"], "object");
    EXPECT_EQ(tool.shared_output_schema["type"], "object");
    ExpectDescribed(tool.input_schema, tool.name, /*lean=*/true);
    ExpectDescribed(tool.shared_input_schema, tool.name, /*lean=*/false, tool.shared_defs);
    for (const auto& [name, def] : tool.shared_defs.items()) {
      if (!absl::EndsWith(name, ".result")) ExpectDescribed(def, name, /*lean=*/false, tool.shared_defs);
    }
  }
}

// MCP input schemas are self-contained (no $ref: not every client resolves
// one); their size, with the whole tools/list, is tests/server/mcp_sizes_test.cc's.
TEST(ToolSchemasTest, McpInputSchemasAreSelfContained) {
  for (const auto& tool : PlannerToolSchemas()) {
    const std::string one = tool.input_schema.dump();
    EXPECT_EQ(one.find("$ref"), std::string::npos) << tool.name << ": MCP schemas must be self-contained";
  }
}

// Bounds come from the real limits, closed sets are enums, required fields
// are listed; model, placement and config are listed once (get_model,
// validate) and the other tools point there, a config naming the fields
// the tool reads.
TEST(ToolSchemasTest, LeanSchemasCarryBoundsEnumsAndRequired) {
  const ToolSchema* min_gpus = nullptr;
  const ToolSchema* recommend = nullptr;
  const ToolSchema* layout = nullptr;
  const ToolSchema* validate = nullptr;
  for (const auto& t : PlannerToolSchemas()) {
    if (t.name == "min_gpus") min_gpus = &t;
    if (t.name == "validate") validate = &t;
    if (t.name == "recommend") recommend = &t;
    if (t.name == "explain_layout") layout = &t;
  }
  ASSERT_NE(min_gpus, nullptr);
  ASSERT_NE(recommend, nullptr);
  ASSERT_NE(layout, nullptr);
  ASSERT_NE(validate, nullptr);
  // The whole config is listed once, in validate; the other tools point there.
  const auto& config = validate->input_schema["properties"]["config"]["properties"];
  const auto& pointer = recommend->input_schema["properties"]["config"];
  EXPECT_FALSE(pointer.contains("properties"));
  EXPECT_NE(pointer["description"].get<std::string>().find("Fields: as in validate's config."), std::string::npos)
      << pointer.dump();
  EXPECT_EQ(config["moe_token_dispatcher_type"]["enum"], OrderedJson({"alltoall", "allgather", "flex"}));
  // The config's bounds are in the JSON Schema export (the lean list is bare).
  EXPECT_EQ(config["tp"], OrderedJson({{"type", "integer"}}));
  const OrderedJson& full = validate->shared_defs["ParallelConfig"]["properties"];
  EXPECT_EQ(full["tp"]["minimum"], 0);
  EXPECT_EQ(full["tp"]["maximum"], 4096);
  EXPECT_EQ(full["etp"]["minimum"], 1);
  EXPECT_EQ(full["seq_length"]["maximum"], 16777216);
  EXPECT_EQ(validate->input_schema["properties"]["placement"]["properties"]["gpus"]["maximum"], 1048576);
  EXPECT_EQ(config["precision"]["enum"], OrderedJson({"bf16", "fp8-cs", "fp8-mx", "fp8-sc", "fp8-ds", "nvfp4"}));
  EXPECT_EQ(config["recompute_granularity"]["enum"], OrderedJson({"none", "selective", "full"}));
  EXPECT_EQ(config["recompute_modules"]["items"]["enum"][0], "core_attn");
  EXPECT_EQ(full["recompute_modules"]["maxItems"], 16);
  EXPECT_EQ(recommend->input_schema["required"], OrderedJson({"model", "placement"}));
  EXPECT_EQ(recommend->input_schema["properties"]["objective"]["enum"],
            OrderedJson({"throughput", "fewest-gpus", "headroom"}));
  EXPECT_EQ(recommend->input_schema["properties"]["memory_reserve"]["maximum"], 0.5);
  // A required model is exactly one of its four forms; an optional one at most one.
  EXPECT_EQ(recommend->input_schema["properties"]["model"]["minProperties"], 1);
  EXPECT_EQ(recommend->input_schema["properties"]["model"]["maxProperties"], 1);
  EXPECT_FALSE(min_gpus->input_schema["properties"]["model"].contains("minProperties"));
  EXPECT_NE(recommend->input_schema["properties"]["model"]["description"].get<std::string>().find(
                "Fields: as in get_model's model."),
            std::string::npos);
  EXPECT_NE(recommend->input_schema["properties"]["placement"]["description"].get<std::string>().find(
                "Fields: as in validate's placement."),
            std::string::npos);
  // ExplainLayout needs the world size.
  EXPECT_EQ(layout->input_schema["required"], OrderedJson({"placement"}));
  EXPECT_EQ(layout->input_schema["properties"]["placement"]["required"], OrderedJson({"gpus"}));
  // MinGpus reads the mesh and the batch only, and says so.
  EXPECT_NE(min_gpus->input_schema["properties"]["config"]["description"].get<std::string>().find(
                "as in validate's config (reads tp, pp, cp, ep, etp, mbs, gbs)."),
            std::string::npos)
      << min_gpus->input_schema["properties"]["config"].dump();
}

// The JSON Schema export defines each message once and every $ref resolves.
void ExpectRefsResolve(const OrderedJson& node, const OrderedJson& defs, int* refs) {
  if (node.is_object()) {
    if (node.contains("$ref")) {
      const std::string ref = node["$ref"];
      ASSERT_TRUE(absl::StartsWith(ref, "#/$defs/")) << ref;
      EXPECT_TRUE(defs.contains(ref.substr(8))) << ref;
      ++*refs;
    }
    for (const auto& [key, value] : node.items()) ExpectRefsResolve(value, defs, refs);
  } else if (node.is_array()) {
    for (const auto& value : node) ExpectRefsResolve(value, defs, refs);
  }
}

TEST(ToolSchemasTest, JsonSchemaExportSharesDefinitions) {
  const OrderedJson doc = ExportTools(PlannerToolSchemas(), ToolFormat::kJsonSchema);
  const OrderedJson& defs = doc["$defs"];
  int refs = 0;
  ExpectRefsResolve(doc, defs, &refs);
  EXPECT_GT(refs, 30);
  // ParallelConfig is defined once and referenced by every config-shaped tool.
  EXPECT_TRUE(defs.contains("ParallelConfig"));
  EXPECT_EQ(defs["recommend.input"]["properties"]["config"]["$ref"], "#/$defs/ParallelConfig");
  EXPECT_EQ(defs["validate.input"]["properties"]["config"]["$ref"], "#/$defs/ParallelConfig");
  EXPECT_EQ(defs["explain_layout.input"]["properties"]["placement"]["required"], OrderedJson({"gpus"}));
  EXPECT_EQ(defs["ParallelConfig"]["additionalProperties"], false);
  EXPECT_TRUE(defs["ModelArchitecture"]["properties"].contains("num_moe_experts"));
  EXPECT_EQ(defs["ModelArchitecture"]["properties"]["num_layers"]["maximum"], 1024);
}

TEST(ToolSchemasTest, SchemasMatchTheGoldens) {
  const bool update = std::getenv("PARPLAN_UPDATE_GOLDENS") != nullptr;
  for (const char* format : {"mcp", "openai", "json-schema"}) {
    auto parsed = ParseToolFormat(format, "format");
    ASSERT_TRUE(parsed.ok());
    const std::string actual = ExportTools(PlannerToolSchemas(), *parsed).dump(2) + "\n";
    const std::string path = absl::StrCat(PARPLAN_SOURCE_DIR, "/tests/golden/tools_", format, ".json");
    if (update) {
      std::ofstream(path) << actual;
      continue;
    }
    EXPECT_EQ(actual, ReadFile(path)) << path << " differs from the generated schemas; if the proto change is "
                                      << "intended, rerun with PARPLAN_UPDATE_GOLDENS=1";
  }
  EXPECT_FALSE(ParseToolFormat("yaml", "--format").ok());
}

// Compiles `proto_text` (as parplan/v1/planner.proto) with protoc and returns
// the tools of its service.
std::vector<ToolSchema> ToolsOfProto(const std::string& proto_text,
                                     std::unique_ptr<google::protobuf::DescriptorPool>* pool) {
  char dir_template[] = "/tmp/parplan_proto_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  std::system(absl::StrCat("mkdir -p ", dir, "/parplan/v1").c_str());
  std::ofstream(absl::StrCat(dir, "/parplan/v1/planner.proto")) << proto_text;
  const std::string desc = absl::StrCat(dir, "/planner.desc");
  const std::string command = absl::StrCat(PARPLAN_PROTOC, " --include_imports --include_source_info -I ", dir,
                                           " --descriptor_set_out ", desc, " ", dir, "/parplan/v1/planner.proto");
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  auto built = PoolFromDescriptorSet(ReadFile(desc));
  std::system(absl::StrCat("rm -rf ", dir).c_str());
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return {};
  *pool = std::move(*built);
  const auto* service = (*pool)->FindServiceByName("parplan.v1.Planner");
  EXPECT_NE(service, nullptr);
  return service != nullptr ? ToolSchemasOf(*service) : std::vector<ToolSchema>{};
}

TEST(ToolSchemasTest, AProtoChangeIsASchemaChangeWithoutHandEdits) {
  std::string proto = ReadFile(absl::StrCat(PARPLAN_SOURCE_DIR, "/proto/parplan/v1/planner.proto"));
  ASSERT_FALSE(proto.empty());
  // The unchanged proto gives exactly the embedded schemas.
  std::unique_ptr<google::protobuf::DescriptorPool> pool;
  const auto same = ToolsOfProto(proto, &pool);
  ASSERT_EQ(same.size(), PlannerToolSchemas().size());
  EXPECT_EQ(ExportTools(same, ToolFormat::kMcp), ExportTools(PlannerToolSchemas(), ToolFormat::kMcp));

  // A new field with a comment, and a new RPC.
  const std::string anchor = "message MinGpusRequest {";
  const size_t at = proto.find(anchor);
  ASSERT_NE(at, std::string::npos);
  proto.insert(at + anchor.size(), "\n  // Planner test knob, 1..7.\n  int32 test_knob = 99;\n");
  const std::string service_anchor = "service Planner {";
  proto.insert(proto.find(service_anchor) + service_anchor.size(),
               "\n  // Says hello.\n  rpc SayHello(MinGpusRequest) returns (MinGpusResponse);\n");
  const auto changed = ToolsOfProto(proto, &pool);
  ASSERT_EQ(changed.size(), PlannerToolSchemas().size() + 1);
  EXPECT_EQ(changed[0].name, "say_hello");
  EXPECT_EQ(changed[0].description, "Says hello.");
  const ToolSchema* min_gpus = nullptr;
  for (const auto& t : changed) {
    if (t.name == "min_gpus") min_gpus = &t;
  }
  ASSERT_NE(min_gpus, nullptr);
  const auto& knob = min_gpus->input_schema["properties"]["test_knob"];
  EXPECT_EQ(knob["type"], "integer");
  EXPECT_EQ(knob["description"], "Planner test knob, 1..7.");
  EXPECT_FALSE(PlannerToolSchemas()[4].input_schema["properties"].contains("test_knob"));
}

TEST(ToolSchemasTest, OutputTypesFollowProto3Json) {
  const ToolSchema* min_gpus = nullptr;
  for (const auto& t : PlannerToolSchemas()) {
    if (t.name == "min_gpus") min_gpus = &t;
  }
  ASSERT_NE(min_gpus, nullptr);
  // int64 prints as a decimal string; int32 as a number; inputs take integers.
  EXPECT_EQ(min_gpus->shared_output_schema["properties"]["min_gpus"]["type"], "string");
  EXPECT_EQ(min_gpus->shared_output_schema["properties"]["etp"]["type"], "integer");
  EXPECT_EQ(PlannerToolSchemas()[5].input_schema["properties"]["config"]["properties"]["tp"]["type"], "integer");
  EXPECT_EQ(min_gpus->shared_output_schema["properties"]["world"]["$ref"], "#/$defs/WorldSizing.result");
  EXPECT_EQ(min_gpus->shared_defs["WorldSizing.result"]["properties"]["dp"]["type"], "string");
  // A oneof says so.
  const std::string model = min_gpus->shared_defs["ModelRef"]["properties"]["id"]["description"];
  EXPECT_EQ(min_gpus->shared_defs["ModelRef"]["maxProperties"], 1);
}

}  // namespace
// MCP tools carry an outputSchema (every field the answer prints is
// required; items described through $defs); descriptions are whole
// sentences, never cut; the inline model and system objects say where
// their fields are.
TEST(ToolSchemasTest, McpToolsCarryOutputSchemasAndWholeSentences) {
  const OrderedJson list = ExportTools(PlannerToolSchemas(), ToolFormat::kMcp);
  std::function<void(const OrderedJson&, const std::string&)> no_cut = [&](const OrderedJson& node,
                                                                           const std::string& where) {
    if (node.is_object()) {
      for (const auto& [key, value] : node.items()) {
        if (key == "description" && value.is_string()) {
          EXPECT_FALSE(absl::EndsWith(value.get<std::string>(), "...")) << where << ": " << value;
        } else {
          no_cut(value, where + "." + key);
        }
      }
    } else if (node.is_array()) {
      for (const auto& value : node) no_cut(value, where);
    }
  };
  for (const OrderedJson& tool : list["tools"]) {
    const std::string name = tool["name"];
    SCOPED_TRACE(name);
    ASSERT_TRUE(tool.contains("outputSchema"));
    EXPECT_EQ(tool["outputSchema"]["type"], "object");
    EXPECT_TRUE(tool["outputSchema"].contains("required") || name == "get_model" || name == "get_system");
    no_cut(tool, name);
    // The inline model's fields are those get_model prints for a catalog
    // model; the system's are listed once, in get_system (placement: in
    // validate); every other tool's object says where.
    const OrderedJson& in = tool["inputSchema"]["properties"];
    if (name == "get_model") {
      const OrderedJson& spec = in["model"]["properties"]["spec"];
      EXPECT_NE(spec["description"].get<std::string>().find("as in get_model's answer's model.arch"),
                std::string::npos);
    }
    const OrderedJson* system = in.contains("system_spec") ? &in["system_spec"]
                                : name == "validate"       ? &in["placement"]["properties"]["system_spec"]
                                                           : nullptr;
    if (system != nullptr) {
      if (name == "get_system") {
        EXPECT_TRUE((*system)["properties"].contains("hbm_gib"));
        EXPECT_TRUE((*system)["properties"].contains("gpu_arch"));
      } else {
        EXPECT_NE((*system)["description"].get<std::string>().find("as in get_system's system_spec"),
                  std::string::npos);
      }
    }
  }
}

// recommend's plan items are described down to their fields with
// `required` (server/api/output_schemas.h), the starting point and the
// rejected plans are the same definition, and a message described in an
// earlier tool's schema is named there.
TEST(ToolSchemasTest, OutputSchemasDescribePlanItems) {
  const OrderedJson list = ExportTools(PlannerToolSchemas(), ToolFormat::kMcp);
  std::map<std::string, OrderedJson> out;
  for (const OrderedJson& tool : list["tools"]) out[tool["name"]] = tool["outputSchema"];
  const OrderedJson& recommend = out["recommend"];
  EXPECT_EQ(recommend["properties"]["plans"]["items"]["$ref"], "#/$defs/PlanSummary");
  EXPECT_EQ(recommend["properties"]["starting_point"]["$ref"], "#/$defs/PlanSummary");
  const OrderedJson& plan = recommend["$defs"]["PlanSummary"];
  for (const char* field : {"rank", "label", "gpus", "tokens_per_s_per_gpu", "mfu", "memory_peak_bytes", "fits",
                            "reasons", "violations", "bridge_overrides", "uncertainty"}) {
    EXPECT_NE(std::find(plan["required"].begin(), plan["required"].end(), field), plan["required"].end()) << field;
  }
  // Messages are printed only when set: not required.
  EXPECT_EQ(std::find(plan["required"].begin(), plan["required"].end(), "config"), plan["required"].end());
  EXPECT_EQ(plan["properties"]["breakdown"]["$ref"], "#/$defs/PerformanceBreakdown");
  EXPECT_TRUE(recommend["$defs"]["RejectedPlans"]["properties"].contains("best_dominated"));
  EXPECT_NE(recommend["$defs"]["ParallelConfig"]["description"].get<std::string>().find("validate's config"),
            std::string::npos);
  // Violation is described in min_gpus (the first tool whose answer has it), named elsewhere.
  EXPECT_TRUE(out["min_gpus"]["$defs"]["Violation"]["required"].size() == 6u);
  EXPECT_EQ(recommend["$defs"]["Violation"]["description"], "See min_gpus.");
  // Every $ref resolves inside its own schema.
  for (const auto& [name, schema] : out) {
    int refs = 0;
    ExpectRefsResolve(schema, schema.value("$defs", OrderedJson::object()), &refs);
  }
}

}  // namespace api
}  // namespace parplan
