// How a job's ranks fill NVLink domains ("racks" on GB200 NVL72) and hosts.
//
// Ranks fill the used GPUs of domain 0, then domain 1, ...: rank r sits in
// domain r / used, where used is Placement.gpus_per_nvlink_domain (default:
// the whole domain). Real NVL72 jobs usually take 64 of each rack's 72 GPUs
// (16 of its 18 compute trays), which keeps groups of 64 inside one rack.
// Every model that asks which ranks share a domain uses these functions, so
// the warnings, the layout answer and the performance estimate agree.
#ifndef PARPLAN_CORE_SYSTEM_RACKS_H_
#define PARPLAN_CORE_SYSTEM_RACKS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "core/system/system_spec.h"

namespace parplan {

// Consecutive ranks that share one NVLink domain: the used GPUs of each
// domain (the whole domain when not set), at least 1.
int64_t RanksPerDomain(const SystemSpec& s);

// Consecutive ranks that share one host. A domain of whole hosts is used by
// whole hosts (CheckGpusPerDomain), so the host keeps its size; a domain of
// one host used in part holds `used` ranks per host.
int64_t RanksPerHost(const SystemSpec& s);

// The most GPUs of each domain, in whole hosts, that divide `world` ranks
// into equal domains (GB200 NVL72: 64 for 128, 256 or 1,024 GPUs; 72 for
// 144): how jobs that fill racks evenly are placed. The whole domain when
// the domain is one host or smaller, or no such split exists.
int64_t EvenDomainUse(const SystemSpec& s, int64_t world);

// The placement parplan chooses when the caller gives no GPUs per domain
// (s->nvlink_domain_used == 0), the same for every method: on a domain of
// several hosts, EvenDomainUse when that is fewer than the whole domain and
// takes no more domains (256 GPUs on GB200 NVL72: 64 per rack over 4 racks,
// as filling 72 also takes 4). Sets s->nvlink_domain_used and returns the
// reason in words; returns "" and changes nothing otherwise (given, one-host
// domains, or no even split). O(domain / host).
std::string ChooseDomainUse(int64_t world, SystemSpec* s);

// NVLink domains (racks) `world` ranks take: ceil(world / used).
int64_t DomainsTaken(const SystemSpec& s, int64_t world);

// Checks `used` GPUs per NVLink domain against a domain of `domain` GPUs on
// hosts of `node` GPUs, naming `field` in the error: 0 (all of it) or
// 1..domain; a multiple of `node` when the domain spans several hosts; all of
// the domain when the domain is smaller than a host.
absl::Status CheckGpusPerDomain(int64_t used, int64_t domain, int64_t node, const std::string& field);

// "256 GPUs take 4 NVLink domains (racks) of gb200-nvl72, 64 of each 72-GPU
// domain's GPUs used (16 of 18 hosts)"; "" when the domain is one host or
// smaller and all of it is used (nothing to say beyond the node count).
std::string DescribeDomainUse(const SystemSpec& s, int64_t world);

}  // namespace parplan

#endif  // PARPLAN_CORE_SYSTEM_RACKS_H_
