#include "server/http/http_server.h"

#include <atomic>
#include <cstdio>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/util/limits.h"
#include "server/api/error_json.h"
#include "server/client_limits.h"

namespace parplan {
namespace http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::chrono::seconds kWriteTimeout{30};

// State every connection shares with the server.
struct Shared {
  explicit Shared(const ServerOptions& o)
      : options(o),
        client_connections(o.max_client_connections),
        bodies(o.body_budget_bytes,
               std::max<int64_t>(o.body_budget_bytes / 4, static_cast<int64_t>(o.max_body_bytes))) {}
  ServerOptions options;
  Router* router = nullptr;
  std::atomic<int> connections{0};
  std::atomic<int> in_flight{0};
  std::atomic<bool> closing{false};   // answers carry Connection: close
  std::atomic<bool> draining{false};  // the acceptor is closed
  ClientLimits client_connections;    // by address
  ByteBudget bodies;                  // bodies being received, by address
};

void AccessLog(const Shared& shared, const Request& request, const Response& response,
               std::chrono::steady_clock::time_point start) {
  if (!shared.options.access_log) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // Request data in the log is printable ASCII only: no forged lines.
  auto printable = [](absl::string_view text, size_t limit, bool spaces) {
    std::string out(text.substr(0, limit));
    for (char& c : out) {
      const auto u = static_cast<unsigned char>(c);
      if (!absl::ascii_isgraph(u) && !(spaces && c == ' ')) c = '?';
    }
    return out;
  };
  std::fprintf(stderr, "access door=http method=%s path=%s status=%d latency_ms=%.3f peer=%s%s%s\n",
               printable(request.method, 16, false).c_str(), printable(request.Path(), 128, false).c_str(),
               response.status, ms, request.peer.c_str(),
               response.log_note.empty() ? "" : " note=", printable(response.log_note, 200, true).c_str());
}

// One connection: reads a request, hands it to the router, writes the
// answer, and repeats while the client keeps the connection alive.
// `Derived` provides stream() and the TLS or plain start/close.
template <class Derived>
class Session {
 public:
  Session(std::shared_ptr<Shared> shared, std::string peer)
      : shared_(std::move(shared)), peer_(std::move(peer)), address_(PeerAddress(peer_)) {}
  ~Session() {
    ReleaseBody();
    shared_->client_connections.Release(address_);
    shared_->connections.fetch_sub(1);
  }

 protected:
  Derived& self() { return static_cast<Derived&>(*this); }

  void StartTimer(asio::any_io_executor executor) { timer_.emplace(executor); }

  void Read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(kMaxHttpHeaderBytes));
    parser_->body_limit(shared_->options.max_body_bytes);
    timed_out_ = false;
    beast::get_lowest_layer(self().stream()).expires_never();
    timer_->expires_after(shared_->options.read_timeout);
    timer_->async_wait([weak = self().weak_from_this()](beast::error_code ec) {
      if (ec) return;  // cancelled: the request arrived in time
      if (auto session = weak.lock()) {
        session->timed_out_ = true;
        beast::error_code ignored;
        beast::get_lowest_layer(session->stream()).socket().cancel(ignored);
      }
    });
    bhttp::async_read_header(
        self().stream(), buffer_, *parser_,
        [session = self().shared_from_this()](beast::error_code ec, std::size_t) { session->OnHeader(ec); });
  }

  // The head has arrived: reserve the body's bytes from the budget before
  // reading any of it, then read the rest.
  void OnHeader(beast::error_code ec) {
    if (ec) return OnRead(ec);
    int64_t bytes = 0;
    if (parser_->chunked()) {
      bytes = static_cast<int64_t>(shared_->options.max_body_bytes);
    } else if (parser_->content_length().has_value()) {
      bytes = static_cast<int64_t>(
          std::min<std::uint64_t>(*parser_->content_length(), shared_->options.max_body_bytes + std::uint64_t{1}));
    }
    if (bytes > static_cast<int64_t>(shared_->options.max_body_bytes)) {
      timer_->cancel();
      return Reject(413, absl::ResourceExhaustedError(
                             absl::StrCat("the body is over ", shared_->options.max_body_bytes, " bytes")));
    }
    if (bytes > 0) {
      if (!shared_->bodies.TryReserve(address_, bytes)) {
        timer_->cancel();
        return Reject(503,
                      absl::UnavailableError(
                          absl::StrCat("server busy: request bodies being received already hold ",
                                       shared_->bodies.held(), " bytes (budget ", shared_->bodies.max_total(), ", ",
                                       shared_->bodies.max_per_client(), " for one address); retry shortly")),
                      /*retry_after=*/true);
      }
      body_reserved_ = bytes;
    }
    bhttp::async_read(
        self().stream(), buffer_, *parser_,
        [session = self().shared_from_this()](beast::error_code ec, std::size_t) { session->OnRead(ec); });
  }

  void ReleaseBody() {
    if (body_reserved_ > 0) shared_->bodies.Release(address_, body_reserved_);
    body_reserved_ = 0;
  }

  void OnRead(beast::error_code ec) {
    timer_->cancel();
    if (ec) ReleaseBody();
    const bool got_some = parser_->got_some();
    if (timed_out_) {
      if (got_some) {
        return Reject(408, absl::DeadlineExceededError("the request was not complete within the read timeout"));
      }
      return self().Close();
    }
    if (ec == bhttp::error::end_of_stream || ec == asio::error::connection_reset || ec == asio::error::eof ||
        ec == asio::ssl::error::stream_truncated || (ec && !got_some)) {
      return self().Close();
    }
    if (ec == bhttp::error::body_limit) {
      return Reject(413, absl::ResourceExhaustedError(
                             absl::StrCat("the body is over ", shared_->options.max_body_bytes, " bytes")));
    }
    if (ec == bhttp::error::header_limit) {
      return Reject(431,
                    absl::ResourceExhaustedError(absl::StrCat("the headers are over ", kMaxHttpHeaderBytes, " bytes")));
    }
    if (ec) return Reject(400, absl::InvalidArgumentError(absl::StrCat("malformed HTTP request: ", ec.message())));
    Dispatch(parser_->release());
  }

  // Builds the plain request and lets the router answer it.
  void Dispatch(bhttp::request<bhttp::string_body> message) {
    Request request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    for (const auto& field : message) {
      request.headers.emplace_back(absl::AsciiStrToLower(std::string(field.name_string())), std::string(field.value()));
    }
    request.body = std::move(message.body());
    request.peer = peer_;
    request.received = absl::Now();
    keep_alive_ = message.keep_alive();
    version_ = message.version();
    head_ = message.method() == bhttp::verb::head;
    shared_->in_flight.fetch_add(1);
    const auto start = std::chrono::steady_clock::now();
    auto session = self().shared_from_this();
    auto logged = std::make_shared<Request>();
    logged->method = request.method;
    logged->target = request.target;
    logged->peer = request.peer;
    shared_->router->Handle(std::move(request), [session, logged, start](Response response) {
      AccessLog(*session->shared_, *logged, response, start);
      asio::post(session->stream().get_executor(), [session, response = std::move(response)]() mutable {
        session->ReleaseBody();  // answered: its body is gone
        session->Write(std::move(response), /*close=*/false, /*counted=*/true);
      });
    });
  }

  // Answers an unreadable request with HTTP `status` and `error`'s JSON,
  // and closes.
  void Reject(int status, const absl::Status& error, bool retry_after = false) {
    Response r;
    r.status = status;
    r.body = api::ErrorJsonText(error);
    if (retry_after) r.headers.push_back({"retry-after", "1"});
    keep_alive_ = false;
    version_ = 11;
    head_ = false;
    if (shared_->options.access_log) {
      std::fprintf(stderr, "access door=http rejected status=%d peer=%s reason=%s\n", status, peer_.c_str(),
                   std::string(error.message()).c_str());
    }
    Write(std::move(r), /*close=*/true, /*counted=*/false);
  }

  void Write(Response r, bool close, bool counted) {
    auto message = std::make_shared<bhttp::response<bhttp::string_body>>(static_cast<bhttp::status>(r.status),
                                                                         version_ == 10 ? 10 : 11);
    message->set(bhttp::field::server, "parplan");
    if (!r.content_type.empty()) message->set(bhttp::field::content_type, r.content_type);
    for (const auto& [name, value] : r.headers) message->set(name, value);
    const bool keep = keep_alive_ && !close && !shared_->closing.load() && !shared_->draining.load();
    message->keep_alive(keep);
    if (head_) {  // the GET answer's headers, its length, no body
      message->content_length(r.body.size());
    } else {
      message->body() = std::move(r.body);
      message->prepare_payload();
    }
    beast::get_lowest_layer(self().stream()).expires_after(kWriteTimeout);
    bhttp::async_write(
        self().stream(), *message,
        [session = self().shared_from_this(), message, keep, counted](beast::error_code ec, std::size_t) {
          if (counted) session->shared_->in_flight.fetch_sub(1);
          if (ec) return session->self().Close();
          if (!keep) return session->self().Linger();
          session->Read();
        });
  }

  std::shared_ptr<Shared> shared_;
  const std::string peer_;
  const std::string address_;  // the peer without its port: the fair-sharing key
  int64_t body_reserved_ = 0;  // bytes of the body budget this request holds
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::optional<asio::steady_timer> timer_;
  bool timed_out_ = false;
  bool keep_alive_ = true;
  bool head_ = false;  // the request was HEAD
  unsigned version_ = 11;
};

class PlainSession : public Session<PlainSession>, public std::enable_shared_from_this<PlainSession> {
 public:
  PlainSession(tcp::socket socket, std::shared_ptr<Shared> shared, std::string peer)
      : Session(std::move(shared), std::move(peer)), stream_(std::move(socket)) {}
  beast::tcp_stream& stream() { return stream_; }
  void Run() {
    StartTimer(stream_.get_executor());
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()]() { self->Read(); });
  }
  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }
  // Closes after an answer: stops sending, then reads and drops what the
  // client still sends (for at most 2 s) so that closing does not reset
  // the connection before the client has read the answer.
  void Linger() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::chrono::seconds(2));
    Discard();
  }

 private:
  friend class Session<PlainSession>;
  void Discard() {
    stream_.async_read_some(asio::buffer(discard_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      self->Discard();
    });
  }
  beast::tcp_stream stream_;
  char discard_[4096];
};

class TlsSession : public Session<TlsSession>, public std::enable_shared_from_this<TlsSession> {
 public:
  TlsSession(tcp::socket socket, asio::ssl::context& ssl, std::shared_ptr<Shared> shared, std::string peer)
      : Session(std::move(shared), std::move(peer)), stream_(std::move(socket), ssl) {}
  beast::ssl_stream<beast::tcp_stream>& stream() { return stream_; }
  void Run() {
    StartTimer(stream_.get_executor());
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()]() {
      beast::get_lowest_layer(self->stream_).expires_after(self->shared_->options.read_timeout);
      self->stream_.async_handshake(asio::ssl::stream_base::server, [self](beast::error_code ec) {
        if (ec) return self->CloseSocket();
        self->Read();
      });
    });
  }
  void Close() {
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(2));
    stream_.async_shutdown([self = shared_from_this()](beast::error_code) { self->CloseSocket(); });
  }
  void Linger() { Close(); }

 private:
  friend class Session<TlsSession>;
  void CloseSocket() {
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().close(ignored);
  }
  beast::ssl_stream<beast::tcp_stream> stream_;
};

std::string PeerOf(const tcp::socket& socket) {
  beast::error_code ec;
  const tcp::endpoint endpoint = socket.remote_endpoint(ec);
  if (ec) return "unknown";
  return absl::StrCat(endpoint.address().is_v6() ? "ipv6:[" : "ipv4:", endpoint.address().to_string(),
                      endpoint.address().is_v6() ? "]:" : ":", endpoint.port());
}

}  // namespace

class Server::Impl {
 public:
  explicit Impl(const ServerOptions& options, Router* router) : work_(asio::make_work_guard(ioc_)), acceptor_(ioc_) {
    shared_ = std::make_shared<Shared>(options);
    shared_->router = router;
  }

  ~Impl() { Stop(); }

  void Stop() {
    ioc_.stop();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

  absl::Status Start() {
    const ServerOptions& options = shared_->options;
    if (!options.tls_cert_file.empty()) {
      ssl_.emplace(asio::ssl::context::tls_server);
      ssl_->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                        asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
      beast::error_code ec;
      ssl_->use_certificate_chain_file(options.tls_cert_file, ec);
      if (!ec) ssl_->use_private_key_file(options.tls_key_file, asio::ssl::context::pem, ec);
      if (ec) return absl::FailedPreconditionError(absl::StrCat("--tls-cert/--tls-key for HTTP: ", ec.message()));
    }
    const size_t colon = options.listen.rfind(':');
    int port = -1;
    if (colon == std::string::npos || !absl::SimpleAtoi(options.listen.substr(colon + 1), &port) || port < 0 ||
        port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("--http-listen \"", options.listen, "\": expected HOST:PORT"));
    }
    std::string host = options.listen.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host == "localhost") host = "127.0.0.1";
    beast::error_code ec;
    const asio::ip::address address = asio::ip::make_address(host, ec);
    if (ec) return absl::UnavailableError(absl::StrCat("--http-listen: \"", host, "\" is not an IP address"));
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen, ": ", ec.message()));
    port_ = acceptor_.local_endpoint().port();
    Accept();
    for (int i = 0; i < std::max(1, options.io_threads); ++i) threads_.emplace_back([this] { ioc_.run(); });
    return absl::OkStatus();
  }

  void Accept() {
    acceptor_.async_accept(asio::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
      if (!ec) Admit(std::move(socket));
      Accept();
    });
  }

  void Admit(tcp::socket socket) {
    std::string peer = PeerOf(socket);
    const std::string address = PeerAddress(peer);
    if (shared_->draining.load() || !shared_->client_connections.TryAcquire(address)) {
      beast::error_code ignored;
      socket.close(ignored);
      return;
    }
    if (shared_->connections.fetch_add(1) >= shared_->options.max_connections) {
      shared_->connections.fetch_sub(1);
      shared_->client_connections.Release(address);
      beast::error_code ignored;
      socket.close(ignored);
      return;
    }
    if (ssl_) {
      std::make_shared<TlsSession>(std::move(socket), *ssl_, shared_, std::move(peer))->Run();
    } else {
      std::make_shared<PlainSession>(std::move(socket), shared_, std::move(peer))->Run();
    }
  }

  void Drain(std::chrono::milliseconds grace) {
    shared_->draining.store(true);
    asio::post(acceptor_.get_executor(), [this] {
      beast::error_code ignored;
      acceptor_.close(ignored);
    });
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (shared_->in_flight.load() > 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  int port_ = 0;
  std::shared_ptr<Shared> shared_;
  std::optional<asio::ssl::context> ssl_;  // before ioc_: outlives the sessions ioc_ destroys
  asio::io_context ioc_;
  // Keeps the threads running while a request waits for its answer (no
  // socket operation pending) after the acceptor has closed.
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  tcp::acceptor acceptor_;
  std::vector<std::thread> threads_;
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options, Router* router) {
  auto impl = std::make_unique<Impl>(options, router);
  if (absl::Status s = impl->Start(); !s.ok()) return s;
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port_; }
void Server::Drain(std::chrono::milliseconds grace) { impl_->Drain(grace); }
void Server::StartDraining() { impl_->shared_->closing.store(true); }
int Server::connections() const { return impl_->shared_->connections.load(); }
int Server::in_flight() const { return impl_->shared_->in_flight.load(); }
void Server::Stop() { impl_->Stop(); }

}  // namespace http
}  // namespace parplan
