// Which link a group of GPUs talks over, and how fast: one answer for the
// performance model, the topology rules and the plan reasons.
//
// A group of `span` consecutive ranks stays on NVLink when it fits one NVLink
// domain; a group that leaves the domain but stays on one host (PCIe cards,
// NVLink bridge pairs) talks over PCIe; anything wider goes through the
// hosts' NICs.
#ifndef PARPLAN_CORE_SYSTEM_LINKS_H_
#define PARPLAN_CORE_SYSTEM_LINKS_H_

#include <cstdint>
#include <string>

#include "core/system/system_spec.h"

namespace parplan {

enum class Link { kNvlink, kPcie, kNetwork };

// The link a group spanning `span` consecutive ranks uses.
Link LinkOfSpan(const SystemSpec& s, int64_t span);

// The link the traffic of a group of `span` ranks that leaves (or straddles)
// the NVLink domain crosses: what a group wider than the domain uses, even
// when the group itself is no wider than the domain.
Link LinkLeavingDomain(const SystemSpec& s, int64_t span);

// GB/s per GPU per direction of `link` on `s`. The network is the NIC line
// rate per GPU (400 Gb/s when the system does not say); PCIe falls back to
// the network rate when unknown.
double LinkGbytesPerSecond(const SystemSpec& s, Link link);

// "NVLink (450 GB/s per GPU)", "PCIe (64 GB/s per GPU)", "the network (50 GB/s per GPU)".
std::string DescribeLink(const SystemSpec& s, Link link);

// Bus bandwidth (GB/s per GPU) of a ring collective over `group` ranks placed
// `stride` ranks apart. Inside one NVLink domain: NVLink; inside one host:
// PCIe. Across hosts NCCL runs one ring per NIC, so only the ring edges that
// leave a domain use the network, and the `k` members of a domain (or host)
// push their share through their own NICs in parallel: min(intra-host link,
// k * NIC) (nccl-tests doc/PERFORMANCE.md, bus bandwidth).
double RingBandwidth(const SystemSpec& s, int64_t group, int64_t stride);

}  // namespace parplan

#endif  // PARPLAN_CORE_SYSTEM_LINKS_H_
