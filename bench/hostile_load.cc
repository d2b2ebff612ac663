#include "bench/hostile_load.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "bench/server_process.h"
#include "parplan/v1/planner.grpc.pb.h"
#include "tests/server/http_client.h"

namespace parplan {
namespace bench {
namespace {

namespace v1 = ::parplan::v1;
using Clock = std::chrono::steady_clock;
using testing_http::Connection;
using testing_http::Reply;
using testing_http::RequestBytes;

constexpr double kDeadlineSlackMs = 50;
constexpr int kSearchDeadlineMs = 2000;
constexpr int kTightSearchDeadlineMs = 200;  // the last search client of each door: often expires in the queue
constexpr int kCheapDeadlineMs = 1000;

// The server's RSS, sampled every 20 ms; Peak() since the last Mark().
class RssSampler {
 public:
  explicit RssSampler(pid_t pid) : pid_(pid), thread_([this] { Run(); }) {}
  ~RssSampler() {
    stop_ = true;
    thread_.join();
  }
  long Mark() {
    std::lock_guard<std::mutex> lock(mu_);
    const long peak = phase_peak_;
    phase_peak_ = 0;
    return peak;
  }
  long Peak() {
    std::lock_guard<std::mutex> lock(mu_);
    return peak_;
  }

 private:
  void Run() {
    while (!stop_) {
      const long kib = RssKiB(pid_);
      {
        std::lock_guard<std::mutex> lock(mu_);
        peak_ = std::max(peak_, kib);
        phase_peak_ = std::max(phase_peak_, kib);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  const pid_t pid_;
  std::mutex mu_;
  long peak_ = 0, phase_peak_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Per method: latencies, outcomes, deadlines honoured.
class Stats {
 public:
  // `outcome`: "ok", "deadline" (504 / DEADLINE_EXCEEDED), "busy" (429 /
  // RESOURCE_EXHAUSTED) or a failure's text.
  void Add(const std::string& method, double ms, double deadline_ms, const std::string& outcome) {
    std::lock_guard<std::mutex> lock(mu_);
    Method& m = methods_[method];
    m.ms.push_back(ms);
    m.honoured += ms <= deadline_ms + kDeadlineSlackMs;
    if (outcome == "ok") {
      ++m.ok;
    } else if (outcome == "deadline") {
      ++m.deadline;
    } else if (outcome == "busy") {
      ++m.busy;
    } else {
      ++m.failed;
      if (first_failure_.empty()) first_failure_ = method + ": " + outcome;
    }
  }
  struct Method {
    std::vector<double> ms;
    long ok = 0, deadline = 0, busy = 0, failed = 0, honoured = 0;
  };
  std::map<std::string, Method> methods_;
  std::string first_failure_;
  std::mutex mu_;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

const char* kPlanJson =
    R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":8,"pp":4,"gbs":512}})";
const char* kSearchJson =
    R"({"model":{"id":"deepseek_v3"},"placement":{"system":"gb200-nvl72","gpus":1024},"config":{"seq_length":4096},)"
    R"("max_candidates":10000})";

template <typename M>
void Plan(M* m) {
  m->mutable_model()->set_id("llama3_70b");
  m->mutable_placement()->set_system("h100-sxm");
  m->mutable_placement()->set_gpus(64);
  m->mutable_config()->set_tp(8);
  m->mutable_config()->set_pp(4);
  m->mutable_config()->set_gbs(512);
}

std::string Outcome(const grpc::Status& s) {
  if (s.ok()) return "ok";
  if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) return "deadline";
  if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) return "busy";
  return absl::StrCat("gRPC ", s.error_code(), " ", s.error_message().substr(0, 120));
}

std::string Outcome(const Reply& r) {
  if (r.status == 200) return "ok";
  if (r.status == 504) return "deadline";
  if (r.status == 429) return "busy";
  return absl::StrCat("HTTP ", r.status, " ", r.body.substr(0, 120));
}

// Of each door's 16 clients, the first kSearchClients search and the others
// make cheap calls, cycling through the door's cheap methods.
constexpr int kSearchClients = 2;

// One gRPC client of the mix: its calls, recorded.
void GrpcClient(v1::Planner::Stub* stub, int id, const std::atomic<bool>& stop, Stats* stats) {
  for (long i = id; !stop; ++i) {
    const bool search = id < kSearchClients;
    const bool tight = id == kSearchClients - 1;
    const int op = search ? 0 : 1 + static_cast<int>(i % 6);
    const int deadline_ms = search ? (tight ? kTightSearchDeadlineMs : kSearchDeadlineMs) : kCheapDeadlineMs;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
    const auto t0 = Clock::now();
    grpc::Status s;
    std::string method;
    if (search) {
      method = tight ? "grpc recommend 200ms" : "grpc recommend";
      v1::RecommendRequest req;
      req.mutable_model()->set_id("deepseek_v3");
      req.mutable_placement()->set_system("gb200-nvl72");
      req.mutable_placement()->set_gpus(1024);
      req.mutable_config()->set_seq_length(4096);
      req.set_max_candidates(10000);
      v1::RecommendResponse resp;
      s = stub->Recommend(&ctx, req, &resp);
    } else if (op == 1 || op == 5) {
      method = "grpc min_gpus";
      v1::MinGpusRequest req;
      req.mutable_config()->set_tp(1);
      req.mutable_config()->set_pp(4);
      req.mutable_config()->set_ep(32);
      v1::MinGpusResponse resp;
      s = stub->MinGpus(&ctx, req, &resp);
    } else if (op == 2 || op == 6) {
      method = "grpc validate";
      v1::ValidateRequest req;
      Plan(&req);
      v1::ValidateResponse resp;
      s = stub->Validate(&ctx, req, &resp);
    } else {
      method = "grpc explain_layout";
      v1::ExplainLayoutRequest req;
      Plan(&req);
      v1::ExplainLayoutResponse resp;
      s = stub->ExplainLayout(&ctx, req, &resp);
    }
    stats->Add(method, std::chrono::duration<double, std::milli>(Clock::now() - t0).count(), deadline_ms, Outcome(s));
  }
}

// One HTTP client of the mix, on a keep-alive connection of its own.
void HttpClient(int port, int id, const std::atomic<bool>& stop, Stats* stats) {
  auto c = std::make_unique<Connection>(port);
  for (long i = id; !stop; ++i) {
    const bool search = id < kSearchClients;
    const bool tight = id == kSearchClients - 1;
    const int op = search ? 0 : 1 + static_cast<int>(i % 6);
    const int deadline_ms = search ? (tight ? kTightSearchDeadlineMs : kSearchDeadlineMs) : kCheapDeadlineMs;
    const std::vector<std::string> timeout = {absl::StrCat("X-Timeout-Ms: ", deadline_ms)};
    std::string method, bytes;
    if (search) {
      method = tight ? "http recommend 200ms" : "http recommend";
      bytes = RequestBytes("POST", "/v1/Recommend", kSearchJson, timeout);
    } else if (op == 1) {
      method = "http min_gpus";
      bytes = RequestBytes("POST", "/v1/MinGpus", R"({"config":{"tp":1,"pp":4,"ep":32}})", timeout);
    } else if (op == 2) {
      method = "http validate";
      bytes = RequestBytes("POST", "/v1/Validate", kPlanJson, timeout);
    } else if (op == 3) {
      method = "http explain_layout";
      bytes = RequestBytes("POST", "/v1/ExplainLayout", kPlanJson, timeout);
    } else if (op == 4 || op == 6) {
      method = "http plot";
      bytes = RequestBytes("POST", "/plot", kPlanJson, timeout);
    } else {
      method = "http healthz";
      bytes = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    }
    const auto t0 = Clock::now();
    if (!c->Send(bytes)) {
      c = std::make_unique<Connection>(port);
      c->Send(bytes);
    }
    const Reply r = c->Read(std::chrono::milliseconds(deadline_ms + 10000));
    stats->Add(method, std::chrono::duration<double, std::milli>(Clock::now() - t0).count(), deadline_ms, Outcome(r));
    if (r.status == 0 || r.Header("connection") == "close") c = std::make_unique<Connection>(port);
  }
}

// Cheap calls from 127.0.0.2 until `stop`: how many, how many answered 200.
struct Beside {
  std::atomic<long> calls{0}, ok{0};
  std::vector<double> ms;
  std::mutex mu;
};
void CheapFromOther(int port, const std::atomic<bool>& stop, Beside* out) {
  while (!stop) {
    const auto t0 = Clock::now();
    Connection c(port, "127.0.0.2");
    Reply r;
    if (c.ok() && c.Send(RequestBytes("POST", "/v1/MinGpus", R"({"config":{"tp":1,"pp":4,"ep":32}})"))) {
      r = c.Read(std::chrono::milliseconds(5000));
    }
    ++out->calls;
    out->ok += r.status == 200;
    std::lock_guard<std::mutex> lock(out->mu);
    out->ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

bool Check(bool ok, const std::string& what, bool* all) {
  std::printf("  [%s] %s\n", ok ? "ok" : "FAIL", what.c_str());
  *all = *all && ok;
  return ok;
}

}  // namespace

int RunHostileLoad(const std::string& binary, bool quick, bool targets) {
  if (rlimit files{}; getrlimit(RLIMIT_NOFILE, &files) == 0) {  // 2,000+ sockets
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  const ServerProcess server = StartServer(binary, {});
  std::printf("# load_bench --hostile%s: parplan-server %s (pid %d), defaults, loopback, %u cores shared\n",
              quick ? " --quick" : "", server.address.c_str(), server.pid, std::thread::hardware_concurrency());
  RssSampler rss(server.pid);
  bool functional = true, target_ok = true;

  // ---- mixed load
  const double mixed_s = quick ? 4 : 20;
  Stats stats;
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<v1::Planner::Stub>> stubs;
  for (int i = 0; i < 16; ++i) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt("parplan.bench.channel", i);
    stubs.push_back(
        v1::Planner::NewStub(grpc::CreateCustomChannel(server.address, grpc::InsecureChannelCredentials(), args)));
  }
  std::vector<std::thread> clients;
  const auto mixed_start = Clock::now();
  for (int i = 0; i < 16; ++i) clients.emplace_back([&, i] { GrpcClient(stubs[i].get(), i, stop, &stats); });
  for (int i = 0; i < 16; ++i) clients.emplace_back([&, i] { HttpClient(server.http_port, i, stop, &stats); });
  std::this_thread::sleep_for(std::chrono::duration<double>(mixed_s));
  stop = true;
  for (auto& t : clients) t.join();
  clients.clear();
  const double seconds = std::chrono::duration<double>(Clock::now() - mixed_start).count();
  std::printf(
      "\nmixed: 32 clients (16 gRPC, 16 HTTP; %d of each searching, the rest cheap calls), %.1f s; deadlines %d ms "
      "(searches; one client per door %d ms), %d ms (cheap)\n",
      kSearchClients, seconds, kSearchDeadlineMs, kTightSearchDeadlineMs, kCheapDeadlineMs);
  std::printf("%-22s %7s %8s %8s %8s %6s %6s %6s %6s\n", "method", "calls", "calls/s", "p50_ms", "p99_ms", "ok", "504",
              "429", "fail");
  long total = 0, honoured = 0, failed = 0;
  std::vector<double> cheap;
  for (const auto& [name, m] : stats.methods_) {
    std::printf("%-22s %7zu %8.1f %8.2f %8.2f %6ld %6ld %6ld %6ld\n", name.c_str(), m.ms.size(), m.ms.size() / seconds,
                Percentile(m.ms, 0.5), Percentile(m.ms, 0.99), m.ok, m.deadline, m.busy, m.failed);
    total += static_cast<long>(m.ms.size());
    honoured += m.honoured;
    failed += m.failed;
    if (name.find("recommend") == std::string::npos) cheap.insert(cheap.end(), m.ms.begin(), m.ms.end());
  }
  const double cheap_p99 = Percentile(cheap, 0.99);
  const double share = total > 0 ? static_cast<double>(honoured) / total : 0;
  std::printf("all: %ld calls, %.0f calls/s; cheap calls p99 %.2f ms; answered within deadline + 50 ms: %.2f%%\n",
              total, total / seconds, cheap_p99, 100 * share);
  std::printf("peak RSS during the mix: %.1f MiB\n", rss.Mark() / 1024.0);
  Check(failed == 0,
        absl::StrCat("no failed call in the mix", stats.first_failure_.empty() ? "" : " (first: ", stats.first_failure_,
                     stats.first_failure_.empty() ? "" : ")"),
        &functional);
  if (targets) {
    Check(cheap_p99 <= 50, absl::StrCat("cheap-call p99 <= 50 ms (", cheap_p99, ")"), &target_ok);
    Check(share >= 0.99, absl::StrCat(">= 99% of deadlines honoured (", 100 * share, "%)"), &target_ok);
  }

  // Cheap calls from another address run through every phase below.
  Beside beside;
  std::atomic<bool> stop_beside{false};
  std::thread other([&] { CheapFromOther(server.http_port, stop_beside, &beside); });

  // ---- one 2,000,000-candidate search
  {
    const auto t0 = Clock::now();
    const Reply r = testing_http::Call(
        server.http_port, "POST", "/v1/Recommend",
        R"({"model":{"id":"deepseek_v3"},"placement":{"system":"h100-sxm"},"min_gpus":64,"max_gpus":65536,)"
        R"("max_candidates":2000000,"config":{"seq_length":131072}})");
    std::printf(
        "\n2,000,000-candidate search: HTTP %d in %.1f s, truncated by the memory budget: %s; peak RSS %.1f MiB\n",
        r.status, std::chrono::duration<double>(Clock::now() - t0).count(),
        r.body.find("memory budget per search") != std::string::npos ? "yes" : "no", rss.Mark() / 1024.0);
    Check(r.status == 200, "the big search answers 200", &functional);
  }

  // ---- 150 incomplete 4 MiB bodies
  {
    std::vector<std::unique_ptr<Connection>> bodies;
    const std::string part(1 << 20, ' ');
    int refused = 0;
    for (int i = 0; i < 150; ++i) {
      auto c = std::make_unique<Connection>(server.http_port);
      c->Send(absl::StrCat("POST /v1/Validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
                           "Content-Length: ", 4 << 20, "\r\n\r\n{\"config\":", part));
      bodies.push_back(std::move(c));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(quick ? 500 : 2000));
    for (auto& c : bodies) refused += c->Read(std::chrono::milliseconds(20)).status == 503;
    std::printf("150 incomplete 4 MiB bodies: %d answered 503 (byte budget) within 20 ms; peak RSS %.1f MiB\n", refused,
                rss.Mark() / 1024.0);
  }

  // ---- slow connections from one address
  {
    const int n = quick ? 300 : 2000;
    const long calls_before = beside.calls, ok_before = beside.ok;
    std::vector<std::unique_ptr<Connection>> slow;
    for (int i = 0; i < n; ++i) {
      slow.push_back(std::make_unique<Connection>(server.http_port));
      slow.back()->Send("POST /v1/MinGpus HTTP/1.1\r\n");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(quick ? 500 : 2000));
    const long calls = beside.calls - calls_before, ok = beside.ok - ok_before;
    std::printf("%d slow connections from 127.0.0.1: 127.0.0.2 made %ld calls, %ld answered 200; peak RSS %.1f MiB\n",
                n, calls, ok, rss.Mark() / 1024.0);
    Check(calls > 0 && ok == calls, "another client's calls answered beside the slow connections", &functional);
  }

  // ---- MCP initialize flood
  {
    const int n = quick ? 300 : 2000;
    const std::vector<std::string> accept = {"Accept: application/json, text/event-stream"};
    const char* init = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})";
    Connection mine(server.http_port, "127.0.0.2");
    mine.Send(RequestBytes("POST", "/mcp", init, accept));
    const std::string session = mine.Read().Header("mcp-session-id");
    Connection flood(server.http_port);
    int refused = 0;
    for (int i = 0; i < n; ++i) {
      if (!flood.Send(RequestBytes("POST", "/mcp", init, accept))) break;
      refused += flood.Read().status != 200;
    }
    std::vector<std::string> with = accept;
    with.push_back("Mcp-Session-Id: " + session);
    mine.Send(RequestBytes("POST", "/mcp",
                           R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"min_gpus",)"
                           R"("arguments":{"config":{"tp":1,"pp":4,"ep":32}}}})",
                           with));
    const Reply call = mine.Read();
    std::printf("%d MCP initialize calls from 127.0.0.1: %d refused; the established session's tool call: HTTP %d\n", n,
                refused, call.status);
    Check(!session.empty() && call.status == 200 && call.body.find("\"min_gpus\":\"128\"") != std::string::npos,
          "an established MCP session keeps working", &functional);
  }
  stop_beside = true;
  other.join();
  std::printf("127.0.0.2 beside the hostile phases: %ld calls, %ld answered 200, p99 %.2f ms\n", beside.calls.load(),
              beside.ok.load(), Percentile(beside.ms, 0.99));

  const long peak = rss.Peak();
  std::printf("\npeak server RSS over every phase: %.1f MiB\n", peak / 1024.0);
  if (targets) Check(peak <= 512 * 1024, "peak RSS <= 512 MiB", &target_ok);
  const int exit_status = StopServer(server);
  Check(exit_status == 0, absl::StrCat("exit status after SIGTERM: ", exit_status), &functional);
  return functional && target_ok ? 0 : 1;
}

}  // namespace bench
}  // namespace parplan
