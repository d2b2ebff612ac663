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
#ifndef PARPLAN_SERVER_MCP_HTTP_H_
#define PARPLAN_SERVER_MCP_HTTP_H_

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/string_view.h"
#include "server/http/http_message.h"
#include "server/mcp/mcp_session.h"

namespace parplan {
namespace http {

class McpSessions {
 public:
  // At most `max_sessions` live sessions (the least recently used is ended
  // to admit a new one); a session idle for `idle_expiry` ends.
  McpSessions(size_t max_sessions, std::chrono::seconds idle_expiry);

  // Answers POST, GET or DELETE /mcp.
  Response Handle(const Request& request);

  // True when the POST body is a tools/call of a tool whose RPC runs on the
  // worker pool (a search or a large layout): the router runs it there.
  static bool NeedsPool(absl::string_view body);

  size_t size() const;

 private:
  Response Post(const Request& request);
  Response Delete(const Request& request);
  // The session named by the request's Mcp-Session-Id, refreshed; nullptr
  // when unknown or expired.
  std::shared_ptr<mcp::McpSession> Find(const std::string& id);
  // A new session (its id in `id`), ending the least recently used one when
  // the table is full.
  std::shared_ptr<mcp::McpSession> Start(std::string* id);
  // Ends session `id`; false when there is none.
  bool End(const std::string& id);

  struct Entry {
    std::shared_ptr<mcp::McpSession> session;
    std::chrono::steady_clock::time_point last_used;
  };
  const size_t max_sessions_;
  const std::chrono::seconds idle_expiry_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> sessions_;
};

}  // namespace http
}  // namespace parplan

#endif  // PARPLAN_SERVER_MCP_HTTP_H_
