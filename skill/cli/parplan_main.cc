// parplan: the planner's command line. See `parplan help`.
#include <cstdio>
#include <string>
#include <vector>

#include "skill/cli/cli_commands.h"
#include "skill/mcp/mcp_stdio.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto flags = parplan::cli::ParseFlags(args);
  std::string out, err;
  int code = 0;
  if (!flags.ok()) {
    err = "parplan: bad input\n  " + std::string(flags.status().message()) + "\n";
    code = 2;
  } else if (flags->command == "mcp" && !flags->Has("help")) {
    if (!flags->values.empty()) {
      std::fputs("parplan: bad input\n  mcp takes no flags; it serves MCP on stdin/stdout\n", stderr);
      return 2;
    }
    return parplan::mcp::ServeStdio(stdin, stdout, stderr);
  } else {
    code = parplan::cli::RunCommand(*flags, &out, &err);
  }
  std::fputs(out.c_str(), stdout);
  std::fputs(err.c_str(), stderr);
  return code;
}
