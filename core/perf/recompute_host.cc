#include "core/perf/recompute_host.h"

#include "core/model/norm_modules.h"
#include "core/perf/host_launches.h"

namespace parplan {
namespace {

// Forward launches of the MoE regions `c`'s graphs leave eager.
double EagerMoeForwardLaunches(const ModelSpec& m, const ResolvedConfig& c, LayerKind kind) {
  double launches = 0;
  for (const RegionLaunches& r : LayerLaunches(m, c, kind, false)) {
    const bool moe_region = r.region == HostRegion::kMoeRouter || r.region == HostRegion::kMoePreprocess ||
                            r.region == HostRegion::kMoeDispatch;
    if (moe_region && !r.captured) launches += r.forward;
  }
  return launches;
}

}  // namespace

RecomputeHost SelectiveRecomputeHost(const ModelSpec& m, const ResolvedConfig& c, LayerKind kind) {
  RecomputeHost h;
  if (c.recompute != RecomputeGranularity::kSelective) return h;
  const double q = QuantizeKernels(c.precision);
  auto add = [&h](double launches, double checkpoints, double te_norms = 0, double te_attention = 0) {
    h.launches += launches;
    h.checkpoints += checkpoints;
    h.te_norm_calls += te_norms;
    h.te_attention_calls += te_attention;
  };
  const bool attention_eager = !GraphCaptures(c, HostRegion::kAttention);
  if (HasAttention(kind) && attention_eager) {
    if (c.Recomputes("core_attn")) {
      if (c.unfused_attention) {
        add(3, 1);
      } else {
        add(2 + CpAttentionLaunches(c).forward, 1, 0, 1);
      }
    }
    if (c.Recomputes("mla_up_proj") && m.multi_latent_attention) add(2 * (1 + q) + MlaRopeLaunches(c), 1);
    if (c.Recomputes("layernorm") && SeparateAttentionNorm(m, kind)) add(1, 1, 1);
  }
  if (HasDenseMlp(kind) && c.Recomputes("mlp") && !GraphCaptures(c, HostRegion::kDenseMlp)) add(5 + 2 * q, 1);
  if (HasMoe(kind)) {
    const bool router_eager = !GraphCaptures(c, HostRegion::kMoeRouter);
    const bool experts_eager = !GraphCaptures(c, HostRegion::kMoeDispatch);
    if (c.Recomputes("moe")) {
      const double launches = EagerMoeForwardLaunches(m, c, kind);
      if (launches > 0 || experts_eager) {
        add(launches, 1);
        h.moe_launches += launches;
      }
    } else {
      if (c.Recomputes("moe_act") && experts_eager) add(3, 1);
      if (c.Recomputes("shared_experts") && m.moe_shared_expert_intermediate_size > 0 && router_eager) {
        add(3 + 2 * q, 1);
      }
    }
    if (c.Recomputes("layernorm") && SeparateMlpNorm(kind) && router_eager) add(1, 1, 1);
  }
  return h;
}

}  // namespace parplan
