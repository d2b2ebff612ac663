// Tool schemas generated from the proto: every RPC is a tool, the schemas
// match the committed goldens, and a proto change changes the schemas with no
// hand edits (a modified copy of planner.proto is compiled by protoc here).
//
// After an intended API change, regenerate the goldens with
//   PARPLAN_UPDATE_GOLDENS=1 build/tests/server_tool_schemas_test
#include "server/tool_schemas.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parplan/v1/planner.pb.h"
#include "server/api_methods.h"

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
    ASSERT_NE(call, nullptr) << method->name() << " is missing from server/api_methods.cc";
    EXPECT_EQ(call->request->GetDescriptor()->full_name(), method->input_type()->full_name());
    EXPECT_EQ(call->response->GetDescriptor()->full_name(), method->output_type()->full_name());
  }
  EXPECT_EQ(ToolName("MinGpus"), "min_gpus");
  EXPECT_EQ(ToolName("EstimatePerformance"), "estimate_performance");
}

// Every argument an assistant can pass is described (from a proto comment).
void ExpectDescribed(const OrderedJson& schema, const std::string& path) {
  if (!schema.contains("properties")) return;
  for (const auto& [name, property] : schema["properties"].items()) {
    const std::string where = absl::StrCat(path, ".", name);
    EXPECT_TRUE(property.contains("description")) << where << " has no comment in planner.proto";
    ExpectDescribed(property, where);
    if (property.contains("items")) ExpectDescribed(property["items"], where);
  }
}

TEST(ToolSchemasTest, EveryArgumentIsDescribed) {
  for (const auto& tool : PlannerToolSchemas()) {
    EXPECT_EQ(tool.input_schema["type"], "object");
    EXPECT_EQ(tool.output_schema["type"], "object");
    ExpectDescribed(tool.input_schema, tool.name);
  }
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
std::vector<ToolSchema> ToolsOfProto(const std::string& proto_text, std::unique_ptr<google::protobuf::DescriptorPool>* pool) {
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
  EXPECT_EQ(min_gpus->output_schema["properties"]["min_gpus"]["type"], "string");
  EXPECT_EQ(min_gpus->output_schema["properties"]["etp"]["type"], "integer");
  EXPECT_EQ(min_gpus->input_schema["properties"]["config"]["properties"]["tp"]["type"], "integer");
  EXPECT_EQ(min_gpus->input_schema["properties"]["config"]["additionalProperties"], false);
  // A oneof says so.
  const std::string model = min_gpus->input_schema["properties"]["model"]["properties"]["id"]["description"];
  EXPECT_NE(model.find("Set at most one of id, spec, hf_config_json, size"), std::string::npos) << model;
}

}  // namespace
}  // namespace api
}  // namespace parplan
