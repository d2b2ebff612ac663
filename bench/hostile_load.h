// The load bench's hostile mode (load_bench --hostile): the checks of issue
// 36 against one parplan-server child process on loopback.
//   mixed:   32 clients (16 gRPC, 16 HTTP) for a while, 2 of each door
//            searching and the others making cheap calls (min_gpus,
//            validate, explain_layout, plot, health), every call with a
//            deadline: calls/s, p50/p99
//            per method, the share of calls answered within their deadline
//            + 50 ms;
//   then, with cheap calls still running: a 2,000,000-candidate search;
//            150 incomplete 4 MiB bodies; 2,000 slow connections from one
//            address (127.0.0.1) while another (127.0.0.2) calls; 2,000
//            MCP initialize calls while an established session calls a tool;
//            SIGTERM (exit 0).
// The server's RSS is sampled every 20 ms throughout; the peak is reported.
// With `targets`, exits 1 unless: cheap-call p99 <= 50 ms, >= 99% of
// deadlines honoured, peak RSS <= 512 MiB; the functional checks (the other
// client and the session served, no failed call, exit 0) always count.
#ifndef PARPLAN_BENCH_HOSTILE_LOAD_H_
#define PARPLAN_BENCH_HOSTILE_LOAD_H_

#include <string>

namespace parplan {
namespace bench {

// `quick`: a few seconds of each phase and 300 (not 2,000) connections and
// initialize calls, for CI. Returns the process exit status.
int RunHostileLoad(const std::string& server_binary, bool quick, bool targets);

}  // namespace bench
}  // namespace parplan

#endif  // PARPLAN_BENCH_HOSTILE_LOAD_H_
