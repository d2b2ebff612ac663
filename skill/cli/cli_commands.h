// Runs one `parplan` command: builds the request from flags, answers it
// in-process (default) or through a server (--server HOST:PORT), prints the
// response as proto3 JSON (--json, snake_case names) or as a table.
#ifndef PARPLAN_SKILL_CLI_CLI_COMMANDS_H_
#define PARPLAN_SKILL_CLI_CLI_COMMANDS_H_

#include <string>

#include "skill/cli/cli_flags.h"

namespace parplan {
namespace cli {

// Exit codes: 0 an answer (also "invalid config"), 2 bad input (unknown
// flag, out-of-range value, unknown model), 1 anything else (server down).
int RunCommand(const Flags& flags, std::string* out, std::string* err);

// The usage text.
std::string Usage();

}  // namespace cli
}  // namespace parplan

#endif  // PARPLAN_SKILL_CLI_CLI_COMMANDS_H_
