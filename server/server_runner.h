// Builds and starts the gRPC server: Planner service, health (SERVING once
// started), reflection, bounded message sizes. Used by parplan-server's main
// and by the service tests (port 0).
#ifndef PARPLAN_SERVER_SERVER_RUNNER_H_
#define PARPLAN_SERVER_SERVER_RUNNER_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "server/planner_service.h"

namespace parplan {

inline constexpr int kDefaultMaxMessageBytes = 4 << 20;

struct ServerOptions {
  std::string listen = "127.0.0.1:50051";  // host:port; port 0 picks a free one
  int max_message_bytes = kDefaultMaxMessageBytes;
  bool access_log = true;
};

struct RunningServer {
  std::unique_ptr<PlannerService> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;  // the bound port
};

// Starts the server; UNAVAILABLE when the address cannot be bound.
absl::StatusOr<std::unique_ptr<RunningServer>> StartServer(const ServerOptions& options);

// Marks health NOT_SERVING, then drains in-flight calls for up to
// grace_seconds before cancelling the rest.
void StopServer(RunningServer* server, double grace_seconds);

}  // namespace parplan

#endif  // PARPLAN_SERVER_SERVER_RUNNER_H_
