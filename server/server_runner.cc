#include "server/server_runner.h"

#include <chrono>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

#include "absl/strings/str_cat.h"

namespace parplan {

absl::StatusOr<std::unique_ptr<RunningServer>> StartServer(const ServerOptions& options) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  auto running = std::make_unique<RunningServer>();
  running->service = std::make_unique<PlannerService>(options.access_log);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &running->port);
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
  const auto deadline = std::chrono::system_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(grace_seconds * 1000));
  server->server->Shutdown(deadline);
  server->server->Wait();
}

}  // namespace parplan
