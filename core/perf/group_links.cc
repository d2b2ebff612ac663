#include "core/perf/group_links.h"

#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/layout/block_share.h"
#include "core/layout/rank_layout.h"
#include "core/system/racks.h"

namespace parplan {
namespace {

GroupLink LinkOf(const RankLayout& layout, GroupKind kind, const char* name, int64_t domain_block, int64_t host_block) {
  GroupLink g;
  g.name = name;
  const BlockShare domain = ShareOfBlocks(layout, kind, domain_block);
  g.groups = domain.groups;
  g.crossing = domain.crossing;
  g.spread.size = domain.size;
  g.spread.domain_local = domain.fewest_local;
  g.spread.host_local =
      host_block == domain_block ? domain.fewest_local : ShareOfBlocks(layout, kind, host_block).fewest_local;
  return g;
}

GroupLink AlignedLink(const SystemSpec& s, const char* name, int64_t size, int64_t stride, int64_t world) {
  GroupLink g;
  g.name = name;
  g.spread = AlignedSpread(s, size, stride);
  g.groups = std::max<int64_t>(1, world / std::max<int64_t>(1, size));
  return g;
}

using LinksKey = std::array<int64_t, 8>;  // tp, pp, cp, ep, etp, world, domain block, host block

// The last kRecentLinks answers of LinksOfGroups' layout walks.
class RecentLinks {
 public:
  const GroupLinks* Find(const LinksKey& key) const {
    for (size_t i = 0; i < kRecentLinks; ++i) {
      if (used_[i] && keys_[i] == key) return &values_[i];
    }
    return nullptr;
  }
  void Keep(const LinksKey& key, const GroupLinks& value) {
    keys_[next_] = key;
    values_[next_] = value;
    used_[next_] = true;
    next_ = (next_ + 1) % kRecentLinks;
  }

 private:
  static constexpr size_t kRecentLinks = 4;
  std::array<LinksKey, kRecentLinks> keys_{};
  std::array<GroupLinks, kRecentLinks> values_{};
  std::array<bool, kRecentLinks> used_{};
  size_t next_ = 0;
};

}  // namespace

GroupLinks LinksOfGroups(const MeshDims& d, int64_t world, const SystemSpec& s) {
  GroupLinks out;
  out.ranks_per_domain = RanksPerDomain(s);
  out.domains = DomainsTaken(s, world);
  const int64_t domain_block = out.ranks_per_domain;
  const int64_t host_block = std::max(domain_block, RanksPerHost(s));
  const WorldSizing sizing = SizeWorld(d, world, 0, 0, 0);
  if (!sizing.valid || sizing.dp <= 0 || sizing.edp <= 0) {
    out.tp = AlignedLink(s, "TP", d.tp, 1, world);
    out.cp = AlignedLink(s, "CP", d.cp, d.tp, world);
    out.ep = AlignedLink(s, "EP", d.ep, d.etp, world);
    out.dp_cp = AlignedLink(s, "DP x CP", sizing.dp * d.cp, d.tp, world);
    out.edp = AlignedLink(s, "expert DP", sizing.edp, d.ep * d.etp, world);
    out.pp = AlignedLink(s, "PP", d.pp, std::max<int64_t>(1, world / std::max<int64_t>(1, d.pp)), world);
    return out;
  }
  // A search estimates every split, MBS and recompute of one mesh in a row:
  // the walks depend only on the mesh, the world and the two block sizes,
  // so the last few answers are kept (per thread) and reused.
  const LinksKey key{d.tp, d.pp, d.cp, d.ep, d.etp, world, domain_block, host_block};
  thread_local RecentLinks recent;
  if (const GroupLinks* known = recent.Find(key); known != nullptr) {
    GroupLinks hit = *known;
    hit.ranks_per_domain = out.ranks_per_domain;
    hit.domains = out.domains;
    return hit;
  }
  const RankLayout layout(d, world);
  out.tp = LinkOf(layout, GroupKind::kTp, "TP", domain_block, host_block);
  out.cp = LinkOf(layout, GroupKind::kCp, "CP", domain_block, host_block);
  out.ep = LinkOf(layout, GroupKind::kEp, "EP", domain_block, host_block);
  out.dp_cp = LinkOf(layout, GroupKind::kDpCp, "DP x CP", domain_block, host_block);
  out.edp = LinkOf(layout, GroupKind::kEdp, "expert DP", domain_block, host_block);
  out.pp = LinkOf(layout, GroupKind::kPp, "PP", domain_block, host_block);
  recent.Keep(key, out);
  return out;
}

std::string DescribeGroupLinks(const GroupLinks& links, const SystemSpec& s) {
  std::vector<std::string> parts;
  for (const GroupLink* g : {&links.tp, &links.cp, &links.ep, &links.dp_cp, &links.edp, &links.pp}) {
    if (g->spread.size <= 1) continue;
    const Link link = LinkOfGroup(s, g->spread);
    std::string part = absl::StrCat(g->name, " (", g->spread.size, "): ");
    if (g->crossing == 0) {
      absl::StrAppend(&part, g->groups == 1 ? "the group" : absl::StrCat("all ", g->groups, " groups"),
                      " inside one domain, ", DescribeLink(s, link));
    } else {
      absl::StrAppend(&part, g->crossing, " of ", g->groups, " groups span domains; the worst-placed GPU has ",
                      g->spread.domain_local, " of the ", g->spread.size, " in its domain: ", DescribeLink(s, link));
    }
    parts.push_back(part);
  }
  const int64_t domain = std::max(1, s.nvlink_domain_size);
  std::string head = absl::StrCat(
      "Links from the rank layout over ", links.domains, " NVLink domain", links.domains == 1 ? "" : "s", " (",
      links.ranks_per_domain == domain ? absl::StrCat("all ", domain, " GPUs of each used")
                                       : absl::StrCat(links.ranks_per_domain, " of each ", domain, " GPUs used"),
      "; rank r in domain r / ", links.ranks_per_domain, ")");
  if (parts.empty()) return absl::StrCat(head, ": one GPU per group, no collectives.");
  return absl::StrCat(head, ": ", absl::StrJoin(parts, "; "), ".");
}

}  // namespace parplan
