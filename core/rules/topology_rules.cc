// Topology and hardware rules: groups that leave the NVLink domain or a
// node, and precisions the GPU cannot run.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/layout/rank_layout.h"
#include "core/rules/rule_context.h"
#include "core/system/links.h"

namespace parplan {
namespace {

// "NVLink 450 GB/s vs the network (50 GB/s per GPU): that traffic runs ~9x
// slower", for a group of `span` consecutive ranks that leaves the NVLink
// domain (over PCIe when it stays on one host of a PCIe system). A group no
// wider than the domain that straddles two of them crosses it too.
std::string CostPhrase(const ResolvedPlacement& p, int64_t span) {
  if (!p.system.has_value()) return "traffic leaves NVLink for the scale-out network";
  const SystemSpec& s = *p.system;
  const Link link = LinkLeavingDomain(s, span);
  const double slow = LinkGbytesPerSecond(s, link);
  if (s.nvlink_gbps_unidirectional <= 0 || s.nvlink_domain_size <= 1) {
    return absl::StrCat("these GPUs have no NVLink peers: that traffic runs over ", DescribeLink(s, link));
  }
  if (link == Link::kNetwork && s.scaleout_gbps_per_gpu <= 0) {
    return absl::StrFormat("traffic leaves NVLink (%.0f GB/s per GPU) for the scale-out network",
                           s.nvlink_gbps_unidirectional);
  }
  return absl::StrFormat("NVLink %.0f GB/s vs %s: that traffic runs ~%.0fx slower", s.nvlink_gbps_unidirectional,
                         DescribeLink(s, link), s.nvlink_gbps_unidirectional / slow);
}

// "NVLink domains of 72 GPUs", or "NVLink domains (64 of each 72 GPUs
// used)" when the job fills part of each domain.
std::string DomainPhrase(int64_t domain, int64_t used) {
  if (used == domain) return absl::StrCat("NVLink domains of ", domain, " GPUs");
  return absl::StrCat("NVLink domains (", used, " of each ", domain, " GPUs used)");
}

// The largest GPUs-per-domain below the domain that is a whole number of
// hosts and of `span`-rank groups, so groups of `span` never straddle a
// domain; 0 when none (or the domain is one host).
int64_t AligningUse(int64_t domain, int64_t node, int64_t span) {
  if (domain <= node || span <= 1 || span > domain) return 0;
  const int64_t unit = std::lcm(span, node);
  const int64_t used = domain / unit * unit;
  return used > 0 && used < domain ? used : 0;
}

}  // namespace

void CheckTopologyRules(const RuleContext& ctx) {
  const auto& p = ctx.in.placement;
  const MeshDims& d = ctx.dims;
  if (p.gpus_per_node <= 0 || p.nvlink_domain_size <= 0) {
    ctx.Add("topology.unknown", {"system", "gpus_per_node"}, "no system or node size: NVLink and node checks skipped",
            "pass a system (e.g. h100-sxm)");
    return;
  }
  // Blocks of consecutive ranks: the used GPUs of each domain
  // (core/system/racks.h), the same blocks the performance model charges.
  const int64_t full_domain = p.nvlink_domain_size;
  const int64_t domain = p.gpus_per_nvlink_domain > 0 ? p.gpus_per_nvlink_domain : full_domain;
  const int64_t node = full_domain == p.gpus_per_node ? domain : p.gpus_per_node;
  // Judge the given world when it is valid, else the smallest valid one.
  const int64_t world =
      (ctx.world.has_value() && ctx.world->dp > 0 && ctx.world->edp > 0) ? ctx.world->gpus : ComputeMinGpus(d).min_gpus;
  if (world > kMaxGpus) {
    ctx.Add("topology.unknown", {"gpus"},
            absl::StrCat("the smallest valid world (", world, " GPUs) exceeds ", kMaxGpus, ": topology checks skipped"),
            "use smaller parallel dimensions");
    return;
  }
  const RankLayout layout(d, world);
  const int64_t tp_cross = layout.CountCrossing(GroupKind::kTp, domain);
  if (d.tp > 1 && tp_cross > 0) {
    ctx.Add("topology.tp_crosses_nvlink", {"tp", "system"},
            absl::StrCat(tp_cross, " of ", layout.GroupCount(GroupKind::kTp), " TP groups (size ", d.tp, ") span ",
                         DomainPhrase(full_domain, domain), "; ", CostPhrase(p, d.tp)),
            domain <= 1 ? std::string("these GPUs have no NVLink peers: prefer TP=1 and split the model with PP, "
                                      "FSDP or DP, whose traffic is lighter")
                        : absl::StrCat("keep TP <= ", domain, " and a divisor of it; cross domains with PP or DP"));
  } else if (d.tp > 1 && node < domain && layout.CountCrossing(GroupKind::kTp, node) > 0) {
    ctx.Add("topology.tp_crosses_node", {"tp"},
            absl::StrCat("TP=", d.tp, " spans hosts of ", node, " GPUs but stays inside the ", full_domain,
                         "-GPU NVLink domain"),
            "fine on NVL72 (multi-node NVLink); keep TP within the rack");
  }
  if (d.cp > 1 && tp_cross == 0) {
    const int64_t cp_cross = layout.CountCrossing(GroupKind::kCp, domain);
    if (cp_cross > 0) {
      ctx.Add("topology.cp_crosses_nvlink", {"cp", "tp", "system"},
              absl::StrCat("TP*CP = ", d.tp * d.cp, " exceeds or straddles the ", DomainPhrase(full_domain, domain),
                           ": ", cp_cross, " CP groups cross it; ", CostPhrase(p, d.tp * d.cp)),
              "use cp_comm_type a2a+p2p (hierarchical CP) or keep TP*CP within the domain");
    }
  }
  if (d.ep * d.etp > 1) {
    const int64_t ep_cross = layout.CountCrossing(GroupKind::kEp, domain);
    if (ep_cross > 0) {
      const int64_t aligning = AligningUse(full_domain, p.gpus_per_node, d.ep * d.etp);
      ctx.Add("topology.ep_crosses_nvlink", {"ep", "etp", "system", "gpus_per_nvlink_domain"},
              absl::StrCat(ep_cross, " of ", layout.GroupCount(GroupKind::kEp), " EP groups (EP*ETP = ", d.ep * d.etp,
                           ") span ", DomainPhrase(full_domain, domain), ": the token all-to-all leaves NVLink; ",
                           CostPhrase(p, d.ep * d.etp)),
              aligning > 0 && aligning != domain
                  ? absl::StrCat("use ", aligning, " GPUs of each NVLink domain (gpus_per_nvlink_domain ", aligning,
                                 ": whole EP groups per domain, as NVL72 jobs using 64 of 72 GPUs do), keep EP*ETP <= ",
                                 domain, ", or use a DeepEP/HybridEP flex dispatcher")
                  : absl::StrCat("keep EP*ETP <= ", domain,
                                 " where the model allows, or use a DeepEP/HybridEP flex dispatcher"));
    }
  }
  if (ctx.world.has_value() && ctx.world->partial_node) {
    ctx.Add("topology.partial_node", {"gpus", "gpus_per_node"},
            absl::StrCat(ctx.world->gpus, " GPUs is not a whole number of ", node, "-GPU nodes"),
            absl::StrCat("use a multiple of ", node, " GPUs to avoid sharing a node"));
  }
}

void CheckPrecisionRules(const RuleContext& ctx) {
  const auto& p = ctx.in.placement;
  if (!p.system.has_value()) return;
  const SystemSpec& s = *p.system;
  const Precision prec = ctx.in.config.precision;
  const auto& c = ctx.in.config;
  // megatron/training/arguments.py:1458: before Blackwell, TP/CP overlap wants
  // CUDA_DEVICE_MAX_CONNECTIONS=1 and Megatron FSDP wants it unset.
  if (c.fsdp && (c.tp > 1 || c.cp > 1) && s.gpu_arch != "blackwell") {
    ctx.Add("fsdp.tp_cp_device_connections", {"use_megatron_fsdp", "tp", "cp"},
            absl::StrCat("Megatron FSDP with TP=", c.tp, " CP=", c.cp, " on ", s.gpu_arch,
                         ": they want different CUDA_DEVICE_MAX_CONNECTIONS settings (Megatron-LM warns)"),
            "prefer FSDP with TP=CP=1 before Blackwell, or the distributed optimizer with TP/CP");
  }
  // Bridge training/config.py:1100 turns reuse_grad_buf_for_mxfp8_param_ag
  // off under Megatron FSDP; megatron/core/optimizer/optimizer_config.py:420
  // warns that the MXFP8 parameter all-gather then needs its own buffer.
  if (c.fsdp && prec == Precision::kFp8Mx) {
    ctx.Add("precision.mxfp8_param_ag_memory", {"precision", "use_megatron_fsdp"},
            "MXFP8 under Megatron FSDP: the gradient buffer is not reused for the MXFP8 parameter all-gather, which "
            "takes extra memory",
            "expected with FSDP; use the distributed optimizer to reuse the buffer");
  }
  if (IsFp8(prec) && s.fp8_dense_tflops <= 0) {
    ctx.Add("precision.fp8_unsupported", {"precision", "system"},
            absl::StrCat(PrecisionName(prec), " on ", s.id, ": ", s.gpu_arch, " GPUs have no FP8 tensor cores"),
            "use bf16 on this system");
  }
  if ((prec == Precision::kFp8Mx || IsFp4(prec)) && s.gpu_arch != "blackwell") {
    ctx.Add("precision.needs_blackwell", {"precision", "system"},
            absl::StrCat(PrecisionName(prec), " needs Blackwell block-scaled tensor cores; ", s.id, " is ", s.gpu_arch),
            IsFp8(prec) ? "use fp8-cs (current scaling) or fp8-sc (blockwise) on Hopper"
                        : "use fp8-cs or bf16 on this system");
  }
}

}  // namespace parplan
