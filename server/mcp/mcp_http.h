// MCP over Streamable HTTP (MCP 2025-06-18 / 2025-11-25, "Transports"):
// sessions and the POST/GET/DELETE /mcp semantics. JSON-RPC itself is the
// stdio door's (server/mcp/mcp_session.h), so a tool answers the same bytes
// over both. Origin and token checks are the router's (server/http/http_routes.h).
//
//   POST /mcp    one JSON-RPC message. initialize starts a session and the
//                answer carries its Mcp-Session-Id; every later message must
//                send that header (400 without, 404 once unknown or ended).
//                Requests are answered 200 with application/json, or with
//                one text/event-stream event when the client accepts only
//                SSE; notifications and responses are answered 202.
//                An MCP-Protocol-Version header must name a supported
//                version (400 otherwise).
//   GET /mcp     405: the server sends no messages of its own.
//   DELETE /mcp  ends the session (204; 404 when unknown).
//
// Sessions end when idle for idle_expiry, or by DELETE; never because
// others start. A new session is refused (429, Retry-After) when its client
// (server/client_limits.h: address, and token when sent) already has
// max_per_client live sessions, or (503) when the table holds max_sessions;
// in either case a session idle for at least evictable_idle (the client's
// own first, when it is the client that is full) is ended to make room
// instead. So a flood of initialize calls cannot end a session in use.
#ifndef PARPLAN_SERVER_MCP_HTTP_H_
#define PARPLAN_SERVER_MCP_HTTP_H_

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/string_view.h"
#include "server/api/api_methods.h"
#include "server/http/http_message.h"
#include "server/mcp/mcp_session.h"

namespace parplan {
namespace http {

class McpSessions {
 public:
  struct Limits {
    size_t max_sessions = 1024;  // live sessions, all clients
    size_t max_per_client = 32;  // live sessions of one client
    std::chrono::seconds idle_expiry{3600};
    std::chrono::seconds evictable_idle{300};
  };
  explicit McpSessions(Limits limits);

  // Answers POST, GET or DELETE /mcp.
  Response Handle(const Request& request);

  // The cost class of the POST body: a tools/call's RPC's (kSearch, kLight:
  // the router runs it on that lane), else kInline.
  static api::CallCost LaneOf(absl::string_view body);

  size_t size() const;

 private:
  Response Post(const Request& request);
  Response Delete(const Request& request);
  // The session named by the request's Mcp-Session-Id, refreshed; nullptr
  // when unknown or expired.
  std::shared_ptr<mcp::McpSession> Find(const std::string& id);
  // A new session of `client` (its id in `id`), or the refusal (429 / 503)
  // in `refusal` and nullptr (see the class comment).
  std::shared_ptr<mcp::McpSession> Start(const std::string& client, std::string* id, Response* refusal);
  // Ends session `id`; false when there is none.
  bool End(const std::string& id);

  struct Entry {
    std::shared_ptr<mcp::McpSession> session;
    std::chrono::steady_clock::time_point last_used;
    std::string client;
  };
  const Limits limits_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> sessions_;
};

}  // namespace http
}  // namespace parplan

#endif  // PARPLAN_SERVER_MCP_HTTP_H_
