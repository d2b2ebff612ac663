// Deadlines from arrival and lanes (issue 36, item 2): the work pool answers
// a queued task at its deadline instead of starting it late; a pooled call
// that cannot start in time is answered 504 / DEADLINE_EXCEEDED with
// Retry-After while the search ahead of it is still running; layouts and
// plots (the light lane) and the inline calls answer while the search lane
// is full. Ordering, not timing: "before the blocking search finished".
#include <atomic>
#include <future>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "parplan/v1/planner.grpc.pb.h"
#include "server/server_runner.h"
#include "server/work_pool.h"
#include "tests/server/http_client.h"

namespace parplan {
namespace {

using testing_http::Call;
using testing_http::Reply;

TEST(WorkPoolTest, ATaskNotStartedByItsDeadlineGetsItsExpireInstead) {
  WorkPool pool(1, 8);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> ran{0}, expired{0};
  ASSERT_TRUE(pool.TrySubmit([released] { released.wait(); }));  // occupies the one worker
  std::promise<absl::Time> expired_at;
  const absl::Time deadline = absl::Now() + absl::Milliseconds(100);
  ASSERT_TRUE(pool.TrySubmit([&] { ran++; }, deadline,
                             [&] {
                               expired++;
                               expired_at.set_value(absl::Now());
                             }));
  // Expired while the worker is still busy: answered at its deadline.
  const absl::Time when = expired_at.get_future().get();
  EXPECT_GE(when, deadline);
  EXPECT_EQ(pool.queued(), 0);
  // A task with no deadline waits for the worker and runs.
  ASSERT_TRUE(pool.TrySubmit([&] { ran++; }));
  release.set_value();
  while (pool.queued() > 0 || pool.running() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(ran.load(), 1);
  EXPECT_EQ(expired.load(), 1);
}

TEST(WorkPoolTest, ExactlyOneOfTaskAndExpireRuns) {
  std::atomic<int> ran{0}, expired{0};
  {
    WorkPool pool(2, 1000);
    for (int i = 0; i < 500; ++i) {
      ASSERT_TRUE(pool.TrySubmit([&] { ran++; }, absl::Now() + absl::Microseconds(i % 50), [&] { expired++; }));
    }
  }  // the destructor runs or expires what is queued
  EXPECT_EQ(ran.load() + expired.load(), 500);
}

std::unique_ptr<RunningServer> StartOneWorker() {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.http_listen = "127.0.0.1:0";
  options.access_log = false;
  options.search_workers = 1;
  options.light_workers = 1;
  auto running = StartServer(options);
  EXPECT_TRUE(running.ok()) << running.status();
  return running.ok() ? *std::move(running) : nullptr;
}

TEST(LanesTest, QueuedSearchPastItsDeadlineIsAnsweredAtTheDeadline) {
  auto server = StartOneWorker();
  ASSERT_NE(server, nullptr);
  const int port = server->http_port;
  auto blocker = std::async(std::launch::async, [port] {
    return Call(port, "POST", "/v1/Recommend",
                R"({"model":{"id":"deepseek_v3"},"placement":{"system":"gb200-nvl72"},"min_gpus":64,)"
                R"("max_gpus":16384,"config":{"seq_length":4096}})",
                {"X-Timeout-Ms: 2600"});
  });
  while (server->service->lanes().search->running() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // Queued behind it with 300 ms: 504 with Retry-After while the blocker still runs.
  const Reply late =
      Call(port, "POST", "/v1/Recommend", R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8}})",
           {"X-Timeout-Ms: 300"});
  EXPECT_EQ(late.status, 504) << late.body;
  EXPECT_EQ(late.Header("retry-after"), "1");
  EXPECT_NE(late.body.find("before a worker was free"), std::string::npos) << late.body;
  EXPECT_EQ(blocker.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "answered only after the search ahead finished";

  // gRPC: the same, and the expired call leaves the queue at its deadline.
  auto stub = v1::Planner::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", server->port), grpc::InsecureChannelCredentials()));
  v1::RecommendRequest req;
  req.mutable_model()->set_id("llama3_8b");
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->set_gpus(8);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
  v1::RecommendResponse resp;
  EXPECT_EQ(stub->Recommend(&ctx, req, &resp).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  for (int i = 0; i < 100 && server->service->lanes().search->queued() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server->service->lanes().search->queued(), 0);
  EXPECT_EQ(blocker.wait_for(std::chrono::seconds(0)), std::future_status::timeout);

  // The blocking search itself is cut by its deadline and says so.
  const Reply first = blocker.get();
  EXPECT_EQ(first.status, 200) << first.body;
  EXPECT_NE(first.body.find("\"truncated\":true"), std::string::npos) << first.body.substr(0, 300);
  StopServer(server.get(), 1);
}

TEST(LanesTest, CheapCallsDoNotQueueBehindSearches) {
  auto server = StartOneWorker();
  ASSERT_NE(server, nullptr);
  const int port = server->http_port;
  std::vector<std::future<Reply>> searches;
  for (int i = 0; i < 3; ++i) {
    searches.push_back(std::async(std::launch::async, [port] {
      return Call(port, "POST", "/v1/Recommend",
                  R"({"model":{"id":"deepseek_v3"},"placement":{"system":"gb200-nvl72"},"min_gpus":64,)"
                  R"("max_gpus":16384,"config":{"seq_length":4096}})",
                  {"X-Timeout-Ms: 1500"});
    }));
  }
  while (server->service->lanes().search->running() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::string plan =
      R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":8,"pp":4,"gbs":512}})";
  // Inline, light-lane layout and plot: all answered while the searches wait.
  EXPECT_EQ(Call(port, "POST", "/v1/MinGpus", R"({"config":{"tp":1,"pp":4,"ep":32}})").status, 200);
  EXPECT_EQ(Call(port, "POST", "/v1/Validate", plan).status, 200);
  EXPECT_EQ(Call(port, "POST", "/v1/ExplainLayout", plan).status, 200);
  EXPECT_EQ(Call(port, "POST", "/plot", plan).status, 200);
  EXPECT_EQ(Call(port, "GET", "/healthz", "").status, 200);
  EXPECT_EQ(searches.back().wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "the cheap calls should not wait for the queued searches";
  for (auto& s : searches) {
    const int status = s.get().status;
    EXPECT_TRUE(status == 200 || status == 504) << status;  // queued past 1.5 s: answered at the deadline
  }
  StopServer(server.get(), 1);
}

}  // namespace
}  // namespace parplan
