// Time of the collectives training runs: bytes over each link class a group
// crosses, the algorithm's split between NVLink and the network, and a
// latency per algorithm step (NCCL rings: N - 1 steps per all-gather or
// reduce-scatter). Bandwidth is the link's line rate times the achievable
// bus-bandwidth share (PerfParams::link_efficiency, nccl-tests).
#ifndef PARPLAN_CORE_PERF_COLLECTIVES_H_
#define PARPLAN_CORE_PERF_COLLECTIVES_H_

#include <cstdint>

#include "core/system/links.h"
#include "core/system/system_spec.h"

namespace parplan {

struct PerfParams;

// One ring all-gather (or reduce-scatter) over a group spread as `group`
// (where its members sit: core/system/links.h GroupSpread) that assembles (or
// reduces) `buffer_bytes` on every rank: (N-1)/N of the buffer at ring bus
// bandwidth (RingBandwidth) plus N - 1 step latencies of the slowest link the
// ring crosses (LinkOfGroup). An all-reduce is two.
double RingCollectiveSeconds(double buffer_bytes, const GroupSpread& group, const SystemSpec& system,
                             const PerfParams& params);

// One all-to-all in which every rank of a group spread as `group` sends
// `send_bytes` spread evenly over the group: the share for peers in its own
// NVLink domain goes over NVLink, the rest through its own NIC, both at once;
// the member with the fewest peers in its domain (group.domain_local) bounds
// it. Plus a latency per doubling of the group on the slowest link.
double AllToAllSeconds(double send_bytes, const GroupSpread& group, const SystemSpec& system, const PerfParams& params);

// One point-to-point transfer of `bytes` over `link`, with one step latency.
double SendRecvSeconds(double bytes, Link link, const SystemSpec& system, const PerfParams& params);

// Step latency (seconds) of `link`.
double StepLatency(Link link, const PerfParams& params);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_COLLECTIVES_H_
