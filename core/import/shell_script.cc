#include "core/import/shell_script.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/import/imported_config.h"
#include "core/import/shell_lexer.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

using TokKind = ShellTokenKind;
using Token = ShellToken;
bool IsNameStart(char c) { return IsShellNameStart(c); }
bool IsNameChar(char c) { return IsShellNameChar(c); }

struct Var {
  bool is_array = false;
  std::vector<ShellWord> elems;  // a scalar has one
};

struct Ref {
  std::vector<std::string> values;  // more than one for an array
  bool known = true;
  bool array = false;
  std::string note;
  // When set, the value piece by piece (array elements, or the segments of
  // a scalar), each with its own expanded flag and note.
  std::vector<ShellWord> parts;
};

// Glob match of `text` against a case pattern with * and ?.
bool GlobMatch(std::string_view p, std::string_view t, int depth = 0) {
  if (depth > 64) return false;
  size_t i = 0;
  for (; i < p.size(); ++i) {
    if (p[i] == '*') {
      for (size_t k = 0; k + i <= t.size() + i && k <= t.size(); ++k) {
        if (GlobMatch(p.substr(i + 1), t.substr(k), depth + 1)) return true;
      }
      return false;
    }
    if (t.empty()) return false;
    if (p[i] != '?' && p[i] != t[0]) return false;
    t.remove_prefix(1);
  }
  return t.empty();
}

class Interpreter {
 public:
  Interpreter(std::vector<Token> tokens, std::string field) : t_(std::move(tokens)), field_(std::move(field)) {}

  absl::Status Run(ShellScript* out) {
    out_ = out;
    std::set<std::string> none;
    ParseList(true, none);
    while (pos_ < t_.size() && status_.ok()) {  // a stray terminator: note it, go on
      out_->notes.push_back(absl::StrCat("line ", t_[pos_].line, ": unexpected '", t_[pos_].text, "'; skipped"));
      ++pos_;
      ParseList(true, none);
    }
    if (!status_.ok()) return status_;
    for (const auto& [name, var] : vars_) {
      std::vector<std::string> texts;
      for (const auto& e : var.elems) texts.push_back(e.text);
      out->variables[name] = absl::StrJoin(texts, var.is_array ? " " : "");
      if (var.is_array) out->arrays[name] = var.elems;
      auto line = lines_.find(name);
      if (line != lines_.end()) out->variable_lines[name] = line->second;
    }
    return absl::OkStatus();
  }

  // Expands a raw word into fields (split = word splitting applies). With
  // `segments` (no splitting), also the pieces the value is made of, each
  // with its own expanded flag and note, so a later unquoted use of the
  // variable marks only the words that hold an unknown piece.
  std::vector<ShellWord> Expand(const std::string& raw, int64_t line, bool split, int depth,
                                std::vector<ShellWord>* segments = nullptr) {
    std::vector<ShellWord> fields;
    if (depth > kMaxExpansionDepth) {
      Fail(absl::StrCat("line ", line, ": expansion nested deeper than ", kMaxExpansionDepth));
      return fields;
    }
    ShellWord cur;
    int64_t at_line = line;  // the line of the raw text being read (multi-line quoted strings)
    cur.line = line;
    bool started = false;
    auto flush = [&]() {
      if (started) fields.push_back(cur);
      cur = ShellWord();
      cur.line = line;
      started = false;
    };
    auto add_note = [&](const std::string& n) {
      if (n.empty() || absl::StrContains(cur.note, n)) return;
      cur.note = cur.note.empty() ? n : absl::StrCat(cur.note, "; ", n);
    };
    auto segment = [&](const std::string& text, bool known, const std::string& note) {
      if (segments == nullptr || text.empty()) return;
      if (!segments->empty() && known && note.empty() && segments->back().expanded && segments->back().note.empty()) {
        segments->back().text += text;
        return;
      }
      segments->push_back(ShellWord{text, at_line, known, note});
    };
    auto literal = [&](const std::string& text) {
      cur.text += text;
      started = true;
      segment(text, true, "");
    };
    // One piece of an expansion: appended whole when quoted or not
    // splitting, else split on blanks.
    // `base_line` (0 = none) is where `v` starts in the script: a word
    // split out of it gets the line its own text is on.
    auto piece = [&](const std::string& v, bool known, const std::string& note, bool quoted, int64_t base_line) {
      // An unknown value stays one word: what it would split into is unknown too.
      if (quoted || !split || !known) {
        cur.text += v;
        started = true;
        if (!known) cur.expanded = false;
        add_note(note);
        segment(v, known, note);
        return;
      }
      size_t k = 0;
      int64_t newlines = 0;
      if (!v.empty() && std::isspace(static_cast<unsigned char>(v[0]))) flush();
      while (k < v.size()) {
        while (k < v.size() && std::isspace(static_cast<unsigned char>(v[k]))) newlines += v[k++] == '\n';
        size_t e = k;
        while (e < v.size() && !std::isspace(static_cast<unsigned char>(v[e]))) ++e;
        if (e > k) {
          if (started && k > 0) flush();
          if (!started && base_line > 0) cur.line = base_line + newlines;
          cur.text += v.substr(k, e - k);
          started = true;
          add_note(note);
          if (!known) cur.expanded = false;
        }
        k = e;
      }
      if (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) flush();
    };
    auto append_values = [&](const Ref& r, bool quoted) {
      if (!r.parts.empty()) {
        for (size_t i = 0; i < r.parts.size(); ++i) {
          if (i > 0 && r.array) {
            if (split) {
              flush();
            } else {
              piece(" ", true, "", true, 0);
            }
          }
          const ShellWord& p = r.parts[i];
          piece(p.text, p.expanded, p.note.empty() ? r.note : p.note, quoted, p.line);
          if (r.array && split) started = true;
        }
        return;
      }
      for (size_t i = 0; i < r.values.size(); ++i) {
        if (i > 0 && r.array) {
          if (split) {
            flush();
          } else {
            piece(" ", true, "", true, 0);
          }
        }
        piece(r.values[i], r.known, r.note, quoted, 0);
      }
    };
    size_t i = 0;
    bool in_dq = false;
    while (i < raw.size() && status_.ok()) {
      const char c = raw[i];
      if (c == '"') {
        in_dq = !in_dq;
        started = true;
        ++i;
        continue;
      }
      if (c == '\'' && !in_dq) {
        size_t end = raw.find('\'', i + 1);
        if (end == std::string::npos) end = raw.size();
        const std::string quoted = raw.substr(i + 1, end - i - 1);
        literal(quoted);
        at_line += std::count(quoted.begin(), quoted.end(), '\n');
        i = end + 1;
        continue;
      }
      if (c == '\\' && i + 1 < raw.size()) {
        const char d = raw[i + 1];
        if (!in_dq || d == '"' || d == '\\' || d == '$' || d == '`') {
          literal(std::string(1, d));
        } else {
          literal(std::string{c, d});
        }
        i += 2;
        continue;
      }
      if (c == '$' || c == '`') {
        size_t end = i;
        Ref r = Reference(raw, i, &end, line, depth);
        append_values(r, in_dq);
        if (in_dq) started = true;
        i = end;
        continue;
      }
      literal(std::string(1, c));
      if (c == '\n') ++at_line;
      ++i;
    }
    flush();
    if (fields.size() > kMaxExpandedWords) Fail(absl::StrCat("line ", line, ": expands to too many words"));
    return fields;
  }

 private:
  void Fail(const std::string& message) {
    if (status_.ok()) status_ = FieldError(field_, message);
  }

  const Var* Lookup(const std::string& name) const {
    auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : &it->second;
  }

  Ref ScalarOf(const std::string& name, const std::string& raw) const {
    Ref r;
    const Var* v = Lookup(name);
    if (v == nullptr) {
      r.known = false;
      r.values = {raw};
      r.note = IsNameStart(name.empty() ? '1' : name[0])
                   ? absl::StrCat(raw, ": ", name, " is not set in the script")
                   : absl::StrCat(raw, ": a positional or special parameter, not known before the script runs");
      return r;
    }
    if (v->elems.empty()) {
      r.values = {""};
      return r;
    }
    if (v->is_array) {  // $A is its first element
      r.values = {v->elems[0].text};
      r.known = v->elems[0].expanded;
      r.note = v->elems[0].expanded ? absl::StrCat("from ", raw) : v->elems[0].note;
      return r;
    }
    std::string text;
    for (const auto& seg : v->elems) {
      text += seg.text;
      if (!seg.expanded) {
        r.known = false;
        if (r.note.empty()) r.note = seg.note;
      }
    }
    r.values = {text};
    if (r.known) r.note = absl::StrCat("from ", raw);
    r.parts = v->elems;
    return r;
  }

  // The expansion starting at raw[i] ('$' or '`'); *end past it.
  Ref Reference(const std::string& raw, size_t i, size_t* end, int64_t line, int depth) {
    Ref r;
    if (raw[i] == '`') {
      size_t e = raw.find('`', i + 1);
      *end = e == std::string::npos ? raw.size() : e + 1;
      r.known = false;
      r.values = {raw.substr(i, *end - i)};
      r.note = absl::StrCat(r.values[0], ": command substitution is not run");
      return r;
    }
    if (i + 1 >= raw.size()) {
      *end = i + 1;
      r.values = {"$"};
      return r;
    }
    const char n = raw[i + 1];
    if (n == '(') {
      size_t e = Matching(raw, i + 1, '(', ')');
      *end = e;
      const std::string text = raw.substr(i, e - i);
      if (raw.compare(i, 3, "$((") == 0 && text.size() >= 5 && text.substr(text.size() - 2) == "))") {
        return Arithmetic(text.substr(3, text.size() - 5), text, line, depth);
      }
      r.known = false;
      r.values = {text};
      r.note = absl::StrCat(text, ": command substitution is not run");
      return r;
    }
    if (n == '{') {
      size_t e = Matching(raw, i + 1, '{', '}');
      *end = e;
      return Braced(raw.substr(i + 2, e - i - 3), raw.substr(i, e - i), line, depth);
    }
    if (IsNameStart(n)) {
      size_t e = i + 1;
      while (e < raw.size() && IsNameChar(raw[e])) ++e;
      *end = e;
      return ScalarOf(raw.substr(i + 1, e - i - 1), raw.substr(i, e - i));
    }
    if (std::isdigit(static_cast<unsigned char>(n)) || std::string_view("@*#?$!-").find(n) != std::string_view::npos) {
      *end = i + 2;
      return ScalarOf(std::string(1, n), raw.substr(i, 2));
    }
    *end = i + 1;
    r.values = {"$"};
    return r;
  }

  static size_t Matching(const std::string& raw, size_t open_at, char open, char close) {
    int d = 0;
    bool sq = false, dq = false;
    for (size_t k = open_at; k < raw.size(); ++k) {
      const char c = raw[k];
      if (c == '\\') {
        ++k;
        continue;
      }
      if (c == '\'' && !dq) sq = !sq;
      if (c == '"' && !sq) dq = !dq;
      if (sq || dq) continue;
      if (c == open) ++d;
      if (c == close && --d == 0) return k + 1;
    }
    return raw.size();
  }

  Ref Braced(const std::string& body, const std::string& raw, int64_t line, int depth) {
    Ref r;
    // ${#A[@]} / ${#NAME}
    if (!body.empty() && body[0] == '#') {
      std::string name = body.substr(1);
      bool count = false;
      if (name.size() > 3 && (name.substr(name.size() - 3) == "[@]" || name.substr(name.size() - 3) == "[*]")) {
        name = name.substr(0, name.size() - 3);
        count = true;
      }
      const Var* v = Lookup(name);
      if (v == nullptr) {
        r.known = false;
        r.values = {raw};
        r.note = absl::StrCat(raw, ": ", name, " is not set in the script");
        return r;
      }
      size_t length = 0;
      for (const auto& e : v->elems) length += e.text.size();
      r.values = {absl::StrCat(count ? v->elems.size()
                                     : (v->is_array ? (v->elems.empty() ? 0 : v->elems[0].text.size()) : length))};
      return r;
    }
    size_t k = 0;
    while (k < body.size() && IsNameChar(body[k])) ++k;
    const std::string name = body.substr(0, k);
    if (name.empty()) {
      r.known = false;
      r.values = {raw};
      r.note = absl::StrCat(raw, ": not a parameter parplan reads");
      return r;
    }
    std::string rest = body.substr(k);
    if (!rest.empty() && rest[0] == '[') {
      size_t close = rest.find(']');
      if (close == std::string::npos) {
        r.known = false;
        r.values = {raw};
        return r;
      }
      const std::string index = rest.substr(1, close - 1);
      const Var* v = Lookup(name);
      if (v == nullptr) {
        r.known = false;
        r.values = {raw};
        r.note = absl::StrCat(raw, ": ", name, " is not set in the script");
        return r;
      }
      if (index == "@" || index == "*") {
        if (!v->is_array) return ScalarOf(name, raw);
        r.array = true;
        for (const auto& e : v->elems) {
          r.values.push_back(e.text);
          if (!e.expanded) r.known = false;
        }
        r.parts = v->elems;
        if (r.parts.empty()) r.values.clear();
        return r;
      }
      if (!v->is_array) return ScalarOf(name, raw);
      int64_t at = 0;
      if (!absl::SimpleAtoi(index, &at) || at < 0 || at >= static_cast<int64_t>(v->elems.size())) {
        r.values = {""};
        return r;
      }
      r.values = {v->elems[at].text};
      r.known = v->elems[at].expanded;
      r.note = v->elems[at].note;
      return r;
    }
    if (rest.empty()) return ScalarOf(name, raw);
    // ${NAME:-word} ${NAME-word} ${NAME:=word} ${NAME=word} ${NAME:+word} ${NAME+word}
    const bool colon = rest[0] == ':';
    const size_t op_at = colon ? 1 : 0;
    if (op_at >= rest.size() || std::string_view("-=+").find(rest[op_at]) == std::string_view::npos) {
      r.known = false;
      r.values = {raw};
      r.note = absl::StrCat(raw, ": this parameter expansion is not read by parplan");
      return r;
    }
    const char op = rest[op_at];
    const std::string word = rest.substr(op_at + 1);
    const Var* v = Lookup(name);
    const bool set = v != nullptr && (!colon || (!v->elems.empty() && !v->elems[0].text.empty()));
    auto word_value = [&]() {
      Ref w;
      std::vector<std::string> parts;
      for (const auto& f : Expand(word, line, false, depth + 1)) {
        parts.push_back(f.text);
        if (!f.expanded) {
          w.known = false;
          w.note = f.note;
        }
      }
      w.values = {absl::StrJoin(parts, " ")};
      return w;
    };
    if (op == '+') {
      if (!set) {
        r.values = {""};
        return r;
      }
      return word_value();
    }
    if (set) return ScalarOf(name, raw);
    Ref w = word_value();
    if (w.known) w.note = absl::StrCat("from ", raw, ": ", name, " is not set in the script; its default taken");
    if (op == '=') {
      vars_[name] = Var{false, {ShellWord{w.values[0], line, w.known, w.note}}};
      lines_[name] = line;
    }
    return w;
  }

  // $(( expr )): + - * / % and parentheses over integers and variables.
  Ref Arithmetic(const std::string& expr, const std::string& raw, int64_t line, int depth) {
    Ref r;
    // Expand $-references first, then bare names.
    std::string text;
    bool known = true;
    std::string note;
    for (const auto& f : Expand(expr, line, false, depth + 1)) {
      text += f.text;
      if (!f.expanded) {
        known = false;
        note = f.note;
      }
    }
    std::string resolved;
    for (size_t k = 0; k < text.size();) {
      if (IsNameStart(text[k])) {
        size_t e = k;
        while (e < text.size() && IsNameChar(text[e])) ++e;
        Ref v = ScalarOf(text.substr(k, e - k), text.substr(k, e - k));
        if (!v.known) {
          known = false;
          note = v.note;
        }
        resolved += v.values.empty() ? "0" : v.values[0];
        k = e;
      } else {
        resolved.push_back(text[k++]);
      }
    }
    std::optional<int64_t> value;
    if (known) {
      size_t p = 0;
      value = Sum(resolved, &p, 0);
      while (p < resolved.size() && resolved[p] == ' ') ++p;
      if (p != resolved.size()) value.reset();
    }
    if (!value.has_value()) {
      r.known = false;
      r.values = {raw};
      r.note = note.empty() ? absl::StrCat(raw, ": arithmetic parplan cannot evaluate") : note;
      return r;
    }
    r.values = {absl::StrCat(*value)};
    r.note = absl::StrCat("from ", raw);
    return r;
  }

  static void Blanks(const std::string& s, size_t* p) {
    while (*p < s.size() && (s[*p] == ' ' || s[*p] == '\t')) ++*p;
  }
  std::optional<int64_t> Sum(const std::string& s, size_t* p, int depth) {
    auto a = Product(s, p, depth);
    while (a.has_value()) {
      Blanks(s, p);
      if (*p >= s.size() || (s[*p] != '+' && s[*p] != '-')) break;
      const char op = s[(*p)++];
      auto b = Product(s, p, depth);
      if (!b.has_value()) return std::nullopt;
      a = op == '+' ? *a + *b : *a - *b;
    }
    return a;
  }
  std::optional<int64_t> Product(const std::string& s, size_t* p, int depth) {
    auto a = Atom(s, p, depth);
    while (a.has_value()) {
      Blanks(s, p);
      if (*p >= s.size() || std::string_view("*/%").find(s[*p]) == std::string_view::npos) break;
      const char op = s[(*p)++];
      auto b = Atom(s, p, depth);
      if (!b.has_value() || (op != '*' && *b == 0)) return std::nullopt;
      if (op == '*') {
        if (*b != 0 && (*a > (int64_t{1} << 40) || *b > (int64_t{1} << 40))) return std::nullopt;
        a = *a * *b;
      } else {
        a = op == '/' ? *a / *b : *a % *b;
      }
    }
    return a;
  }
  std::optional<int64_t> Atom(const std::string& s, size_t* p, int depth) {
    Blanks(s, p);
    if (depth > kMaxExpansionDepth || *p >= s.size()) return std::nullopt;
    if (s[*p] == '(') {
      ++*p;
      auto v = Sum(s, p, depth + 1);
      Blanks(s, p);
      if (*p >= s.size() || s[*p] != ')') return std::nullopt;
      ++*p;
      return v;
    }
    if (s[*p] == '-') {
      ++*p;
      auto v = Atom(s, p, depth + 1);
      if (!v.has_value()) return std::nullopt;
      return -*v;
    }
    size_t e = *p;
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
    int64_t v = 0;
    if (e == *p || e - *p > 15 || !absl::SimpleAtoi(s.substr(*p, e - *p), &v)) return std::nullopt;
    *p = e;
    return v;
  }

  // ------------------------------------------------------------ parsing

  bool AtEnd() const { return pos_ >= t_.size(); }
  bool IsOp(const char* op) const { return !AtEnd() && t_[pos_].kind == TokKind::kOp && t_[pos_].text == op; }
  bool IsWord(const char* w) const { return !AtEnd() && t_[pos_].kind == TokKind::kWord && t_[pos_].text == w; }
  bool IsSeparator() const {
    if (AtEnd() || t_[pos_].kind != TokKind::kOp) return false;
    const std::string& o = t_[pos_].text;
    return o == "\n" || o == ";" || o == "&";
  }

  void SkipSeparators() {
    while (IsSeparator()) ++pos_;
  }

  // Parses commands until a terminator keyword (at command start), ";;",
  // ')' or the end; runs them when `exec`.
  void ParseList(bool exec, const std::set<std::string>& terminators) {
    while (status_.ok() && ++steps_ < 1000000) {
      SkipSeparators();
      if (AtEnd() || IsOp(";;") || IsOp(")")) return;
      if (t_[pos_].kind == TokKind::kWord && terminators.count(t_[pos_].text)) return;
      if (t_[pos_].kind == TokKind::kWord &&
          (t_[pos_].text == "}" || t_[pos_].text == "then" || t_[pos_].text == "fi" || t_[pos_].text == "done" ||
           t_[pos_].text == "esac" || t_[pos_].text == "elif" || t_[pos_].text == "else" || t_[pos_].text == "do")) {
        return;  // a terminator of an enclosing construct
      }
      ParseAndOr(exec);
    }
  }

  // cmd { (&& | || | '|') cmd }: a failing left side is not modelled, so
  // every command of the chain runs when `exec`.
  void ParseAndOr(bool exec) {
    ParseCommand(exec);
    while (status_.ok() && (IsOp("&&") || IsOp("||") || IsOp("|"))) {
      ++pos_;
      SkipNewlines();
      ParseCommand(exec);
    }
  }

  void SkipNewlines() {
    while (IsOp("\n")) ++pos_;
  }

  void ParseCommand(bool exec) {
    if (AtEnd()) return;
    const Token& tok = t_[pos_];
    if (tok.kind == TokKind::kWord) {
      if (tok.text == "if") return ParseIf(exec);
      if (tok.text == "case") return ParseCase(exec);
      if (tok.text == "while" || tok.text == "until" || tok.text == "for" || tok.text == "select") {
        return ParseLoop(exec);
      }
      if (tok.text == "{") {
        ++pos_;
        ParseList(exec, {"}"});
        if (IsWord("}")) ++pos_;
        return;
      }
      if (tok.text == "function" ||
          (pos_ + 2 < t_.size() && t_[pos_ + 1].kind == TokKind::kOp && t_[pos_ + 1].text == "(" &&
           t_[pos_ + 2].kind == TokKind::kOp && t_[pos_ + 2].text == ")")) {
        return ParseFunction(exec);
      }
    }
    if (tok.kind == TokKind::kOp && tok.text == "(") {  // a subshell: read like a group
      ++pos_;
      ParseList(exec, {});
      if (IsOp(")")) ++pos_;
      return;
    }
    ParseSimple(exec);
  }

  void ParseFunction(bool exec) {
    const int64_t line = t_[pos_].line;
    const std::string name = t_[pos_].text == "function" && pos_ + 1 < t_.size() ? t_[pos_ + 1].text : t_[pos_].text;
    while (!AtEnd() && !IsWord("{")) ++pos_;
    if (IsWord("{")) {
      ++pos_;
      ParseList(false, {"}"});
      if (IsWord("}")) ++pos_;
    }
    if (exec) {
      out_->notes.push_back(absl::StrCat("line ", line, ": function ", name, " is defined; its body is not read"));
    }
  }

  void ParseLoop(bool exec) {
    const int64_t line = t_[pos_].line;
    const std::string kind = t_[pos_].text;
    ++pos_;
    // The loop head, up to "do" at a command start.
    while (!AtEnd() && status_.ok()) {
      SkipSeparators();
      if (IsWord("do")) break;
      const size_t before = pos_;
      ParseAndOr(false);
      if (pos_ == before) ++pos_;  // a token no command starts with
    }
    if (IsWord("do")) {
      ++pos_;
      ParseList(false, {"done"});
      if (IsWord("done")) ++pos_;
    }
    if (exec) {
      out_->notes.push_back(
          absl::StrCat("line ", line, ": a ", kind, " loop is not run (its body is not read into the plan)"));
    }
  }

  // Evaluates a condition list up to `stop` ("then"): a chain of tests.
  std::optional<bool> ParseCondition(const char* stop) {
    std::optional<bool> value = true;
    std::string joiner = "&&";
    bool first = true;
    while (!AtEnd() && status_.ok()) {
      SkipSeparators();
      if (IsWord(stop) || AtEnd()) break;
      std::vector<ShellWord> words;
      while (!AtEnd() && t_[pos_].kind == TokKind::kWord) {
        for (auto& w : Expand(t_[pos_].text, t_[pos_].line, false, 0)) words.push_back(std::move(w));
        ++pos_;
      }
      std::optional<bool> v = Test(words);
      if (first) {
        value = v;
      } else if (joiner == "&&") {
        if (value.has_value() && !*value) {
        } else if (v.has_value() && !*v) {
          value = false;
        } else if (!value.has_value() || !v.has_value()) {
          value.reset();
        } else {
          value = true;
        }
      } else {
        if (value.has_value() && *value) {
        } else if (v.has_value() && *v) {
          value = true;
        } else if (!value.has_value() || !v.has_value()) {
          value.reset();
        } else {
          value = false;
        }
      }
      first = false;
      if (IsOp("&&") || IsOp("||")) {
        joiner = t_[pos_].text;
        ++pos_;
        continue;
      }
      if (!IsSeparator() && !IsWord(stop)) {
        if (!AtEnd()) ++pos_;  // anything else in a condition: skip it
        value.reset();
      }
    }
    return value;
  }

  // [ ... ], [[ ... ]], test ...: nullopt when not decidable.
  std::optional<bool> Test(std::vector<ShellWord> w) {
    if (w.empty()) return std::nullopt;
    if (w[0].text == "[[" || w[0].text == "[") {
      const std::string close = w[0].text == "[[" ? "]]" : "]";
      if (w.back().text != close) return std::nullopt;
      w = std::vector<ShellWord>(w.begin() + 1, w.end() - 1);
    } else if (w[0].text == "test") {
      w.erase(w.begin());
    } else if (w[0].text == "true" || w[0].text == ":") {
      return true;
    } else if (w[0].text == "false") {
      return false;
    } else {
      return std::nullopt;  // a command's exit status
    }
    return TestExpr(w, 0);
  }

  std::optional<bool> TestExpr(const std::vector<ShellWord>& w, int depth) {
    if (depth > 8) return std::nullopt;
    // -o / || lowest, then -a / &&.
    for (const char* ors : {"||", "-o"}) {
      for (size_t i = 0; i < w.size(); ++i) {
        if (w[i].text == ors) {
          auto a = TestExpr({w.begin(), w.begin() + i}, depth + 1);
          auto b = TestExpr({w.begin() + i + 1, w.end()}, depth + 1);
          if ((a.has_value() && *a) || (b.has_value() && *b)) return true;
          if (!a.has_value() || !b.has_value()) return std::nullopt;
          return false;
        }
      }
    }
    for (const char* ands : {"&&", "-a"}) {
      for (size_t i = 1; i < w.size(); ++i) {
        if (w[i].text == ands && !(w.size() == 2)) {
          auto a = TestExpr({w.begin(), w.begin() + i}, depth + 1);
          auto b = TestExpr({w.begin() + i + 1, w.end()}, depth + 1);
          if ((a.has_value() && !*a) || (b.has_value() && !*b)) return false;
          if (!a.has_value() || !b.has_value()) return std::nullopt;
          return true;
        }
      }
    }
    if (!w.empty() && w[0].text == "!") {
      auto v = TestExpr({w.begin() + 1, w.end()}, depth + 1);
      if (!v.has_value()) return std::nullopt;
      return !*v;
    }
    for (const auto& x : w) {
      if (!x.expanded) return std::nullopt;
    }
    if (w.size() == 1) return !w[0].text.empty();
    if (w.size() == 2) {
      if (w[0].text == "-n") return !w[1].text.empty();
      if (w[0].text == "-z") return w[1].text.empty();
      return std::nullopt;  // file tests and the like
    }
    if (w.size() == 3) {
      const std::string& op = w[1].text;
      const std::string& a = w[0].text;
      const std::string& b = w[2].text;
      if (op == "==" || op == "=") return GlobMatch(b, a);
      if (op == "!=") return !GlobMatch(b, a);
      int64_t x = 0, y = 0;
      if (!absl::SimpleAtoi(a, &x) || !absl::SimpleAtoi(b, &y)) return std::nullopt;
      if (op == "-eq") return x == y;
      if (op == "-ne") return x != y;
      if (op == "-lt") return x < y;
      if (op == "-le") return x <= y;
      if (op == "-gt") return x > y;
      if (op == "-ge") return x >= y;
    }
    return std::nullopt;
  }

  void ParseIf(bool exec) {
    const int64_t line = t_[pos_].line;
    ++pos_;  // if
    bool taken = false;
    bool undecided = false;
    while (status_.ok()) {
      std::optional<bool> cond = ParseCondition("then");
      if (!IsWord("then")) {
        Fail(absl::StrCat("line ", line, ": 'if' without 'then'"));
        return;
      }
      ++pos_;
      const bool run = exec && !taken && !undecided && cond.has_value() && *cond;
      if (exec && !taken && !undecided && !cond.has_value()) {
        undecided = true;
        out_->notes.push_back(absl::StrCat("line ", line,
                                           ": an if condition the script's variables do not decide (a file test, "
                                           "a command or an unset variable); no branch of it is read"));
      }
      ParseList(run, {"elif", "else", "fi"});
      taken = taken || run;
      if (IsWord("elif")) {
        ++pos_;
        continue;
      }
      break;
    }
    if (IsWord("else")) {
      ++pos_;
      ParseList(exec && !taken && !undecided, {"fi"});
    }
    if (!IsWord("fi")) {
      Fail(absl::StrCat("line ", line, ": 'if' without 'fi'"));
      return;
    }
    ++pos_;
  }

  void ParseCase(bool exec) {
    const int64_t line = t_[pos_].line;
    ++pos_;
    if (AtEnd() || t_[pos_].kind != TokKind::kWord) {
      Fail(absl::StrCat("line ", line, ": 'case' without a word"));
      return;
    }
    std::string subject;
    bool known = true;
    for (const auto& f : Expand(t_[pos_].text, t_[pos_].line, false, 0)) {
      subject += f.text;
      known = known && f.expanded;
    }
    ++pos_;
    SkipNewlines();
    if (!IsWord("in")) {
      Fail(absl::StrCat("line ", line, ": 'case' without 'in'"));
      return;
    }
    ++pos_;
    if (exec && !known) {
      out_->notes.push_back(
          absl::StrCat("line ", line, ": case on a value the script does not set; no branch of it is read"));
    }
    bool matched = false;
    while (status_.ok()) {
      SkipSeparators();
      if (AtEnd()) {
        Fail(absl::StrCat("line ", line, ": 'case' without 'esac'"));
        return;
      }
      if (IsWord("esac")) {
        ++pos_;
        return;
      }
      if (IsOp("(")) ++pos_;
      bool match = false;
      while (!AtEnd() && !IsOp(")")) {
        if (t_[pos_].kind == TokKind::kWord) {
          std::string pattern;
          for (const auto& f : Expand(t_[pos_].text, t_[pos_].line, false, 0)) pattern += f.text;
          match = match || GlobMatch(pattern, subject);
        }
        ++pos_;
      }
      if (AtEnd()) {
        Fail(absl::StrCat("line ", line, ": a case pattern without ')'"));
        return;
      }
      ++pos_;  // )
      const bool run = exec && known && !matched && match;
      ParseList(run, {"esac"});
      matched = matched || run;
      if (IsOp(";;")) ++pos_;
    }
  }

  void Assign(const std::string& name, Var value, bool append) {
    if (append) {
      Var& v = vars_[name];
      v.is_array = v.is_array || value.is_array;
      for (auto& e : value.elems) v.elems.push_back(std::move(e));
      if (v.elems.size() > kMaxExpandedWords) Fail(absl::StrCat("array ", name, " has too many elements"));
      return;
    }
    vars_[name] = std::move(value);
  }

  // NAME=value / NAME+=value; false when `raw` is not an assignment.
  bool ScalarAssignment(const std::string& raw, int64_t line, bool exec) {
    size_t eq = raw.find('=');
    if (eq == std::string::npos || eq == 0 || !IsNameStart(raw[0])) return false;
    bool append = raw[eq - 1] == '+';
    const std::string name = raw.substr(0, append ? eq - 1 : eq);
    for (char c : name) {
      if (!IsNameChar(c)) return false;
    }
    if (!exec) return true;
    std::vector<ShellWord> segments;
    Expand(raw.substr(eq + 1), line, false, 0, &segments);
    lines_[name] = line;
    if (append) {
      Var& v = vars_[name];
      if (v.is_array) {  // A+=x appends to the first element
        if (v.elems.empty()) v.elems.push_back(ShellWord{"", line, true, ""});
        for (const auto& seg : segments) {
          v.elems[0].text += seg.text;
          v.elems[0].expanded = v.elems[0].expanded && seg.expanded;
        }
      } else {
        for (auto& seg : segments) v.elems.push_back(std::move(seg));
      }
      return true;
    }
    vars_[name] = Var{false, std::move(segments)};
    return true;
  }

  void ParseSimple(bool exec) {
    ShellCommand cmd;
    std::vector<const Token*> words;
    while (!AtEnd() && status_.ok()) {
      const Token& tok = t_[pos_];
      if (tok.kind == TokKind::kOp) {
        if (tok.text == "redir") {  // drop the target
          ++pos_;
          if (!AtEnd() && t_[pos_].kind == TokKind::kWord) ++pos_;
          continue;
        }
        break;
      }
      if (tok.kind == TokKind::kArray) {
        if (words.empty() || IsDeclare(words[0]->text)) {
          if (exec) {
            Var v;
            v.is_array = true;
            for (const auto& e : tok.elements) {
              for (auto& f : Expand(e.text, e.line, true, 0)) v.elems.push_back(std::move(f));
            }
            Assign(tok.text, std::move(v), tok.append);
          }
        }
        ++pos_;
        continue;
      }
      words.push_back(&tok);
      ++pos_;
    }
    if (words.empty()) return;
    // Leading assignments (or all of them after export / declare / local / readonly).
    size_t first = 0;
    if (IsDeclare(words[0]->text)) {
      for (size_t i = 1; i < words.size(); ++i) {
        if (words[i]->text.rfind('-', 0) == 0) continue;
        ScalarAssignment(words[i]->text, words[i]->line, exec);
      }
      return;
    }
    if (words[0]->text == "unset") {
      if (exec) {
        for (size_t i = 1; i < words.size(); ++i) vars_.erase(words[i]->text);
      }
      return;
    }
    while (first < words.size() && ScalarAssignment(words[first]->text, words[first]->line, false)) ++first;
    if (first == words.size()) {  // assignments alone set the script's variables
      for (const Token* w : words) ScalarAssignment(w->text, w->line, exec);
      return;
    }
    // Assignments before a command set its environment only.
    if (!exec) return;
    if (words[first]->text == "source" || words[first]->text == ".") {
      out_->notes.push_back(
          absl::StrCat("line ", words[first]->line, ": a sourced file is not read; variables it sets are unknown"));
      return;
    }
    cmd.line = words[first]->line;
    for (size_t i = first; i < words.size(); ++i) {
      for (auto& f : Expand(words[i]->text, words[i]->line, true, 0)) cmd.words.push_back(std::move(f));
      if (cmd.words.size() > kMaxExpandedWords) {
        Fail(absl::StrCat("line ", cmd.line, ": a command of too many words"));
        return;
      }
    }
    if (!cmd.words.empty()) out_->commands.push_back(std::move(cmd));
  }

  static bool IsDeclare(const std::string& w) {
    return w == "export" || w == "declare" || w == "local" || w == "readonly" || w == "typeset";
  }

  std::vector<Token> t_;
  std::string field_;
  size_t pos_ = 0;
  int64_t steps_ = 0;
  std::map<std::string, Var> vars_;
  std::map<std::string, int64_t> lines_;  // where each scalar was last assigned
  ShellScript* out_ = nullptr;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<ShellScript> ReadShellScript(std::string_view text, const std::string& field) {
  if (text.size() > kMaxImportBytes) {
    return FieldError(field, absl::StrCat("the script is ", text.size(), " bytes; at most ", kMaxImportBytes));
  }
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  if (lines > kMaxScriptLines) {
    return FieldError(field, absl::StrCat("the script has ", lines, " lines; at most ", kMaxScriptLines));
  }
  ShellScript out;
  auto tokens = LexShellScript(text, field, &out.notes);
  if (!tokens.ok()) return tokens.status();
  Interpreter interp(std::move(*tokens), field);
  if (absl::Status s = interp.Run(&out); !s.ok()) return s;
  return out;
}

std::vector<ShellCommand> SplitCommandString(const std::string& text, int64_t line) {
  std::vector<ShellCommand> out;
  ShellCommand cur;
  cur.line = line;
  std::string word;
  bool in_word = false;
  char quote = 0;
  auto end_word = [&]() {
    if (in_word) cur.words.push_back(ShellWord{word, line, true, ""});
    word.clear();
    in_word = false;
  };
  auto end_command = [&]() {
    end_word();
    if (!cur.words.empty()) out.push_back(cur);
    cur = ShellCommand();
    cur.line = line;
  };
  for (size_t i = 0; i < text.size() && out.size() < kMaxExpandedWords; ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word.push_back(c);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
      continue;
    }
    if (c == ';' || c == '\n' || c == '|' || c == '&') {
      end_command();
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      end_word();
      continue;
    }
    word.push_back(c);
    in_word = true;
  }
  end_command();
  return out;
}

}  // namespace parplan
