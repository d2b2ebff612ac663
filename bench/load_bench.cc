// Load on the gRPC service and the HTTP door, loopback only: starts
// parplan-server as a child process (ports 0, no access log), drives it with
// its own client threads and reports, per call and concurrency (1, 16, 64
// clients), calls/s, p50/p99 latency and failed calls, with min_gpus over
// HTTP (POST /v1/MinGpus, one keep-alive connection per client) beside the
// same call over gRPC; then a search load (64 clients calling
// recommend) with 4 clients measuring min_gpus latency beside it; then the
// server's RSS before and after 100,000 calls. Each phase is bounded in calls
// and seconds. --hostile runs the issue-36 checks instead (bench/hostile_load.h):
// a mixed 32-client load with deadlines, a 2,000,000-candidate search,
// incomplete bodies, slow connections, an MCP initialize flood; --targets
// makes its timing and memory targets fail the run.
//   load_bench [PATH/parplan-server] [--quick] [--hostile [--targets]]

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "bench/hostile_load.h"
#include "bench/server_process.h"
#include "parplan/v1/planner.grpc.pb.h"
#include "tests/server/http_client.h"

namespace v1 = ::parplan::v1;
using Clock = std::chrono::steady_clock;

namespace {

using parplan::bench::RssKiB;

// One kind of call, made with a fresh context each time.
using Call = std::function<grpc::Status(v1::Planner::Stub*)>;

Call MinGpus() {
  return [](v1::Planner::Stub* stub) {
    v1::MinGpusRequest req;
    req.mutable_config()->set_tp(1);
    req.mutable_config()->set_pp(4);
    req.mutable_config()->set_ep(32);
    v1::MinGpusResponse resp;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::Status s = stub->MinGpus(&ctx, req, &resp);
    if (s.ok() && resp.min_gpus() != 128) return grpc::Status(grpc::StatusCode::INTERNAL, "wrong answer");
    return s;
  };
}

Call Validate() {
  return [](v1::Planner::Stub* stub) {
    v1::ValidateRequest req;
    req.mutable_model()->set_id("llama3_70b");
    req.mutable_placement()->set_system("h100-sxm");
    req.mutable_placement()->set_gpus(64);
    req.mutable_config()->set_tp(8);
    req.mutable_config()->set_pp(4);
    req.mutable_config()->set_gbs(512);
    v1::ValidateResponse resp;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::Status s = stub->Validate(&ctx, req, &resp);
    if (s.ok() && !resp.valid()) return grpc::Status(grpc::StatusCode::INTERNAL, "wrong answer");
    return s;
  };
}

Call Recommend() {
  return [](v1::Planner::Stub* stub) {
    v1::RecommendRequest req;
    req.mutable_model()->set_id("llama3_8b");
    req.mutable_placement()->set_system("h100-sxm");
    req.mutable_placement()->set_gpus(8);
    req.mutable_config()->set_seq_length(8192);
    v1::RecommendResponse resp;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    grpc::Status s = stub->Recommend(&ctx, req, &resp);
    if (s.ok() && resp.plans_size() == 0) return grpc::Status(grpc::StatusCode::INTERNAL, "no plan");
    return s;
  };
}

struct Result {
  long calls = 0, failed = 0;
  double seconds = 0, p50_ms = 0, p99_ms = 0, max_ms = 0;
  std::string first_error;
};

std::vector<std::unique_ptr<v1::Planner::Stub>> Stubs(const std::string& address, int n) {
  std::vector<std::unique_ptr<v1::Planner::Stub>> stubs;
  for (int i = 0; i < n; ++i) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection of its own
    args.SetInt("parplan.bench.channel", i);
    stubs.push_back(v1::Planner::NewStub(grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args)));
  }
  return stubs;
}

// One call by one client thread: "" when it succeeded, else why not.
using Caller = std::function<std::string()>;
// Makes client thread t's caller (its own connection or shared channel).
using CallerFactory = std::function<Caller(int t)>;

CallerFactory OverGrpc(const std::string& address, const Call& call, int clients) {
  const int channels = std::min(clients, 16);
  auto stubs = std::make_shared<std::vector<std::unique_ptr<v1::Planner::Stub>>>(Stubs(address, channels));
  return [stubs, channels, call](int t) -> Caller {
    v1::Planner::Stub* stub = (*stubs)[t % channels].get();
    return [stub, call, stubs]() -> std::string {
      const grpc::Status s = call(stub);
      return s.ok() ? "" : absl::StrCat(s.error_code(), " ", s.error_message());
    };
  };
}

// POST /v1/MinGpus on a keep-alive connection of the client's own.
CallerFactory MinGpusOverHttp(int port) {
  return [port](int) -> Caller {
    auto connection = std::make_shared<parplan::testing_http::Connection>(port);
    const std::string request =
        parplan::testing_http::RequestBytes("POST", "/v1/MinGpus", R"({"config":{"tp":1,"pp":4,"ep":32}})");
    return [port, connection, request]() mutable -> std::string {
      if (!connection->Send(request)) {
        connection = std::make_shared<parplan::testing_http::Connection>(port);
        if (!connection->Send(request)) return "cannot connect";
      }
      const parplan::testing_http::Reply reply = connection->Read();
      if (reply.status != 200) return absl::StrCat("HTTP ", reply.status, " ", reply.body.substr(0, 120));
      if (reply.body.find(R"("min_gpus":"128")") == std::string::npos) return "wrong answer";
      return "";
    };
  };
}

// `clients` threads call until `max_calls` calls are done in all or
// `max_seconds` pass; `stop` (optional) ends it early.
Result Drive(const CallerFactory& make_caller, int clients, long max_calls, double max_seconds,
             const std::atomic<bool>* stop = nullptr) {
  std::vector<Caller> callers;
  for (int t = 0; t < clients; ++t) callers.push_back(make_caller(t));
  std::atomic<long> issued{0};
  std::vector<std::vector<double>> latencies(clients);
  std::atomic<long> failed{0};
  std::string first_error;
  std::mutex error_mu;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_seconds));
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      while (issued.fetch_add(1) < max_calls && Clock::now() < end && !(stop != nullptr && stop->load())) {
        const auto t0 = Clock::now();
        const std::string error = callers[t]();
        latencies[t].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (!error.empty()) {
          failed.fetch_add(1);
          std::lock_guard<std::mutex> lock(error_mu);
          if (first_error.empty()) first_error = error;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  Result r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  r.calls = static_cast<long>(all.size());
  r.failed = failed.load();
  r.first_error = first_error;
  if (!all.empty()) {
    r.p50_ms = all[all.size() / 2];
    r.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
    r.max_ms = all.back();
  }
  return r;
}

void Print(const char* name, int clients, const Result& r) {
  std::printf("%-13s %7d %9ld %7ld %10.0f %9.3f %9.3f %9.3f%s%s\n", name, clients, r.calls, r.failed,
              r.calls / std::max(1e-9, r.seconds), r.p50_ms, r.p99_ms, r.max_ms, r.first_error.empty() ? "" : "  ",
              r.first_error.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string binary = PARPLAN_SERVER_BINARY;
  bool quick = false, hostile = false, targets = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--hostile") == 0) {
      hostile = true;
    } else if (std::strcmp(argv[i], "--targets") == 0) {
      targets = true;
    } else {
      binary = argv[i];
    }
  }
  if (hostile) return parplan::bench::RunHostileLoad(binary, quick, targets);
  const double scale = quick ? 0.1 : 1.0;
  // Every client of this bench shares one loopback address: lift the
  // per-client cap on calls in flight (64) above its 68 concurrent calls.
  const parplan::bench::ServerProcess server = parplan::bench::StartServer(binary, {"--max-client-calls", "1024"});
  std::printf("# load_bench: parplan-server %s (child pid %d), loopback; %u cores shared by server and clients\n",
              server.address.c_str(), server.pid, std::thread::hardware_concurrency());
  // Warm-up (connections, catalog, first allocations).
  Drive(OverGrpc(server.address, MinGpus(), 4), 4, 2000, 5);
  Drive(MinGpusOverHttp(server.http_port), 4, 2000, 5);
  Drive(OverGrpc(server.address, Recommend(), 2), 2, 4, 10);
  const long rss_start = RssKiB(server.pid);

  std::printf("%-13s %7s %9s %7s %10s %9s %9s %9s\n", "call", "clients", "calls", "failed", "calls/s", "p50_ms",
              "p99_ms", "max_ms");
  long failed = 0;
  struct Kind {
    const char* name;
    Call call;
    long max_calls;
    double seconds;
  };
  const Kind kinds[] = {{"min_gpus", MinGpus(), static_cast<long>(60000 * scale), 6 * scale},
                        {"http_min_gpus", nullptr, static_cast<long>(60000 * scale), 6 * scale},
                        {"validate", Validate(), static_cast<long>(30000 * scale), 6 * scale},
                        {"recommend", Recommend(), static_cast<long>(400 * scale), 15 * scale}};
  for (const Kind& k : kinds) {
    for (int clients : {1, 16, 64}) {
      const CallerFactory callers =
          k.call ? OverGrpc(server.address, k.call, clients) : MinGpusOverHttp(server.http_port);
      const Result r = Drive(callers, clients, k.max_calls, k.seconds);
      failed += r.failed;
      Print(k.name, clients, r);
    }
  }

  // min_gpus beside 64 clients running searches.
  std::atomic<bool> stop{false};
  Result searches;
  std::thread search_load(
      [&] { searches = Drive(OverGrpc(server.address, Recommend(), 64), 64, 1000000, 12 * scale + 2, &stop); });
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const Result beside = Drive(OverGrpc(server.address, MinGpus(), 4), 4, 1000000, 10 * scale);
  stop = true;
  search_load.join();
  failed += searches.failed + beside.failed;
  std::printf("\nwith 64 clients calling recommend (%ld searches, %ld failed, %.1f/s):\n", searches.calls,
              searches.failed, searches.calls / std::max(1e-9, searches.seconds));
  Print("min_gpus", 4, beside);

  // Memory over 100,000 calls.
  const long rss_before = RssKiB(server.pid);
  long calls = 0;
  for (int round = 0; round < 2; ++round) {
    const Result a = Drive(OverGrpc(server.address, MinGpus(), 16), 16, static_cast<long>(40000 * scale), 120);
    const Result b = Drive(OverGrpc(server.address, Validate(), 16), 16, static_cast<long>(10000 * scale), 120);
    calls += a.calls + b.calls;
    failed += a.failed + b.failed;
  }
  const long rss_after = RssKiB(server.pid);
  std::printf(
      "\nserver RSS: %.1f MiB after warm-up, %.1f MiB before and %.1f MiB after %ld more calls "
      "(min_gpus + validate, 16 clients)\n",
      rss_start / 1024.0, rss_before / 1024.0, rss_after / 1024.0, calls);
  std::printf("failed calls in all phases: %ld\n", failed);

  std::printf("server exit status after SIGTERM: %d\n", parplan::bench::StopServer(server));
  return failed == 0 ? 0 : 1;
}
