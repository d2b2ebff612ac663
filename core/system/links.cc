#include "core/system/links.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace parplan {

Link LinkOfSpan(const SystemSpec& s, int64_t span) {
  if (span <= std::max(1, s.nvlink_domain_size) && s.nvlink_gbps_unidirectional > 0) return Link::kNvlink;
  if (span <= 1) return Link::kNvlink;  // a single GPU talks to itself
  if (span <= s.gpus_per_node) return Link::kPcie;
  return Link::kNetwork;
}

Link LinkLeavingDomain(const SystemSpec& s, int64_t span) {
  return LinkOfSpan(s, std::max<int64_t>(span, int64_t{s.nvlink_domain_size} + 1));
}

double LinkGbytesPerSecond(const SystemSpec& s, Link link) {
  const double network = (s.scaleout_gbps_per_gpu > 0 ? s.scaleout_gbps_per_gpu : 400.0) / 8.0;
  switch (link) {
    case Link::kNvlink:
      return s.nvlink_gbps_unidirectional;
    case Link::kPcie:
      return s.pcie_gbps_unidirectional > 0 ? s.pcie_gbps_unidirectional : network;
    case Link::kNetwork:
      return network;
  }
  return network;
}

std::string DescribeLink(const SystemSpec& s, Link link) {
  const double gbytes = LinkGbytesPerSecond(s, link);
  switch (link) {
    case Link::kNvlink:
      return absl::StrFormat("NVLink (%.0f GB/s per GPU)", gbytes);
    case Link::kPcie:
      return absl::StrFormat("PCIe (%.0f GB/s per GPU)", gbytes);
    case Link::kNetwork:
      return absl::StrFormat("the network (%.0f GB/s per GPU)", gbytes);
  }
  return "";
}

GroupSpread AlignedSpread(const SystemSpec& s, int64_t group, int64_t stride) {
  GroupSpread g;
  g.size = std::max<int64_t>(1, group);
  stride = std::max<int64_t>(1, stride);
  const int64_t domain = std::max(1, s.nvlink_domain_size);
  const int64_t host = std::max<int64_t>(domain, s.gpus_per_node);
  // Members of an aligned group in its first block: ceil(block / stride).
  g.domain_local = std::min(g.size, (domain + stride - 1) / stride);
  g.host_local = std::min(g.size, (host + stride - 1) / stride);
  return g;
}

Link LinkOfGroup(const SystemSpec& s, const GroupSpread& g) {
  if (g.size <= 1) return Link::kNvlink;  // a single GPU talks to itself
  if (g.domain_local >= g.size && s.nvlink_gbps_unidirectional > 0 && s.nvlink_domain_size > 1) return Link::kNvlink;
  if (g.host_local >= g.size && s.gpus_per_node > std::max(1, s.nvlink_domain_size)) return Link::kPcie;
  return Link::kNetwork;
}

double RingBandwidth(const SystemSpec& s, const GroupSpread& g) {
  const Link link = LinkOfGroup(s, g);
  if (link != Link::kNetwork) return LinkGbytesPerSecond(s, link);
  const int64_t domain = std::max(1, s.nvlink_domain_size);
  const double intra = LinkGbytesPerSecond(s, domain >= s.gpus_per_node ? Link::kNvlink : Link::kPcie);
  const int64_t local = std::max<int64_t>(1, g.host_local);
  return std::min(intra, local * LinkGbytesPerSecond(s, Link::kNetwork));
}

double RingBandwidth(const SystemSpec& s, int64_t group, int64_t stride) {
  return RingBandwidth(s, AlignedSpread(s, group, stride));
}

}  // namespace parplan
