#include "server/server_runner.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

#include "absl/strings/str_cat.h"

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

}  // namespace

bool IsLoopbackAddress(const std::string& listen) {
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

absl::StatusOr<std::unique_ptr<RunningServer>> StartServer(const ServerOptions& options) {
  const bool tls = !options.tls_cert_file.empty();
  if (!IsLoopbackAddress(options.listen) && !tls && options.auth_token.empty() && !options.insecure) {
    return absl::FailedPreconditionError(
        absl::StrCat("refusing to listen on ", options.listen,
                     " (not loopback) without TLS (--tls-cert/--tls-key) or a token (--auth-token-file); "
                     "add --insecure to do it anyway"));
  }
  auto credentials = Credentials(options);
  if (!credentials.ok()) return credentials.status();
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  auto running = std::make_unique<RunningServer>();
  ServiceOptions service;
  service.access_log = options.access_log;
  service.auth_token = options.auth_token;
  service.search_workers = options.search_workers;
  service.max_queued_calls = options.max_queued_calls;
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
  return running;
}

void StopServer(RunningServer* server, double grace_seconds) {
  auto* health = server->server->GetHealthCheckService();
  if (health != nullptr) health->SetServingStatus(false);
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(grace_seconds * 1000));
  server->server->Shutdown(deadline);
  server->server->Wait();
}

}  // namespace parplan
