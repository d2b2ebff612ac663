#include "bench/server_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace parplan {
namespace bench {
namespace {

// One line from `fd` without its '\n' ("" at end of file).
std::string ReadLine(int fd) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line.push_back(c);
  return line;
}

}  // namespace

ServerProcess StartServer(const std::string& binary) { return StartServer(binary, {}); }

ServerProcess StartServer(const std::string& binary, const std::vector<std::string>& extra_args) {
  std::vector<std::string> args = {binary,          "--listen",    "127.0.0.1:0",
                                   "--http-listen", "127.0.0.1:0", "--no-access-log"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe(out) != 0) std::exit(1);
  ServerProcess s;
  s.pid = fork();
  if (s.pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string line = ReadLine(out[0]);
  const auto at = line.find("listening on ");
  if (at == std::string::npos) {
    std::fprintf(stderr, "bench: parplan-server %s did not start (%s)\n", binary.c_str(), line.c_str());
    std::exit(1);
  }
  s.address = line.substr(at + 13);
  line = ReadLine(out[0]);
  s.http_port = std::atoi(line.substr(line.rfind(':') + 1).c_str());
  if (line.find("http listening on") == std::string::npos || s.http_port <= 0) {
    std::fprintf(stderr, "bench: parplan-server has no HTTP door (%s)\n", line.c_str());
    std::exit(1);
  }
  // The read end stays open: a server writing to a closed pipe would die of SIGPIPE.
  return s;
}

long RssKiB(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string key;
  long value = 0;
  while (in >> key) {
    if (key == "VmRSS:") {
      in >> value;
      return value;
    }
    in.ignore(1 << 10, '\n');
  }
  return -1;
}

int StopServer(const ServerProcess& server) {
  kill(server.pid, SIGTERM);
  int status = 0;
  waitpid(server.pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace bench
}  // namespace parplan
