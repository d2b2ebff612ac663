// The HTTP door's routes without sockets (server/http/http_routes.h): status
// codes, the token, Origin checks, content types, static files, health,
// the pool's back-pressure and MCP Streamable HTTP sessions.
#include "server/http/http_routes.h"

#include <atomic>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/api/api_methods.h"
#include "server/http/openapi.h"

namespace parplan {
namespace http {
namespace {

using Json = nlohmann::json;

constexpr const char* kToken = "0123456789abcdef-token";

Request Post(const std::string& target, const std::string& body,
             std::vector<std::pair<std::string, std::string>> headers = {}) {
  Request r;
  r.method = "POST";
  r.target = target;
  r.body = body;
  r.headers = {{"content-type", "application/json"}};
  for (auto& h : headers) r.headers.push_back(std::move(h));
  return r;
}

Request Get(const std::string& target) {
  Request r;
  r.method = "GET";
  r.target = target;
  return r;
}

class RoutesTest : public ::testing::Test {
 protected:
  explicit RoutesTest(std::string token = "") {
    RouterOptions options;
    options.auth_token = std::move(token);
    options.allowed_origins = {"https://chat.example.com"};
    options.max_mcp_sessions = 3;
    router_ = std::make_unique<Router>(options, WorkLanes{&pool_, &light_}, &client_calls_,
                                       [this] { return serving_.load(); });
  }

  // The router's answer, waiting for pool work.
  Response Answer(Request request) {
    std::promise<Response> promise;
    router_->Handle(std::move(request), [&promise](Response r) { promise.set_value(std::move(r)); });
    return promise.get_future().get();
  }

  std::string Initialize() {
    Response r = Answer(
        Post("/mcp", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})",
             {{"accept", "application/json, text/event-stream"}}));
    EXPECT_EQ(r.status, 200) << r.body;
    for (const auto& [k, v] : r.headers) {
      if (k == "mcp-session-id") return v;
    }
    ADD_FAILURE() << "no mcp-session-id";
    return "";
  }

  WorkPool pool_{1, 1};
  WorkPool light_{1, 4};
  ClientLimits client_calls_{64};
  std::atomic<bool> serving_{true};
  std::unique_ptr<Router> router_;
};

class TokenRoutesTest : public RoutesTest {
 protected:
  TokenRoutesTest() : RoutesTest(kToken) {}
};

std::string HeaderOf(const Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

TEST(OriginAllowedTest, LoopbackAndListedOnly) {
  const std::vector<std::string> listed = {"https://chat.example.com"};
  for (const char* ok : {"http://localhost", "http://localhost:3000", "http://127.0.0.1:8080", "https://127.0.0.2",
                         "http://[::1]:5173", "https://chat.example.com"}) {
    EXPECT_TRUE(OriginAllowed(ok, listed)) << ok;
  }
  for (const char* bad :
       {"null", "http://evil.example", "http://localhost.evil.example", "http://127.0.0.1.evil.example",
        "http://127.0.0.1:80@evil.example", "https://chat.example.com:444", "http://[::1].evil",
        "http://localhost:", "http://127.0.0.1:12a", "https://chat.example.com.evil"}) {
    EXPECT_FALSE(OriginAllowed(bad, listed)) << bad;
  }
}

TEST_F(RoutesTest, CallsEveryMethodTheTableHas) {
  Response r = Answer(Post("/v1/MinGpus", R"({"config":{"tp":1,"pp":4,"ep":32}})"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(Json::parse(r.body)["min_gpus"], "128");
  EXPECT_EQ(HeaderOf(r, "cache-control"), "no-store");
  EXPECT_EQ(HeaderOf(r, "x-content-type-options"), "nosniff");
  r = Answer(
      Post("/v1/Recommend", R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},"top_k":1})"));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json::parse(r.body)["plans"].size(), 1u);
}

TEST_F(RoutesTest, ErrorsCarryTheCodeAndTheFields) {
  Response r = Answer(Post("/v1/Validate", R"({"model":{"id":"llama3_8b"},"config":{"tp":"eight"}})"));
  EXPECT_EQ(r.status, 400);
  Json error = Json::parse(r.body)["error"];
  EXPECT_EQ(error["code"], "INVALID_ARGUMENT");
  EXPECT_EQ(error["field_violations"][0]["field"], "config.tp");

  r = Answer(Post("/v1/GetModel", R"({"model":{"id":"llama9_900b"}})"));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(Json::parse(r.body)["error"]["code"], "NOT_FOUND");

  r = Answer(Post("/v1/MinGpus", "{not json"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Json::parse(r.body)["error"]["field_violations"][0]["field"], "request");
  r = Answer(Post("/v1/MinGpus", R"({"config":{"tp":-1}})"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Json::parse(r.body)["error"]["field_violations"][0]["field"], "config.tp");

  r = Answer(Post("/v1/NoSuchMethod", "{}"));
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("MinGpus"), std::string::npos);  // lists the methods

  Request get = Get("/v1/MinGpus");
  r = Answer(get);
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(HeaderOf(r, "allow"), "POST");

  Request text = Post("/v1/MinGpus", "{}");
  text.headers = {{"content-type", "text/plain"}};
  r = Answer(text);
  EXPECT_EQ(r.status, 415);
  text.headers = {{"content-type", "Application/JSON; charset=utf-8"}};
  EXPECT_EQ(Answer(text).status, 200);

  r = Answer(Post("/v1/MinGpus", "{}", {{"x-timeout-ms", "soon"}}));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Json::parse(r.body)["error"]["field_violations"][0]["field"], "x-timeout-ms");
}

TEST_F(RoutesTest, StaticFilesAreExactPathsOnly) {
  Response page = Answer(Get("/"));
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(HeaderOf(page, "content-security-policy").find("default-src 'self'"), std::string::npos);
  EXPECT_EQ(Answer(Get("/index.html")).body, page.body);
  EXPECT_EQ(Answer(Get("/app.js")).content_type, "text/javascript; charset=utf-8");
  for (const char* js : {"/fields.js", "/format.js", "/check.js", "/run_facts.js", "/paste.js", "/compare.js"}) {
    EXPECT_EQ(Answer(Get(js)).content_type, "text/javascript; charset=utf-8") << js;
  }
  // The "Start from what you run" panel: its boxes on the page, its scripts
  // loaded and served, and the RPCs they call.
  for (const char* part :
       {"id=\"paste\"", "id=\"import-text\"", "id=\"import-format\"", "id=\"log-text\"", "id=\"baseline-text\"",
        "<script src=\"/paste.js\">", "<script src=\"/compare.js\">", "<script src=\"/run_facts.js\">"}) {
    EXPECT_NE(page.body.find(part), std::string::npos) << part;
  }
  EXPECT_NE(Answer(Get("/paste.js")).body.find("/v1/ImportConfig"), std::string::npos);
  EXPECT_NE(Answer(Get("/compare.js")).body.find("/v1/CompareRun"), std::string::npos);
  EXPECT_EQ(Answer(Get("/style.css")).status, 200);
  for (const char* path :
       {"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/app.js/../../../etc/passwd", "//etc/passwd",
        "/index.html%00", "/..%2fetc%2fpasswd", "/web/app.js", "/server/web/index.html", "/./app.js", "/APP.JS"}) {
    Response r = Answer(Get(path));
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.body.find("root:"), std::string::npos) << path;
  }
  Request post = Post("/app.js", "{}");
  EXPECT_EQ(Answer(post).status, 405);
}

TEST_F(RoutesTest, HealthFollowsTheServingState) {
  EXPECT_EQ(Answer(Get("/healthz")).status, 200);
  EXPECT_EQ(Answer(Get("/readyz")).body, R"({"status":"SERVING"})");
  serving_ = false;
  EXPECT_EQ(Answer(Get("/healthz")).status, 503);
  EXPECT_EQ(Answer(Get("/readyz")).body, R"({"status":"NOT_SERVING"})");
  // A draining server refuses new API calls (UNAVAILABLE) and still serves the page.
  Response r = Answer(Post("/v1/MinGpus", "{}"));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(Json::parse(r.body)["error"]["code"], "UNAVAILABLE");
  EXPECT_EQ(Answer(Get("/")).status, 200);
}

TEST_F(RoutesTest, OpenApiDescribesEveryMethod) {
  Response r = Answer(Get("/openapi.json"));
  ASSERT_EQ(r.status, 200);
  Json doc = Json::parse(r.body);
  EXPECT_EQ(doc["openapi"], "3.1.0");
  for (const auto& method : api::ApiMethods()) {
    const std::string path = "/v1/" + method.rpc;
    ASSERT_TRUE(doc["paths"].contains(path)) << path;
    const std::string ref = doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"];
    const std::string name = ref.substr(ref.rfind('/') + 1);
    EXPECT_TRUE(doc["components"]["schemas"].contains(name)) << ref;
  }
  // Every reference resolves inside the document.
  std::function<void(const Json&)> check = [&](const Json& node) {
    if (node.is_object()) {
      for (const auto& [key, value] : node.items()) {
        if (key == "$ref") {
          const std::string ref = value;
          ASSERT_EQ(ref.rfind("#/components/schemas/", 0), 0u) << ref;
          EXPECT_TRUE(doc["components"]["schemas"].contains(ref.substr(21))) << ref;
        } else {
          check(value);
        }
      }
    } else if (node.is_array()) {
      for (const auto& value : node) check(value);
    }
  };
  check(doc);
}

TEST_F(RoutesTest, OriginsOutsideTheAllowListAreRefused) {
  for (const char* path : {"/v1/MinGpus", "/mcp", "/plot"}) {
    Response r = Answer(Post(path, "{}", {{"origin", "http://evil.example"}}));
    EXPECT_EQ(r.status, 403) << path;
    EXPECT_EQ(Json::parse(r.body)["error"]["code"], "PERMISSION_DENIED");
  }
  EXPECT_EQ(Answer(Post("/v1/MinGpus", "{}", {{"origin", "http://127.0.0.1:8080"}})).status, 200);
  EXPECT_EQ(Answer(Post("/v1/MinGpus", "{}", {{"origin", "https://chat.example.com"}})).status, 200);
}

TEST_F(TokenRoutesTest, TheTokenGuardsTheApiButNotThePageOrHealth) {
  Response r = Answer(Post("/v1/MinGpus", "{}"));
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(HeaderOf(r, "www-authenticate"), "Bearer");
  EXPECT_EQ(Answer(Post("/v1/MinGpus", "{}", {{"authorization", "Bearer wrong"}})).status, 401);
  EXPECT_EQ(Answer(Post("/mcp", "{}")).status, 401);
  EXPECT_EQ(Answer(Post("/plot", "{}")).status, 401);
  EXPECT_EQ(Answer(Post("/v1/MinGpus", "{}", {{"authorization", std::string("Bearer ") + kToken}})).status, 200);
  EXPECT_EQ(Answer(Get("/")).status, 200);
  EXPECT_EQ(Answer(Get("/readyz")).status, 200);
  EXPECT_EQ(Answer(Get("/openapi.json")).status, 200);
}

TEST_F(RoutesTest, AFullPoolAnswers429) {
  // Shared with the blocked tasks, which may still run after the test body
  // returns (the queued one starts once the worker is released).
  struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool release = false;
  };
  auto gate = std::make_shared<Gate>();
  auto block = [gate] {
    std::unique_lock<std::mutex> lock(gate->mu);
    gate->cv.wait(lock, [&] { return gate->release; });
  };
  ASSERT_TRUE(pool_.TrySubmit(block));  // the worker
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(pool_.TrySubmit(block));  // the one queue slot
  Response r =
      Answer(Post("/v1/Recommend", R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8}})"));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(Json::parse(r.body)["error"]["code"], "RESOURCE_EXHAUSTED");
  EXPECT_EQ(HeaderOf(r, "retry-after"), "1");
  // Short calls do not queue behind searches.
  EXPECT_EQ(Answer(Post("/v1/MinGpus", "{}")).status, 200);
  {
    std::lock_guard<std::mutex> lock(gate->mu);
    gate->release = true;
  }
  gate->cv.notify_all();
}

TEST_F(RoutesTest, PlotAnswersPicturesAndSvg) {
  const std::string body =
      R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":4,"pp":4}})";
  Response r = Answer(Post("/plot", body));
  ASSERT_EQ(r.status, 200) << r.body;
  Json plot = Json::parse(r.body);
  EXPECT_NE(plot["rank_map_svg"].get<std::string>().find("<svg"), std::string::npos);
  EXPECT_NE(plot["bridge_python"].get<std::string>().find("tensor_model_parallel_size = 4"), std::string::npos);
  r = Answer(Post("/plot.svg?figure=memory", body));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "image/svg+xml");
  EXPECT_EQ(r.body.rfind("<svg", 0), 0u);
  EXPECT_EQ(Answer(Post("/plot.svg?figure=pie", body)).status, 400);
  r = Answer(Post("/plot", R"({"model":{"id":"llama3_70b"},"placement":{"gpus":64},"config":{"tp":4}})"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Json::parse(r.body)["error"]["field_violations"][0]["field"], "placement.system");
  r = Answer(
      Post("/plot", R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":3}})"));
  EXPECT_EQ(r.status, 400) << r.body;
}

// The rank map's group kinds (/plot?groups=) and the summarised world: by
// node at 1,024 GPUs, by rack at 100,000, with only the stages drawn in the
// legend.
TEST_F(RoutesTest, PlotRankMapShowsGroupsAndSummarisesLargeWorlds) {
  const std::string body =
      R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":4,"pp":4}})";
  Response r = Answer(Post("/plot?groups=dp", body));
  ASSERT_EQ(r.status, 200) << r.body;
  std::string svg = Json::parse(r.body)["rank_map_svg"].get<std::string>();
  EXPECT_NE(svg.find("data-group=\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"group-outline\""), std::string::npos);
  EXPECT_NE(svg.find("colour = DP group (16 groups of 4 ranks"), std::string::npos);
  r = Answer(Post("/plot?groups=xp", body));
  ASSERT_EQ(r.status, 400);
  EXPECT_EQ(Json::parse(r.body)["error"]["field_violations"][0]["field"], "groups");

  r = Answer(Post("/plot?groups=tp", R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":1024},)"
                                     R"("config":{"tp":8,"pp":4}})"));
  ASSERT_EQ(r.status, 200) << r.body;
  svg = Json::parse(r.body)["rank_map_svg"].get<std::string>();
  EXPECT_EQ(svg.find("class=\"rank-cell"), std::string::npos);
  size_t units = 0;
  for (size_t at = svg.find("<g class=\"unit-cell"); at != std::string::npos;
       at = svg.find("<g class=\"unit-cell", at + 1)) {
    ++units;
  }
  EXPECT_EQ(units, 128u);  // one per 8-GPU node
  EXPECT_NE(svg.find(">stage 3</text>"), std::string::npos);
  EXPECT_NE(svg.find("rank 0&apos;s spans 1 node in 1 rack"), std::string::npos);

  r = Answer(Post("/plot?groups=dp", R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":100000},)"
                                     R"("config":{"tp":8,"pp":5,"gbs":100000}})"));
  ASSERT_EQ(r.status, 200) << r.body;
  svg = Json::parse(r.body)["rank_map_svg"].get<std::string>();
  EXPECT_NE(svg.find("3125 racks of 32 GPUs"), std::string::npos);
  EXPECT_NE(svg.find(">stage 4</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">stage 5"), std::string::npos);  // no legend entry for a stage that is not there
  EXPECT_LT(svg.size(), 2000000u);
}

TEST_F(RoutesTest, McpSessionsFollowStreamableHttp) {
  const std::string id = Initialize();
  ASSERT_EQ(id.size(), 32u);
  const std::string list = R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})";
  // No session header, then an unknown session.
  Response r = Answer(Post("/mcp", list));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Json::parse(r.body)["error"]["code"], -32600);
  EXPECT_EQ(Answer(Post("/mcp", list, {{"mcp-session-id", "ffffffffffffffffffffffffffffffff"}})).status, 404);
  // An unsupported protocol version header.
  EXPECT_EQ(Answer(Post("/mcp", list, {{"mcp-session-id", id}, {"mcp-protocol-version", "1999-01-01"}})).status, 400);
  // A notification is accepted with no body.
  r = Answer(Post("/mcp", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", {{"mcp-session-id", id}}));
  EXPECT_EQ(r.status, 202);
  EXPECT_TRUE(r.body.empty());
  // A request: JSON, or one SSE event when only SSE is accepted.
  r = Answer(Post("/mcp", list, {{"mcp-session-id", id}, {"mcp-protocol-version", "2025-06-18"}}));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(Json::parse(r.body)["result"]["tools"].size(), api::ApiMethods().size());
  r = Answer(Post("/mcp", R"({"jsonrpc":"2.0","id":3,"method":"ping"})",
                  {{"mcp-session-id", id}, {"accept", "text/event-stream"}}));
  EXPECT_EQ(r.content_type, "text/event-stream");
  EXPECT_EQ(r.body, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n");
  // A tools/call that searches runs on the pool and answers the same JSON.
  r = Answer(Post(
      "/mcp",
      R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recommend","arguments":{"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},"top_k":1}}})",
      {{"mcp-session-id", id}}));
  ASSERT_EQ(r.status, 200);
  EXPECT_FALSE(Json::parse(r.body)["result"]["isError"].get<bool>());
  // Bad bodies.
  EXPECT_EQ(Answer(Post("/mcp", "[1,2]", {{"mcp-session-id", id}})).status, 400);
  EXPECT_EQ(Answer(Post("/mcp", "{nope", {{"mcp-session-id", id}})).status, 400);
  EXPECT_EQ(Answer(Post("/mcp", list, {{"mcp-session-id", id}, {"accept", "text/html"}})).status, 406);
  // GET opens no stream; DELETE ends the session.
  Request get = Get("/mcp");
  EXPECT_EQ(Answer(get).status, 405);
  Request del;
  del.method = "DELETE";
  del.target = "/mcp";
  del.headers = {{"mcp-session-id", id}};
  EXPECT_EQ(Answer(del).status, 204);
  EXPECT_EQ(Answer(del).status, 404);
  EXPECT_EQ(Answer(Post("/mcp", list, {{"mcp-session-id", id}})).status, 404);
}

TEST_F(RoutesTest, DeeplyNestedJsonIsRefusedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Response r = Answer(Post("/v1/MinGpus", deep));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("nested deeper than 64"), std::string::npos) << r.body;
  r = Answer(Post("/v1/Validate", R"({"model":)" + std::string(5000, '[') + std::string(5000, ']') + "}"));
  EXPECT_EQ(r.status, 400);
  const std::string id = Initialize();
  r = Answer(Post("/mcp", R"({"method":)" + std::string(100000, '[') + std::string(100000, ']') + "}",
                  {{"mcp-session-id", id}}));
  EXPECT_EQ(r.status, 400);
  // Brackets inside strings do not count.
  r = Answer(Post("/v1/ListModels", R"({"filter":")" + std::string(200, '[') + R"("})"));
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(RoutesTest, HeadAndCors) {
  Request head = Get("/healthz");
  head.method = "HEAD";
  EXPECT_EQ(Answer(head).status, 200);
  head.target = "/";
  EXPECT_EQ(Answer(head).status, 200);
  // A listed origin: preflight, then CORS headers on the answer.
  Request preflight = Get("/mcp");
  preflight.method = "OPTIONS";
  preflight.headers = {{"origin", "https://chat.example.com"}, {"access-control-request-method", "POST"}};
  Response r = Answer(preflight);
  EXPECT_EQ(r.status, 204);
  EXPECT_EQ(HeaderOf(r, "access-control-allow-origin"), "https://chat.example.com");
  EXPECT_NE(HeaderOf(r, "access-control-allow-headers").find("Mcp-Session-Id"), std::string::npos);
  r = Answer(Post("/v1/MinGpus", "{}", {{"origin", "https://chat.example.com"}}));
  EXPECT_EQ(HeaderOf(r, "access-control-allow-origin"), "https://chat.example.com");
  EXPECT_NE(HeaderOf(r, "access-control-expose-headers").find("Mcp-Session-Id"), std::string::npos);
  // Any other origin: no preflight, no CORS headers.
  preflight.headers = {{"origin", "http://evil.example"}};
  EXPECT_EQ(Answer(preflight).status, 403);
  r = Answer(Post("/v1/MinGpus", "{}", {{"origin", "http://evil.example"}}));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(HeaderOf(r, "access-control-allow-origin"), "");
  // Loopback origins on any port, as the README allows: a page on a dev
  // server (localhost:3000) gets its preflight and its CORS headers.
  for (const char* origin : {"http://localhost:3000", "http://127.0.0.1:9999", "http://[::1]:8080"}) {
    SCOPED_TRACE(origin);
    preflight.headers = {{"origin", origin}, {"access-control-request-method", "POST"}};
    r = Answer(preflight);
    EXPECT_EQ(r.status, 204);
    EXPECT_EQ(HeaderOf(r, "access-control-allow-origin"), origin);
    r = Answer(Post("/v1/MinGpus", "{}", {{"origin", origin}}));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(HeaderOf(r, "access-control-allow-origin"), origin);
  }
  preflight.headers = {{"origin", "http://localhost.evil.example:3000"}};
  EXPECT_EQ(Answer(preflight).status, 403);
}

TEST_F(RoutesTest, AbandonedWorkAnswers503WithoutRunning) {
  router_->Abandon();
  Response r =
      Answer(Post("/v1/Recommend", R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8}})"));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(Json::parse(r.body)["error"]["code"], "UNAVAILABLE");
}

// A full table refuses new sessions (503, Retry-After) instead of ending
// one in use: a flood of initialize calls leaves the first session working.
TEST_F(RoutesTest, McpSessionsAreBoundedWithoutEvictingLiveOnes) {
  const std::string first = Initialize();
  Initialize();
  Initialize();
  for (int i = 0; i < 5; ++i) {
    Response r = Answer(
        Post("/mcp", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})",
             {{"accept", "application/json, text/event-stream"}}));
    EXPECT_EQ(r.status, 503) << r.body;
    EXPECT_EQ(HeaderOf(r, "retry-after"), "5");
    EXPECT_NE(r.body.find("none has been idle"), std::string::npos) << r.body;
  }
  EXPECT_EQ(router_->mcp_sessions().size(), 3u);
  EXPECT_EQ(Answer(Post("/mcp", R"({"jsonrpc":"2.0","id":2,"method":"ping"})", {{"mcp-session-id", first}})).status,
            200);
}

// The Host header on a loopback-bound server: loopback names only (DNS rebinding).
TEST(RoutesHostTest, LoopbackServerRefusesOtherHosts) {
  WorkPool pool{1, 1};
  ClientLimits calls{8};
  RouterOptions options;
  options.loopback_only = true;
  Router router(options, WorkLanes{&pool, &pool}, &calls, [] { return true; });
  auto answer = [&router](const std::string& host) {
    Request r = Post("/v1/MinGpus", R"({"config":{"tp":1}})", {{"host", host}});
    std::promise<Response> promise;
    router.Handle(std::move(r), [&promise](Response x) { promise.set_value(std::move(x)); });
    return promise.get_future().get();
  };
  for (const char* host : {"127.0.0.1:8080", "localhost", "localhost:3000", "[::1]:8080", "127.1.2.3"}) {
    EXPECT_EQ(answer(host).status, 200) << host;
  }
  for (const char* host :
       {"evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example", "10.0.0.1:8080", ""}) {
    const Response r = answer(host);
    EXPECT_EQ(r.status, 403) << host;
    EXPECT_NE(r.body.find("DNS-rebinding"), std::string::npos) << r.body;
  }
  EXPECT_TRUE(LoopbackHost("localhost:1"));
  EXPECT_FALSE(LoopbackHost("localhost:"));
  EXPECT_FALSE(LoopbackHost("127.0.0.1:80x"));
}

}  // namespace
}  // namespace http
}  // namespace parplan
