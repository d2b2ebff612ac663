#include "core/import/field_values.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

constexpr size_t kMaxListItems = 4096;

absl::Status Bad(const std::string& argument, const std::string& value, const std::string& allowed) {
  return FieldError(argument, absl::StrCat("\"", value.substr(0, 64), value.size() > 64 ? "..." : "",
                                           "\" is not valid; allowed: ", allowed));
}

}  // namespace

std::string UnquoteValue(std::string v) {
  v = std::string(absl::StripAsciiWhitespace(v));
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) {
    v = v.substr(1, v.size() - 2);
  }
  return v;
}

absl::Status ParseBoolValue(const std::string& value, const std::string& argument, bool* out) {
  const std::string v = absl::AsciiStrToLower(UnquoteValue(value));
  if (v == "true" || v == "1" || v == "yes" || v == "on") {
    *out = true;
  } else if (v == "false" || v == "0" || v == "no" || v == "off") {
    *out = false;
  } else {
    return Bad(argument, value, "true or false");
  }
  return absl::OkStatus();
}

absl::Status ParseIntValue(const std::string& value, const std::string& argument, int64_t lo, int64_t hi,
                           int64_t* out) {
  int64_t x = 0;
  std::string v = UnquoteValue(value);
  if (!absl::SimpleAtoi(v, &x)) {
    // Python / YAML floats that are whole numbers ("8.0") pass.
    double d = 0;
    if (!absl::SimpleAtod(v, &d) || d != static_cast<double>(static_cast<int64_t>(d)) || d > 9e18 || d < -9e18) {
      return Bad(argument, value, absl::StrCat("an integer in ", lo, "..", hi));
    }
    x = static_cast<int64_t>(d);
  }
  if (x < lo || x > hi) return Bad(argument, value, absl::StrCat("an integer in ", lo, "..", hi));
  *out = x;
  return absl::OkStatus();
}

std::vector<std::string> SplitListValue(const std::string& value) {
  std::string v(absl::StripAsciiWhitespace(value));
  if (v.size() >= 2 && (v.front() == '[' || v.front() == '(') && (v.back() == ']' || v.back() == ')')) {
    v = v.substr(1, v.size() - 2);
  }
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(v, absl::ByAnyChar(", \t\n"), absl::SkipWhitespace())) {
    std::string item = UnquoteValue(std::string(part));
    if (!item.empty()) out.push_back(item);
    if (out.size() >= kMaxListItems) break;
  }
  return out;
}

absl::Status ParseIntListValue(const std::string& value, const std::string& argument, std::vector<int64_t>* out) {
  out->clear();
  for (const auto& item : SplitListValue(value)) {
    int64_t x = 0;
    if (!absl::SimpleAtoi(item, &x)) return Bad(argument, value, "a list of integers, e.g. [2, 4]");
    out->push_back(x);
  }
  if (out->empty()) return Bad(argument, value, "a list of integers, e.g. [2, 4]");
  return absl::OkStatus();
}

namespace {

// A tiny recursive-descent reader for Megatron's layer-list expressions:
//   expr := term ('+' term)* ; term := atom ('*' INT)* ; atom := '[' ints ']' | '(' expr ')'
class PatternParser {
 public:
  PatternParser(std::string_view text, size_t max_len) : s_(text), max_(max_len) {}
  bool Parse(std::vector<int>* out) {
    if (!Expr(out, 0)) return false;
    Skip();
    return pos_ == s_.size();
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool Int(int64_t* v) {
    Skip();
    size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9' && pos_ - start < 9) ++pos_;
    if (start == pos_) return false;
    return absl::SimpleAtoi(absl::string_view(s_.data() + start, pos_ - start), v);
  }
  bool Expr(std::vector<int>* out, int depth) {
    if (depth > 16) return false;
    std::vector<int> term;
    if (!Term(&term, depth)) return false;
    *out = term;
    for (;;) {
      Skip();
      if (pos_ >= s_.size() || s_[pos_] != '+') return true;
      ++pos_;
      if (!Term(&term, depth)) return false;
      out->insert(out->end(), term.begin(), term.end());
      if (out->size() > max_) return false;
    }
  }
  bool Term(std::vector<int>* out, int depth) {
    if (!Atom(out, depth)) return false;
    for (;;) {
      Skip();
      if (pos_ >= s_.size() || s_[pos_] != '*') return true;
      ++pos_;
      int64_t n = 0;
      if (!Int(&n) || n < 0 || out->size() * static_cast<size_t>(n) > max_) return false;
      std::vector<int> rep;
      for (int64_t i = 0; i < n; ++i) rep.insert(rep.end(), out->begin(), out->end());
      *out = std::move(rep);
    }
  }
  bool Atom(std::vector<int>* out, int depth) {
    Skip();
    if (pos_ >= s_.size()) return false;
    if (s_[pos_] == '(') {
      ++pos_;
      if (!Expr(out, depth + 1)) return false;
      Skip();
      if (pos_ >= s_.size() || s_[pos_] != ')') return false;
      ++pos_;
      return true;
    }
    if (s_[pos_] != '[') return false;
    ++pos_;
    out->clear();
    for (;;) {
      Skip();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      int64_t v = 0;
      if (!Int(&v) || (v != 0 && v != 1) || out->size() >= max_) return false;
      out->push_back(static_cast<int>(v));
      Skip();
      if (pos_ < s_.size() && s_[pos_] == ',') ++pos_;
    }
  }

  std::string_view s_;
  size_t max_;
  size_t pos_ = 0;
};

}  // namespace

absl::Status EvalLayerPattern(const std::string& value, const std::string& argument, size_t max_len,
                              std::vector<int>* out) {
  const std::string v = UnquoteValue(value);
  PatternParser parser(v, max_len);
  std::vector<int> list;
  if (v.size() > 4096 || !parser.Parse(&list) || list.empty()) {
    return Bad(argument, value,
               absl::StrCat("a list expression of 0/1 terms such as ([0]*3+[1]*58) or [1,1,1,0]*3, at most ", max_len,
                            " entries"));
  }
  *out = std::move(list);
  return absl::OkStatus();
}

}  // namespace parplan
