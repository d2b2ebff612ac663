#include "core/layout/block_share.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace parplan {
namespace {

// Fewest members of the progression rho + i * step (i < n, 0 <= rho < block)
// in one of the blocks it touches.
int64_t FewestInBlock(int64_t rho, int64_t n, int64_t step, int64_t block) {
  const int64_t last = rho + (n - 1) * step;
  if (last < block) return n;   // one block
  if (step >= block) return 1;  // every member alone in its block
  const int64_t first_count = (block - rho + step - 1) / step;
  const int64_t last_count = (last % block) / step + 1;
  int64_t fewest = std::min(first_count, last_count);
  const int64_t last_block = last / block;
  const int64_t floor_count = block / step;  // any full block holds floor or ceil of block / step
  if (last_block >= 2 && fewest > floor_count) {
    if (block % step == 0) {
      fewest = std::min(fewest, floor_count);
    } else {
      // Block k's first member sits (rho - k * block) mod step into it; the
      // offsets repeat every step / gcd(block, step) blocks.
      const int64_t period = step / std::gcd(block, step);
      const int64_t interior = std::min(last_block - 1, period);
      for (int64_t k = 1; k <= interior && fewest > floor_count; ++k) {
        const int64_t offset = ((rho - k * block) % step + step) % step;
        fewest = std::min(fewest, (block - 1 - offset) / step + 1);
      }
    }
  }
  return fewest;
}

}  // namespace

BlockShare ShareOfBlocks(const RankLayout& layout, GroupKind kind, int64_t block) {
  const RankLayout::GroupGeometry geo = layout.Geometry(kind);
  BlockShare out;
  out.size = geo.size;
  out.groups = layout.GroupCount(kind);
  out.fewest_local = geo.size;
  if (block <= 0 || geo.size <= 1) return out;
  const int64_t extent = (geo.size - 1) * geo.step;
  auto visit = [&](int64_t residue, int64_t groups) {
    if (residue + extent < block) return;
    out.crossing += groups;
    out.fewest_local = std::min(out.fewest_local, FewestInBlock(residue, geo.size, geo.step, block));
  };
  // Work of the residue walk: per base dimension, the residues reached so far
  // times the distinct steps it adds (its size, at most block / gcd).
  int64_t residue_work = 0, reached = 1;
  for (const auto& d : geo.bases) {
    const int64_t period = block / std::gcd(d.stride % block == 0 ? block : d.stride % block, block);
    residue_work += reached * std::min(d.size, period);
    reached = std::min(block, reached * std::min(d.size, period));
  }
  if (out.groups <= residue_work) {
    // Few groups: visit each base (the index read as a mixed-radix number).
    for (int64_t i = 0; i < out.groups; ++i) {
      int64_t index = i, base = 0;
      for (const auto& d : geo.bases) {
        base += (index % d.size) * d.stride;
        index /= d.size;
      }
      visit(base % block, 1);
    }
    return out;
  }
  // Residues of the bases modulo `block`, with how many groups reach each.
  std::vector<int64_t> count(block, 0), next(block, 0);
  std::vector<int64_t> live = {0}, next_live;
  count[0] = 1;
  for (const auto& d : geo.bases) {
    const int64_t stride = d.stride % block;
    const int64_t period = stride == 0 ? 1 : block / std::gcd(stride, block);
    const int64_t classes = std::min(d.size, period);
    next_live.clear();
    for (int64_t r : live) {
      for (int64_t t = 0; t < classes; ++t) {
        // Coordinates u < d.size with u = t (mod period) land on one residue.
        const int64_t times = d.size / period + (t < d.size % period ? 1 : 0);
        const int64_t to = (r + t * stride) % block;
        if (next[to] == 0) next_live.push_back(to);
        next[to] += count[r] * times;
      }
    }
    for (int64_t r : live) count[r] = 0;
    for (int64_t r : next_live) {
      count[r] = next[r];
      next[r] = 0;
    }
    std::swap(live, next_live);
  }
  for (int64_t r : live) visit(r, count[r]);
  return out;
}

}  // namespace parplan
