// Small text helpers: name normalisation, fuzzy matching and number formats.
#ifndef PARPLAN_CORE_UTIL_TEXT_H_
#define PARPLAN_CORE_UTIL_TEXT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace parplan {

// Lower-cases and maps '-' to '_' (catalog names treat them as the same),
// trimming surrounding whitespace.
std::string NormalizeName(absl::string_view name);

// Levenshtein distance, bounded work: strings longer than 256 compare as far.
int EditDistance(absl::string_view a, absl::string_view b);

// The up-to-`limit` candidates closest to `query` (by edit distance on
// normalised names, substring matches first), without duplicates.
std::vector<std::string> ClosestNames(absl::string_view query, const std::vector<std::string>& candidates, int limit);

// 70553706496 -> "70.6B", 1.2e12 -> "1.20T", 950e6 -> "950M".
std::string HumanCount(double count);

// 8388608 -> "8,388,608".
std::string WithCommas(int64_t n);

// Bytes as GiB with one decimal: "71.2 GiB".
std::string HumanGiB(double bytes);

// Least common multiple and greatest common divisor of positive integers.
int64_t Gcd(int64_t a, int64_t b);
int64_t Lcm(int64_t a, int64_t b);

}  // namespace parplan

#endif  // PARPLAN_CORE_UTIL_TEXT_H_
