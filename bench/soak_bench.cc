// Soak: mixed load on the three doors of one parplan-server for a long time,
// loopback only. Starts parplan-server as a child process (ports 0, no access
// log); `clients` threads (default 64) each use one door, in turn gRPC, HTTP
// (POST /v1/<Method>, a keep-alive connection of its own) and MCP over HTTP
// (POST /mcp, a session of its own: initialize, then tools/call), and cycle
// through the same mix of requests: mostly cheap calls (MinGpus, Validate,
// EstimateMemory, EstimatePerformance, ListModels) with a Recommend search
// every 40th call. Every answer is checked (status, and a key it must hold).
//
// It warms up first (connections, sessions, the catalog, first allocations),
// reads the server's VmRSS (/proc/PID/status), runs for `seconds`, sampling
// the RSS every 10 s, and reads it again at the end. It prints calls/s and
// p50/p99/max latency per door and per call, the RSS after warm-up, its
// highest sample and at the end, and the machine's load average before and
// after. Exit status 1 when a call failed or the RSS at the end (or any
// sample) is more than `max-growth` (default 10%) above the RSS after
// warm-up; 0 otherwise.
//
//   soak_bench [--server PATH] [--seconds N=600] [--warmup N=30]
//              [--clients N=64] [--max-growth F=0.10]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "bench/server_process.h"
#include "parplan/v1/planner.grpc.pb.h"
#include "tests/server/http_client.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace http = parplan::testing_http;
namespace pb = google::protobuf;

// One request of the mix: the RPC, its MCP tool, its JSON body and a key
// every good answer holds.
struct Request {
  const char* rpc;
  const char* tool;
  const char* json;
  const char* answer_key;
};

// The mix; Recommend is the last and is sent every kRecommendEvery-th call.
const Request kMix[] = {
    {"MinGpus", "min_gpus", R"({"config":{"tp":1,"pp":4,"ep":32}})", "min_gpus"},
    {"Validate", "validate",
     R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":8,"pp":4,"gbs":512}})",
     "valid"},
    {"EstimateMemory", "estimate_memory",
     R"({"model":{"id":"llama3_70b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":8,"pp":4}})",
     "peak_bytes"},
    {"EstimatePerformance", "estimate_performance",
     R"({"model":{"id":"mixtral_8x7b"},"placement":{"system":"h100-sxm","gpus":64},"config":{"tp":2,"pp":4,"ep":8}})",
     "step_time_s"},
    {"ListModels", "list_models", R"({})", "models"},
    {"Recommend", "recommend",
     R"({"model":{"id":"llama3_8b"},"placement":{"system":"h100-sxm","gpus":8},"config":{"seq_length":8192},"top_k":3})",
     "plans"},
};
constexpr int kCheap = sizeof(kMix) / sizeof(kMix[0]) - 1;
constexpr int kRecommendEvery = 40;
constexpr int kDoors = 3;
const char* const kDoorNames[kDoors] = {"grpc", "http", "mcp"};

// The request client `t` sends as its `i`-th call.
int MixIndex(int64_t i) { return i % kRecommendEvery == kRecommendEvery - 1 ? kCheap : static_cast<int>(i % kCheap); }

// A door's client: Call(k) sends kMix[k] and returns "" when the answer is
// good, else why not.
class Client {
 public:
  virtual ~Client() = default;
  virtual std::string Call(int k) = 0;
};

// Whether a JSON body holds "key": (a cheap check; answers are compact JSON).
bool HasKey(const std::string& body, const char* key) {
  return body.find(absl::StrCat("\"", key, "\":")) != std::string::npos;
}

// gRPC through a generic stub: the JSON body parsed into the method's
// request type, the answer parsed into its response type.
class GrpcClient : public Client {
 public:
  explicit GrpcClient(const std::shared_ptr<grpc::Channel>& channel) : stub_(channel) {
    // The service's descriptor, through one of its messages (the generated
    // pool loads a file when one of its types is first used).
    const pb::ServiceDescriptor* service =
        parplan::v1::MinGpusRequest::descriptor()->file()->FindServiceByName("Planner");
    if (service == nullptr) std::abort();
    for (const Request& r : kMix) {
      const pb::MethodDescriptor* m = service->FindMethodByName(r.rpc);
      Method method;
      method.path = absl::StrCat("/", service->full_name(), "/", r.rpc);
      method.response.reset(pb::MessageFactory::generated_factory()->GetPrototype(m->output_type())->New());
      std::unique_ptr<pb::Message> request(
          pb::MessageFactory::generated_factory()->GetPrototype(m->input_type())->New());
      if (!pb::util::JsonStringToMessage(r.json, request.get()).ok()) std::abort();
      request->SerializeToString(&method.request_bytes);
      methods_.push_back(std::move(method));
    }
  }

  std::string Call(int k) override {
    Method& m = methods_[k];
    grpc::Slice slice(m.request_bytes);
    grpc::ByteBuffer request(&slice, 1), response;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    std::mutex mu;
    std::condition_variable done_cv;
    bool done = false;
    grpc::Status status;
    stub_.UnaryCall(&ctx, m.path, grpc::StubOptions(), &request, &response, [&](grpc::Status s) {
      std::lock_guard<std::mutex> lock(mu);
      status = std::move(s);
      done = true;
      done_cv.notify_one();
    });
    std::unique_lock<std::mutex> lock(mu);
    done_cv.wait(lock, [&] { return done; });
    if (!status.ok()) return absl::StrCat("gRPC ", status.error_code(), " ", status.error_message().substr(0, 160));
    std::vector<grpc::Slice> slices;
    if (!response.Dump(&slices).ok()) return "unreadable gRPC answer";
    std::string bytes;
    for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    m.response->Clear();
    if (!m.response->ParseFromString(bytes)) return "gRPC answer does not parse";
    std::string json;
    pb::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    if (!pb::util::MessageToJsonString(*m.response, &json, options).ok()) return "gRPC answer does not print as JSON";
    return HasKey(json, kMix[k].answer_key)
               ? ""
               : absl::StrCat("gRPC answer to ", kMix[k].rpc, " lacks ", kMix[k].answer_key);
  }

 private:
  struct Method {
    std::string path;
    std::string request_bytes;
    std::unique_ptr<pb::Message> response;
  };
  grpc::GenericStub stub_;
  std::vector<Method> methods_;
};

// Sends `bytes` on `*connection` (reconnecting once when the server closed
// it) and reads the reply.
http::Reply Exchange(int port, std::unique_ptr<http::Connection>* connection, const std::string& bytes) {
  if (!(*connection)->ok() || !(*connection)->Send(bytes)) {
    *connection = std::make_unique<http::Connection>(port);
    if (!(*connection)->Send(bytes)) return {};
  }
  return (*connection)->Read(std::chrono::milliseconds(120000));
}

// POST /v1/<Method> on a keep-alive connection of its own.
class HttpClient : public Client {
 public:
  explicit HttpClient(int port) : port_(port), connection_(std::make_unique<http::Connection>(port)) {}

  std::string Call(int k) override {
    const http::Reply reply =
        Exchange(port_, &connection_, http::RequestBytes("POST", absl::StrCat("/v1/", kMix[k].rpc), kMix[k].json));
    if (reply.status != 200) return absl::StrCat("HTTP ", reply.status, " ", reply.body.substr(0, 160));
    return HasKey(reply.body, kMix[k].answer_key)
               ? ""
               : absl::StrCat("HTTP answer to ", kMix[k].rpc, " lacks ", kMix[k].answer_key);
  }

 private:
  int port_;
  std::unique_ptr<http::Connection> connection_;
};

// MCP over HTTP: a session of its own (initialize, notifications/
// initialized), then tools/call on a keep-alive connection.
class McpClient : public Client {
 public:
  explicit McpClient(int port) : port_(port), connection_(std::make_unique<http::Connection>(port)) {}

  // Starts the session; "" when it started, else why not.
  std::string Initialize() {
    const http::Reply reply = Exchange(
        port_, &connection_,
        http::RequestBytes("POST", "/mcp",
                           R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
                           R"("capabilities":{},"clientInfo":{"name":"soak_bench","version":"1"}}})"));
    session_ = reply.Header("mcp-session-id");
    if (reply.status != 200 || session_.empty()) {
      return absl::StrCat("MCP initialize: HTTP ", reply.status, " ", reply.body.substr(0, 160));
    }
    const http::Reply ack = Exchange(
        port_, &connection_,
        http::RequestBytes("POST", "/mcp", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", Headers()));
    return ack.status == 202 ? "" : absl::StrCat("MCP notifications/initialized: HTTP ", ack.status);
  }

  std::string Call(int k) override {
    const std::string body =
        absl::StrCat(R"({"jsonrpc":"2.0","id":)", ++id_, R"(,"method":"tools/call","params":{"name":")", kMix[k].tool,
                     R"(","arguments":)", kMix[k].json, "}}");
    const http::Reply reply = Exchange(port_, &connection_, http::RequestBytes("POST", "/mcp", body, Headers()));
    if (reply.status != 200) return absl::StrCat("MCP HTTP ", reply.status, " ", reply.body.substr(0, 160));
    if (reply.body.find(R"("isError":false)") == std::string::npos || !HasKey(reply.body, kMix[k].answer_key)) {
      return absl::StrCat("MCP ", kMix[k].tool, ": ", reply.body.substr(0, 160));
    }
    return "";
  }

 private:
  std::vector<std::string> Headers() const {
    return {absl::StrCat("Mcp-Session-Id: ", session_), "MCP-Protocol-Version: 2025-06-18",
            "Accept: application/json, text/event-stream"};
  }
  int port_;
  std::unique_ptr<http::Connection> connection_;
  std::string session_;
  int64_t id_ = 0;
};

// Latencies (ms) and failures of one client thread, by door and request.
struct Tally {
  std::vector<float> ms[kCheap + 1];
  long failed = 0;
  std::string first_error;
};

struct Options {
  std::string server = PARPLAN_SERVER_BINARY;
  double seconds = 600;
  double warmup = 30;
  int clients = 64;
  double max_growth = 0.10;
};

// Parses the flags; exits with status 2 and the reason on a bad one.
Options ParseFlags(int argc, char** argv) {
  Options o;
  auto value = [&](int* i) -> const char* {
    if (*i + 1 >= argc) {
      std::fprintf(stderr, "soak_bench: %s needs a value\n", argv[*i]);
      std::exit(2);
    }
    return argv[++*i];
  };
  auto number = [&](int* i, double lo, double hi) {
    const char* flag = argv[*i];
    const char* text = value(i);
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(v >= lo && v <= hi)) {
      std::fprintf(stderr, "soak_bench: %s %s is not a number in [%g, %g]\n", flag, text, lo, hi);
      std::exit(2);
    }
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--server") {
      o.server = value(&i);
    } else if (flag == "--seconds") {
      o.seconds = number(&i, 1, 86400);
    } else if (flag == "--warmup") {
      o.warmup = number(&i, 1, 3600);
    } else if (flag == "--clients") {
      o.clients = static_cast<int>(number(&i, 3, 1024));
    } else if (flag == "--max-growth") {
      o.max_growth = number(&i, 0, 10);
    } else {
      std::fprintf(stderr,
                   "soak_bench: unknown flag %s; usage: soak_bench [--server PATH] [--seconds N] [--warmup N] "
                   "[--clients N] [--max-growth F]\n",
                   flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

// The first line of /proc/loadavg ("0.52 0.61 0.70 2/311 12345").
std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string line;
  std::getline(in, line);
  return line;
}

struct Stats {
  long calls = 0;
  double p50 = 0, p99 = 0, max = 0;
};

Stats Summarise(std::vector<float> ms) {
  Stats s;
  s.calls = static_cast<long>(ms.size());
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  s.p50 = ms[ms.size() / 2];
  s.p99 = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  s.max = ms.back();
  return s;
}

void PrintRow(const std::string& name, const Stats& s, double seconds) {
  std::printf("%-28s %9ld %9.1f %9.3f %9.3f %9.3f\n", name.c_str(), s.calls, s.calls / std::max(1e-9, seconds), s.p50,
              s.p99, s.max);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseFlags(argc, argv);
  // Every client of this bench shares one loopback address: lift the
  // per-client caps (calls in flight, MCP sessions) above its clients.
  const parplan::bench::ServerProcess server =
      parplan::bench::StartServer(o.server, {"--max-client-calls", "1024", "--max-client-mcp-sessions", "1024"});
  std::printf(
      "# soak_bench: parplan-server (pid %d) gRPC %s, HTTP 127.0.0.1:%d; %d clients (gRPC, HTTP, MCP in turn), "
      "%.0f s after %.0f s warm-up; %u cores shared by server and clients\n",
      server.pid, server.address.c_str(), server.http_port, o.clients, o.seconds, o.warmup,
      std::thread::hardware_concurrency());
  std::printf(
      "# mix per client: MinGpus, Validate, EstimateMemory, EstimatePerformance, ListModels in turn, "
      "Recommend (llama3_8b on 8 H100) every %dth call\n",
      kRecommendEvery);
  std::printf("# load average before: %s\n", LoadAverage().c_str());
  std::fflush(stdout);

  // Clients: 16 gRPC channels shared by the gRPC clients.
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < 16; ++i) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt("parplan.bench.channel", i);
    channels.push_back(grpc::CreateCustomChannel(server.address, grpc::InsecureChannelCredentials(), args));
  }
  std::vector<std::unique_ptr<Client>> clients;
  for (int t = 0; t < o.clients; ++t) {
    if (t % kDoors == 0) {
      clients.push_back(std::make_unique<GrpcClient>(channels[(t / kDoors) % channels.size()]));
    } else if (t % kDoors == 1) {
      clients.push_back(std::make_unique<HttpClient>(server.http_port));
    } else {
      auto mcp = std::make_unique<McpClient>(server.http_port);
      if (const std::string error = mcp->Initialize(); !error.empty()) {
        std::fprintf(stderr, "soak_bench: %s\n", error.c_str());
        parplan::bench::StopServer(server);
        return 1;
      }
      clients.push_back(std::move(mcp));
    }
  }

  // Phase 0: warm-up; phase 1: the measured run.
  std::atomic<int> phase{0};
  std::atomic<bool> stop{false};
  std::vector<Tally> tallies(o.clients);
  std::vector<std::thread> threads;
  for (int t = 0; t < o.clients; ++t) {
    threads.emplace_back([&, t] {
      Tally& tally = tallies[t];
      for (int64_t i = t; !stop.load(); ++i) {
        const int k = MixIndex(i);
        const bool measured = phase.load() == 1;
        const auto t0 = Clock::now();
        const std::string error = clients[t]->Call(k);
        const float ms = std::chrono::duration<float, std::milli>(Clock::now() - t0).count();
        if (!measured) continue;
        tally.ms[k].push_back(ms);
        if (!error.empty()) {
          if (tally.failed++ == 0) tally.first_error = error;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(o.warmup));
  const long rss_warm = parplan::bench::RssKiB(server.pid);
  phase = 1;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  long rss_high = rss_warm;
  std::vector<std::pair<double, long>> samples;
  while (Clock::now() < end) {
    const auto next = std::min(end, Clock::now() + std::chrono::seconds(10));
    std::this_thread::sleep_until(next);
    const long rss = parplan::bench::RssKiB(server.pid);
    rss_high = std::max(rss_high, rss);
    samples.push_back({std::chrono::duration<double>(Clock::now() - start).count(), rss});
  }
  stop = true;
  for (auto& th : threads) th.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const long rss_end = parplan::bench::RssKiB(server.pid);
  const std::string load_after = LoadAverage();

  // Per door and per request, then all together.
  std::printf("\n%-28s %9s %9s %9s %9s %9s\n", "door / call", "calls", "calls/s", "p50_ms", "p99_ms", "max_ms");
  std::vector<float> all;
  long failed = 0;
  std::string first_error;
  for (int door = 0; door < kDoors; ++door) {
    std::vector<float> door_ms;
    for (int k = 0; k <= kCheap; ++k) {
      std::vector<float> ms;
      for (int t = door; t < o.clients; t += kDoors)
        ms.insert(ms.end(), tallies[t].ms[k].begin(), tallies[t].ms[k].end());
      PrintRow(absl::StrCat(kDoorNames[door], " ", kMix[k].rpc), Summarise(ms), seconds);
      door_ms.insert(door_ms.end(), ms.begin(), ms.end());
    }
    PrintRow(absl::StrCat(kDoorNames[door], " (all calls)"), Summarise(door_ms), seconds);
    all.insert(all.end(), door_ms.begin(), door_ms.end());
  }
  for (const Tally& t : tallies) {
    failed += t.failed;
    if (first_error.empty()) first_error = t.first_error;
  }
  PrintRow("all doors", Summarise(std::move(all)), seconds);
  std::printf("failed calls: %ld\n", failed);
  if (!first_error.empty()) std::printf("  first failure: %s\n", first_error.c_str());

  std::printf("\nserver RSS (VmRSS) samples, every 10 s:");
  for (size_t i = 0; i < samples.size(); ++i) {
    if (i % 6 == 0) std::printf("\n ");
    std::printf(" %4.0fs %.1f MiB", samples[i].first, samples[i].second / 1024.0);
  }
  const double growth = rss_warm > 0 ? static_cast<double>(std::max(rss_end, rss_high) - rss_warm) / rss_warm : 1;
  std::printf(
      "\nserver RSS: %.1f MiB after warm-up, %.1f MiB highest sample, %.1f MiB at the end (%+.1f%% at the end, "
      "%+.1f%% at the highest; limit %+.0f%%)\n",
      rss_warm / 1024.0, rss_high / 1024.0, rss_end / 1024.0, 100.0 * (rss_end - rss_warm) / std::max(1L, rss_warm),
      100.0 * (rss_high - rss_warm) / std::max(1L, rss_warm), 100 * o.max_growth);
  std::printf("# load average after: %s\n", load_after.c_str());
  const int exit_status = parplan::bench::StopServer(server);
  std::printf("server exit status after SIGTERM: %d\n", exit_status);
  const bool grew = growth > o.max_growth;
  if (grew)
    std::printf("FAIL: the server's memory grew by %.1f%% (more than %.0f%%)\n", 100 * growth, 100 * o.max_growth);
  if (failed > 0) std::printf("FAIL: %ld calls failed\n", failed);
  if (!grew && failed == 0) std::printf("PASS\n");
  return grew || failed > 0 || rss_warm <= 0 ? 1 : 0;
}
