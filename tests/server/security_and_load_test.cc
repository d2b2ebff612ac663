// Serving beyond loopback safely and staying responsive: TLS with a test
// certificate made here, bearer-token auth, the non-loopback refusal, health
// open for probes, long calls on a bounded pool (short calls overtake them;
// a full queue is RESOURCE_EXHAUSTED), and a large search cut by the deadline.
#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parplan/v1/planner.grpc.pb.h"
#include "server/server_runner.h"

namespace parplan {
namespace {

constexpr char kToken[] = "test-token-0123456789abcdef";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

v1::MinGpusRequest MinGpus() {
  v1::MinGpusRequest r;
  r.mutable_config()->set_tp(1);
  r.mutable_config()->set_pp(4);
  r.mutable_config()->set_ep(32);
  return r;
}

v1::RecommendRequest BigSearch() {
  v1::RecommendRequest r;
  r.mutable_model()->set_id("deepseek_v3");
  r.mutable_placement()->set_system("gb200-nvl72");
  r.mutable_placement()->set_gpus(1024);
  r.mutable_config()->set_seq_length(4096);
  return r;
}

std::unique_ptr<RunningServer> Start(ServerOptions options) {
  options.access_log = false;
  auto running = StartServer(options);
  EXPECT_TRUE(running.ok()) << running.status();
  return running.ok() ? *std::move(running) : nullptr;
}

void Deadline(grpc::ClientContext* ctx, int ms) {
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(ms));
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/parplan_tls_XXXXXX";
    dir_ = mkdtemp(dir);
    const std::string command = absl::StrCat(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
        "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout ",
        dir_, "/key.pem -out ", dir_, "/cert.pem 2>/dev/null");
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  void TearDown() override { std::system(absl::StrCat("rm -rf ", dir_).c_str()); }
  std::string dir_;
};

TEST_F(TlsTest, TlsRoundTripAndTokenAcceptReject) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.tls_cert_file = dir_ + "/cert.pem";
  options.tls_key_file = dir_ + "/key.pem";
  options.auth_token = kToken;
  auto server = Start(options);
  ASSERT_NE(server, nullptr);
  const std::string address = absl::StrCat("127.0.0.1:", server->port);

  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = ReadFile(dir_ + "/cert.pem");
  auto stub = v1::Planner::NewStub(grpc::CreateChannel(address, grpc::SslCredentials(ssl)));
  v1::MinGpusResponse resp;
  {
    grpc::ClientContext ctx;
    Deadline(&ctx, 10000);
    ctx.AddMetadata("authorization", absl::StrCat("Bearer ", kToken));
    const grpc::Status status = stub->MinGpus(&ctx, MinGpus(), &resp);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(resp.min_gpus(), 128);
  }
  {
    grpc::ClientContext ctx;
    Deadline(&ctx, 10000);
    const grpc::Status status = stub->MinGpus(&ctx, MinGpus(), &resp);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_NE(status.error_message().find("authorization"), std::string::npos);
  }
  {
    grpc::ClientContext ctx;
    Deadline(&ctx, 10000);
    ctx.AddMetadata("authorization", "Bearer test-token-0123456789abcdeX");
    EXPECT_EQ(stub->MinGpus(&ctx, MinGpus(), &resp).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  {  // A plaintext client cannot talk to the TLS port.
    auto plain = v1::Planner::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    Deadline(&ctx, 3000);
    ctx.AddMetadata("authorization", absl::StrCat("Bearer ", kToken));
    EXPECT_FALSE(plain->MinGpus(&ctx, MinGpus(), &resp).ok());
  }
  StopServer(server.get(), 1);
}

TEST(ListenTest, NonLoopbackNeedsTlsOrTokenOrInsecure) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:1"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:50051"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:50051"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0:50051"));
  EXPECT_FALSE(IsLoopbackAddress("[::]:50051"));
  EXPECT_FALSE(IsLoopbackAddress("10.1.2.3:50051"));
  ServerOptions options;
  options.listen = "0.0.0.0:0";
  options.access_log = false;
  auto refused = StartServer(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("--insecure"), std::string::npos);
  options.auth_token = kToken;
  auto with_token = StartServer(options);
  ASSERT_TRUE(with_token.ok()) << with_token.status();
  StopServer(with_token->get(), 1);
  options.tls_cert_file = "/nonexistent.pem";
  options.tls_key_file = "/nonexistent.key";
  auto bad_cert = StartServer(options);
  EXPECT_EQ(bad_cert.status().code(), absl::StatusCode::kFailedPrecondition);
}

// `n` big searches started at once on `stub` (callback API); done[i]
// receives the i-th status, answers[i] its response. Each search is cut by
// the candidate bound (~0.1 s here), never by the server's 20 s cap, so the
// answers are the same bytes however loaded the machine is.
struct AsyncSearches {
  AsyncSearches(v1::Planner::Stub* stub, int n) : answers(n), done(n) {
    for (int i = 0; i < n; ++i) {
      contexts.push_back(std::make_unique<grpc::ClientContext>());
      Deadline(contexts.back().get(), 120000);
      stub->async()->Recommend(contexts.back().get(), &request, &answers[i],
                               [this, i](grpc::Status s) { done[i].set_value(std::move(s)); });
    }
  }
  const v1::RecommendRequest request = [] {
    v1::RecommendRequest r = BigSearch();
    r.set_max_candidates(10000);
    return r;
  }();
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<v1::RecommendResponse> answers;
  std::vector<std::promise<grpc::Status>> done;
};

TEST(LoadTest, ShortCallsOvertakeQueuedSearches) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.search_workers = 1;
  auto server = Start(options);
  ASSERT_NE(server, nullptr);
  auto stub = v1::Planner::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", server->port), grpc::InsecureChannelCredentials()));
  constexpr int kSearches = 6;
  AsyncSearches searches(stub.get(), kSearches);
  // While one worker runs the searches one by one, 50 short calls complete.
  for (int i = 0; i < 50; ++i) {
    grpc::ClientContext ctx;
    Deadline(&ctx, 10000);
    v1::MinGpusResponse resp;
    ASSERT_TRUE(stub->MinGpus(&ctx, MinGpus(), &resp).ok());
  }
  auto last = searches.done[kSearches - 1].get_future();
  EXPECT_EQ(last.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "the short calls should finish before the queued searches";
  EXPECT_TRUE(last.get().ok());
  for (int i = 0; i + 1 < kSearches; ++i) EXPECT_TRUE(searches.done[i].get_future().get().ok());
  EXPECT_EQ(searches.answers[0].SerializeAsString(), searches.answers[kSearches - 1].SerializeAsString());
  StopServer(server.get(), 1);
}

TEST(LoadTest, FullQueueIsResourceExhausted) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.search_workers = 1;
  options.max_queued_calls = 1;
  auto server = Start(options);
  ASSERT_NE(server, nullptr);
  auto stub = v1::Planner::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", server->port), grpc::InsecureChannelCredentials()));
  constexpr int kCalls = 5;
  AsyncSearches searches(stub.get(), kCalls);
  int ok = 0, busy = 0;
  for (auto& d : searches.done) {
    const grpc::Status s = d.get_future().get();
    ok += s.ok();
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++busy;
      EXPECT_NE(s.error_message().find("retry"), std::string::npos);
    }
  }
  EXPECT_GE(ok, 1);
  EXPECT_GE(busy, 1);
  EXPECT_EQ(ok + busy, kCalls);
  StopServer(server.get(), 1);
}

TEST(LoadTest, LargeSearchIsCutByTheDeadlineAndSaysSo) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server = Start(options);
  ASSERT_NE(server, nullptr);
  auto stub = v1::Planner::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", server->port), grpc::InsecureChannelCredentials()));
  v1::RecommendRequest req = BigSearch();
  req.mutable_placement()->set_gpus(0);
  req.set_min_gpus(64);
  req.set_max_gpus(16384);  // a range search of many seconds
  grpc::ClientContext ctx;
  Deadline(&ctx, 3000);  // a 750 ms margin to explain and send, even on a loaded machine
  v1::RecommendResponse resp;
  const grpc::Status status = stub->Recommend(&ctx, req, &resp);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(resp.truncated());
  EXPECT_NE(resp.truncated_reason().find("deadline"), std::string::npos) << resp.truncated_reason();
  StopServer(server.get(), 1);
}

}  // namespace
}  // namespace parplan
