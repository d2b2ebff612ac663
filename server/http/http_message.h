// An HTTP request and response as plain values, so the routes
// (server/http/http_routes.h) are written and tested without sockets; the
// transport (server/http/http_server.h) fills and sends them.
#ifndef PARPLAN_SERVER_HTTP_MESSAGE_H_
#define PARPLAN_SERVER_HTTP_MESSAGE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace parplan {
namespace http {

struct Request {
  std::string method;                                        // "GET", "POST", ...
  std::string target;                                        // path and query as sent, e.g. "/v1/MinGpus"
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  std::string peer;  // "ipv4:127.0.0.1:5555", for the access log and fair sharing
  // When the request had arrived whole (the transport sets it); deadlines
  // (X-Timeout-Ms) count from here. InfinitePast: the router takes "now".
  absl::Time received = absl::InfinitePast();

  // The first value of header `name` (lower-case), or "" when absent.
  absl::string_view Header(absl::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (key == name) return value;
    }
    return {};
  }
  bool HasHeader(absl::string_view name) const {
    for (const auto& header : headers) {
      if (header.first == name) return true;
    }
    return false;
  }
  // The target without its query string.
  absl::string_view Path() const {
    absl::string_view t = target;
    return t.substr(0, t.find('?'));
  }
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  // Short note for the access log (e.g. the RPC or MCP method), may be empty.
  std::string log_note;
};

}  // namespace http
}  // namespace parplan

#endif  // PARPLAN_SERVER_HTTP_MESSAGE_H_
