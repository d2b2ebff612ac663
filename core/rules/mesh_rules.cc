// Mesh and batch rules: world size divisibility, batch split, microbatches
// against the pipeline schedule.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/rules/rule_context.h"

namespace parplan {

void CheckMeshRules(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  const MeshDims& d = ctx.dims;
  const MinGpusResult min = ComputeMinGpus(d);
  if (!ctx.world.has_value()) {
    ctx.Add("mesh.no_world", {"gpus"},
            absl::StrCat("no GPU count given: world-size checks skipped; this config needs a multiple of ",
                         min.min_gpus, " GPUs"),
            ExpertMeshInPlay(d) ? "pass gpus to check DP, EDP and the batch split"
                                : "pass gpus to check DP and the batch split");
    return;
  }
  const WorldSizing& w = *ctx.world;
  const int64_t dense = d.tp * d.pp * d.cp;
  const int64_t expert = d.pp * d.ep * d.etp;
  if (w.gpus % dense != 0) {
    ctx.Add("mesh.world_dense_divisible", {"gpus", "tp", "pp", "cp"},
            absl::StrCat(w.gpus, " GPUs is not divisible by TP*PP*CP = ", d.tp, "*", d.pp, "*", d.cp, " = ", dense),
            absl::StrCat("use a multiple of ", min.min_gpus, " GPUs (e.g. ", (w.gpus / min.min_gpus + 1) * min.min_gpus,
                         ") or change TP/PP/CP"));
  }
  // Without experts (EP = 1) the expert mesh PP*ETP is PP*TP, which divides
  // the world whenever the dense mesh does: the dense rule above says it all.
  const bool expert_implied = d.ep == 1 && d.etp == d.tp && w.gpus % dense != 0;
  if (w.gpus % expert != 0 && !expert_implied) {
    // An EP that fits: the largest divisor of the GPUs per PP*ETP below EP
    // (only when PP*ETP divides the world at all).
    int64_t lower_ep = 0;
    const int64_t pp_etp = std::max<int64_t>(1, d.pp * d.etp);
    if (w.gpus % pp_etp == 0) {
      for (int64_t e = d.ep - 1; e >= 1 && lower_ep == 0; --e) {
        if ((w.gpus / pp_etp) % e == 0) lower_ep = e;
      }
    }
    std::string fix = absl::StrCat("use a multiple of ", min.min_gpus, " GPUs (e.g. ",
                                   (w.gpus / min.min_gpus + 1) * min.min_gpus, ")");
    if (lower_ep > 1 || (lower_ep == 1 && d.ep > 1)) {
      absl::StrAppend(&fix, ", or lower EP to ", lower_ep, " (it divides ", w.gpus, " / (PP*ETP = ", pp_etp,
                      ") = ", w.gpus / pp_etp, ")");
    } else {
      absl::StrAppend(&fix, ", or change PP/EP/ETP so that PP*EP*ETP divides ", w.gpus);
    }
    ctx.Add("mesh.world_expert_divisible", {"gpus", "pp", "ep", "etp"},
            absl::StrCat(w.gpus, " GPUs is not divisible by PP*EP*ETP = ", d.pp, "*", d.ep, "*", d.etp, " = ", expert),
            fix);
  }
  if (min.naive_product != min.min_gpus && w.gpus == min.naive_product) {
    ctx.Add("mesh.product_sizing", {"gpus"},
            absl::StrCat(w.gpus, " GPUs equals TP*PP*CP*EP*ETP, but the minimum is ", min.min_gpus,
                         " (PP*lcm(TP*CP, EP*ETP)); this world runs with DP=", w.dp, ", EDP=", w.edp),
            absl::StrCat("fine if you want DP=", w.dp, "; otherwise ", min.min_gpus, " GPUs suffice"));
  }
  if (c.gbs > 0 && w.dp > 0) {
    if (c.gbs % (c.mbs * w.dp) != 0) {
      ctx.Add("batch.gbs_divisible", {"gbs", "mbs", "gpus"},
              absl::StrCat("GBS ", c.gbs, " is not divisible by MBS*DP = ", c.mbs, "*", w.dp, " = ", c.mbs * w.dp),
              absl::StrCat("use a GBS that is a multiple of ", c.mbs * w.dp, " (e.g. ",
                           (c.gbs / (c.mbs * w.dp) + 1) * c.mbs * w.dp, ") or change MBS/DP"));
    } else {
      const int64_t m = c.gbs / (c.mbs * w.dp);
      if (c.pp > 1 && c.vpp > 1) {
        if (m < c.pp) {
          ctx.Add("vpp.microbatches_below_pp", {"gbs", "mbs", "pp", "vpp"},
                  absl::StrCat("interleaved schedule needs at least PP=", c.pp, " microbatches, got ", m),
                  absl::StrCat("raise GBS to ", c.pp * c.mbs * w.dp, " or drop VPP"));
        } else if (m % c.pp != 0) {
          ctx.Add("vpp.microbatches_divisible", {"gbs", "mbs", "pp", "vpp"},
                  absl::StrCat(m, " microbatches is not a multiple of PP=", c.pp,
                               " (interleaved schedule groups microbatches by PP)"),
                  absl::StrCat("use a GBS giving a multiple of ", c.pp, " microbatches, e.g. ",
                               (m / c.pp + 1) * c.pp * c.mbs * w.dp));
        }
      } else if (c.pp > 1 && m < c.pp) {
        ctx.Add("batch.microbatches_below_pp", {"gbs", "mbs", "pp"},
                absl::StrCat(m, " microbatches for PP=", c.pp, " stages: the pipeline never fills, bubble fraction ",
                             (c.pp - 1) * 100 / (m + c.pp - 1), "%"),
                absl::StrCat("raise GBS to at least ", 4 * c.pp * c.mbs * w.dp, " (4x PP microbatches) or lower PP"));
      }
    }
  }
}

}  // namespace parplan
