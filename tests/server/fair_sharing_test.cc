// Fair sharing (issue 36, item 3) and bodies by bytes (item 1), against a
// real server on 127.0.0.1: one client (address 127.0.0.1) floods, another
// (127.0.0.2, a second loopback address) must still be served. Caps are set
// small so each flood takes a fraction of a second; the load bench runs the
// issue's sizes (2,000 connections, 2,000 initialize calls).
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "parplan/v1/planner.grpc.pb.h"
#include "server/server_runner.h"
#include "tests/server/http_client.h"

namespace parplan {
namespace {

using testing_http::Connection;
using testing_http::Reply;
using testing_http::RequestBytes;

constexpr char kOther[] = "127.0.0.2";
constexpr char kInit[] = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})";

Reply CallFrom(const char* source, int port, const std::string& target, const std::string& body,
               const std::vector<std::string>& headers = {}) {
  Connection c(port, source);
  if (!c.ok() || !c.Send(RequestBytes("POST", target, body, headers))) return {};
  return c.Read(std::chrono::milliseconds(10000));
}

class FairSharingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.http_listen = "127.0.0.1:0";
    options.access_log = false;
    options.search_workers = 1;
    options.http_max_client_connections = 20;
    options.max_client_mcp_sessions = 4;
    options.max_client_calls = 2;
    options.http_body_budget_bytes = 8 << 20;  // 4 MiB bodies: two at once in all, one per address
    auto running = StartServer(options);
    ASSERT_TRUE(running.ok()) << running.status();
    server_ = *std::move(running);
    port_ = server_->http_port;
  }
  void TearDown() override {
    if (server_) StopServer(server_.get(), 1);
  }
  std::unique_ptr<RunningServer> server_;
  int port_ = 0;
};

TEST_F(FairSharingTest, SlowConnectionsFromOneAddressLeaveOthersServed) {
  std::vector<std::unique_ptr<Connection>> slow;
  for (int i = 0; i < 60; ++i) {
    slow.push_back(std::make_unique<Connection>(port_));
    ASSERT_TRUE(slow.back()->ok());
    slow.back()->Send("POST /v1/MinGpus HTTP/1.1\r\n");  // and then nothing
  }
  // Beyond its 20, the address's connections are closed at accept.
  EXPECT_TRUE(slow.back()->ClosedWithin(std::chrono::milliseconds(2000)));
  const Reply other = CallFrom(kOther, port_, "/v1/MinGpus", R"({"config":{"tp":1,"pp":4,"ep":32}})");
  EXPECT_EQ(other.status, 200) << other.body;
}

TEST_F(FairSharingTest, InitializeFloodLeavesAnEstablishedSessionWorking) {
  const std::vector<std::string> accept = {"Accept: application/json, text/event-stream"};
  const Reply init = CallFrom(kOther, port_, "/mcp", kInit, accept);
  ASSERT_EQ(init.status, 200) << init.body;
  const std::string session = init.Header("mcp-session-id");
  ASSERT_FALSE(session.empty());
  int refused = 0;
  Connection flood(port_);  // one keep-alive connection: the connection cap is not what this tests
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(flood.Send(RequestBytes("POST", "/mcp", kInit, accept)));
    const Reply r = flood.Read(std::chrono::milliseconds(10000));
    if (r.status == 429) {
      ++refused;
      EXPECT_FALSE(r.Header("retry-after").empty());
    } else {
      EXPECT_EQ(r.status, 200);
    }
  }
  EXPECT_EQ(refused, 96);  // 4 sessions per client
  std::vector<std::string> with_session = accept;
  with_session.push_back("Mcp-Session-Id: " + session);
  const Reply list = CallFrom(kOther, port_, "/mcp", R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", with_session);
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_NE(list.body.find("min_gpus"), std::string::npos);
}

TEST_F(FairSharingTest, OneClientsCallsInFlightAreCapped) {
  const std::string search =
      R"({"model":{"id":"deepseek_v3"},"placement":{"system":"gb200-nvl72"},"min_gpus":64,"max_gpus":16384,)"
      R"("config":{"seq_length":4096}})";
  std::vector<std::future<Reply>> mine;
  for (int i = 0; i < 2; ++i) {
    mine.push_back(std::async(std::launch::async, [&] {
      return CallFrom("127.0.0.1", port_, "/v1/Recommend", search, {"X-Timeout-Ms: 1500"});
    }));
  }
  while (server_->service->client_calls()->Held("127.0.0.1") < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const Reply third = CallFrom("127.0.0.1", port_, "/v1/MinGpus", R"({"config":{"tp":1}})");
  EXPECT_EQ(third.status, 429) << third.body;
  EXPECT_NE(third.body.find("calls in flight"), std::string::npos) << third.body;
  EXPECT_EQ(CallFrom(kOther, port_, "/v1/MinGpus", R"({"config":{"tp":1}})").status, 200);
  {  // Both doors count together: the same address over gRPC is refused too.
    auto stub = v1::Planner::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::MinGpusRequest req;
    req.mutable_config()->set_tp(1);
    v1::MinGpusResponse resp;
    const grpc::Status status = stub->MinGpus(&ctx, req, &resp);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
    EXPECT_NE(ctx.GetServerTrailingMetadata().find("retry-after"), ctx.GetServerTrailingMetadata().end());
  }
  for (auto& f : mine) {
    const int status = f.get().status;
    EXPECT_TRUE(status == 200 || status == 504) << status;
  }
  EXPECT_EQ(CallFrom("127.0.0.1", port_, "/v1/MinGpus", R"({"config":{"tp":1}})").status, 200);
}

// Incomplete bodies reserve their declared length before a byte is read:
// one 4 MiB body per address here; the next is refused at once (503,
// Retry-After), and another address still has its share.
TEST_F(FairSharingTest, IncompleteBodiesCountAgainstTheByteBudget) {
  const std::string head =
      "POST /v1/Validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 4000000\r\n\r\n{\"config\":";
  Connection first(port_);
  ASSERT_TRUE(first.Send(head));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Connection second(port_);
  ASSERT_TRUE(second.Send(head));
  const Reply refused = second.Read(std::chrono::milliseconds(5000));
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.Header("retry-after"), "1");
  EXPECT_NE(refused.body.find("request bodies being received"), std::string::npos) << refused.body;
  Connection other(port_, kOther);
  ASSERT_TRUE(other.Send(head));
  EXPECT_FALSE(other.ClosedWithin(std::chrono::milliseconds(300))) << "another address has its own share";
  // A small complete body still goes through: it fits what is left.
  const Reply small = CallFrom(kOther, port_, "/v1/MinGpus", R"({"config":{"tp":1}})");
  EXPECT_EQ(small.status, 200) << small.body;
}

}  // namespace
}  // namespace parplan
