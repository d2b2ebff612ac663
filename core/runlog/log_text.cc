#include "core/runlog/log_text.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace parplan {

std::vector<absl::string_view> SplitLogLines(absl::string_view text) {
  std::vector<absl::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '\n' && c != '\r') continue;
    lines.push_back(text.substr(start, i - start));
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

namespace {

bool AllDigits(absl::string_view s) {
  if (s.empty() || s.size() > 6) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

absl::string_view StripRankPrefix(absl::string_view line, int* rank) {
  *rank = -1;
  absl::string_view s = absl::StripLeadingAsciiWhitespace(line);
  for (absl::string_view tag : {absl::string_view("[rank"), absl::string_view("[default")}) {
    if (!absl::StartsWith(s, tag)) continue;
    const size_t close = s.find("]:");
    if (close == absl::string_view::npos) continue;
    const absl::string_view digits = s.substr(tag.size(), close - tag.size());
    if (!AllDigits(digits)) continue;
    *rank = std::atoi(std::string(digits).c_str());
    absl::string_view rest = s.substr(close + 2);
    if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    return rest;
  }
  // srun --label: "12: text".
  const size_t colon = s.find(": ");
  if (colon != absl::string_view::npos && AllDigits(s.substr(0, colon))) {
    *rank = std::atoi(std::string(s.substr(0, colon)).c_str());
    return s.substr(colon + 2);
  }
  return line;
}

absl::string_view StripTimestamp(absl::string_view line) {
  absl::string_view s = absl::StripLeadingAsciiWhitespace(line);
  // "[YYYY-MM-DD HH:MM:SS(.ffffff)]"
  if (s.size() < 21 || s[0] != '[' || !std::isdigit(static_cast<unsigned char>(s[1])) || s[5] != '-' || s[8] != '-') {
    return line;
  }
  const size_t close = s.find(']');
  if (close == absl::string_view::npos || close > 40) return line;
  return absl::StripLeadingAsciiWhitespace(s.substr(close + 1));
}

std::optional<double> LeadingNumber(absl::string_view s, size_t* consumed) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  const size_t begin = i;
  absl::string_view rest = s.substr(begin);
  for (absl::string_view word : {"nan", "NaN", "inf", "-inf"}) {
    if (absl::StartsWith(rest, word)) {
      if (consumed) *consumed = begin + word.size();
      return word == "-inf" ? -INFINITY : (word == "inf" ? INFINITY : NAN);
    }
  }
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0 || digits > 40) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
    size_t exp_digits = 0;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) && exp_digits < 4) ++j, ++exp_digits;
    if (exp_digits > 0) i = j;
  }
  const std::string number(s.substr(begin, i - begin));
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end == number.c_str()) return std::nullopt;
  if (consumed) *consumed = i;
  return value;
}

std::optional<int64_t> LeadingInteger(absl::string_view s, size_t* consumed) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  const size_t begin = i;
  int64_t value = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - begin < 18) {
    value = value * 10 + (s[i] - '0');
    ++i;
  }
  if (i == begin) return std::nullopt;
  if (consumed) *consumed = i;
  return value;
}

std::string CompactKey(absl::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == ' ' || c == '\t') continue;
    out.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::optional<double> ParseSize(absl::string_view s) {
  size_t used = 0;
  const std::optional<double> number = LeadingNumber(s, &used);
  if (!number || !std::isfinite(*number)) return std::nullopt;
  absl::string_view unit = absl::StripLeadingAsciiWhitespace(s.substr(used));
  struct Unit {
    absl::string_view name;
    double bytes;
  };
  // Longest names first so "GiB" is not read as "G".
  static constexpr Unit kUnits[] = {{"bytes", 1.0},        {"TiB", 1099511627776.0},
                                    {"GiB", 1073741824.0}, {"MiB", 1048576.0},
                                    {"KiB", 1024.0},       {"TB", 1e12},
                                    {"GB", 1e9},           {"MB", 1e6},
                                    {"KB", 1e3},           {"B", 1.0}};
  for (const Unit& u : kUnits) {
    if (absl::StartsWith(unit, u.name)) return *number * u.bytes;
  }
  return std::nullopt;
}

std::string Excerpt(absl::string_view line, size_t max_chars) {
  absl::string_view s = absl::StripAsciiWhitespace(line);
  if (s.size() <= max_chars) return std::string(s);
  return std::string(s.substr(0, max_chars)) + "...";
}

}  // namespace parplan
