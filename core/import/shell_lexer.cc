#include "core/import/shell_lexer.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

using TokKind = ShellTokenKind;
using Token = ShellToken;
bool IsNameStart(char c) { return IsShellNameStart(c); }
bool IsNameChar(char c) { return IsShellNameChar(c); }

// "NAME=" or "NAME+=": the start of an array assignment when '(' follows.
bool IsAssignmentHead(const std::string& w, std::string* name, bool* append) {
  if (w.empty() || w.back() != '=' || !IsNameStart(w[0])) return false;
  size_t end = w.size() - 1;
  *append = end > 0 && w[end - 1] == '+';
  if (*append) --end;
  for (size_t i = 0; i < end; ++i) {
    if (!IsNameChar(w[i])) return false;
  }
  *name = w.substr(0, end);
  return true;
}

class Lexer {
 public:
  Lexer(std::string_view text, std::string field) : s_(text), field_(std::move(field)) {}

  absl::StatusOr<std::vector<Token>> Run(std::vector<std::string>* notes) {
    std::vector<Token> out;
    while (true) {
      SkipBlanks();
      if (pos_ >= s_.size()) break;
      const char c = s_[pos_];
      if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '\n') {
        out.push_back({TokKind::kOp, "\n", false, {}, line_});
        ++pos_;
        if (!heredoc_.empty()) SkipHeredoc(notes);
        ++line_;
        continue;
      }
      if (std::string_view(";&|()").find(c) != std::string_view::npos) {
        std::string op(1, c);
        if (pos_ + 1 < s_.size()) {
          const char d = s_[pos_ + 1];
          if ((c == ';' && d == ';') || (c == '&' && d == '&') || (c == '|' && d == '|')) op.push_back(d);
        }
        pos_ += op.size();
        out.push_back({TokKind::kOp, op, false, {}, line_});
        continue;
      }
      if (c == '<' || c == '>') {
        if (absl::Status st = Redirect(&out); !st.ok()) return st;
        continue;
      }
      int64_t word_line = line_;
      const size_t word_start = pos_;
      auto word = Word();
      if (!word.ok()) return word.status();
      if (pos_ == word_start) {  // nothing a word can start with: skip the character
        ++pos_;
        continue;
      }
      std::string name;
      bool append = false;
      if (pos_ < s_.size() && s_[pos_] == '(' && IsAssignmentHead(*word, &name, &append)) {
        ++pos_;
        Token arr{TokKind::kArray, name, append, {}, word_line};
        if (absl::Status st = ArrayElements(&arr.elements); !st.ok()) return st;
        out.push_back(std::move(arr));
        continue;
      }
      // "2>&1": a file descriptor number glued to a redirection.
      if (pos_ < s_.size() && (s_[pos_] == '>' || s_[pos_] == '<') && !word->empty() &&
          std::all_of(word->begin(), word->end(),
                      [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); })) {
        continue;
      }
      out.push_back({TokKind::kWord, *word, false, {}, word_line});
    }
    if (!heredoc_.empty()) notes->push_back(absl::StrCat("heredoc <<", heredoc_, " is not terminated; ignored"));
    return out;
  }

 private:
  void SkipBlanks() {
    while (pos_ < s_.size()) {
      if (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r') {
        ++pos_;
      } else if (s_[pos_] == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
        pos_ += 2;
        ++line_;
      } else {
        break;
      }
    }
  }

  absl::Status Unterminated(const char* what, int64_t line) {
    return FieldError(field_, absl::StrCat("line ", line, ": unterminated ", what));
  }

  // A word up to unquoted blank or operator; quotes and $(...) kept raw.
  absl::StatusOr<std::string> Word() {
    std::string w;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
          std::string_view(";&|()<>").find(c) != std::string_view::npos) {
        break;
      }
      if (c == '\\') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
          pos_ += 2;
          ++line_;
          break;  // a continuation ends the word
        }
        w.append(s_.substr(pos_, std::min<size_t>(2, s_.size() - pos_)));
        pos_ += 2;
        continue;
      }
      if (c == '\'') {
        const int64_t start_line = line_;
        size_t end = s_.find('\'', pos_ + 1);
        if (end == std::string_view::npos) return Unterminated("single quote", start_line);
        for (size_t i = pos_; i < end; ++i) line_ += s_[i] == '\n';
        w.append(s_.substr(pos_, end + 1 - pos_));
        pos_ = end + 1;
        continue;
      }
      if (c == '"') {
        if (absl::Status st = DoubleQuoted(&w); !st.ok()) return st;
        continue;
      }
      if (c == '$' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == '(' || s_[pos_ + 1] == '{')) {
        if (absl::Status st = Dollar(&w); !st.ok()) return st;
        continue;
      }
      if (c == '`') {
        size_t end = s_.find('`', pos_ + 1);
        if (end == std::string_view::npos) return Unterminated("backquote", line_);
        for (size_t i = pos_; i < end; ++i) line_ += s_[i] == '\n';
        w.append(s_.substr(pos_, end + 1 - pos_));
        pos_ = end + 1;
        continue;
      }
      w.push_back(c);
      ++pos_;
    }
    return w;
  }

  absl::Status DoubleQuoted(std::string* w) {
    const int64_t start_line = line_;
    w->push_back('"');
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      const char c = s_[pos_];
      if (c == '\\' && pos_ + 1 < s_.size()) {
        if (s_[pos_ + 1] == '\n') {
          // A continuation inside quotes: bash removes it; it is kept as a
          // newline (a blank to word splitting) so that each word of a
          // multi-line option string keeps its own line.
          w->push_back('\n');
          pos_ += 2;
          ++line_;
          continue;
        }
        w->append(s_.substr(pos_, 2));
        pos_ += 2;
        continue;
      }
      if (c == '$' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == '(' || s_[pos_ + 1] == '{')) {
        if (absl::Status st = Dollar(w); !st.ok()) return st;
        continue;
      }
      if (c == '\n') ++line_;
      w->push_back(c);
      ++pos_;
    }
    if (pos_ >= s_.size()) return Unterminated("double quote", start_line);
    w->push_back('"');
    ++pos_;
    return absl::OkStatus();
  }

  // $( ... ), $(( ... )) or ${ ... }, nested, with quotes inside.
  absl::Status Dollar(std::string* w) {
    const int64_t start_line = line_;
    const char open = s_[pos_ + 1];
    const char close = open == '(' ? ')' : '}';
    w->append(s_.substr(pos_, 2));
    pos_ += 2;
    int depth = 1;
    while (pos_ < s_.size() && depth > 0) {
      const char c = s_[pos_];
      if (c == '\\' && pos_ + 1 < s_.size()) {
        w->append(s_.substr(pos_, 2));
        pos_ += 2;
        continue;
      }
      if (c == '\'' && open == '(') {
        size_t end = s_.find('\'', pos_ + 1);
        if (end == std::string_view::npos) return Unterminated("single quote", line_);
        w->append(s_.substr(pos_, end + 1 - pos_));
        pos_ = end + 1;
        continue;
      }
      if (c == '"') {
        if (absl::Status st = DoubleQuoted(w); !st.ok()) return st;
        continue;
      }
      if (c == open) ++depth;
      if (c == close) --depth;
      if (c == '\n') ++line_;
      w->push_back(c);
      ++pos_;
    }
    if (depth > 0) return Unterminated(open == '(' ? "$(" : "${", start_line);
    return absl::OkStatus();
  }

  absl::Status ArrayElements(std::vector<Token>* elements) {
    const int64_t start_line = line_;
    while (true) {
      SkipBlanks();
      if (pos_ >= s_.size()) return Unterminated("array (", start_line);
      const char c = s_[pos_];
      if (c == ')') {
        ++pos_;
        return absl::OkStatus();
      }
      if (c == '\n') {
        ++line_;
        ++pos_;
        continue;
      }
      if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      const int64_t word_line = line_;
      auto word = Word();
      if (!word.ok()) return word.status();
      if (word->empty()) {  // an operator character inside an array: keep it as a word
        elements->push_back({TokKind::kWord, std::string(1, s_[pos_]), false, {}, word_line});
        ++pos_;
        continue;
      }
      elements->push_back({TokKind::kWord, *word, false, {}, word_line});
    }
  }

  // <, >, >>, >&N, &>, and heredocs (<<WORD, <<-WORD, <<'WORD').
  absl::Status Redirect(std::vector<Token>* out) {
    if (s_.substr(pos_, 3) == "<<<") {
      pos_ += 3;
      out->push_back({TokKind::kOp, "redir", false, {}, line_});
      return absl::OkStatus();
    }
    if (s_.substr(pos_, 2) == "<<") {
      pos_ += 2;
      if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
      SkipBlanks();
      auto word = Word();
      if (!word.ok()) return word.status();
      std::string delim;
      for (char ch : *word) {
        if (ch != '\'' && ch != '"' && ch != '\\') delim.push_back(ch);
      }
      heredoc_ = delim;
      heredoc_line_ = line_;
      return absl::OkStatus();
    }
    ++pos_;
    if (pos_ < s_.size() && (s_[pos_] == '>' || s_[pos_] == '|')) ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '&') {  // >&1
      ++pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      return absl::OkStatus();
    }
    out->push_back({TokKind::kOp, "redir", false, {}, line_});
    return absl::OkStatus();
  }

  void SkipHeredoc(std::vector<std::string>* notes) {
    const int64_t start = heredoc_line_;
    while (pos_ < s_.size()) {
      size_t end = s_.find('\n', pos_);
      std::string_view line = s_.substr(pos_, end == std::string_view::npos ? std::string_view::npos : end - pos_);
      while (!line.empty() && (line.front() == '\t' || line.front() == ' ')) line.remove_prefix(1);
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      ++line_;
      pos_ = end == std::string_view::npos ? s_.size() : end + 1;
      if (line == heredoc_) {
        notes->push_back(absl::StrCat("line ", start, ": the heredoc <<", heredoc_, " (to line ", line_ - 1,
                                      ") is input to another program; not read"));
        heredoc_.clear();
        return;
      }
    }
  }

  std::string_view s_;
  std::string field_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  std::string heredoc_;
  int64_t heredoc_line_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<ShellToken>> LexShellScript(std::string_view text, const std::string& field,
                                                       std::vector<std::string>* notes) {
  Lexer lexer(text, field);
  return lexer.Run(notes);
}

}  // namespace parplan
