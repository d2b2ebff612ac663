#include "skill/mcp/mcp_stdio.h"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/util/limits.h"
#include "server/mcp/mcp_session.h"

namespace parplan {
namespace mcp {

int ServeStdio(std::FILE* in, std::FILE* out, std::FILE* log) {
  McpSession session;
  std::string line;
  bool oversize = false;
  std::vector<char> buffer(1 << 16);
  auto finish_line = [&]() {
    std::optional<std::string> reply;
    std::string note;
    if (oversize) {
      reply = JsonRpcError(-32600, absl::StrCat("Invalid Request: message over ", kMaxMcpLineBytes, " bytes"));
      note = "mcp oversize message rejected";
    } else {
      reply = session.HandleLine(line, &note);
    }
    if (reply.has_value()) {
      std::fputs(reply->c_str(), out);
      std::fputc('\n', out);
      std::fflush(out);
    }
    if (!note.empty()) std::fprintf(log, "%s\n", note.c_str());
    line.clear();
    oversize = false;
  };
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), in) != nullptr) {
    const size_t n = std::strlen(buffer.data());
    const bool end_of_line = n > 0 && buffer[n - 1] == '\n';
    if (!oversize) {
      line.append(buffer.data(), end_of_line ? n - 1 : n);
      if (line.size() > kMaxMcpLineBytes) {
        oversize = true;
        line.clear();
        line.shrink_to_fit();
      }
    }
    if (end_of_line) finish_line();
  }
  if (!line.empty() || oversize) finish_line();  // a last message without a newline
  return 0;
}

}  // namespace mcp
}  // namespace parplan
