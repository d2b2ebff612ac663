// Drain as documented (README "Logs and shutdown"): parplan-server as a
// process gets SIGTERM while a search is running, and each step is checked
// in order: /readyz 503 and gRPC health NOT_SERVING at once; new calls on
// both doors answered 503 / UNAVAILABLE with Retry-After while the listeners
// stay open (the drain window); the running search finishes with its
// answer; the process exits 0 and its ports close.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "bench/server_process.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "parplan/v1/planner.grpc.pb.h"
#include "tests/server/http_client.h"

namespace parplan {
namespace {

using testing_http::Call;
using testing_http::Reply;

// grpc.health.v1.Health/Check for the whole server: 1 SERVING, 2
// NOT_SERVING, -1 when the call failed.
int HealthStatus(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::Slice empty("", 0);
  grpc::ByteBuffer request(&empty, 1), response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&ctx, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status s) { done.set_value(s); });
  if (!done.get_future().get().ok()) return -1;
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!response.Dump(&slices).ok()) return -1;
  for (const auto& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  // HealthCheckResponse { status = 1 (varint) }: "\x08\x01" or "\x08\x02".
  return bytes.size() == 2 && bytes[0] == 0x08 ? bytes[1] : -1;
}

TEST(DrainTest, SigtermStepByStep) {
  const bench::ServerProcess server =
      bench::StartServer(PARPLAN_SERVER_BINARY, {"--drain-seconds", "2", "--grace-seconds", "20"});
  auto channel = grpc::CreateChannel(server.address, grpc::InsecureChannelCredentials());
  auto stub = v1::Planner::NewStub(channel);
  ASSERT_EQ(HealthStatus(channel), 1);
  ASSERT_EQ(Call(server.http_port, "GET", "/readyz", "").status, 200);

  // A search that runs about 1.5 s (three quarters of its 2 s deadline).
  const std::string search =
      R"({"model":{"id":"deepseek_v3"},"placement":{"system":"gb200-nvl72","gpus":1024},"config":{"seq_length":4096}})";
  auto running = std::async(std::launch::async, [&] {
    return Call(server.http_port, "POST", "/v1/Recommend", search, {"X-Timeout-Ms: 2000"});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the search has arrived and started
  const auto sigterm = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(server.pid, SIGTERM), 0);

  // 1. At once (the signal is handled within milliseconds): not ready.
  Reply ready;
  for (int i = 0; i < 100; ++i) {
    ready = Call(server.http_port, "GET", "/readyz", "");
    if (ready.status == 503) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_NE(ready.body.find("NOT_SERVING"), std::string::npos);
  EXPECT_EQ(HealthStatus(channel), 2);

  // 2. New calls during the window: refused with Retry-After, not a closed port.
  const Reply refused = Call(server.http_port, "POST", "/v1/MinGpus", R"({"config":{"tp":1,"pp":4,"ep":32}})");
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_FALSE(refused.Header("retry-after").empty());
  EXPECT_EQ(refused.Header("connection"), "close");
  {
    v1::MinGpusRequest req;
    req.mutable_config()->set_tp(1);
    v1::MinGpusResponse resp;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    const grpc::Status status = stub->MinGpus(&ctx, req, &resp);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
    const auto& trailers = ctx.GetServerTrailingMetadata();
    EXPECT_NE(trailers.find("retry-after"), trailers.end());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - sigterm, std::chrono::seconds(2)) << "the checks above ran late";

  // 3. The search that was running finishes with its answer.
  const Reply answered = running.get();
  ASSERT_EQ(answered.status, 200) << answered.body;
  const auto body = nlohmann::json::parse(answered.body);
  EXPECT_TRUE(body.contains("plans") || body.contains("infeasible_reason") || body.contains("infeasibleReason"))
      << answered.body.substr(0, 400);

  // 4. Exit 0, ports closed.
  int status = 0;
  ASSERT_EQ(waitpid(server.pid, &status, 0), server.pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - sigterm, std::chrono::seconds(2)) << "closed before the drain window";
  testing_http::Connection after(server.http_port);
  EXPECT_FALSE(after.ok());
}

}  // namespace
}  // namespace parplan
