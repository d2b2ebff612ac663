#include "core/search/domain_choice.h"

#include "absl/strings/str_cat.h"
#include "core/system/racks.h"

namespace parplan {

std::string ChooseGpusPerDomain(int64_t world, SystemSpec* s) {
  if (world <= 0 || s->nvlink_domain_used > 0) return "";
  const int64_t domain = RanksPerDomain(*s);
  const int64_t even = EvenDomainUse(*s, world);
  if (even >= domain) return "";
  SystemSpec chosen = *s;
  chosen.nvlink_domain_used = static_cast<int>(even);
  if (DomainsTaken(chosen, world) > DomainsTaken(*s, world)) return "";
  *s = chosen;
  return absl::StrCat("GPUs per NVLink domain: ", even, " of ", domain,
                      " chosen (gpus_per_nvlink_domain not given): ", world, " GPUs split evenly into ",
                      DomainsTaken(chosen, world), " domains of ", even, ", as many as filling all ", domain,
                      " takes, so groups whose size divides ", even,
                      " (EP, TP, CP) never straddle two domains and the domains share the DP rings evenly; give "
                      "placement.gpus_per_nvlink_domain ",
                      domain, " to fill them. ", DescribeDomainUse(chosen, world));
}

}  // namespace parplan
