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

// Where the members of a process group sit, from the rank layout
// (core/layout/block_share.h over the blocks of core/system/racks.h): the
// worst-placed member of the worst-placed group bounds a collective.
struct GroupSpread {
  int64_t size = 1;          // members of one group
  int64_t domain_local = 1;  // fewest members of one group sharing one NVLink domain (itself included)
  int64_t host_local = 1;    // the same for the block a ring's NICs serve: the host when it is wider than
                             // the domain (PCIe systems), else the domain
};

// The spread of groups of `group` ranks `stride` apart whose first rank
// starts a domain (and host): what a layout aligned to the blocks gives.
GroupSpread AlignedSpread(const SystemSpec& s, int64_t group, int64_t stride);

// The link a group spread as `g` uses: NVLink when every group sits in one
// domain, PCIe when every group sits in one host, else the network.
Link LinkOfGroup(const SystemSpec& s, const GroupSpread& g);

// Bus bandwidth (GB/s per GPU) of a ring collective over a group spread as
// `g`. Inside one NVLink domain: NVLink; inside one host: PCIe. Across hosts
// NCCL runs one ring per NIC, so only the ring edges that leave a domain use
// the network, and the `k` members of a domain (or host) push their share
// through their own NICs in parallel: min(intra-host link, k * NIC), k the
// fewest members of a group in one block (g.host_local) (nccl-tests
// doc/PERFORMANCE.md, bus bandwidth).
double RingBandwidth(const SystemSpec& s, const GroupSpread& g);
// The same for `group` ranks placed `stride` apart, aligned (AlignedSpread).
double RingBandwidth(const SystemSpec& s, int64_t group, int64_t stride);

}  // namespace parplan

#endif  // PARPLAN_CORE_SYSTEM_LINKS_H_
