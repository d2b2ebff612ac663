// Megatron-Core's rank layout: which rank holds which coordinate and which
// process groups it joins.
//
// Follows megatron/core/parallel_state.py: a decoder RankGenerator over
// (tp, cp, ep=1, dp, pp) and an expert RankGenerator over
// (tp=etp, cp=1, ep, dp=edp, pp), both in the default order "tp-cp-ep-dp-pp"
// (first dimension varies fastest). A group of kind K holds the ranks that
// differ only in K's coordinates; groups are enumerated like
// generate_masked_orthogonal_rank_groups (other coordinates as a mixed-radix
// index, first dimension fastest).
#ifndef PARPLAN_CORE_LAYOUT_RANK_LAYOUT_H_
#define PARPLAN_CORE_LAYOUT_RANK_LAYOUT_H_

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/mesh/mesh.h"

namespace parplan {

enum class GroupKind { kTp, kCp, kDp, kPp, kTpCp, kDpCp, kEp, kEtp, kEdp };

inline constexpr std::array<GroupKind, 9> kAllGroupKinds = {GroupKind::kTp, GroupKind::kCp,   GroupKind::kDp,
                                                            GroupKind::kPp, GroupKind::kTpCp, GroupKind::kDpCp,
                                                            GroupKind::kEp, GroupKind::kEtp,  GroupKind::kEdp};

// "tp", "cp", ..., "tp-cp", "dp-cp", "ep", "etp", "edp".
std::string GroupKindName(GroupKind kind);
// The Megatron-Core process group, e.g. "tensor model parallel".
std::string MegatronGroupName(GroupKind kind);

struct RankCoords {
  int64_t rank = 0;
  int64_t tp = 0, cp = 0, dp = 0, pp = 0;  // decoder grid
  int64_t etp = 0, ep = 0, edp = 0;        // expert grid
};

class RankLayout {
 public:
  // Precondition: world % (tp*cp*pp) == 0 and world % (etp*ep*pp) == 0, world > 0.
  RankLayout(const MeshDims& dims, int64_t world);

  int64_t world() const { return world_; }
  RankCoords Coords(int64_t rank) const;
  int64_t GroupSize(GroupKind kind) const;
  int64_t GroupCount(GroupKind kind) const;
  // Ranks of the index-th group, ascending, at most `limit` of them.
  // Precondition: index < GroupCount.
  std::vector<int64_t> Group(GroupKind kind, int64_t index, int64_t limit = INT64_MAX) const;
  // Index (in Group's enumeration) of the group of `kind` holding `rank`.
  int64_t GroupIndexOfRank(GroupKind kind, int64_t rank) const;
  // The group of `kind` that contains `rank` (at most `limit` ranks).
  std::vector<int64_t> GroupOfRank(GroupKind kind, int64_t rank, int64_t limit = INT64_MAX) const;
  // Lowest and highest rank of the index-th group.
  std::pair<int64_t, int64_t> GroupSpan(GroupKind kind, int64_t index) const;
  // Groups whose ranks fall into more than one aligned block of `block`
  // consecutive ranks (a node, or the used GPUs of an NVLink domain):
  // ShareOfBlocks(*this, kind, block).crossing (core/layout/block_share.h).
  int64_t CountCrossing(GroupKind kind, int64_t block) const;

  // The shape every group of a kind shares: the dimensions a kind spans are
  // adjacent in its grid, so each group is an arithmetic progression
  // base + i * step (i < size); the bases are the sums of u * stride
  // (u < dim size) over `bases`, the dimensions the kind does not span.
  struct BaseDim {
    int64_t size;
    int64_t stride;
  };
  struct GroupGeometry {
    int64_t size = 1;
    int64_t step = 1;
    std::vector<BaseDim> bases;
  };
  GroupGeometry Geometry(GroupKind kind) const;

 private:
  struct Dim {
    int64_t size;
    int64_t stride;
  };
  // Dims of the grid the kind lives on, and which of them the kind spans.
  void Select(GroupKind kind, std::vector<Dim>* masked, std::vector<Dim>* unmasked) const;

  int64_t world_;
  std::array<Dim, 4> dense_;   // tp, cp, dp, pp
  std::array<Dim, 4> expert_;  // etp, ep, edp, pp
};

}  // namespace parplan

#endif  // PARPLAN_CORE_LAYOUT_RANK_LAYOUT_H_
