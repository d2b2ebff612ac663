// One unary call to a parplan server, by method name and serialized bytes.
// The gRPC client lives in a plugin (libparplan_remote.so, next to the
// `parplan` executable, or where PARPLAN_REMOTE_PLUGIN points) that is loaded
// only when --server is used: loading the gRPC libraries costs ~5 ms, more
// than an in-process answer.
#ifndef PARPLAN_SKILL_CLI_REMOTE_CALL_H_
#define PARPLAN_SKILL_CLI_REMOTE_CALL_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace parplan {
namespace cli {

// The plugin's entry point, "ParplanRemoteCall" (C linkage; same toolchain
// on both sides, so plain C++ types cross it).
struct RemoteRequest {
  std::string address;  // host:port
  std::string method;   // "/parplan.v1.Planner/Recommend"
  std::string request;  // serialized request message
  int64_t timeout_ms = 30000;
  std::string tls_ca_pem;       // non-empty: TLS, trusting these PEM roots
  std::string tls_server_name;  // optional: the name the certificate must carry
  std::string token;            // non-empty: sent as "authorization: Bearer <token>"
};
struct RemoteReply {
  int code = 0;  // gRPC status code
  std::string message;
  std::string details;   // grpc-status-details-bin
  std::string response;  // serialized response message when code == 0
};
using RemoteCallFn = void (*)(const RemoteRequest&, RemoteReply*);

// Calls the server. UNAVAILABLE when the plugin cannot be loaded (naming
// the path tried) or the server cannot be reached; the server's own status
// otherwise, with its field violations.
absl::Status CallRemote(const RemoteRequest& request, std::string* response);

}  // namespace cli
}  // namespace parplan

#endif  // PARPLAN_SKILL_CLI_REMOTE_CALL_H_
