// The HTTP door's routes, transport-free (server/http/http_server.h carries
// them over sockets):
//   POST /v1/<Method>   every row of the method table (server/api/api_methods.h):
//                       proto3 JSON request -> the same JSON the CLI's --json
//                       and MCP give; errors as server/api/error_json.h with the
//                       HTTP status of the code (400, 401, 404, 429, 504...)
//   POST /plot          pictures of one plan (server/api/plan_plot.h) as JSON;
//   POST /plot.svg      the same as one SVG (?figure=all|ranks|memory|time)
//   POST|GET|DELETE /mcp  MCP Streamable HTTP (server/mcp/mcp_http.h)
//   GET /openapi.json   the OpenAPI 3.1 document (server/http/openapi.h)
//   GET /healthz, /readyz  200 SERVING / 503 NOT_SERVING, as gRPC health
//   GET /, /app.js, /style.css  the web page (server/http/web_assets.h)
// /v1, /plot and /mcp need the bearer token when one is configured (401
// otherwise) and refuse an Origin header that is not a loopback origin or
// on the allow-list (403: DNS-rebinding protection); an allowed origin gets
// CORS headers and its preflights (OPTIONS) are answered. When the server
// is bound to loopback, the Host header must name a loopback host (any
// port) on every path (403 otherwise: DNS rebinding). HEAD is answered
// wherever GET is. Searches run on the search lane, layouts and plots on
// the light lane (server/work_lanes.h; 429 when a lane's queue is full);
// the rest answer on the caller's thread. X-Timeout-Ms counts from the
// request's arrival: pooled work not started by then is answered 504 with
// Retry-After at that moment. One client (address, and token when sent)
// may have at most max_client_calls API requests in flight (429). Once the
// server drains, new API requests are refused with 503 and Retry-After
// (requests already running finish).
#ifndef PARPLAN_SERVER_HTTP_ROUTES_H_
#define PARPLAN_SERVER_HTTP_ROUTES_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/http/http_message.h"
#include "server/mcp/mcp_http.h"
#include "server/client_limits.h"
#include "server/work_lanes.h"

namespace parplan {
namespace http {

struct RouterOptions {
  std::string auth_token;                    // when set, "Authorization: Bearer <token>" is required
  std::vector<std::string> allowed_origins;  // exact origins allowed beyond loopback ones
  size_t max_mcp_sessions = 1024;
  size_t max_client_mcp_sessions = 32;  // live MCP sessions of one client
  std::chrono::seconds mcp_idle_expiry{3600};
  std::chrono::seconds mcp_evictable_idle{300};  // idle this long, a session may make room
  bool loopback_only = false;                    // bound to loopback: check the Host header
};

// True for a Host header value naming localhost, 127.0.0.0/8 or [::1],
// with or without a port.
bool LoopbackHost(absl::string_view host);

// True for an Origin whose host is localhost, 127.0.0.0/8 or [::1] (any
// scheme and port), or one listed in `allowed` exactly.
bool OriginAllowed(absl::string_view origin, const std::vector<std::string>& allowed);

class Router {
 public:
  // `lanes` (not owned) run the pooled calls; `client_calls` (not owned,
  // shared with gRPC) counts each client's calls in flight; `serving` says
  // whether the server is serving (false while it drains).
  Router(RouterOptions options, WorkLanes lanes, ClientLimits* client_calls, std::function<bool()> serving);

  // Answers `request` by calling `respond` exactly once, on this thread or
  // on a worker of the pool.
  void Handle(Request request, std::function<void(Response)> respond);

  const McpSessions& mcp_sessions() const { return mcp_; }

  // From now on, work still queued on the pool answers 503 without running
  // (the server is going away and its grace period is over).
  void Abandon() { abandoned_.store(true); }

 private:
  // The route's answer when it can be given now; runs pool work and
  // returns false when the answer will come through `respond` later.
  bool Route(Request& request, const std::function<void(Response)>& respond, Response* out);
  // Route for /v1, /plot and /mcp once the request is admitted and counted.
  bool RouteApi(Request& request, const std::string& path, const std::function<void(Response)>& respond, Response* out);
  bool CallMethod(Request& request, absl::string_view rpc, const std::function<void(Response)>& respond, Response* out);
  bool Plot(Request& request, bool svg, const std::function<void(Response)>& respond, Response* out);
  // Queues `work` on `pool` (its answer goes to `respond`); when no worker
  // starts it by `deadline`, `respond` gets 504 at the deadline. False with
  // a 429 in `out` when the queue is full.
  bool RunOnPool(WorkPool* pool, std::function<Response()> work, absl::Time deadline,
                 const std::function<void(Response)>& respond, Response* out);
  // 401 / 403 for a request that may not use the API; nullptr when it may.
  bool Admit(const Request& request, Response* out) const;

  const RouterOptions options_;
  const std::string expected_authorization_;
  const WorkLanes lanes_;
  ClientLimits* const client_calls_;
  const std::function<bool()> serving_;
  McpSessions mcp_;
  std::atomic<bool> abandoned_{false};
};

}  // namespace http
}  // namespace parplan

#endif  // PARPLAN_SERVER_HTTP_ROUTES_H_
