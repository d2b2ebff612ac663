// The tokens of a bash script as parplan's launch-script reader
// (core/import/shell_script.h) takes them: raw words with their quotes and
// $-expressions kept for later expansion, operators, and array assignments
// (A=( ... ) / A+=( ... )) with their elements; comments, line
// continuations, redirections and heredoc bodies dropped. A continuation
// inside double quotes stays as a newline (bash drops it), so the words of a
// multi-line option string keep their lines; word splitting reads both alike.
#ifndef PARPLAN_CORE_IMPORT_SHELL_LEXER_H_
#define PARPLAN_CORE_IMPORT_SHELL_LEXER_H_

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace parplan {

enum class ShellTokenKind { kWord, kArray, kOp };

struct ShellToken {
  ShellTokenKind kind = ShellTokenKind::kWord;
  std::string text;                  // raw word (quotes kept) / operator / array name
  bool append = false;               // A+=( ... )
  std::vector<ShellToken> elements;  // array elements (raw words)
  int64_t line = 0;                  // 1-based
};

// Operators: "\n" ";" ";;" "&" "&&" "|" "||" "(" ")" and "redir" (a
// redirection; its target is the next word). A heredoc's body is skipped
// and said in `notes`. INVALID_ARGUMENT naming `field` and the line for an
// unterminated quote, $( / ${, backquote or array.
absl::StatusOr<std::vector<ShellToken>> LexShellScript(std::string_view text, const std::string& field,
                                                       std::vector<std::string>* notes);

inline bool IsShellNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool IsShellNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_SHELL_LEXER_H_
