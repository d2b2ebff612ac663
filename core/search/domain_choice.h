// Recommend's choice of GPUs per NVLink domain when the caller gives none.
#ifndef PARPLAN_CORE_SEARCH_DOMAIN_CHOICE_H_
#define PARPLAN_CORE_SEARCH_DOMAIN_CHOICE_H_

#include <cstdint>
#include <string>

#include "core/system/system_spec.h"

namespace parplan {

// For one world of `world` GPUs on `system` whose NVLink domain spans
// several hosts and whose GPUs per domain were not given
// (nvlink_domain_used == 0): uses EvenDomainUse (core/system/racks.h), the
// most whole hosts per domain that split the world into equal domains, when
// that is fewer than the whole domain and takes no more domains (256 GPUs on
// GB200 NVL72: 64 per rack over 4 racks, as filling 72 also takes 4). Sets
// system->nvlink_domain_used and returns the reason, in words; returns ""
// and changes nothing otherwise. O(domain / host): nothing per candidate.
std::string ChooseGpusPerDomain(int64_t world, SystemSpec* system);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_DOMAIN_CHOICE_H_
