// Bytes, not counts (issue 36, item 1): a search's candidate bound is
// lowered to what the per-search memory budget holds and the answer says
// so; with the process above its RSS ceiling no search starts (503 with
// Retry-After) while cheap calls still answer.
#include "server/api/request_budget.h"

#include <future>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "parplan/v1/planner.pb.h"
#include "server/api/api_methods.h"
#include "server/api/json_codec.h"
#include "server/http/http_routes.h"
#include "server/process_memory.h"
#include "server/server_runner.h"

namespace parplan {
namespace {

class BudgetTest : public ::testing::Test {
 protected:
  void TearDown() override {
    api::SetSearchMemoryBytes(api::kNoSearchMemoryBudget);
    SetMaxResidentBytes(0);
  }
};

TEST_F(BudgetTest, SearchBoundFollowsTheByteBudget) {
  api::SetSearchMemoryBytes(1000 * api::kSearchBytesPerCandidate);
  v1::RecommendRequest req;
  ASSERT_TRUE(api::JsonToMessage(R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":1024},)"
                                 R"("max_candidates":2000000})",
                                 "", &req)
                  .ok());
  v1::RecommendResponse resp;
  ASSERT_TRUE(api::RunMethod(*api::FindApiMethod("Recommend"), req, &resp, absl::InfiniteFuture()).ok());
  EXPECT_LE(resp.evaluated(), 1000);  // the split bounds skip some of the 1,000 held
  EXPECT_GT(resp.evaluated(), 0);
  EXPECT_TRUE(resp.truncated());
  EXPECT_NE(resp.truncated_reason().find("max_candidates 2000000 would hold about 2098 MiB while searching; this "
                                         "server's memory budget per search (1 MiB"),
            std::string::npos)
      << resp.truncated_reason();
  EXPECT_EQ(resp.reasons(resp.reasons_size() - 1).rfind("Memory budget: ", 0), 0u);
  // A bound within the budget is left alone and says nothing.
  req.set_max_candidates(500);
  resp.Clear();
  ASSERT_TRUE(api::RunMethod(*api::FindApiMethod("Recommend"), req, &resp, absl::InfiniteFuture()).ok());
  EXPECT_LE(resp.evaluated(), 500);
  EXPECT_GT(resp.evaluated(), 0);
  EXPECT_EQ(resp.truncated_reason().find("memory budget"), std::string::npos);
  // Out of range stays the call's own refusal, naming the field.
  req.set_max_candidates(INT64_MAX);
  const absl::Status refused = api::RunMethod(*api::FindApiMethod("Recommend"), req, &resp, absl::InfiniteFuture());
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("max_candidates"), std::string::npos) << refused;
}

// Every search worker's budget fits under the RSS ceiling together.
TEST_F(BudgetTest, TheCeilingIsSharedBySearchWorkers) {
  ServerOptions options;
  options.max_rss_bytes = int64_t{768} << 20;
  options.search_workers = 1;
  EXPECT_EQ(SearchMemoryBudget(options), int64_t{256} << 20);  // the manifest: one worker keeps the default
  options.search_workers = 15;
  EXPECT_EQ(SearchMemoryBudget(options), ((int64_t{768} << 20) - kRssReserveBytes - (int64_t{64} << 20)) / 15);
  EXPECT_LE(15 * SearchMemoryBudget(options) + kRssReserveBytes + options.http_body_budget_bytes,
            options.max_rss_bytes);
  options.search_workers = 256;
  EXPECT_EQ(SearchMemoryBudget(options), kMinSearchMemoryBytes);
  options.max_rss_bytes = 0;  // no ceiling: the flag's budget
  EXPECT_EQ(SearchMemoryBudget(options), options.search_memory_bytes);
}

TEST_F(BudgetTest, AboveTheRssCeilingNoSearchStarts) {
  SetMaxResidentBytes(1);  // any process is above one byte
  WorkPool search{1, 4}, light{1, 4};
  ClientLimits calls{8};
  http::Router router({}, WorkLanes{&search, &light}, &calls, [] { return true; });
  auto answer = [&router](const std::string& target, const std::string& body) {
    http::Request r;
    r.method = "POST";
    r.target = target;
    r.body = body;
    r.headers = {{"content-type", "application/json"}};
    std::promise<http::Response> promise;
    router.Handle(std::move(r), [&promise](http::Response x) { promise.set_value(std::move(x)); });
    return promise.get_future().get();
  };
  const http::Response refused =
      answer("/v1/Recommend", R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8}})");
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_NE(refused.body.find("--max-rss-mib"), std::string::npos) << refused.body;
  bool retry = false;
  for (const auto& [k, v] : refused.headers) retry |= k == "retry-after";
  EXPECT_TRUE(retry);
  EXPECT_EQ(answer("/v1/MinGpus", R"({"config":{"tp":2}})").status, 200);
}

}  // namespace
}  // namespace parplan
