#include "server/server_runner.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <fstream>
#include <sstream>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

#include "absl/strings/str_cat.h"
#include "server/api/request_budget.h"
#include "server/process_memory.h"

namespace parplan {

namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || text.str().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(flag, ": cannot read '", path, "'"));
  }
  return text.str();
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(const ServerOptions& options) {
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::FailedPreconditionError("--tls-cert and --tls-key go together");
  }
  if (options.tls_cert_file.empty()) return grpc::InsecureServerCredentials();
  auto cert = ReadPem(options.tls_cert_file, "--tls-cert");
  if (!cert.ok()) return cert.status();
  auto key = ReadPem(options.tls_key_file, "--tls-key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(ssl);
}

absl::Status StartHttp(const ServerOptions& options, RunningServer* running) {
  http::RouterOptions routes;
  routes.auth_token = options.auth_token;
  routes.allowed_origins = options.http_allowed_origins;
  routes.max_mcp_sessions = kMaxMcpHttpSessions;
  routes.max_client_mcp_sessions = static_cast<size_t>(options.max_client_mcp_sessions);
  routes.mcp_evictable_idle = std::chrono::seconds(kMcpEvictableIdleSeconds);
  routes.loopback_only = IsLoopbackAddress(options.http_listen);
  std::atomic<bool>* serving = &running->serving;
  running->router = std::make_unique<http::Router>(routes, running->service->lanes(), running->service->client_calls(),
                                                   [serving] { return serving->load(); });
  http::ServerOptions transport;
  transport.listen = options.http_listen;
  transport.tls_cert_file = options.tls_cert_file;
  transport.tls_key_file = options.tls_key_file;
  transport.max_body_bytes = static_cast<size_t>(options.max_message_bytes);
  transport.read_timeout = std::chrono::milliseconds(options.http_read_timeout_ms);
  transport.max_connections = options.http_max_connections;
  transport.max_client_connections = options.http_max_client_connections;
  transport.body_budget_bytes = options.http_body_budget_bytes;
  transport.io_threads = options.http_io_threads > 0
                             ? options.http_io_threads
                             : std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
  transport.access_log = options.access_log;
  auto http = http::Server::Start(transport, running->router.get());
  if (!http.ok()) return http.status();
  running->http = *std::move(http);
  running->http_port = running->http->port();
  return absl::OkStatus();
}

}  // namespace

int64_t SearchMemoryBudget(const ServerOptions& options) {
  int64_t budget = options.search_memory_bytes;
  if (options.max_rss_bytes > 0) {
    const int64_t reserve = kRssReserveBytes + options.http_body_budget_bytes;
    const int64_t share = (options.max_rss_bytes - reserve) / PlannerService::SearchWorkers(options.search_workers);
    budget = std::min(budget, std::max<int64_t>(kMinSearchMemoryBytes, share));
  }
  return budget;
}

bool IsLoopbackAddress(const std::string& listen) {
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

absl::StatusOr<std::unique_ptr<RunningServer>> StartServer(const ServerOptions& options) {
  const bool tls = !options.tls_cert_file.empty();
  for (const std::string& listen : {options.listen, options.http_listen}) {
    if (!listen.empty() && !IsLoopbackAddress(listen) && !tls && options.auth_token.empty() && !options.insecure) {
      return absl::FailedPreconditionError(
          absl::StrCat("refusing to listen on ", listen,
                       " (not loopback) without TLS (--tls-cert/--tls-key) or a token (--auth-token-file); "
                       "add --insecure to do it anyway"));
    }
  }
  auto credentials = Credentials(options);
  if (!credentials.ok()) return credentials.status();
  api::SetSearchMemoryBytes(SearchMemoryBudget(options));
  SetMaxResidentBytes(options.max_rss_bytes);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  auto running = std::make_unique<RunningServer>();
  ServiceOptions service;
  service.access_log = options.access_log;
  service.auth_token = options.auth_token;
  service.search_workers = options.search_workers;
  service.light_workers = options.light_workers;
  service.max_queued_calls = options.max_queued_calls;
  service.max_client_calls = options.max_client_calls;
  running->service = std::make_unique<PlannerService>(service);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, *credentials, &running->port);
  builder.RegisterService(running->service.get());
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  running->server = builder.BuildAndStart();
  if (running->server == nullptr || running->port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen));
  }
  auto* health = running->server->GetHealthCheckService();
  if (health != nullptr) {
    health->SetServingStatus(true);
    health->SetServingStatus("parplan.v1.Planner", true);
  }
  if (!options.http_listen.empty()) {
    if (absl::Status s = StartHttp(options, running.get()); !s.ok()) {
      StopServer(running.get(), 0);
      return s;
    }
  }
  return running;
}

void StopServer(RunningServer* server, double grace_seconds, double drain_seconds) {
  const auto start = std::chrono::steady_clock::now();
  const auto grace = std::chrono::milliseconds(static_cast<int64_t>(grace_seconds * 1000));
  const auto window = std::min(grace, std::chrono::milliseconds(static_cast<int64_t>(drain_seconds * 1000)));
  // 1. Refuse new calls at once, listeners open.
  server->serving.store(false);
  if (server->service) server->service->StartDraining();
  auto* health = server->server ? server->server->GetHealthCheckService() : nullptr;
  if (health != nullptr) health->SetServingStatus(false);
  if (server->http) server->http->StartDraining();
  std::this_thread::sleep_until(start + window);
  // 2. Close the listeners; 3. let running calls finish within the grace.
  const auto left =
      std::max(std::chrono::milliseconds(0),
               std::chrono::duration_cast<std::chrono::milliseconds>(start + grace - std::chrono::steady_clock::now()));
  if (server->http) server->http->Drain(left);
  if (server->server) {
    server->server->Shutdown(std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                    start + grace - std::chrono::steady_clock::now()));
    server->server->Wait();
  }
  // Order matters: no HTTP request may reach the routes once they are gone,
  // and the pool's last answers go to the routes and the HTTP connections.
  // So: stop the HTTP threads, tell the routes to answer what is still
  // queued with 503 instead of running it, end the pool (it runs its queue),
  // then free the routes and the connections.
  if (server->http) server->http->Stop();
  if (server->router) server->router->Abandon();
  server->server.reset();
  server->service.reset();
  server->router.reset();
  server->http.reset();
}

}  // namespace parplan
