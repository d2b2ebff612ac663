// The HTTP door over real sockets: parplan-server's runner with
// --http-listen on 127.0.0.1:0. Every method answers the same bytes as the
// gRPC door's answer in the project's JSON; hostile clients (oversized
// bodies, header floods, slowloris, garbage, too many connections) get
// their status and the server keeps serving; the JSON fuzzer's corpus is
// replayed over HTTP; a drain lets an in-flight search finish.
#include <dirent.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/api/api_methods.h"
#include "server/api/json_codec.h"
#include "server/server_runner.h"
#include "skill/cli/remote_call.h"
#include "tests/server/http_client.h"

namespace parplan {
namespace {

using Json = nlohmann::json;
using testing_http::Call;
using testing_http::Connection;
using testing_http::Reply;
using testing_http::RequestBytes;

class HttpDoorTest : public ::testing::Test {
 protected:
  void Start(ServerOptions options = {}) {
    options.listen = "127.0.0.1:0";
    options.http_listen = "127.0.0.1:0";
    options.access_log = false;
    auto running = StartServer(options);
    ASSERT_TRUE(running.ok()) << running.status();
    server_ = *std::move(running);
    port_ = server_->http_port;
    ASSERT_GT(port_, 0);
  }
  void TearDown() override {
    if (server_) StopServer(server_.get(), 1.0);
  }
  // The server still answers a short call.
  void ExpectServing() {
    Reply r = Call(port_, "POST", "/v1/MinGpus", R"({"config":{"tp":2,"pp":2}})");
    EXPECT_EQ(r.status, 200) << r.body;
  }

  std::unique_ptr<RunningServer> server_;
  int port_ = 0;
};

// One request per method of the table.
const std::map<std::string, std::string>& SampleRequests() {
  static const auto* requests = new std::map<std::string, std::string>{
      {"ListModels", R"({"filter":"llama"})"},
      {"GetModel", R"({"model":{"id":"llama3_8b"}})"},
      {"ListSystems", "{}"},
      {"GetSystem", R"({"system":"h100-sxm"})"},
      {"MinGpus", R"({"config":{"tp":1,"pp":4,"ep":32}})"},
      {"Validate", R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":3}})"},
      {"ExplainLayout", R"({"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":4,"pp":2},"rank":5})"},
      {"RenderConfig",
       R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":4,"pp":4}})"},
      {"EstimateMemory",
       R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":2}})"},
      {"EstimatePerformance",
       R"({"model":{"id":"mixtral_8x7b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":2,"ep":8}})"},
      {"Recommend", R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},"top_k":2})"},
      {"ImportConfig", R"({"text":"recipe:llama3_8b_pretrain_config","placement":{"system":"h100-sxm"}})"},
      {"CompareRun",
       R"({"log":" iteration 1/ 100 | elapsed time per iteration (ms): 90000.0 | global batch size: 512 |\n iteration 2/ 100 | elapsed time per iteration (ms): 50000.0 | global batch size: 512 |\n iteration 3/ 100 | elapsed time per iteration (ms): 50200.0 | global batch size: 512 |\n","config_text":"recipe:llama3_8b_pretrain_config","placement":{"system":"h100-sxm","gpus":8}})"},
      {"Calibrate",
       R"({"runs":[{"log":" iteration 1/ 100 | elapsed time per iteration (ms): 90000.0 | global batch size: 512 |\n iteration 2/ 100 | elapsed time per iteration (ms): 50000.0 | global batch size: 512 |\n iteration 3/ 100 | elapsed time per iteration (ms): 50200.0 | global batch size: 512 |\n iteration 4/ 100 | elapsed time per iteration (ms): 49900.0 | global batch size: 512 |\n iteration 5/ 100 | elapsed time per iteration (ms): 50100.0 | global batch size: 512 |\n iteration 6/ 100 | elapsed time per iteration (ms): 50000.0 | global batch size: 512 |\n","config_text":"recipe:llama3_8b_pretrain_config","placement":{"system":"h100-sxm","gpus":8}}]})"}};
  return *requests;
}

TEST_F(HttpDoorTest, EveryMethodAnswersTheGrpcDoorsBytes) {
  Start();
  const std::string grpc_address = absl::StrCat("127.0.0.1:", server_->port);
  Connection http(port_);  // one keep-alive connection for all
  ASSERT_TRUE(http.ok());
  for (const api::ApiMethod& method : api::ApiMethods()) {
    SCOPED_TRACE(method.rpc);
    auto it = SampleRequests().find(method.rpc);
    ASSERT_NE(it, SampleRequests().end()) << "no sample request for " << method.rpc;
    ASSERT_TRUE(http.Send(RequestBytes("POST", "/v1/" + method.rpc, it->second)));
    Reply reply = http.Read();
    ASSERT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(reply.Header("content-type"), "application/json");

    std::unique_ptr<google::protobuf::Message> request(method.request->New());
    ASSERT_TRUE(api::JsonToMessage(it->second, "body", request.get()).ok());
    cli::RemoteRequest call;
    call.address = grpc_address;
    call.method = absl::StrCat("/parplan.v1.Planner/", method.rpc);
    call.request = request->SerializeAsString();
    call.timeout_ms = 30000;
    std::string bytes;
    const absl::Status remote = cli::CallRemote(call, &bytes);
    ASSERT_TRUE(remote.ok()) << remote;
    std::unique_ptr<google::protobuf::Message> response(method.response->New());
    ASSERT_TRUE(response->ParseFromString(bytes));
    EXPECT_EQ(reply.body, api::MessageToJson(*response, /*pretty=*/false));
  }
}

TEST_F(HttpDoorTest, ErrorsMapToHttpStatuses) {
  Start();
  Reply r = Call(port_, "POST", "/v1/Validate", R"({"config":{"tp":"x"}})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Json::parse(r.body)["error"]["code"], "INVALID_ARGUMENT");
  EXPECT_EQ(Call(port_, "POST", "/v1/GetModel", R"({"model":{"id":"nope_1b"}})").status, 404);
  EXPECT_EQ(Call(port_, "POST", "/v1/MinGpus", "{}", {}, "text/plain").status, 415);
  EXPECT_EQ(Call(port_, "POST", "/v1/MinGpus", "{}", {}, "").status, 415);
  EXPECT_EQ(Call(port_, "GET", "/nowhere", "").status, 404);
  // A search cut by the caller's deadline says so (or, when the deadline
  // passes before it starts, 504).
  r = Call(port_, "POST", "/v1/Recommend",
           R"({"model":{"id":"deepseek_v3"},"placement":{"system":"h100-sxm"},"min_gpus":64,"max_gpus":8192})",
           {"X-Timeout-Ms: 300"});
  ASSERT_TRUE(r.status == 200 || r.status == 504) << r.status << r.body;
  if (r.status == 200) {
    EXPECT_TRUE(Json::parse(r.body)["truncated"].get<bool>());
  }
}

TEST_F(HttpDoorTest, KeepAliveAndChunkedBodies) {
  Start();
  Connection c(port_);
  // HEAD: the GET answer's length, no body; the connection stays usable.
  ASSERT_TRUE(c.Send("HEAD /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  Reply head = c.Read(std::chrono::milliseconds(5000), /*head=*/true);
  EXPECT_EQ(head.status, 200);
  EXPECT_GT(std::stol(head.Header("content-length")), 10000);
  EXPECT_TRUE(head.body.empty());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.Send(RequestBytes("POST", "/v1/MinGpus", R"({"config":{"tp":2}})")));
    EXPECT_EQ(c.Read().status, 200);
  }
  const std::string body = R"({"config":{"tp":8,"pp":2}})";
  std::ostringstream chunked;
  chunked << "POST /v1/MinGpus HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          << "Transfer-Encoding: chunked\r\n\r\n"
          << std::hex << 5 << "\r\n"
          << body.substr(0, 5) << "\r\n"
          << std::hex << body.size() - 5 << "\r\n"
          << body.substr(5) << "\r\n0\r\n\r\n";
  ASSERT_TRUE(c.Send(chunked.str()));
  Reply r = c.Read();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Json::parse(r.body)["min_gpus"], "16");
}

TEST_F(HttpDoorTest, HostileRequestsGetTheirStatusAndTheServerKeepsServing) {
  ServerOptions options;
  options.max_message_bytes = 64 << 10;
  options.http_read_timeout_ms = 600;
  Start(options);

  {  // A body over the limit: refused from its Content-Length.
    Connection c(port_);
    ASSERT_TRUE(
        c.Send("POST /v1/MinGpus HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
               "Content-Length: 10485760\r\n\r\n{\"config\":"));
    Reply r = c.Read();
    EXPECT_EQ(r.status, 413);
    EXPECT_TRUE(c.ClosedWithin(std::chrono::milliseconds(2000)));
  }
  {  // The same sent chunked, without a length.
    Connection c(port_);
    std::string chunk(70 << 10, ' ');
    std::ostringstream bytes;
    bytes << "POST /v1/MinGpus HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: "
             "chunked\r\n\r\n"
          << std::hex << chunk.size() << "\r\n"
          << chunk << "\r\n";
    c.Send(bytes.str());
    EXPECT_EQ(c.Read().status, 413);
  }
  {  // A flood of small headers, then one huge header.
    std::vector<std::string> flood;
    for (int i = 0; i < 2000; ++i) flood.push_back(absl::StrCat("X-Flood-", i, ": aaaaaaaaaaaaaaaa"));
    EXPECT_EQ(Call(port_, "POST", "/v1/MinGpus", "{}", flood).status, 431);
    EXPECT_EQ(Call(port_, "POST", "/v1/MinGpus", "{}", {"X-Big: " + std::string(20000, 'b')}).status, 431);
  }
  {  // Garbage and bad versions.
    Connection c(port_);
    c.Send("GARBAGE GARBAGE GARBAGE\r\n\r\n");
    EXPECT_EQ(c.Read().status, 400);
    Connection v(port_);
    v.Send("GET / HTTP/7.3\r\nHost: x\r\n\r\n");
    EXPECT_EQ(v.Read().status, 400);
  }
  {  // Slowloris: a header byte every 100 ms; the request is cut at the
     // read timeout (408) while another client is served.
    Connection slow(port_);
    ASSERT_TRUE(slow.Send("POST /v1/MinGpus HTTP/1.1\r\nHost: localhost\r\n"));
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 4; ++i) {
      slow.Send("X");
      if (i == 1) ExpectServing();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    Reply r = slow.Read(std::chrono::milliseconds(3000));
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.status, 408);
    EXPECT_LT(waited, 3.0);
    EXPECT_TRUE(slow.ClosedWithin(std::chrono::milliseconds(3000)));
  }
  {  // A client that never stops trickling is cut off all the same.
    Connection slow(port_);
    ASSERT_TRUE(slow.Send("POST /v1/MinGpus HTTP/1.1\r\nHost: localhost\r\n"));
    bool cut = false;
    for (int i = 0; i < 60 && !cut; ++i) {
      cut = !slow.Send("X");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(cut) << "a trickling request stayed open for 6 s";
  }
  {  // An idle connection is closed after the read timeout, with no answer.
    Connection idle(port_);
    EXPECT_TRUE(idle.ClosedWithin(std::chrono::milliseconds(3000)));
  }
  ExpectServing();
}

TEST_F(HttpDoorTest, ConnectionsAreBounded) {
  ServerOptions options;
  options.http_max_connections = 4;
  options.http_read_timeout_ms = 5000;
  Start(options);
  std::vector<std::unique_ptr<Connection>> held;
  for (int i = 0; i < 4; ++i) held.push_back(std::make_unique<Connection>(port_));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Connection extra(port_);
  EXPECT_TRUE(extra.ClosedWithin(std::chrono::milliseconds(2000)));
  held.clear();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ExpectServing();
}

TEST_F(HttpDoorTest, TheJsonFuzzCorpusReplaysOverHttp) {
  Start();
  const std::string dir = std::string(PARPLAN_SOURCE_DIR) + "/tests/fuzz/corpus/json_request_fuzzer";
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') files.push_back(dir + "/" + e->d_name);
    }
    closedir(d);
  }
  ASSERT_GT(files.size(), 100u);
  std::sort(files.begin(), files.end());
  const auto& methods = api::ApiMethods();
  std::map<int, int> statuses;
  auto connection = std::make_unique<Connection>(port_);
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (data.empty()) continue;
    const std::string& rpc = methods[static_cast<unsigned char>(data[0]) % methods.size()].rpc;
    if (!connection->Send(RequestBytes("POST", "/v1/" + rpc, data.substr(1), {"X-Timeout-Ms: 200"}))) {
      connection = std::make_unique<Connection>(port_);
      ASSERT_TRUE(connection->Send(RequestBytes("POST", "/v1/" + rpc, data.substr(1), {"X-Timeout-Ms: 200"})));
    }
    Reply r = connection->Read();
    ++statuses[r.status];
    ASSERT_TRUE(r.status == 200 || r.status == 400 || r.status == 404 || r.status == 504) << file << ": " << r.status;
    const Json body = Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(body.is_discarded()) << file;
    if (r.status != 200) {
      EXPECT_TRUE(body.contains("error")) << file;
    }
    if (r.Header("connection") == "close") connection = std::make_unique<Connection>(port_);
  }
  std::string summary;
  for (const auto& [status, n] : statuses) absl::StrAppend(&summary, status, ":", n, " ");
  std::printf("replayed %zu corpus inputs over HTTP: %s\n", files.size(), summary.c_str());
  EXPECT_GT(statuses[200], 0);
  ExpectServing();
}

TEST_F(HttpDoorTest, DrainLetsAnInFlightSearchFinish) {
  Start();
  Reply reply;
  std::thread search([&] {
    reply =
        Call(port_, "POST", "/v1/Recommend",
             R"({"model":{"id":"deepseek_v3"},"placement":{"system":"gb200-nvl72"},"min_gpus":64,"max_gpus":16384})",
             {"X-Timeout-Ms: 2500"});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  StopServer(server_.get(), 10.0);
  search.join();
  server_.reset();
  EXPECT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.Header("connection"), "close");
}

}  // namespace
}  // namespace parplan
