// Runs one `parplan` command: builds the request from flags, answers it
// in-process (default) or through a server (--server HOST:PORT), prints the
// response as proto3 JSON (--json, snake_case names) or as a table.
#ifndef PARPLAN_SKILL_CLI_CLI_COMMANDS_H_
#define PARPLAN_SKILL_CLI_CLI_COMMANDS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "google/protobuf/message.h"

#include "skill/cli/cli_flags.h"

namespace parplan {
namespace cli {

// Exit codes: 0 an answer (also "invalid config"), 2 bad input (unknown
// flag, out-of-range value, unknown model), 1 anything else (server down).
int RunCommand(const Flags& flags, std::string* out, std::string* err);

// The usage text.
std::string Usage();

// The CLI's commands: each a row of the method table (server/api/api_methods.h)
// with the builder that turns its flags into the request (of the row's
// request type). A test checks that every row has exactly one command.
struct CliCommand {
  const char* name;  // "min-gpus"
  const char* rpc;   // "MinGpus"
  absl::Status (*build)(const Flags& flags, google::protobuf::Message* request);
};
const std::vector<CliCommand>& CliCommands();

}  // namespace cli
}  // namespace parplan

#endif  // PARPLAN_SKILL_CLI_CLI_COMMANDS_H_
