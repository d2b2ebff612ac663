#include "core/mesh/mesh.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "core/util/text.h"

namespace parplan {

bool ExpertMeshInPlay(const MeshDims& d) { return d.ep > 1 || d.etp != d.tp; }

MinGpusResult ComputeMinGpus(const MeshDims& d) {
  MinGpusResult r;
  r.dense_mesh = d.tp * d.cp;
  if (!ExpertMeshInPlay(d)) {
    // EP = 1, ETP = TP: the expert mesh is the dense TP group, nothing to fold.
    r.min_gpus = d.pp * r.dense_mesh;
    r.naive_product = r.min_gpus;
    r.step = r.min_gpus;
    r.reasons.push_back(absl::StrCat("Each pipeline stage needs TP*CP = ", d.tp, "*", d.cp, " = ", r.dense_mesh,
                                     " GPUs; PP=", d.pp, " stages -> ", r.min_gpus, " GPUs."));
    r.reasons.push_back(absl::StrCat("Valid world sizes are multiples of ", r.step, "."));
    return r;
  }
  r.expert_mesh = d.ep * d.etp;
  r.min_gpus = d.pp * Lcm(r.dense_mesh, r.expert_mesh);
  r.naive_product = d.tp * d.pp * d.cp * d.ep * d.etp;
  r.step = r.min_gpus;
  r.reasons.push_back(absl::StrCat("Each pipeline stage needs lcm(TP*CP, EP*ETP) = lcm(", d.tp, "*", d.cp, ", ", d.ep,
                                   "*", d.etp, ") = ", Lcm(r.dense_mesh, r.expert_mesh), " GPUs; PP=", d.pp,
                                   " stages -> ", r.min_gpus, " GPUs."));
  if (r.expert_mesh > 1 && r.naive_product != r.min_gpus) {
    r.reasons.push_back(
        absl::StrCat("The product of all dimensions (", r.naive_product, ") is wrong: the dense TP*CP=", r.dense_mesh,
                     " mesh and the expert EP*ETP=", r.expert_mesh,
                     " mesh are two foldings of the same GPUs of a stage (MoE parallel folding); only PP "
                     "stages are disjoint."));
  }
  if (r.dense_mesh != r.expert_mesh && r.expert_mesh > 1) {
    const bool dense_larger = r.dense_mesh > r.expert_mesh;
    r.reasons.push_back(absl::StrCat(
        "At the minimum the larger mesh (", dense_larger ? "TP*CP" : "EP*ETP", ") has ", dense_larger ? "DP" : "EDP",
        "=1 and the smaller absorbs the slack: ", dense_larger ? "EDP" : "DP", "=",
        dense_larger ? r.min_gpus / (d.pp * r.expert_mesh) : r.min_gpus / (d.pp * r.dense_mesh), "."));
  }
  if (Gcd(r.dense_mesh, r.expert_mesh) != r.dense_mesh && Gcd(r.dense_mesh, r.expert_mesh) != r.expert_mesh) {
    r.reasons.push_back(absl::StrCat("Neither mesh divides the other, so the stage size is their lcm (",
                                     Lcm(r.dense_mesh, r.expert_mesh), "), not their max."));
  }
  r.reasons.push_back(absl::StrCat("Valid world sizes are multiples of ", r.step, "."));
  return r;
}

WorldSizing SizeWorld(const MeshDims& d, int64_t gpus, int64_t gpus_per_node, int64_t gbs, int64_t mbs) {
  WorldSizing w;
  w.gpus = gpus;
  w.gpus_per_node = gpus_per_node;
  const int64_t dense = d.tp * d.pp * d.cp;
  const int64_t expert = d.pp * d.ep * d.etp;
  bool ok = gpus > 0;
  if (gpus % dense == 0) {
    w.dp = gpus / dense;
  } else {
    ok = false;
    w.problems.push_back(
        absl::StrCat(gpus, " GPUs is not divisible by TP*PP*CP = ", d.tp, "*", d.pp, "*", d.cp, " = ", dense));
  }
  if (gpus % expert == 0) {
    w.edp = gpus / expert;
  } else {
    ok = false;
    w.problems.push_back(
        absl::StrCat(gpus, " GPUs is not divisible by PP*EP*ETP = ", d.pp, "*", d.ep, "*", d.etp, " = ", expert));
  }
  if (gbs > 0 && w.dp > 0) {
    const int64_t per_step = mbs * w.dp;
    if (gbs % per_step == 0) {
      w.microbatches = gbs / per_step;
    } else {
      ok = false;
      w.problems.push_back(
          absl::StrCat("GBS ", gbs, " is not divisible by MBS*DP = ", mbs, "*", w.dp, " = ", per_step));
    }
  }
  if (gpus_per_node > 0) {
    w.nodes = (gpus + gpus_per_node - 1) / gpus_per_node;
    w.partial_node = gpus % gpus_per_node != 0;
  }
  w.valid = ok;
  return w;
}

std::vector<int64_t> NextValidWorldSizes(const MeshDims& d, int64_t at_least, int count, int64_t gbs, int64_t mbs) {
  std::vector<int64_t> out;
  const int64_t step = ComputeMinGpus(d).step;
  int64_t k = at_least <= step ? 1 : (at_least + step - 1) / step;
  for (int scanned = 0; scanned < 100000 && static_cast<int>(out.size()) < count; ++scanned, ++k) {
    if (k > std::numeric_limits<int64_t>::max() / step) break;  // no overflow for huge meshes
    const int64_t w = k * step;
    if (gbs > 0) {
      const int64_t dp = w / (d.tp * d.pp * d.cp);
      if (gbs % (mbs * dp) != 0) {
        if (mbs * dp > gbs) break;  // larger worlds only make DP bigger
        continue;
      }
    }
    out.push_back(w);
  }
  return out;
}

}  // namespace parplan
