#include "core/layout/rank_layout.h"

#include <algorithm>

#include "core/layout/block_share.h"

namespace parplan {

std::string GroupKindName(GroupKind kind) {
  switch (kind) {
    case GroupKind::kTp:
      return "tp";
    case GroupKind::kCp:
      return "cp";
    case GroupKind::kDp:
      return "dp";
    case GroupKind::kPp:
      return "pp";
    case GroupKind::kTpCp:
      return "tp-cp";
    case GroupKind::kDpCp:
      return "dp-cp";
    case GroupKind::kEp:
      return "ep";
    case GroupKind::kEtp:
      return "etp";
    case GroupKind::kEdp:
      return "edp";
  }
  return "?";
}

std::string MegatronGroupName(GroupKind kind) {
  switch (kind) {
    case GroupKind::kTp:
      return "tensor model parallel (TP all-reduce / SP all-gather+reduce-scatter)";
    case GroupKind::kCp:
      return "context parallel (KV exchange)";
    case GroupKind::kDp:
      return "data parallel (gradient reduce-scatter/all-reduce, dense params)";
    case GroupKind::kPp:
      return "pipeline model parallel (p2p activations)";
    case GroupKind::kTpCp:
      return "tensor and context parallel";
    case GroupKind::kDpCp:
      return "data parallel with context parallel (dense gradient reduction)";
    case GroupKind::kEp:
      return "expert model parallel (token all-to-all)";
    case GroupKind::kEtp:
      return "expert tensor parallel";
    case GroupKind::kEdp:
      return "expert data parallel (expert gradient reduction)";
  }
  return "?";
}

RankLayout::RankLayout(const MeshDims& d, int64_t world) : world_(world) {
  const WorldSizing sizing = SizeWorld(d, world, 0, 0, 0);
  const int64_t dp = sizing.dp;
  const int64_t edp = sizing.edp;
  dense_ = {Dim{d.tp, 1}, Dim{d.cp, d.tp}, Dim{dp, d.tp * d.cp}, Dim{d.pp, d.tp * d.cp * dp}};
  expert_ = {Dim{d.etp, 1}, Dim{d.ep, d.etp}, Dim{edp, d.etp * d.ep}, Dim{d.pp, d.etp * d.ep * edp}};
}

RankCoords RankLayout::Coords(int64_t rank) const {
  RankCoords c;
  c.rank = rank;
  c.tp = rank % dense_[0].size;
  c.cp = (rank / dense_[1].stride) % dense_[1].size;
  c.dp = (rank / dense_[2].stride) % dense_[2].size;
  c.pp = rank / dense_[3].stride;
  c.etp = rank % expert_[0].size;
  c.ep = (rank / expert_[1].stride) % expert_[1].size;
  c.edp = (rank / expert_[2].stride) % expert_[2].size;
  return c;
}

void RankLayout::Select(GroupKind kind, std::vector<Dim>* masked, std::vector<Dim>* unmasked) const {
  // Bit i set = the kind spans dimension i of its grid.
  const bool expert = kind == GroupKind::kEp || kind == GroupKind::kEtp || kind == GroupKind::kEdp;
  int mask = 0;
  switch (kind) {
    case GroupKind::kTp:
      mask = 0b0001;
      break;
    case GroupKind::kCp:
      mask = 0b0010;
      break;
    case GroupKind::kDp:
      mask = 0b0100;
      break;
    case GroupKind::kPp:
      mask = 0b1000;
      break;
    case GroupKind::kTpCp:
      mask = 0b0011;
      break;
    case GroupKind::kDpCp:
      mask = 0b0110;
      break;
    case GroupKind::kEtp:
      mask = 0b0001;
      break;
    case GroupKind::kEp:
      mask = 0b0010;
      break;
    case GroupKind::kEdp:
      mask = 0b0100;
      break;
  }
  const auto& grid = expert ? expert_ : dense_;
  for (int i = 0; i < 4; ++i) {
    ((mask >> i) & 1 ? masked : unmasked)->push_back(grid[i]);
  }
}

int64_t RankLayout::GroupSize(GroupKind kind) const {
  std::vector<Dim> masked, unmasked;
  Select(kind, &masked, &unmasked);
  int64_t n = 1;
  for (const auto& d : masked) n *= d.size;
  return n;
}

int64_t RankLayout::GroupCount(GroupKind kind) const { return world_ / GroupSize(kind); }

namespace {

// Lowest rank of the index-th group: the index read as a mixed-radix number
// over the dimensions the group does not span, first dimension fastest.
template <typename Dims>
int64_t GroupBase(const Dims& unmasked, int64_t index) {
  int64_t base = 0;
  for (const auto& d : unmasked) {
    base += (index % d.size) * d.stride;
    index /= d.size;
  }
  return base;
}

}  // namespace

std::pair<int64_t, int64_t> RankLayout::GroupSpan(GroupKind kind, int64_t index) const {
  std::vector<Dim> masked, unmasked;
  Select(kind, &masked, &unmasked);
  const int64_t base = GroupBase(unmasked, index);
  int64_t last = base;
  for (const auto& d : masked) last += (d.size - 1) * d.stride;
  return {base, last};
}

std::vector<int64_t> RankLayout::Group(GroupKind kind, int64_t index, int64_t limit) const {
  std::vector<Dim> masked, unmasked;
  Select(kind, &masked, &unmasked);
  const int64_t base = GroupBase(unmasked, index);
  const int64_t size = std::min(GroupSize(kind), limit);
  std::vector<int64_t> ranks;
  ranks.reserve(size);
  for (int64_t i = 0; i < size; ++i) {
    int64_t rest = i, rank = base;
    for (const auto& d : masked) {
      rank += (rest % d.size) * d.stride;
      rest /= d.size;
    }
    ranks.push_back(rank);
  }
  return ranks;
}

int64_t RankLayout::GroupIndexOfRank(GroupKind kind, int64_t rank) const {
  std::vector<Dim> masked, unmasked;
  Select(kind, &masked, &unmasked);
  // The group index is the mixed-radix number of the rank's unmasked coordinates.
  int64_t index = 0, radix = 1;
  for (const auto& d : unmasked) {
    index += ((rank / d.stride) % d.size) * radix;
    radix *= d.size;
  }
  return index;
}

std::vector<int64_t> RankLayout::GroupOfRank(GroupKind kind, int64_t rank, int64_t limit) const {
  return Group(kind, GroupIndexOfRank(kind, rank), limit);
}

int64_t RankLayout::CountCrossing(GroupKind kind, int64_t block) const {
  return ShareOfBlocks(*this, kind, block).crossing;
}

RankLayout::GroupGeometry RankLayout::Geometry(GroupKind kind) const {
  std::vector<Dim> masked, unmasked;
  Select(kind, &masked, &unmasked);
  GroupGeometry g;
  g.size = 1;
  for (const auto& d : masked) g.size *= d.size;
  g.step = masked.empty() ? 1 : masked.front().stride;
  for (const auto& d : unmasked) g.bases.push_back(BaseDim{d.size, d.stride});
  return g;
}

}  // namespace parplan
