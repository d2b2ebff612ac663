#include "core/util/text.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"

namespace parplan {

std::string NormalizeName(absl::string_view name) {
  std::string out(absl::StripAsciiWhitespace(name));
  for (char& c : out) {
    c = absl::ascii_tolower(static_cast<unsigned char>(c));
    if (c == '-') c = '_';
  }
  return out;
}

int EditDistance(absl::string_view a, absl::string_view b) {
  if (a.size() > 256 || b.size() > 256) return 1 << 20;
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> ClosestNames(absl::string_view query, const std::vector<std::string>& candidates, int limit) {
  std::string q = NormalizeName(query);
  std::vector<std::pair<int, std::string>> scored;
  for (const auto& c : candidates) {
    std::string n = NormalizeName(c);
    int score = EditDistance(q, n);
    if (!q.empty() && (n.find(q) != std::string::npos || q.find(n) != std::string::npos)) {
      score -= 100;  // substring matches rank first
    }
    scored.emplace_back(score, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (static_cast<int>(out.size()) >= limit) break;
    if (std::find(out.begin(), out.end(), s.second) == out.end()) out.push_back(s.second);
  }
  return out;
}

std::string HumanCount(double count) {
  double a = std::fabs(count);
  if (a >= 1e12) return absl::StrFormat("%.2fT", count / 1e12);
  if (a >= 1e9) return absl::StrFormat("%.1fB", count / 1e9);
  if (a >= 1e6) return absl::StrFormat("%.0fM", count / 1e6);
  if (a >= 1e3) return absl::StrFormat("%.0fK", count / 1e3);
  return absl::StrFormat("%.0f", count);
}

std::string WithCommas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return n < 0 ? "-" + out : out;
}

std::string HumanGiB(double bytes) { return absl::StrFormat("%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

int64_t Gcd(int64_t a, int64_t b) {
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int64_t Lcm(int64_t a, int64_t b) { return a / Gcd(a, b) * b; }

}  // namespace parplan
