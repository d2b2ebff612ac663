// Builds and starts the gRPC server: Planner service, health (SERVING once
// started), reflection, bounded message sizes. Used by parplan-server's main
// and by the service tests (port 0).
#ifndef PARPLAN_SERVER_SERVER_RUNNER_H_
#define PARPLAN_SERVER_SERVER_RUNNER_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "server/http/http_routes.h"
#include "server/http/http_server.h"
#include "server/grpc/planner_service.h"
#include "core/util/limits.h"

namespace parplan {

struct ServerOptions {
  std::string listen = "127.0.0.1:50051";  // host:port; port 0 picks a free one
  int max_message_bytes = kDefaultMaxMessageBytes;
  bool access_log = true;
  std::string tls_cert_file;  // PEM certificate chain; with tls_key_file turns TLS on
  std::string tls_key_file;   // PEM private key
  std::string auth_token;     // shared token required as "authorization: Bearer <token>"
  bool insecure = false;      // allow a non-loopback address without TLS or a token
  int search_workers = 0;     // see ServiceOptions
  int light_workers = 2;      // see ServiceOptions
  int max_queued_calls = 1024;
  int max_client_calls = kDefaultMaxClientCalls;  // one client's calls in flight, both doors
  int max_client_mcp_sessions = kDefaultMaxClientMcpSessions;
  int64_t search_memory_bytes = int64_t{256} << 20;  // one search's budget (api::kDefaultSearchMemoryBytes)
  int64_t max_rss_bytes = 0;                         // no search starts above this RSS; 0 = no ceiling
  // The HTTP door (server/http/http_routes.h): off when empty. It shares the
  // worker pool, token, TLS files, message limit and access log.
  std::string http_listen;                        // host:port; port 0 picks a free one
  std::vector<std::string> http_allowed_origins;  // Origins allowed beyond loopback ones
  int64_t http_read_timeout_ms = kDefaultHttpReadTimeoutMs;
  int http_max_connections = 1024;
  int http_max_client_connections = kDefaultMaxClientConnections;  // from one address
  int64_t http_body_budget_bytes = kDefaultHttpBodyBudgetBytes;    // bodies being received
  int http_io_threads = 0;                                         // 0 = cores (at least 2)
};

struct RunningServer {
  std::unique_ptr<PlannerService> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;                          // the bound port
  std::atomic<bool> serving{true};       // false once draining (HTTP /healthz, /readyz)
  std::unique_ptr<http::Router> router;  // when the HTTP door is on
  std::unique_ptr<http::Server> http;
  int http_port = 0;  // its bound port
};

// What the RSS ceiling keeps for everything but searches: the process
// itself, plots and layouts (beside the bodies' own budget).
inline constexpr int64_t kRssReserveBytes = int64_t{96} << 20;
inline constexpr int64_t kMinSearchMemoryBytes = int64_t{16} << 20;

// One search's memory budget: search_memory_bytes, or less when the RSS
// ceiling (less kRssReserveBytes and the bodies' budget) shared by every
// search worker is smaller (at least kMinSearchMemoryBytes). One worker
// under 768 MiB keeps the 256 MiB default; 15 get 40 MiB each.
int64_t SearchMemoryBudget(const ServerOptions& options);

// True for 127.0.0.0/8, ::1 and localhost (with a port).
bool IsLoopbackAddress(const std::string& listen);

// Starts the server (and the HTTP door when http_listen is set).
// FAILED_PRECONDITION for a non-loopback address without TLS or a token
// (unless insecure), or a TLS file that cannot be read; UNAVAILABLE when an
// address cannot be bound.
absl::StatusOr<std::unique_ptr<RunningServer>> StartServer(const ServerOptions& options);

// Drains and stops, in this order (grace and window count from the call):
//   1. at once: gRPC health NOT_SERVING, /healthz and /readyz 503; new API
//      calls on both doors are answered 503 / UNAVAILABLE with Retry-After
//      while the listeners stay open (load balancers see the refusal and
//      the probe, not a refused connection);
//   2. after drain_seconds (at most grace_seconds): the listeners close;
//   3. calls still running may finish until grace_seconds, then the rest
//      are cancelled and everything is freed.
void StopServer(RunningServer* server, double grace_seconds, double drain_seconds = 0);

}  // namespace parplan

#endif  // PARPLAN_SERVER_SERVER_RUNNER_H_
