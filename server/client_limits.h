// Fair sharing: counts what each client holds (calls in flight, HTTP
// connections, MCP sessions) against a cap per client, so one client cannot
// take what the server has for all. A client is its network address (the
// peer without its port) and, when it sends one, its bearer token: the same
// address with different credentials counts as different clients (a proxy
// in front of several users), and many connections from one address count
// as one client.
#ifndef PARPLAN_SERVER_CLIENT_LIMITS_H_
#define PARPLAN_SERVER_CLIENT_LIMITS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "absl/strings/string_view.h"

namespace parplan {

// The address of a peer as gRPC ("ipv4:1.2.3.4:5555", "ipv6:[::1]:5555") or
// the HTTP door writes it, without the port; the text itself when it has
// no port.
std::string PeerAddress(absl::string_view peer);

// The client key of a call from `peer` with `authorization` (the header's
// value, may be empty): the address, plus a hash of the credentials when
// given.
std::string ClientKey(absl::string_view peer, absl::string_view authorization);

class ClientLimits {
 public:
  // Each client may hold at most `max_per_client` units (>= 1).
  explicit ClientLimits(int max_per_client);
  ClientLimits(const ClientLimits&) = delete;
  ClientLimits& operator=(const ClientLimits&) = delete;

  // Takes one unit for `client`; false (nothing taken) when it holds
  // max_per_client() already.
  bool TryAcquire(const std::string& client);
  // Gives back a unit TryAcquire took.
  void Release(const std::string& client);
  // Units `client` holds now.
  int Held(const std::string& client) const;
  int max_per_client() const { return max_; }

 private:
  const int max_;
  mutable std::mutex mu_;
  std::map<std::string, int> held_;  // only clients holding something
};

// A byte budget shared by all clients, with a share per client: request
// bodies being received (server/http/http_server.h) reserve their declared
// length here before a byte of them is read.
class ByteBudget {
 public:
  // At most `max_total` bytes held in all, `max_per_client` by one client.
  ByteBudget(int64_t max_total, int64_t max_per_client) : max_total_(max_total), max_client_(max_per_client) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  // Reserves `bytes` for `client`; false (nothing reserved) when either cap
  // would be passed.
  bool TryReserve(const std::string& client, int64_t bytes);
  void Release(const std::string& client, int64_t bytes);
  int64_t held() const;
  int64_t max_total() const { return max_total_; }
  int64_t max_per_client() const { return max_client_; }

 private:
  const int64_t max_total_, max_client_;
  mutable std::mutex mu_;
  int64_t total_ = 0;
  std::map<std::string, int64_t> by_client_;
};

}  // namespace parplan

#endif  // PARPLAN_SERVER_CLIENT_LIMITS_H_
