// parplan-server as a child process for the load benches: started on
// loopback with ports 0 (gRPC and HTTP) and no access log, its resident
// memory read from /proc, and stopped with SIGTERM.
#ifndef PARPLAN_BENCH_SERVER_PROCESS_H_
#define PARPLAN_BENCH_SERVER_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace parplan {
namespace bench {

struct ServerProcess {
  pid_t pid = -1;
  std::string address;  // gRPC, "127.0.0.1:PORT"
  int http_port = 0;
};

// Starts `binary` and waits for both "listening" lines on its stdout; exits
// the bench (status 1, reason on stderr) when the server does not start.
ServerProcess StartServer(const std::string& binary);
// The same with `extra_args` after the defaults (e.g. {"--drain-seconds", "2"}).
ServerProcess StartServer(const std::string& binary, const std::vector<std::string>& extra_args);

// The process's resident set size (VmRSS in /proc/PID/status), KiB; -1 when
// it cannot be read (the process is gone).
long RssKiB(pid_t pid);

// Sends SIGTERM and waits; the exit status, or -1 when it did not exit
// normally (killed by a signal).
int StopServer(const ServerProcess& server);

}  // namespace bench
}  // namespace parplan

#endif  // PARPLAN_BENCH_SERVER_PROCESS_H_
