// The contracts hold: the real answer of every method, over HTTP
// (POST /v1/<Method>) and over MCP (tools/call's structuredContent on
// POST /mcp), validates against the schema the server documents for it:
// /openapi.json's 200 response of that path (JSON Schema 2020-12 through
// OpenAPI 3.1), the MCP tool's outputSchema from tools/list, and the
// JSON Schema export's "<tool>.output". Also /plot and the health routes;
// every path of the document has an operationId, and the document names
// its server.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/api/api_methods.h"
#include "server/server_runner.h"
#include "server/api/tool_schemas.h"
#include "tests/server/http_client.h"
#include "tests/server/json_schema_check.h"

namespace parplan {
namespace {

using Json = nlohmann::json;
using testing_http::Call;
using testing_http::Reply;
using testing_schema::SchemaChecker;

// Requests per method: plain answers, invalid configs, answers with their
// optional parts (suggestions, nearest split, rejected plans, an inline
// model and system), so each part of each answer is checked.
const std::map<std::string, std::vector<std::string>>& Requests() {
  static const auto*
      requests =
          new std::map<std::string, std::vector<std::string>>{
              {"ListModels", {R"({})", R"({"filter":"qwen"})"}},
              {"GetModel",
               {R"({"model":{"id":"deepseek_v3"}})", R"({"model":{"size":"70B dense"}})",
                R"({"model":{"spec":{"num_layers":4,"hidden_size":512,"num_attention_heads":8,"vocab_size":1000,"gated_linear_unit":true,"normalization":"RMSNorm","position_embedding_type":"rope"}}})"}},
              {"ListSystems", {R"({})"}},
              {"GetSystem", {R"({"system":"h100-sxm"})", R"({"system_spec":{"gpu_arch":"hopper","hbm_gib":96}})"}},
              {"MinGpus",
               {R"({"config":{"tp":1,"pp":4,"ep":32}})",
                R"({"config":{"tp":2,"ep":8,"etp":1},"placement":{"gpus":24,"system":"h100-sxm"},"model":{"id":"mixtral_8x7b"}})"}},
              {"Validate",
               {R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":3}})",
                R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":8,"pp":3}})",
                R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},"config":{"tp":2,"gbs":128}})"}},
              {"ExplainLayout",
               {R"({"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":4,"pp":2},"rank":5})",
                R"({"model":{"id":"mixtral_8x7b"},"placement":{"system":"h100-sxm","gpus":32},"config":{"tp":2,"pp":2,"ep":8}})",
                R"({"placement":{"gpus":12},"config":{"tp":8}})"}},
              {"RenderConfig",
               {R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":4,"pp":4}})",
                R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":3}})"}},
              {"EstimateMemory",
               {R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":2}})",
                R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":8,"pp":3}})",
                R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},"config":{"tp":8}})"}},
              {"EstimatePerformance",
               {R"({"model":{"id":"mixtral_8x7b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":2,"ep":8}})",
                R"({"model":{"id":"llama3_8b"},"placement":{"system_spec":{"gpu_arch":"hopper","hbm_gib":141}},"config":{"tp":2,"precision":"fp8-cs"}})"}},
              {"Recommend",
               {R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},"top_k":2})",
                R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":1}})",
                R"({"model":{"id":"mixtral_8x7b"},"placement":{"system":"h100-sxm"},"find_min_gpus":true,"top_k":2})"}},
              {"ImportConfig",
               {R"({"text":"recipe:llama3_8b_pretrain_config","placement":{"system":"h100-sxm"}})",
                R"({"text":"torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 2 --hidden-size 256 --num-attention-heads 4 --seq-length 512 --max-position-embeddings 512 --vocab-size 1024 --micro-batch-size 1 --global-batch-size 8 --bf16 --tensor-model-parallel-size 3 --use-flash-attn"})"}},
              {"CompareRun",
               {R"({"log":" iteration 1/ 100 | elapsed time per iteration (ms): 900.0 | global batch size: 8 |\n iteration 2/ 100 | elapsed time per iteration (ms): 500.0 | global batch size: 8 |\n iteration 3/ 100 | elapsed time per iteration (ms): 502.0 | global batch size: 8 |\n iteration 4/ 100 | elapsed time per iteration (ms): 499.0 | global batch size: 8 |\n"})",
                R"({"log":" iteration 1/ 100 | elapsed time per iteration (ms): 90000.0 | global batch size: 512 |\n iteration 2/ 100 | elapsed time per iteration (ms): 50000.0 | global batch size: 512 |\n iteration 3/ 100 | elapsed time per iteration (ms): 50200.0 | global batch size: 512 |\n","config_text":"recipe:llama3_8b_pretrain_config","placement":{"system":"h100-sxm","gpus":8},"baseline_log":" iteration 1/ 100 | elapsed time per iteration (ms): 90000.0 | global batch size: 512 |\n iteration 2/ 100 | elapsed time per iteration (ms): 54000.0 | global batch size: 512 |\n iteration 3/ 100 | elapsed time per iteration (ms): 54200.0 | global batch size: 512 |\n"})",
                R"({"log":"Traceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.50 GiB is free.\n"})"}},
              {"Calibrate",
               {R"({"runs":[{"log":" iteration 1/ 100 | elapsed time per iteration (ms): 90000.0 | global batch size: 512 |\n iteration 2/ 100 | elapsed time per iteration (ms): 50000.0 | global batch size: 512 |\n iteration 3/ 100 | elapsed time per iteration (ms): 50200.0 | global batch size: 512 |\n iteration 4/ 100 | elapsed time per iteration (ms): 49900.0 | global batch size: 512 |\n iteration 5/ 100 | elapsed time per iteration (ms): 50100.0 | global batch size: 512 |\n iteration 6/ 100 | elapsed time per iteration (ms): 50000.0 | global batch size: 512 |\n","config_text":"recipe:llama3_8b_pretrain_config","placement":{"system":"h100-sxm","gpus":8}}]})"}},
          };
  return *requests;
}

class ContractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http_listen = "127.0.0.1:0";
    options.access_log = false;
    auto running = StartServer(options);
    ASSERT_TRUE(running.ok()) << running.status();
    server_ = *std::move(running);
    port_ = server_->http_port;
    Reply doc = Call(port_, "GET", "/openapi.json", "");
    ASSERT_EQ(doc.status, 200);
    openapi_ = Json::parse(doc.body);
  }
  void TearDown() override {
    if (server_) StopServer(server_.get(), 1.0);
  }

  // The schema /openapi.json documents for a 200 JSON answer of `path`.
  Json DocumentedAnswer(const std::string& path, const std::string& verb = "post") {
    return openapi_["paths"][path][verb]["responses"]["200"]["content"]["application/json"]["schema"];
  }

  // The MCP session: initialize, then the initialized notification.
  std::string McpSession() {
    Reply r = Call(port_, "POST", "/mcp",
                   R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
                   R"("capabilities":{},"clientInfo":{"name":"contract_test","version":"1"}}})",
                   {"Accept: application/json, text/event-stream"});
    EXPECT_EQ(r.status, 200) << r.body;
    const std::string id = r.Header("mcp-session-id");
    Call(port_, "POST", "/mcp", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
         {"Accept: application/json, text/event-stream", "Mcp-Session-Id: " + id});
    return id;
  }

  Json McpCall(const std::string& session, const Json& message) {
    Reply r = Call(port_, "POST", "/mcp", message.dump(),
                   {"Accept: application/json, text/event-stream", "Mcp-Session-Id: " + session,
                    "MCP-Protocol-Version: 2025-06-18"});
    EXPECT_EQ(r.status, 200) << r.body;
    std::string body = r.body;
    if (r.Header("content-type").rfind("text/event-stream", 0) == 0) {  // one SSE event: "data: {...}"
      const size_t data = body.find("data: ");
      body = data == std::string::npos ? "" : body.substr(data + 6);
    }
    return Json::parse(body, nullptr, false);
  }

  std::unique_ptr<RunningServer> server_;
  int port_ = 0;
  Json openapi_;
};

TEST_F(ContractTest, EveryHttpAnswerValidatesAgainstItsOpenApiSchema) {
  SchemaChecker openapi(openapi_);
  const Json exported = api::ExportTools(api::PlannerToolSchemas(), api::ToolFormat::kJsonSchema);
  SchemaChecker json_schema(exported);
  for (const api::ApiMethod& method : api::ApiMethods()) {
    auto it = Requests().find(method.rpc);
    ASSERT_NE(it, Requests().end()) << "no request for " << method.rpc;
    const Json documented = DocumentedAnswer("/v1/" + method.rpc);
    ASSERT_TRUE(documented.contains("$ref")) << method.rpc;
    for (const std::string& request : it->second) {
      SCOPED_TRACE(method.rpc + " " + request);
      Reply reply = Call(port_, "POST", "/v1/" + method.rpc, request, {"X-Timeout-Ms: 60000"});
      ASSERT_EQ(reply.status, 200) << reply.body;
      const Json answer = Json::parse(reply.body);
      EXPECT_EQ(openapi.Check(answer, documented), std::vector<std::string>{});
      const Json exported_schema = {{"$ref", "#/$defs/" + api::ToolName(method.rpc) + ".output"}};
      EXPECT_EQ(json_schema.Check(answer, exported_schema), std::vector<std::string>{});
    }
  }
}

TEST_F(ContractTest, EveryMcpAnswerValidatesAgainstItsOutputSchema) {
  const std::string session = McpSession();
  const Json listed = McpCall(session, {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}});
  ASSERT_TRUE(listed.contains("result")) << listed.dump();
  std::map<std::string, Json> output_schemas;
  for (const Json& tool : listed["result"]["tools"]) {
    ASSERT_TRUE(tool.contains("outputSchema")) << tool["name"];
    EXPECT_EQ(tool["outputSchema"]["type"], "object");
    output_schemas[tool["name"].get<std::string>()] = tool["outputSchema"];
  }
  const Json exported = api::ExportTools(api::PlannerToolSchemas(), api::ToolFormat::kJsonSchema);
  SchemaChecker json_schema(exported);
  int id = 10;
  for (const api::ApiMethod& method : api::ApiMethods()) {
    const std::string name = api::ToolName(method.rpc);
    ASSERT_EQ(output_schemas.count(name), 1u) << name;
    SchemaChecker lean(output_schemas[name]);
    for (const std::string& request : Requests().at(method.rpc)) {
      SCOPED_TRACE(name + " " + request);
      const Json answer = McpCall(session, {{"jsonrpc", "2.0"},
                                            {"id", id++},
                                            {"method", "tools/call"},
                                            {"params", {{"name", name}, {"arguments", Json::parse(request)}}}});
      ASSERT_TRUE(answer.contains("result")) << answer.dump().substr(0, 400);
      ASSERT_FALSE(answer["result"].value("isError", false)) << answer.dump().substr(0, 400);
      const Json& structured = answer["result"]["structuredContent"];
      EXPECT_EQ(lean.Check(structured, output_schemas[name]), std::vector<std::string>{});
      EXPECT_EQ(json_schema.Check(structured, {{"$ref", "#/$defs/" + name + ".output"}}), std::vector<std::string>{});
    }
  }
}

TEST_F(ContractTest, PlotAndHealthAnswersValidate) {
  SchemaChecker openapi(openapi_);
  Reply plot = Call(port_, "POST", "/plot",
                    R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},"config":{"tp":2}})");
  ASSERT_EQ(plot.status, 200) << plot.body;
  EXPECT_EQ(openapi.Check(Json::parse(plot.body), DocumentedAnswer("/plot")), std::vector<std::string>{});
  for (const char* path : {"/healthz", "/readyz"}) {
    Reply health = Call(port_, "GET", path, "");
    ASSERT_EQ(health.status, 200);
    EXPECT_EQ(openapi.Check(Json::parse(health.body), DocumentedAnswer(path, "get")), std::vector<std::string>{});
  }
  Reply svg = Call(port_, "POST", "/plot.svg?figure=ranks",
                   R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},"config":{"tp":2}})");
  ASSERT_EQ(svg.status, 200);
  EXPECT_TRUE(
      openapi_["paths"]["/plot.svg"]["post"]["responses"]["200"]["content"].contains(svg.Header("content-type")))
      << svg.Header("content-type");
}

// Errors validate against the documented Error schema too.
TEST_F(ContractTest, ErrorAnswersValidate) {
  SchemaChecker openapi(openapi_);
  const Json error_schema = {{"$ref", "#/components/schemas/Error"}};
  for (const auto& [path, body] : std::vector<std::pair<std::string, std::string>>{
           {"/v1/Validate", R"({"config":{"tp":"x"}})"},
           {"/v1/Validate", "{\"config\": {\"tp\": 2,}}"},
           {"/v1/GetModel", R"({"model":{"id":"nope_1b"}})"},
           {"/plot", R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":6},"config":{"tp":4}})"}}) {
    SCOPED_TRACE(path + " " + body);
    Reply r = Call(port_, "POST", path, body);
    ASSERT_GE(r.status, 400);
    EXPECT_TRUE(openapi_["paths"][path]["post"]["responses"].contains(std::to_string(r.status))) << r.status;
    EXPECT_EQ(openapi.Check(Json::parse(r.body), error_schema), std::vector<std::string>{});
  }
}

// The document: OpenAPI 3.1 with a server, an operationId on every
// operation (unique), every route the server answers as a path.
TEST_F(ContractTest, DocumentNamesItsServerAndEveryOperation) {
  EXPECT_EQ(openapi_["openapi"], "3.1.0");
  ASSERT_TRUE(openapi_.contains("servers"));
  ASSERT_FALSE(openapi_["servers"].empty());
  EXPECT_TRUE(openapi_["servers"][0].contains("url"));
  std::set<std::string> ids;
  for (const auto& [path, item] : openapi_["paths"].items()) {
    for (const auto& [verb, operation] : item.items()) {
      SCOPED_TRACE(verb + " " + path);
      ASSERT_TRUE(operation.contains("operationId"));
      EXPECT_TRUE(ids.insert(operation["operationId"].get<std::string>()).second) << "duplicate operationId";
    }
  }
  for (const char* path : {"/plot", "/plot.svg", "/mcp", "/healthz", "/readyz", "/openapi.json"}) {
    EXPECT_TRUE(openapi_["paths"].contains(path)) << path;
  }
  for (const api::ApiMethod& method : api::ApiMethods()) {
    EXPECT_TRUE(openapi_["paths"].contains("/v1/" + method.rpc)) << method.rpc;
  }
}

// The checker is not a rubber stamp: it rejects a wrong type, an unknown
// field under additionalProperties false, a missing required field and a
// keyword it does not know.
TEST(SchemaCheckerTest, RejectsWhatItShould) {
  const Json root = {
      {"$defs",
       {{"A",
         {{"type", "object"},
          {"required", {"x"}},
          {"properties", {{"x", {{"type", "integer"}}}, {"s", {{"type", "string"}, {"pattern", "^[0-9]+$"}}}}},
          {"additionalProperties", false}}}}}};
  SchemaChecker checker(root);
  const Json ref = {{"$ref", "#/$defs/A"}};
  EXPECT_TRUE(checker.Check(Json::parse(R"({"x":1,"s":"12"})"), ref).empty());
  EXPECT_FALSE(checker.Check(Json::parse(R"({"x":"1"})"), ref).empty());
  EXPECT_FALSE(checker.Check(Json::parse(R"({"x":1,"y":2})"), ref).empty());
  EXPECT_FALSE(checker.Check(Json::parse(R"({"s":"12"})"), ref).empty());
  EXPECT_FALSE(checker.Check(Json::parse(R"({"x":1,"s":"1a"})"), ref).empty());
  EXPECT_FALSE(checker.Check(Json::parse("1"), Json{{"oneOf", Json::array()}}).empty());
  EXPECT_FALSE(checker.Check(Json::parse("1"), Json{{"$ref", "#/$defs/B"}}).empty());
}

}  // namespace
}  // namespace parplan
