// parplan-server: the planner as a gRPC service.
//
//   parplan-server [--listen 127.0.0.1:50051] [--tls-cert F --tls-key F]
//                  [--auth-token-file F] [--insecure] [--max-message-bytes N]
//                  [--search-workers N] [--max-queued-calls N]
//                  [--grace-seconds S] [--drain-seconds S] [--no-access-log]
//                  [--max-client-calls N] [--max-client-mcp-sessions N]
//                  [--http-listen HOST:PORT [--http-allow-origin ORIGIN]...
//                   [--http-read-timeout-ms MS] [--http-max-connections N]
//                   [--http-max-client-connections N] [--http-body-budget-bytes N]]
//
// Prints "parplan-server listening on HOST:PORT" once serving (and
// "parplan-server http listening on HOST:PORT" with --http-listen). SIGTERM or
// SIGINT: health NOT_SERVING and new calls 503 / UNAVAILABLE with
// Retry-After at once, listeners closed after the drain window, in-flight
// calls finish within the grace period, exit 0 (server_runner.h StopServer).
// The token may also come from PARPLAN_AUTH_TOKEN.
#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <sys/resource.h>

#include "core/util/limits.h"
#include "server/server_runner.h"

namespace {

void Usage() {
  std::fprintf(
      stderr,
      "usage: parplan-server [--listen HOST:PORT] [--tls-cert F --tls-key F] [--auth-token-file F]\n"
      "                      [--insecure] [--max-message-bytes N] [--search-workers N]\n"
      "                      [--max-queued-calls N] [--grace-seconds S] [--no-access-log]\n"
      "                      [--http-listen HOST:PORT [--http-allow-origin ORIGIN]...]\n"
      "  --listen             address to serve on (default 127.0.0.1:50051; port 0 = any)\n"
      "  --tls-cert, --tls-key  PEM certificate chain and key: serve TLS\n"
      "  --auth-token-file    file whose first line is the shared token; calls then need\n"
      "                       'authorization: Bearer <token>' (or set PARPLAN_AUTH_TOKEN)\n"
      "  --insecure           allow a non-loopback address without TLS or a token\n"
      "  --search-workers     threads for searches and large layouts, 1..256 (default cores-1)\n"
      "  --max-queued-calls   long calls waiting beyond this are refused, 1..100000 (default 1024)\n"
      "  --max-message-bytes  largest request/response, 1024..67108864 (default 4194304)\n"
      "  --grace-seconds      on SIGTERM, running calls may finish for this long, 0..600 (default 10)\n"
      "  --drain-seconds      on SIGTERM, new calls are answered 503/UNAVAILABLE with Retry-After for\n"
      "                       this long before the listeners close, 0..600, at most the grace (default 5)\n"
      "  --max-client-calls   calls one client (address, and token) may have in flight, 1..100000 (default 64)\n"
      "  --max-client-mcp-sessions  live MCP sessions of one client, 1..1024 (default 32)\n"
      "  --light-workers      threads for layouts and plots, 1..256 (default 2)\n"
      "  --no-access-log      no per-call line on stderr\n"
      "  --http-listen        also serve HTTP there (port 0 = any): POST /v1/<Method> (JSON),\n"
      "                       /mcp (MCP Streamable HTTP), /openapi.json, /healthz, /readyz, the\n"
      "                       web page at /; same token, TLS files, limits and worker pool\n"
      "  --http-allow-origin  a browser Origin allowed to call /v1, /plot and /mcp beyond\n"
      "                       loopback ones (repeatable), e.g. https://chat.example.com\n"
      "  --http-read-timeout-ms  a whole request must arrive within this, 100..300000 (default 10000)\n"
      "  --http-max-connections  open HTTP connections at most, 1..100000 (default 1024)\n"
      "  --http-max-client-connections  open HTTP connections from one address, 1..100000 (default 128)\n"
      "  --http-body-budget-bytes  request bodies being received, all connections (a quarter for one\n"
      "                       address), 1048576..4294967296 (default 67108864)\n");
}

// 768 MiB: the shipped manifest's 1 GiB limit less headroom. Not under
// AddressSanitizer, whose shadow memory and quarantine count in the RSS
// (a sanitized server passes 768 MiB with no search running); --max-rss-mib
// still sets one there.
int64_t DefaultMaxRssBytes() {
#if defined(__SANITIZE_ADDRESS__)
  return 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return 0;
#else
  return int64_t{768} << 20;
#endif
#else
  return int64_t{768} << 20;
#endif
}

bool ParseInt(const char* text, long lo, long hi, long* out) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  parplan::ServerOptions options;
  double grace_seconds = 10;
  double drain_seconds = static_cast<double>(parplan::kDefaultDrainSeconds);
  options.max_rss_bytes = DefaultMaxRssBytes();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "parplan-server: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    // The flag's integer value in [lo, hi]; exits 2 naming the range otherwise.
    auto int_value = [&](const char* name, long lo, long hi) -> long {
      long n = 0;
      if (!ParseInt(value(name), lo, hi, &n)) {
        std::fprintf(stderr, "parplan-server: %s must be %ld..%ld\n", name, lo, hi);
        std::exit(2);
      }
      return n;
    };
    if (arg == "--listen") {
      options.listen = value("--listen");
    } else if (arg == "--max-message-bytes") {
      options.max_message_bytes =
          static_cast<int>(int_value("--max-message-bytes", parplan::kMinMessageBytes, parplan::kMaxMessageBytes));
    } else if (arg == "--grace-seconds") {
      grace_seconds = static_cast<double>(int_value("--grace-seconds", 0, 600));
    } else if (arg == "--drain-seconds") {
      drain_seconds = static_cast<double>(int_value("--drain-seconds", 0, 600));
    } else if (arg == "--max-client-calls") {
      options.max_client_calls = static_cast<int>(int_value("--max-client-calls", 1, parplan::kMaxQueuedCalls));
    } else if (arg == "--max-client-mcp-sessions") {
      options.max_client_mcp_sessions =
          static_cast<int>(int_value("--max-client-mcp-sessions", 1, static_cast<long>(parplan::kMaxMcpHttpSessions)));
    } else if (arg == "--search-memory-mib") {
      options.search_memory_bytes = int_value("--search-memory-mib", 16, 65536) << 20;
    } else if (arg == "--max-rss-mib") {
      options.max_rss_bytes = int_value("--max-rss-mib", 64, 1048576) << 20;
    } else if (arg == "--light-workers") {
      options.light_workers = static_cast<int>(int_value("--light-workers", 1, parplan::kMaxSearchWorkers));
    } else if (arg == "--http-max-client-connections") {
      options.http_max_client_connections =
          static_cast<int>(int_value("--http-max-client-connections", 1, parplan::kMaxHttpConnections));
    } else if (arg == "--http-body-budget-bytes") {
      options.http_body_budget_bytes = int_value("--http-body-budget-bytes", 1 << 20, 4294967296L);
    } else if (arg == "--tls-cert") {
      options.tls_cert_file = value("--tls-cert");
    } else if (arg == "--tls-key") {
      options.tls_key_file = value("--tls-key");
    } else if (arg == "--auth-token-file") {
      const char* path = value("--auth-token-file");
      std::ifstream in(path);
      std::string token;
      std::getline(in, token);
      while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
      if (!in && token.empty()) {
        std::fprintf(stderr, "parplan-server: --auth-token-file: cannot read '%s'\n", path);
        return 2;
      }
      options.auth_token = token;
    } else if (arg == "--insecure") {
      options.insecure = true;
    } else if (arg == "--search-workers") {
      options.search_workers = static_cast<int>(int_value("--search-workers", 1, parplan::kMaxSearchWorkers));
    } else if (arg == "--max-queued-calls") {
      options.max_queued_calls = static_cast<int>(int_value("--max-queued-calls", 1, parplan::kMaxQueuedCalls));
    } else if (arg == "--http-listen") {
      options.http_listen = value("--http-listen");
    } else if (arg == "--http-allow-origin") {
      options.http_allowed_origins.push_back(value("--http-allow-origin"));
    } else if (arg == "--http-read-timeout-ms") {
      options.http_read_timeout_ms = int_value("--http-read-timeout-ms", 100, parplan::kMaxHttpReadTimeoutMs);
    } else if (arg == "--http-max-connections") {
      options.http_max_connections =
          static_cast<int>(int_value("--http-max-connections", 1, parplan::kMaxHttpConnections));
    } else if (arg == "--no-access-log") {
      options.access_log = false;
    } else if (arg == "--help" || arg == "-h") {
      Usage();
      return 0;
    } else {
      std::fprintf(stderr, "parplan-server: unknown flag '%s'\n", arg.c_str());
      Usage();
      return 2;
    }
  }

  if (options.auth_token.empty()) {
    if (const char* env = std::getenv("PARPLAN_AUTH_TOKEN"); env != nullptr && *env != '\0') {
      options.auth_token = env;
    }
  }
  // One rule for both sources of the token.
  if (!options.auth_token.empty() && options.auth_token.size() < 16) {
    std::fprintf(stderr,
                 "parplan-server: the auth token (--auth-token-file or PARPLAN_AUTH_TOKEN) must have at "
                 "least 16 characters\n");
    return 2;
  }

  // Connections are file descriptors: allow as many as the hard limit does.
  if (rlimit files{}; getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }

  // Block the stop signals in every thread (gRPC's included); main waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto running = parplan::StartServer(options);
  if (!running.ok()) {
    std::fprintf(stderr, "parplan-server: %s\n", std::string(running.status().message()).c_str());
    return running.status().code() == absl::StatusCode::kFailedPrecondition ? 2 : 1;
  }
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  std::printf("parplan-server listening on %s:%d\n", host.c_str(), (*running)->port);
  if ((*running)->http) {
    const std::string http_host = options.http_listen.substr(0, options.http_listen.rfind(':'));
    std::printf("parplan-server http listening on %s:%d\n", http_host.c_str(), (*running)->http_port);
  }
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  std::fprintf(stderr, "parplan-server: signal %d, refusing new calls for %.0f s, draining for up to %.0f s\n",
               signal_number, std::min(drain_seconds, grace_seconds), grace_seconds);
  parplan::StopServer(running->get(), grace_seconds, drain_seconds);
  std::fprintf(stderr, "parplan-server: stopped\n");
  return 0;
}
