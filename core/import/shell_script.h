// A bash launch script read the way Megatron-LM's examples write them
// (examples/gpt3/train_gpt3_175b_distributed.sh and friends at Megatron-LM
// d98e8a64): comments, line continuations, assignments (X=1, export X=..,
// X=${X:-8}), $X / ${X} / ${X:-default} / $((arithmetic)) expansion, arrays
// (A=( ... ), A+=( ... ), "${A[@]}"), if / case blocks whose conditions the
// script's own variables decide, and the commands it runs. Nothing is
// executed: no command substitution, no file test, no loop runs; what
// cannot be decided is said in a note, never guessed.
#ifndef PARPLAN_CORE_IMPORT_SHELL_SCRIPT_H_
#define PARPLAN_CORE_IMPORT_SHELL_SCRIPT_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace parplan {

// One word of a command after expansion and word splitting.
struct ShellWord {
  std::string text;      // expanded; an unexpandable part stays as written ("$1", "$(pwd)")
  int64_t line = 0;      // 1-based line of the word in the script
  bool expanded = true;  // false when some part could not be expanded
  std::string note;      // how it was read: "from ${TP:-8}", "$1 is not set in the script"
};

struct ShellCommand {
  std::vector<ShellWord> words;
  int64_t line = 0;
};

struct ShellScript {
  std::vector<ShellCommand> commands;  // every simple command the taken branches run, in order
  // Scalar variables as the script leaves them (arrays joined by spaces);
  // unexpandable values as written.
  std::map<std::string, std::string> variables;
  std::map<std::string, int64_t> variable_lines;  // where each scalar was last assigned
  // Arrays as the script leaves them, element by element.
  std::map<std::string, std::vector<ShellWord>> arrays;
  std::vector<std::string> notes;  // branches not decidable, loops and heredocs skipped, ...
};

inline constexpr size_t kMaxScriptLines = 20000;
inline constexpr int kMaxExpansionDepth = 16;
inline constexpr size_t kMaxExpandedWords = 100000;

// Reads `text` (at most kMaxImportBytes, kMaxScriptLines lines).
// INVALID_ARGUMENT naming `field` for text over the bounds, an unterminated
// quote or array, or expansion past kMaxExpansionDepth / kMaxExpandedWords.
absl::StatusOr<ShellScript> ReadShellScript(std::string_view text, const std::string& field);

// Splits a command string (a variable holding "python pretrain_gpt.py
// --a 1 ..."; already expanded) into commands at ';', '&&', '||', '|' and
// newlines, honouring quotes; every word gets `line`.
std::vector<ShellCommand> SplitCommandString(const std::string& text, int64_t line);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_SHELL_SCRIPT_H_
