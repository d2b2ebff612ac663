// The MCP stdio door (`parplan mcp`): one JSON-RPC message per line on
// stdin, answers on stdout, through one server/mcp/mcp_session.h session.
#ifndef PARPLAN_SKILL_MCP_MCP_STDIO_H_
#define PARPLAN_SKILL_MCP_MCP_STDIO_H_

#include <cstdio>

namespace parplan {
namespace mcp {

// Serves one session: reads lines from `in` until EOF, writes answers to
// `out` (flushed per message), logs to `log`. Lines longer than
// kMaxMcpLineBytes are answered -32600 and skipped. Returns 0.
int ServeStdio(std::FILE* in, std::FILE* out, std::FILE* log);

}  // namespace mcp
}  // namespace parplan

#endif  // PARPLAN_SKILL_MCP_MCP_STDIO_H_
