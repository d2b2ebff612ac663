#include "server/client_limits.h"

#include <algorithm>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"

namespace parplan {

std::string PeerAddress(absl::string_view peer) {
  if (absl::StartsWith(peer, "ipv4:") || absl::StartsWith(peer, "ipv6:")) peer.remove_prefix(5);
  if (!peer.empty() && peer.front() == '[') {  // [v6]:port
    const size_t close = peer.find(']');
    if (close != absl::string_view::npos) return std::string(peer.substr(1, close - 1));
  }
  const size_t colon = peer.rfind(':');
  if (colon != absl::string_view::npos && peer.find(':') == colon) return std::string(peer.substr(0, colon));
  return std::string(peer);
}

std::string ClientKey(absl::string_view peer, absl::string_view authorization) {
  std::string key = PeerAddress(peer);
  if (!authorization.empty()) {
    absl::StrAppendFormat(&key, "#%016x", std::hash<std::string>()(std::string(authorization)));
  }
  return key;
}

ClientLimits::ClientLimits(int max_per_client) : max_(std::max(1, max_per_client)) {}

bool ClientLimits::TryAcquire(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  int& held = held_[client];
  if (held >= max_) return false;
  ++held;
  return true;
}

void ClientLimits::Release(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(client);
  if (it == held_.end()) return;
  if (--it->second <= 0) held_.erase(it);
}

int ClientLimits::Held(const std::string& client) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(client);
  return it == held_.end() ? 0 : it->second;
}

bool ByteBudget::TryReserve(const std::string& client, int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t& mine = by_client_[client];
  if (total_ + bytes > max_total_ || mine + bytes > max_client_) {
    if (mine == 0) by_client_.erase(client);
    return false;
  }
  total_ += bytes;
  mine += bytes;
  return true;
}

void ByteBudget::Release(const std::string& client, int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  total_ -= bytes;
  auto it = by_client_.find(client);
  if (it != by_client_.end() && (it->second -= bytes) <= 0) by_client_.erase(it);
}

int64_t ByteBudget::held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

}  // namespace parplan
