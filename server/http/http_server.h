// The HTTP/1.1 transport of the HTTP door, on Boost.Beast (Debian 12's
// libboost1.74-dev, header-only): asynchronous, so an idle or slow
// connection holds no thread, with the request limits Beast's parser
// enforces. The routes are server/http/http_routes.h's.
//
// Limits, each answered and then the connection closed:
//   headers over kMaxHttpHeaderBytes (many small ones included) -> 431;
//   a body over max_body_bytes -> 413; malformed HTTP -> 400;
//   a body whose declared length (max_body_bytes when chunked) does not fit
//   the bodies' byte budget (body_budget_bytes for all connections, a
//   quarter of it for one address) -> 503 with Retry-After, before a byte
//   of it is read: bodies being received hold at most that much memory;
//   a request not complete within read_timeout of its first byte
//   (slowloris) -> 408; more than max_connections open, or more than
//   max_client_connections from one address -> closed at accept.
// Idle keep-alive connections are closed after read_timeout. Each request
// carries the time it had arrived whole (Request::received).
#ifndef PARPLAN_SERVER_HTTP_SERVER_H_
#define PARPLAN_SERVER_HTTP_SERVER_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/http/http_routes.h"

namespace parplan {
namespace http {

struct ServerOptions {
  std::string listen;         // host:port; port 0 picks a free one
  std::string tls_cert_file;  // PEM chain and key: serve HTTPS
  std::string tls_key_file;
  size_t max_body_bytes = 4 << 20;
  std::chrono::milliseconds read_timeout{10000};
  int io_threads = 2;
  int max_connections = 1024;
  int max_client_connections = 128;  // from one address
  int64_t body_budget_bytes = int64_t{64} << 20;
  bool access_log = true;  // one line per request on stderr
};

class Server {
 public:
  // Binds and starts serving with `router` (not owned; must outlive the
  // server). UNAVAILABLE when the address cannot be bound,
  // FAILED_PRECONDITION when the TLS files cannot be used.
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerOptions& options, Router* router);
  ~Server();  // stops the threads; pending connections are closed

  int port() const;
  // Answers from now on carry "Connection: close"; new connections are
  // still accepted (the router refuses their API requests while draining).
  void StartDraining();
  // Stops accepting and waits up to `grace` for the requests being
  // answered; later answers carry "Connection: close".
  void Drain(std::chrono::milliseconds grace);
  // Open connections now.
  int connections() const;
  // Requests read and not yet answered.
  int in_flight() const;
  // Stops the threads: no request reaches the router after this returns.
  // Answers still to come (from the worker pool) are dropped with their
  // connections when the server is destroyed.
  void Stop();

  class Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace http
}  // namespace parplan

#endif  // PARPLAN_SERVER_HTTP_SERVER_H_
