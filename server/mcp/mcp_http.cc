#include "server/mcp/mcp_http.h"

#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "core/util/limits.h"
#include "server/api/api_methods.h"
#include "server/api/error_json.h"
#include "server/api/json_codec.h"
#include "server/api/tool_schemas.h"
#include "server/client_limits.h"

namespace parplan {
namespace http {
namespace {

using Json = nlohmann::json;

// A JSON-RPC error answer carried with an HTTP error status.
Response RpcError(int status, int code, const std::string& message) {
  Response r;
  r.status = status;
  r.body = mcp::JsonRpcError(code, message);
  r.log_note = absl::StrCat("mcp rejected: ", message.substr(0, 80));
  return r;
}

// The client accepts only server-sent events (no application/json).
bool WantsEventStream(absl::string_view accept) {
  return absl::StrContains(accept, "text/event-stream") && !absl::StrContains(accept, "application/json") &&
         !absl::StrContains(accept, "*/*");
}

bool AcceptsAnswer(const Request& request) {
  if (!request.HasHeader("accept")) return true;
  const absl::string_view accept = request.Header("accept");
  return absl::StrContains(accept, "application/json") || absl::StrContains(accept, "text/event-stream") ||
         absl::StrContains(accept, "*/*") || absl::StrContains(accept, "application/*");
}

}  // namespace

McpSessions::McpSessions(Limits limits) : limits_(limits) {}

size_t McpSessions::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.size();
}

api::CallCost McpSessions::LaneOf(absl::string_view body) {
  constexpr api::CallCost kInline = api::CallCost::kInline;
  if (!api::JsonNestedWithin(body, kMaxJsonDepth)) return kInline;
  const Json message = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (!message.is_object() || message.value("method", Json()) != "tools/call") return kInline;
  const Json params = message.value("params", Json());
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) return kInline;
  const std::string name = params["name"].get<std::string>();
  for (const auto& tool : api::PlannerToolSchemas()) {
    if (tool.name != name) continue;
    const api::ApiMethod* method = api::FindApiMethod(tool.rpc);
    return method != nullptr ? method->cost : kInline;
  }
  return kInline;
}

std::shared_ptr<mcp::McpSession> McpSessions::Start(const std::string& client, std::string* id, Response* refusal) {
  std::random_device random;
  id->clear();
  for (int i = 0; i < 4; ++i) absl::StrAppend(id, absl::StrFormat("%08x", random()));
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  size_t own = 0;
  auto own_oldest = sessions_.end(), oldest = sessions_.end();
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (now - it->second.last_used > limits_.idle_expiry) {
      it = sessions_.erase(it);
      continue;
    }
    if (oldest == sessions_.end() || it->second.last_used < oldest->second.last_used) oldest = it;
    if (it->second.client == client) {
      ++own;
      if (own_oldest == sessions_.end() || it->second.last_used < own_oldest->second.last_used) own_oldest = it;
    }
    ++it;
  }
  // Only a session idle for evictable_idle makes room; otherwise refuse.
  auto evictable = [&](std::map<std::string, Entry>::iterator it) {
    return it != sessions_.end() && now - it->second.last_used >= limits_.evictable_idle;
  };
  const auto idle_s = static_cast<long long>(limits_.evictable_idle.count());
  if (own >= limits_.max_per_client) {
    if (!evictable(own_oldest)) {
      *refusal = RpcError(429, -32000,
                          absl::StrCat("Too many sessions: this client has ", own,
                                       " live MCP sessions (the most one client may hold); end one with DELETE /mcp "
                                       "or reuse it, or wait until one has been idle ",
                                       idle_s, " s"));
      refusal->headers.push_back({"retry-after", "5"});
      return nullptr;
    }
    if (oldest == own_oldest) oldest = sessions_.end();
    sessions_.erase(own_oldest);
  } else if (sessions_.size() >= limits_.max_sessions) {
    if (!evictable(oldest)) {
      *refusal = RpcError(503, -32000,
                          absl::StrCat("Server busy: ", sessions_.size(),
                                       " MCP sessions are live and none has been idle ", idle_s, " s; retry later"));
      refusal->headers.push_back({"retry-after", "5"});
      return nullptr;
    }
    sessions_.erase(oldest);
  }
  auto session = std::make_shared<mcp::McpSession>();
  sessions_[*id] = Entry{session, now, client};
  return session;
}

bool McpSessions::End(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.erase(id) > 0;
}

std::shared_ptr<mcp::McpSession> McpSessions::Find(const std::string& id) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  if (now - it->second.last_used > limits_.idle_expiry) {
    sessions_.erase(it);
    return nullptr;
  }
  it->second.last_used = now;
  return it->second.session;
}

Response McpSessions::Handle(const Request& request) {
  if (request.method == "POST") return Post(request);
  if (request.method == "DELETE") return Delete(request);
  Response r;
  r.status = 405;
  r.headers.push_back({"allow", "POST, DELETE"});
  r.body = api::ErrorJsonText(absl::UnimplementedError(
      "this server sends no messages of its own: GET /mcp opens no event stream; POST JSON-RPC messages"));
  r.log_note = "mcp GET (no stream)";
  return r;
}

Response McpSessions::Delete(const Request& request) {
  const std::string id(request.Header("mcp-session-id"));
  if (id.empty()) return RpcError(400, -32600, "Bad Request: DELETE /mcp needs the Mcp-Session-Id header");
  if (!End(id)) return RpcError(404, -32001, "Session not found");
  Response r;
  r.status = 204;
  r.content_type.clear();
  r.log_note = "mcp session ended";
  return r;
}

Response McpSessions::Post(const Request& request) {
  if (!AcceptsAnswer(request)) {
    return RpcError(406, -32600, "Not Acceptable: the client must accept application/json or text/event-stream");
  }
  nlohmann::ordered_json message;
  if (std::optional<std::string> error = mcp::ReadMessage(request.body, &message)) {
    Response r;
    r.status = 400;
    r.body = *std::move(error);
    r.log_note = "mcp rejected: unreadable message";
    return r;
  }
  const bool initialize = message.contains("method") && message["method"] == "initialize";
  std::string id(request.Header("mcp-session-id"));
  std::shared_ptr<mcp::McpSession> session;
  if (initialize) {
    Response refusal;
    session = Start(ClientKey(request.peer, request.Header("authorization")), &id, &refusal);
    if (session == nullptr) return refusal;
  } else {
    if (request.HasHeader("mcp-protocol-version")) {
      const absl::string_view version = request.Header("mcp-protocol-version");
      if (!mcp::IsSupportedProtocolVersion(version)) {
        return RpcError(400, -32600,
                        absl::StrCat("Bad Request: MCP-Protocol-Version \"", version.substr(0, 32),
                                     "\" is not supported; supported: 2025-11-25, 2025-06-18"));
      }
    }
    if (id.empty()) return RpcError(400, -32600, "Bad Request: Mcp-Session-Id header is required after initialize");
    session = Find(id);
    if (session == nullptr) return RpcError(404, -32001, "Session not found (ended or expired): initialize again");
  }
  Response r;
  std::optional<std::string> reply = session->HandleMessage(message, &r.log_note);
  if (initialize && session->protocol_version().empty()) {
    End(id);  // a failed initialize starts no session
  } else {
    r.headers.push_back({"mcp-session-id", id});
  }
  if (!reply.has_value()) {  // a notification or a response: accepted, nothing to say
    r.status = 202;
    r.content_type.clear();
    return r;
  }
  if (WantsEventStream(request.Header("accept"))) {
    r.content_type = "text/event-stream";
    r.headers.push_back({"cache-control", "no-cache"});
    r.body = absl::StrCat("event: message\ndata: ", *reply, "\n\n");
  } else {
    r.body = *std::move(reply);
  }
  return r;
}

}  // namespace http
}  // namespace parplan
