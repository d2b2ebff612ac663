// A minimal blocking HTTP/1.1 client over a raw socket, for the HTTP door's
// tests and load bench: it can send exactly the bytes a hostile client
// would (partial requests, floods) and keeps connections alive.
#ifndef PARPLAN_TESTS_SERVER_HTTP_CLIENT_H_
#define PARPLAN_TESTS_SERVER_HTTP_CLIENT_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace parplan {
namespace testing_http {

struct Reply {
  int status = 0;                                            // 0: no answer (connection closed or timed out)
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-case
  std::string body;
  std::string Header(const std::string& name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return "";
  }
};

class Connection {
 public:
  // Connects to 127.0.0.1:`port`; from `source` (another loopback address
  // such as "127.0.0.2", to be a different client) when given.
  explicit Connection(int port, const char* source = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (source != nullptr) {
      sockaddr_in from{};
      from.sin_family = AF_INET;
      ::inet_pton(AF_INET, source, &from.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
    int one = 1;
    if (fd_ >= 0) ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~Connection() {
    if (fd_ >= 0) ::close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool ok() const { return fd_ >= 0; }

  // Sends raw bytes; false when the peer has closed.
  bool Send(const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  // Reads one response (Content-Length framed; no body after a HEAD request
  // when `head_request`), waiting at most `timeout`.
  Reply Read(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000), bool head_request = false) {
    Reply reply;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    size_t header_end;
    while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill(deadline)) return reply;
    }
    const std::string head = buffer_.substr(0, header_end);
    size_t line_end = head.find("\r\n");
    const std::string status_line = head.substr(0, line_end);
    if (status_line.size() < 12) return reply;
    reply.status = std::atoi(status_line.substr(9, 3).c_str());
    size_t length = 0;
    while (line_end != std::string::npos && line_end < head.size()) {
      const size_t next = head.find("\r\n", line_end + 2);
      const std::string line =
          head.substr(line_end + 2, next == std::string::npos ? std::string::npos : next - line_end - 2);
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        if (name == "content-length") length = std::strtoul(value.c_str(), nullptr, 10);
        reply.headers.emplace_back(name, value);
      }
      line_end = next;
    }
    buffer_.erase(0, header_end + 4);
    if (head_request) length = 0;
    while (buffer_.size() < length) {
      if (!Fill(deadline)) break;
    }
    reply.body = buffer_.substr(0, length);
    buffer_.erase(0, std::min(length, buffer_.size()));
    return reply;
  }

  // True when the server closed the connection within `timeout`.
  bool ClosedWithin(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        char c[4096];
        const ssize_t n = ::recv(fd_, c, sizeof(c), 0);
        if (n <= 0) return true;
        buffer_.append(c, static_cast<size_t>(n));
      }
    }
    return false;
  }

 private:
  bool Fill(std::chrono::steady_clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  std::string buffer_;
};

// A request's bytes: `extra_headers` are full lines without CRLF.
inline std::string RequestBytes(const std::string& method, const std::string& target, const std::string& body,
                                const std::vector<std::string>& extra_headers = {},
                                const std::string& content_type = "application/json") {
  std::string out = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (!content_type.empty()) out += "Content-Type: " + content_type + "\r\n";
  for (const auto& h : extra_headers) out += h + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  return out;
}

// One request on a new connection.
inline Reply Call(int port, const std::string& method, const std::string& target, const std::string& body,
                  const std::vector<std::string>& extra_headers = {},
                  const std::string& content_type = "application/json") {
  Connection c(port);
  if (!c.ok() || !c.Send(RequestBytes(method, target, body, extra_headers, content_type))) return {};
  return c.Read();
}

}  // namespace testing_http
}  // namespace parplan

#endif  // PARPLAN_TESTS_SERVER_HTTP_CLIENT_H_
