#include "server/http/http_routes.h"

#include <atomic>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"
#include "server/api/api_methods.h"
#include "server/api/bearer_token.h"
#include "server/api/error_json.h"
#include "server/api/json_codec.h"
#include "server/http/openapi.h"
#include "server/api/plan_plot.h"
#include "server/http/web_assets.h"
#include "server/process_memory.h"

namespace parplan {
namespace http {
namespace {

Response ErrorResponse(const absl::Status& status) {
  Response r;
  r.status = api::HttpStatusOf(status.code());
  r.body = api::ErrorJsonText(status);
  return r;
}

Response MethodNotAllowed(const char* allow) {
  Response r = ErrorResponse(absl::UnimplementedError(absl::StrCat("this path answers ", allow, " only")));
  r.status = 405;
  r.headers.push_back({"allow", allow});
  return r;
}

// The media type of Content-Type is application/json (parameters such as
// charset allowed).
bool IsJson(const Request& request) {
  absl::string_view type = request.Header("content-type");
  type = absl::StripAsciiWhitespace(type.substr(0, type.find(';')));
  return absl::EqualsIgnoreCase(type, "application/json");
}

Response UnsupportedType(const Request& request) {
  Response r =
      ErrorResponse(FieldError("content-type", absl::StrCat("= \"", request.Header("content-type").substr(0, 64),
                                                            "\"; send the body as application/json")));
  r.status = 415;
  return r;
}

// True for a POST with a JSON body; otherwise false with 405 or 415 in `out`.
bool IsJsonPost(const Request& request, Response* out) {
  if (request.method != "POST") {
    *out = MethodNotAllowed("POST");
    return false;
  }
  if (!IsJson(request)) {
    *out = UnsupportedType(request);
    return false;
  }
  return true;
}

// The caller's deadline from X-Timeout-Ms (1..kMaxClientTimeoutMs) counted
// from the request's arrival, or absl::InfiniteFuture() without one.
absl::StatusOr<absl::Time> CallerDeadline(const Request& request) {
  if (!request.HasHeader("x-timeout-ms")) return absl::InfiniteFuture();
  int64_t ms = 0;
  if (!absl::SimpleAtoi(request.Header("x-timeout-ms"), &ms) || ms < 1 || ms > kMaxClientTimeoutMs) {
    return FieldError("x-timeout-ms", absl::StrCat("= \"", request.Header("x-timeout-ms").substr(0, 32),
                                                   "\"; allowed: milliseconds 1..", kMaxClientTimeoutMs));
  }
  return request.received + absl::Milliseconds(ms);
}

absl::string_view QueryValue(absl::string_view target, absl::string_view key) {
  const size_t q = target.find('?');
  if (q == absl::string_view::npos) return {};
  for (absl::string_view pair : absl::StrSplit(target.substr(q + 1), '&')) {
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key) return eq == absl::string_view::npos ? "" : pair.substr(eq + 1);
  }
  return {};
}

std::string MethodNames() {
  std::vector<std::string> names;
  for (const auto& m : api::ApiMethods()) names.push_back(m.rpc);
  return absl::StrJoin(names, ", ");
}

Response Health(bool serving) {
  Response r;
  r.status = serving ? 200 : 503;
  r.body = serving ? R"({"status":"SERVING"})" : R"({"status":"NOT_SERVING"})";
  return r;
}

Response OpenApi() {
  Response r;
  r.body = api::PlannerOpenApiText();
  return r;
}

Response StaticFile(const WebAsset& asset) {
  Response r;
  r.content_type = std::string(asset.content_type);
  r.body = std::string(asset.bytes);
  r.headers.push_back({"content-security-policy",
                       "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                       "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"});
  r.headers.push_back({"x-frame-options", "DENY"});
  r.headers.push_back({"referrer-policy", "no-referrer"});
  return r;
}

// The response headers a listed origin's page may read.
constexpr const char* kExposedHeaders = "Mcp-Session-Id, WWW-Authenticate, Retry-After";

Response ForbiddenOrigin(absl::string_view origin) {
  return ErrorResponse(absl::PermissionDeniedError(absl::StrCat(
      "Origin \"", origin.substr(0, 128), "\" is not allowed; start the server with --http-allow-origin for it")));
}

bool IsListedOrigin(absl::string_view origin, const std::vector<std::string>& allowed) {
  for (const std::string& a : allowed) {
    if (origin == a) return true;
  }
  return false;
}

// The answer to a CORS preflight: 204 with what an allowed origin (a
// loopback origin on any port, or a listed one) may send, 403 for any other.
Response Preflight(const Request& request, const std::vector<std::string>& allowed) {
  const absl::string_view origin = request.Header("origin");
  if (!OriginAllowed(origin, allowed)) return ForbiddenOrigin(origin);
  Response r;
  r.status = 204;
  r.content_type.clear();
  r.headers = {{"access-control-allow-origin", std::string(origin)},
               {"access-control-allow-methods", "GET, POST, DELETE"},
               {"access-control-allow-headers",
                "Content-Type, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, X-Timeout-Ms"},
               {"access-control-expose-headers", kExposedHeaders},
               {"access-control-max-age", "600"},
               {"vary", "Origin"}};
  r.log_note = "preflight";
  return r;
}

// Gives a client's in-flight unit back once, whichever path answers.
class ReleaseOnce {
 public:
  ReleaseOnce(ClientLimits* limits, std::string client) : limits_(limits), client_(std::move(client)) {}
  void Run() {
    if (!done_.exchange(true)) limits_->Release(client_);
  }

 private:
  ClientLimits* const limits_;
  const std::string client_;
  std::atomic<bool> done_{false};
};

}  // namespace

bool OriginAllowed(absl::string_view origin, const std::vector<std::string>& allowed) {
  if (IsListedOrigin(origin, allowed)) return true;
  const size_t scheme = origin.find("://");
  if (scheme == absl::string_view::npos) return false;
  return LoopbackHost(origin.substr(scheme + 3));
}

bool LoopbackHost(absl::string_view host) {
  if (absl::StartsWith(host, "[::1]")) {
    host.remove_prefix(5);
  } else {
    const size_t colon = host.find(':');
    const absl::string_view name = host.substr(0, colon);
    if (name != "localhost" && !absl::StartsWith(name, "127.")) return false;
    if (absl::StartsWith(name, "127.")) {
      for (char c : name) {
        if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
      }
    }
    host.remove_prefix(name.size());
  }
  // Nothing may follow the host but a port.
  if (host.empty()) return true;
  if (host[0] != ':' || host.size() == 1) return false;
  for (char c : host.substr(1)) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

Router::Router(RouterOptions options, WorkLanes lanes, ClientLimits* client_calls, std::function<bool()> serving)
    : options_(std::move(options)),
      expected_authorization_(ExpectedAuthorization(options_.auth_token)),
      lanes_(lanes),
      client_calls_(client_calls),
      serving_(std::move(serving)),
      mcp_(McpSessions::Limits{options_.max_mcp_sessions, options_.max_client_mcp_sessions, options_.mcp_idle_expiry,
                               options_.mcp_evictable_idle}) {}

bool Router::Admit(const Request& request, Response* out) const {
  if (request.HasHeader("origin") && !OriginAllowed(request.Header("origin"), options_.allowed_origins)) {
    *out = ForbiddenOrigin(request.Header("origin"));
    return false;
  }
  if (!expected_authorization_.empty() &&
      !AuthorizationMatches(request.Header("authorization"), expected_authorization_)) {
    *out = ErrorResponse(absl::UnauthenticatedError(request.HasHeader("authorization")
                                                        ? "wrong bearer token"
                                                        : "missing \"Authorization: Bearer <token>\" header"));
    out->headers.push_back({"www-authenticate", "Bearer"});
    return false;
  }
  return true;
}

bool Router::RunOnPool(WorkPool* pool, std::function<Response()> work, absl::Time deadline,
                       const std::function<void(Response)>& respond, Response* out) {
  auto task = [this, work = std::move(work), respond]() {
    if (abandoned_.load()) {
      Response r = ErrorResponse(absl::UnavailableError("the server stopped before this call ran; retry"));
      r.headers.push_back({"retry-after", "1"});
      respond(std::move(r));
      return;
    }
    respond(work());
  };
  auto expire = [respond]() {
    Response r = ErrorResponse(
        absl::DeadlineExceededError("the deadline (X-Timeout-Ms) came before a worker was free to start this call "
                                    "(other searches ahead); retry with a longer deadline or later"));
    r.headers.push_back({"retry-after", "1"});
    r.log_note = "expired in queue";
    respond(std::move(r));
  };
  if (pool->TrySubmit(std::move(task), deadline, std::move(expire))) return false;
  *out = ErrorResponse(absl::ResourceExhaustedError(
      absl::StrCat("server busy: ", pool->max_queued(), " calls are already waiting; retry with backoff")));
  out->headers.push_back({"retry-after", "1"});
  return true;
}

bool Router::CallMethod(Request& request, absl::string_view rpc, const std::function<void(Response)>& respond,
                        Response* out) {
  const api::ApiMethod* method = api::FindApiMethod(rpc);
  if (method == nullptr) {
    *out = ErrorResponse(
        absl::NotFoundError(absl::StrCat("no method \"", rpc.substr(0, 64), "\"; methods: ", MethodNames())));
    return true;
  }
  if (!IsJsonPost(request, out)) return true;
  auto deadline = CallerDeadline(request);
  if (!deadline.ok()) {
    *out = ErrorResponse(deadline.status());
    return true;
  }
  auto run = [method, body = std::move(request.body), caller = *deadline]() {
    std::unique_ptr<google::protobuf::Message> req(method->request->New());
    std::unique_ptr<google::protobuf::Message> resp(method->response->New());
    Response r;
    std::string memory;
    if (absl::Now() > caller) {
      r = ErrorResponse(absl::DeadlineExceededError("the deadline (X-Timeout-Ms) passed before the call started"));
      r.headers.push_back({"retry-after", "1"});
    } else if (method->cost == api::CallCost::kSearch && OverMemoryCeiling(&memory)) {
      r = ErrorResponse(absl::UnavailableError(memory));
      r.headers.push_back({"retry-after", "1"});
    } else if (absl::Status s = api::JsonToMessage(body, "", req.get()); !s.ok()) {
      r = ErrorResponse(s);
    } else if (absl::Status s = api::RunMethod(*method, *req, resp.get(), caller); !s.ok()) {
      r = ErrorResponse(s);
    } else {
      r.body = api::MessageToJson(*resp, /*pretty=*/false);
    }
    r.log_note = method->rpc;
    return r;
  };
  if (method->cost != api::CallCost::kInline) {
    return RunOnPool(lanes_.For(method->cost), std::move(run), *deadline, respond, out);
  }
  *out = run();
  return true;
}

bool Router::Plot(Request& request, bool svg, const std::function<void(Response)>& respond, Response* out) {
  if (!IsJsonPost(request, out)) return true;
  auto deadline = CallerDeadline(request);
  if (!deadline.ok()) {
    *out = ErrorResponse(deadline.status());
    return true;
  }
  const std::string figure = svg ? std::string(QueryValue(request.target, "figure")) : "";
  const std::string groups(QueryValue(request.target, "groups"));
  auto run = [body = std::move(request.body), svg, figure, groups]() {
    v1::RenderConfigRequest req;
    Response r;
    const absl::Status parsed = api::JsonToMessage(body, "", &req);
    absl::StatusOr<api::PlanPlot> plot =
        parsed.ok() ? api::PlotPlan(req, groups, "groups") : absl::StatusOr<api::PlanPlot>(parsed);
    if (!plot.ok()) {
      r = ErrorResponse(plot.status());
    } else if (!svg) {
      r.body = api::PlanPlotJson(*plot);
    } else if (auto text = api::PlanPlotSvg(*plot, figure.empty() ? "all" : figure, "figure"); !text.ok()) {
      r = ErrorResponse(text.status());
    } else {
      r.content_type = "image/svg+xml";
      r.body = *std::move(text);
    }
    r.log_note = svg ? "plot.svg" : "plot";
    return r;
  };
  return RunOnPool(lanes_.light, std::move(run), *deadline, respond, out);
}

bool Router::Route(Request& request, const std::function<void(Response)>& respond, Response* out) {
  const std::string path(request.Path());
  const bool get = request.method == "GET" || request.method == "HEAD";
  if (options_.loopback_only && !LoopbackHost(request.Header("host"))) {
    // DNS rebinding: a page of another site that resolved its name to
    // 127.0.0.1 sends its own name as Host.
    *out = ErrorResponse(absl::PermissionDeniedError(
        absl::StrCat("Host \"", request.Header("host").substr(0, 128),
                     "\" is not allowed: this server is bound to loopback and answers localhost, 127.0.0.0/8 and "
                     "[::1] only (DNS-rebinding protection)")));
    return true;
  }
  if (request.method == "OPTIONS" && request.HasHeader("origin")) {
    *out = Preflight(request, options_.allowed_origins);
    return true;
  }
  if (path == "/healthz" || path == "/readyz") {
    *out = get ? Health(serving_()) : MethodNotAllowed("GET");
    return true;
  }
  if (path == "/openapi.json") {
    *out = get ? OpenApi() : MethodNotAllowed("GET");
    return true;
  }
  if (const WebAsset* asset = FindWebAsset(path); asset != nullptr) {
    *out = get ? StaticFile(*asset) : MethodNotAllowed("GET");
    return true;
  }
  const bool api_path = absl::StartsWith(path, "/v1/") || path == "/plot" || path == "/plot.svg" || path == "/mcp";
  if (!api_path) {
    *out = ErrorResponse(
        absl::NotFoundError(absl::StrCat("no such path \"", path.substr(0, 128),
                                         "\"; see /openapi.json (POST /v1/<Method>, /plot, /mcp) or / for the page")));
    return true;
  }
  if (!Admit(request, out)) return true;
  if (!serving_()) {  // as gRPC refuses new calls once shutting down
    *out = ErrorResponse(absl::UnavailableError("the server is shutting down; retry on another replica"));
    out->headers.push_back({"retry-after", "1"});
    return true;
  }
  // Fair sharing: one client's API requests in flight, both doors together.
  const std::string client = ClientKey(request.peer, request.Header("authorization"));
  if (!client_calls_->TryAcquire(client)) {
    *out = ErrorResponse(
        absl::ResourceExhaustedError(absl::StrCat("this client already has ", client_calls_->max_per_client(),
                                                  " calls in flight (--max-client-calls); wait for one to finish")));
    out->headers.push_back({"retry-after", "1"});
    return true;
  }
  ClientLimits* calls = client_calls_;
  auto release = std::make_shared<ReleaseOnce>(calls, client);
  std::function<void(Response)> answer = [release, respond](Response r) {
    release->Run();
    respond(std::move(r));
  };
  if (RouteApi(request, path, answer, out)) {
    release->Run();
    return true;
  }
  return false;
}

bool Router::RouteApi(Request& request, const std::string& path, const std::function<void(Response)>& respond,
                      Response* out) {
  if (absl::StartsWith(path, "/v1/")) return CallMethod(request, path.substr(4), respond, out);
  if (path == "/plot" || path == "/plot.svg") return Plot(request, path == "/plot.svg", respond, out);
  if (request.method == "POST" && !IsJson(request)) {
    *out = UnsupportedType(request);
    return true;
  }
  if (request.method == "POST") {
    if (const auto lane = McpSessions::LaneOf(request.body); lane != api::CallCost::kInline) {
      auto deadline = CallerDeadline(request);
      if (!deadline.ok()) {
        *out = ErrorResponse(deadline.status());
        return true;
      }
      auto shared = std::make_shared<Request>(std::move(request));
      auto handle = [this, shared, lane]() {
        std::string memory;
        if (lane == api::CallCost::kSearch && OverMemoryCeiling(&memory)) {
          Response r = ErrorResponse(absl::UnavailableError(memory));
          r.headers.push_back({"retry-after", "1"});
          return r;
        }
        return mcp_.Handle(*shared);
      };
      return RunOnPool(lanes_.For(lane), std::move(handle), *deadline, respond, out);
    }
  }
  *out = mcp_.Handle(request);
  return true;
}

void Router::Handle(Request request, std::function<void(Response)> respond) {
  // Every answer: no sniffing, no caching of API answers; CORS headers for
  // an allowed non-loopback origin.
  if (request.received == absl::InfinitePast()) request.received = absl::Now();
  std::string cors_origin;
  if (request.HasHeader("origin") && request.method != "OPTIONS" &&
      OriginAllowed(request.Header("origin"), options_.allowed_origins)) {
    cors_origin = std::string(request.Header("origin"));
  }
  auto finish = [respond = std::move(respond), cors_origin](Response r) {
    r.headers.push_back({"x-content-type-options", "nosniff"});
    if (!cors_origin.empty()) {
      r.headers.push_back({"access-control-allow-origin", cors_origin});
      r.headers.push_back({"access-control-expose-headers", kExposedHeaders});
      r.headers.push_back({"vary", "Origin"});
    }
    if (r.content_type.rfind("text/html", 0) != 0 && r.content_type.rfind("text/css", 0) != 0 &&
        r.content_type.rfind("text/javascript", 0) != 0) {
      r.headers.push_back({"cache-control", "no-store"});
    }
    respond(std::move(r));
  };
  Response now;
  if (Route(request, finish, &now)) finish(std::move(now));
}

}  // namespace http
}  // namespace parplan
