// How the groups of one kind split over blocks of consecutive ranks (hosts,
// or the used GPUs of NVLink domains): how many groups cross a block edge,
// and how many peers the worst-placed member has in its own block. The
// topology warnings count the first; the performance model charges
// collectives from the second (a ring's NICs, an all-to-all's NVLink share),
// so both read one computation and cannot disagree.
#ifndef PARPLAN_CORE_LAYOUT_BLOCK_SHARE_H_
#define PARPLAN_CORE_LAYOUT_BLOCK_SHARE_H_

#include <cstdint>

#include "core/layout/rank_layout.h"

namespace parplan {

struct BlockShare {
  int64_t groups = 0;    // groups of the kind
  int64_t size = 1;      // members of one group
  int64_t crossing = 0;  // groups whose members fall into more than one block
  // Over every group and every block it touches, the fewest members of one
  // group in one block: the worst-placed member has this many of the group
  // (itself included) in its block. `size` when no group crosses.
  int64_t fewest_local = 1;
};

// Blocks are aligned runs of `block` consecutive ranks (rank r in block
// r / block); block <= 0 means one block holding everything.
//
// Cost: a group's split depends only on its lowest rank modulo `block`, so
// the work is over the reachable residues (at most `block`, and usually a
// handful), not the groups; when the groups are fewer than that bound they
// are visited directly. Never O(world) per call beyond the group count.
BlockShare ShareOfBlocks(const RankLayout& layout, GroupKind kind, int64_t block);

}  // namespace parplan

#endif  // PARPLAN_CORE_LAYOUT_BLOCK_SHARE_H_
