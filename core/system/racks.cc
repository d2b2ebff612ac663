#include "core/system/racks.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"

namespace parplan {

int64_t RanksPerDomain(const SystemSpec& s) {
  const int64_t domain = std::max(1, s.nvlink_domain_size);
  return s.nvlink_domain_used > 0 ? std::min<int64_t>(s.nvlink_domain_used, domain) : domain;
}

int64_t RanksPerHost(const SystemSpec& s) {
  const int64_t node = std::max(1, s.gpus_per_node);
  const int64_t domain = std::max(1, s.nvlink_domain_size);
  if (domain > node) return node;
  if (domain == node) return RanksPerDomain(s);
  return node;
}

int64_t EvenDomainUse(const SystemSpec& s, int64_t world) {
  const int64_t domain = std::max(1, s.nvlink_domain_size);
  const int64_t node = std::max(1, s.gpus_per_node);
  if (domain <= node || world <= 0) return domain;
  for (int64_t used = domain / node * node; used >= node; used -= node) {
    if (world % used == 0) return used;
  }
  return domain;
}

int64_t DomainsTaken(const SystemSpec& s, int64_t world) {
  const int64_t used = RanksPerDomain(s);
  return (std::max<int64_t>(0, world) + used - 1) / used;
}

absl::Status CheckGpusPerDomain(int64_t used, int64_t domain, int64_t node, const std::string& field) {
  if (used < 0 || used > kMaxNvlinkDomain) {
    return FieldError(field, absl::StrCat(used, " is out of range; allowed 0 (all of the domain) or 1..",
                                          domain > 0 ? domain : kMaxNvlinkDomain));
  }
  if (used == 0) return absl::OkStatus();
  if (domain <= 0) {
    return FieldError(field, absl::StrCat(used,
                                          " GPUs per NVLink domain needs a system (or gpus_per_node) to know "
                                          "the domain's size"));
  }
  if (used > domain) {
    return FieldError(field, absl::StrCat(used, " exceeds the ", domain, "-GPU NVLink domain; allowed 1..", domain));
  }
  if (node > 0 && domain > node && used % node != 0) {
    // A domain of several hosts (GB200 NVL72: 18 compute trays of 4 GPUs,
    // each tray one host with its own CPUs and NICs) is used host by host:
    // launchers (Slurm, torchrun) place whole hosts, and a tray left half
    // idle still holds its NICs. So the GPUs used are whole trays.
    const int64_t lower = used / node * node;
    return FieldError(
        field, absl::StrCat(used, " is not a whole number of ", node, "-GPU hosts of the ", domain,
                            "-GPU NVLink domain (jobs take whole hosts); use ",
                            lower > 0 ? absl::StrCat(lower, " or ") : std::string(), std::min(domain, lower + node)));
  }
  if (node > 0 && domain < node && used != domain) {
    return FieldError(field, absl::StrCat(used, ": the ", domain, "-GPU NVLink domain is smaller than a ", node,
                                          "-GPU host and jobs take whole hosts, so all ", domain,
                                          " GPUs of each domain are used; give ", domain, " or leave it unset"));
  }
  return absl::OkStatus();
}

std::string DescribeDomainUse(const SystemSpec& s, int64_t world) {
  const int64_t domain = std::max(1, s.nvlink_domain_size);
  const int64_t node = std::max(1, s.gpus_per_node);
  const int64_t used = RanksPerDomain(s);
  if (domain <= node && used == domain) return "";
  std::string out = world > 0 ? absl::StrCat(world, " GPUs take ", DomainsTaken(s, world), " NVLink domain",
                                             DomainsTaken(s, world) == 1 ? "" : "s", domain > node ? " (racks)" : "")
                              : std::string("The job");
  absl::StrAppend(&out, " of ", s.id.empty() ? std::string("the system") : s.id, ", ");
  if (used == domain) {
    absl::StrAppend(&out, "all ", domain, " GPUs of each domain used");
  } else {
    absl::StrAppend(&out, used, " of each ", domain, "-GPU domain's GPUs used");
    if (domain > node) absl::StrAppend(&out, " (", used / node, " of its ", domain / node, " hosts)");
  }
  if (world > 0 && world % used != 0 && world > used) {
    absl::StrAppend(&out, "; the last domain holds ", world % used);
  }
  absl::StrAppend(&out, ": rank r sits in domain r / ", used, ".");
  return out;
}

std::string ChooseDomainUse(int64_t world, SystemSpec* s) {
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
