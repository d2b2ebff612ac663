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
// on the allow-list (403: DNS-rebinding protection); a listed origin gets
// CORS headers and its preflights (OPTIONS) are answered. HEAD is answered
// wherever GET is. Searches, large
// layouts and plots run on the shared worker pool (429 when its queue is
// full); the rest answer on the caller's thread. Once the server drains,
// new API requests are refused with 503 (requests already running finish).
#ifndef PARPLAN_SERVER_HTTP_ROUTES_H_
#define PARPLAN_SERVER_HTTP_ROUTES_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "server/http/http_message.h"
#include "server/mcp/mcp_http.h"
#include "server/work_pool.h"

namespace parplan {
namespace http {

struct RouterOptions {
  std::string auth_token;                    // when set, "Authorization: Bearer <token>" is required
  std::vector<std::string> allowed_origins;  // exact origins allowed beyond loopback ones
  size_t max_mcp_sessions = 1024;
  std::chrono::seconds mcp_idle_expiry{3600};
};

// True for an Origin whose host is localhost, 127.0.0.0/8 or [::1] (any
// scheme and port), or one listed in `allowed` exactly.
bool OriginAllowed(absl::string_view origin, const std::vector<std::string>& allowed);

class Router {
 public:
  // `pool` (not owned) runs the long calls; `serving` says whether the
  // server is serving (false while it drains).
  Router(RouterOptions options, WorkPool* pool, std::function<bool()> serving);

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
  bool CallMethod(Request& request, absl::string_view rpc, const std::function<void(Response)>& respond, Response* out);
  bool Plot(Request& request, bool svg, const std::function<void(Response)>& respond, Response* out);
  // Queues `work` on the pool (its answer goes to `respond`); false with a
  // 429 in `out` when the queue is full.
  bool RunOnPool(std::function<Response()> work, const std::function<void(Response)>& respond, Response* out);
  // 401 / 403 for a request that may not use the API; nullptr when it may.
  bool Admit(const Request& request, Response* out) const;

  const RouterOptions options_;
  const std::string expected_authorization_;
  WorkPool* const pool_;
  const std::function<bool()> serving_;
  McpSessions mcp_;
  std::atomic<bool> abandoned_{false};
};

}  // namespace http
}  // namespace parplan

#endif  // PARPLAN_SERVER_HTTP_ROUTES_H_
