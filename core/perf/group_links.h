// Which links each process group's collectives use, from the rank layout:
// the performance model charges every group on the links its worst-placed
// group really uses, over the same blocks (the used GPUs of each NVLink
// domain, core/system/racks.h) the topology warnings count crossings on.
#ifndef PARPLAN_CORE_PERF_GROUP_LINKS_H_
#define PARPLAN_CORE_PERF_GROUP_LINKS_H_

#include <cstdint>
#include <string>

#include "core/mesh/mesh.h"
#include "core/system/links.h"
#include "core/system/system_spec.h"

namespace parplan {

// One kind of process group: where its members sit, how many groups there
// are, and how many of them cross an NVLink-domain block.
struct GroupLink {
  const char* name = "";  // "TP", "CP", "EP", "DP x CP", "expert DP", "PP"
  GroupSpread spread;
  int64_t groups = 0;
  int64_t crossing = 0;
};

struct GroupLinks {
  GroupLink tp, cp, ep, dp_cp, edp, pp;
  int64_t ranks_per_domain = 1;  // GPUs of each NVLink domain the job fills
  int64_t domains = 0;           // NVLink domains the world takes
};

// The groups of `dims` over `world` ranks on `s` (RanksPerDomain and
// RanksPerHost give the blocks; core/layout/block_share.h the split).
// Precondition: `world` is valid for `dims` (SizeWorld); otherwise every
// group is taken as aligned (AlignedSpread). A few residue walks per kind:
// cheap enough for every candidate of a search.
GroupLinks LinksOfGroups(const MeshDims& dims, int64_t world, const SystemSpec& s);

// One sentence for the answer: the used GPUs per domain and domains taken,
// and for each group kind wider than one GPU its link, with the crossing
// groups and the worst-placed member's local peers when some cross.
std::string DescribeGroupLinks(const GroupLinks& links, const SystemSpec& s);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_GROUP_LINKS_H_
