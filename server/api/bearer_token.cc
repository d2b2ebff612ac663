#include "server/api/bearer_token.h"

#include <algorithm>

namespace parplan {

std::string ExpectedAuthorization(const std::string& token) { return token.empty() ? "" : "Bearer " + token; }

bool AuthorizationMatches(absl::string_view given, const std::string& expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  const size_t n = std::max<size_t>(1, expected.size());
  for (size_t i = 0; i < given.size(); ++i) {
    diff |= static_cast<unsigned char>(given[i] ^ (expected.empty() ? 0 : expected[i % n]));
  }
  return diff == 0;
}

}  // namespace parplan
