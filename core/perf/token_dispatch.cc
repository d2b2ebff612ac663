#include "core/perf/token_dispatch.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "core/perf/collectives.h"
#include "core/perf/perf_model.h"

namespace parplan {
namespace {

constexpr double kTokenBytes = 2;  // hidden states are dispatched in bf16 (MCore passes them as they are)
// DeepEP's normal kernels: at most 8 NVLink peers form a "node" (NUM_MAX_NVL_PEERS,
// DeepEP csrc/legacy/config.hpp), 20 SMs unless moe_flex_dispatcher_num_sms says
// otherwise (token_dispatcher.py:1287-1291; DeepEP deep_ep/buffers/legacy.py:31).
constexpr double kDeepEpPeers = 8;
constexpr double kDeepEpSms = 20;
// HybridEP: 24 SMs for dispatch / combine inside one NVLink domain, 8 across
// domains (DeepEP hybrid-ep csrc/hybrid_ep/config.cuh:365-367).
constexpr double kHybridEpSmsOneDomain = 24;
constexpr double kHybridEpSmsAcross = 8;

// One dispatch that sends each token once per destination block (DeepEP
// node, HybridEP NVLink domain) and forwards it inside the block over
// NVLink to the GPUs holding its experts.
void Deduplicated(const ModelSpec& m, double local_tokens, double group, double block, Link far, const SystemSpec& s,
                  const PerfParams& P, DispatchCost* out) {
  const double experts = static_cast<double>(m.num_moe_experts);
  const double topk = static_cast<double>(m.moe_router_topk);
  const double h = static_cast<double>(m.hidden_size) * kTokenBytes;
  block = std::clamp(block, 1.0, group);
  const double blocks = std::max(1.0, group / block);
  // Each other block is hit with the same probability.
  const double remote_blocks = blocks > 1 ? ExpectedDistinctBlocks(experts, topk, blocks) * (blocks - 1) / blocks : 0;
  const double gpus_hit = ExpectedDistinctBlocks(experts, topk, group);
  out->network_bytes = local_tokens * h * remote_blocks;
  out->nvlink_bytes = local_tokens * h * gpus_hit * (block - 1) / block;
  out->copies_per_token = remote_blocks;
  const double nvlink = LinkGbytesPerSecond(s, Link::kNvlink) * P.link_efficiency * 1e9;
  const double far_rate = LinkGbytesPerSecond(s, far) * P.link_efficiency * 1e9;
  const double transfer = std::max(out->nvlink_bytes > 0 && nvlink > 0 ? out->nvlink_bytes / nvlink : 0.0,
                                   out->network_bytes > 0 && far_rate > 0 ? out->network_bytes / far_rate : 0.0);
  out->one_way_s = transfer + std::ceil(std::log2(group)) * StepLatency(blocks > 1 ? far : Link::kNvlink, P);
}

}  // namespace

DispatchKind DispatchKindOf(const ResolvedConfig& c) {
  if (c.moe_token_dispatcher_type == "allgather") return DispatchKind::kAllGather;
  if (c.moe_token_dispatcher_type != "flex") return DispatchKind::kAllToAll;
  if (c.moe_flex_dispatcher_backend == "hybridep") return DispatchKind::kHybridEp;
  if (c.moe_flex_dispatcher_backend == "ncclep") return DispatchKind::kNcclEp;
  return DispatchKind::kDeepEp;
}

const char* DispatchName(DispatchKind kind) {
  switch (kind) {
    case DispatchKind::kAllGather:
      return "allgather";
    case DispatchKind::kDeepEp:
      return "flex/deepep";
    case DispatchKind::kHybridEp:
      return "flex/hybridep";
    case DispatchKind::kNcclEp:
      return "flex/ncclep";
    default:
      return "alltoall";
  }
}

double ExpectedDistinctBlocks(double experts, double topk, double blocks) {
  if (blocks <= 1 || experts <= 0 || topk <= 0) return 1;
  const double per_block = experts / blocks;
  // Probability that none of the k experts (drawn without replacement) is in a given block.
  double none = 1;
  for (int i = 0; i < static_cast<int>(topk); ++i) {
    const double left = experts - per_block - i;
    if (left <= 0) {
      none = 0;
      break;
    }
    none *= left / (experts - i);
  }
  return std::clamp(blocks * (1 - none), 1.0, std::min(topk, blocks));
}

int DispatchHostSyncs(const ModelSpec& m, const ResolvedConfig& c) {
  const DispatchKind kind = DispatchKindOf(c);
  const double local_experts = std::max(1.0, static_cast<double>(m.num_moe_experts) / std::max<int64_t>(1, c.ep));
  // Every dropless path waits once per layer (token_dispatcher.py); the
  // all-to-all again before its second permutation when the counts per local
  // expert stay on the host (no permute fusion, :452-470, 611-615); Bridge
  // pads eager HybridEP inputs with an all-reduce and .item() when no CUDA
  // graph runs (Bridge models/transformer_config.py
  // _enable_safe_hybridep_dispatch -> token_dispatcher.py:1073-1083).
  // DeepEP's receive counts are busy-waited, and the conversion of its
  // dispatched indices to a multihot map indexes with boolean masks three
  // times (token_dispatcher.py:1358-1364; the fused conversion is behind
  // Megatron's experimental flag, :1425).
  int syncs = 1;
  if (kind == DispatchKind::kDeepEp && c.ep * c.etp > 1) syncs += 3;
  if (kind == DispatchKind::kAllToAll && c.ep > 1 && local_experts > 1 && !c.moe_permute_fusion) ++syncs;
  if (kind == DispatchKind::kHybridEp && c.ep * c.etp > 1 && c.cuda_graph_impl == "none") ++syncs;
  return syncs;
}

DispatchCost DispatchCostOf(const ModelSpec& m, const ResolvedConfig& c, double local_tokens, const GroupSpread& ep,
                            const SystemSpec& s, const PerfParams& P, int sm_count) {
  DispatchCost out;
  out.kind = DispatchKindOf(c);
  out.host_syncs = DispatchHostSyncs(m, c);
  const double experts = static_cast<double>(m.num_moe_experts);
  const double group = static_cast<double>(ep.size) * static_cast<double>(std::max<int64_t>(1, c.etp));
  if (ep.size * std::max<int64_t>(1, c.etp) <= 1) return out;
  const double h = static_cast<double>(m.hidden_size) * kTokenBytes;
  const double topk = static_cast<double>(m.moe_router_topk);
  const double domain_local = std::clamp(static_cast<double>(ep.domain_local), 1.0, static_cast<double>(ep.size));
  const Link far = LinkOfGroup(s, ep);
  switch (out.kind) {
    case DispatchKind::kAllToAll:
    case DispatchKind::kNcclEp: {
      const double pairs = local_tokens * topk;
      out.one_way_s = AllToAllSeconds(pairs * h, ep, s, P);
      const double n = static_cast<double>(ep.size);
      out.network_bytes = far == Link::kNvlink ? 0 : pairs * h * (n - domain_local) / n;
      out.nvlink_bytes = pairs * h * (domain_local - 1) / n;
      out.copies_per_token = far == Link::kNvlink ? 0 : topk * (n - domain_local) / n;
      break;
    }
    case DispatchKind::kAllGather: {
      // Hidden states, their probabilities (fp32) and routing map (bool) over
      // all experts, gathered over expert-TP x EP (token_dispatcher.py:285-301);
      // the combine reduce-scatters the hidden states back.
      const double per_token = h + experts * 5.0;
      out.one_way_s = RingCollectiveSeconds(group * local_tokens * per_token, ep, s, P);
      // A domain receives the tokens of the group's other domains once,
      // through its members' NICs; the ring forwards the rest over NVLink.
      const double moved = (group - 1) * local_tokens * per_token;
      out.network_bytes = far == Link::kNvlink ? 0 : (group - domain_local) / domain_local * local_tokens * per_token;
      out.nvlink_bytes = moved - out.network_bytes;
      out.copies_per_token = far == Link::kNvlink ? 0 : (group - domain_local) / domain_local;
      break;
    }
    case DispatchKind::kDeepEp:
      // Blocks of at most 8 NVLink peers; between blocks RDMA through the
      // NICs, even inside a larger NVLink domain (why HybridEP exists).
      Deduplicated(m, local_tokens, group, std::min(kDeepEpPeers, domain_local), Link::kNetwork, s, P, &out);
      out.sm_share = kDeepEpSms / sm_count;
      break;
    case DispatchKind::kHybridEp:
      Deduplicated(m, local_tokens, group, domain_local, far, s, P, &out);
      out.sm_share = (domain_local >= group ? kHybridEpSmsOneDomain : kHybridEpSmsAcross) / sm_count;
      break;
  }
  return out;
}

PassSeconds PermuteSeconds(const ModelSpec& m, const ResolvedConfig& c, double local_tokens, const Device& d) {
  PassSeconds out;
  const DispatchKind kind = DispatchKindOf(c);
  if (kind == DispatchKind::kHybridEp && c.ep * c.etp > 1) return out;  // dispatch_with_permute (fused_a2a.py:419-435)
  const double h = static_cast<double>(m.hidden_size) * kTokenBytes;
  const double pairs = local_tokens * static_cast<double>(m.moe_router_topk);
  const double local_experts = std::max(1.0, static_cast<double>(m.num_moe_experts) / std::max<int64_t>(1, c.ep));
  // The all-to-all's output is sorted by local expert and back
  // (sort_chunks_by_idxs, token_dispatcher.py:757-788, 802-822): two copies.
  const bool sort_chunks =
      (kind == DispatchKind::kAllToAll || kind == DispatchKind::kNcclEp) && c.ep > 1 && local_experts > 1;
  const double sort_bytes = sort_chunks ? 2 * 2 * pairs * h : 0;
  if (c.moe_permute_fusion) {
    // Transformer Engine's fused permute and unpermute (moe_utils.py:344-420,
    // 497-560): read the tokens, write the copies, and back.
    const double bytes = 2 * (local_tokens + pairs) * h;
    out.forward = StreamSeconds(bytes, d, 2) + (sort_chunks ? StreamSeconds(sort_bytes, d, 2) : 0.0);
    out.backward = out.forward;
    return out;
  }
  // Unfused (PyTorch): the permutation gathers the copies (index_select)
  // after sorting the routing map; the unpermutation scatter-adds them back
  // weighted by the router; each one's backward is the other's pattern.
  const double gather = StreamSeconds(2 * pairs * h, d);
  const double scatter =
      3 * pairs * h / (d.hbm_peak_bytes_per_s * d.rates.scatter_efficiency) + d.rates.elementwise_launch_us * 1e-6;
  const double sort = d.rates.route_sort_us * 1e-6;
  const double chunks = sort_chunks ? StreamSeconds(sort_bytes, d, 2) : 0.0;
  out.forward = gather + sort + scatter + chunks;
  out.backward = scatter + gather + chunks;
  return out;
}

std::string DescribeDispatch(const DispatchCost& cost, const ResolvedConfig& c, int sm_count) {
  std::string sent;
  switch (cost.kind) {
    case DispatchKind::kAllGather:
      sent = absl::StrFormat("every token of the %d-GPU expert group gathered to every GPU, once per domain",
                             static_cast<int>(c.ep * c.etp));
      break;
    case DispatchKind::kDeepEp:
    case DispatchKind::kHybridEp:
      sent = absl::StrFormat("one copy of a token per destination %s, on %.0f of the %d SMs while it runs",
                             cost.kind == DispatchKind::kDeepEp ? "block of up to 8 NVLink peers (RDMA between blocks)"
                                                                : "NVLink domain (RDMA between domains)",
                             cost.sm_share * sm_count, sm_count);
      break;
    default:
      sent = "every routed (token, expert) copy sent on its own";
      break;
  }
  return absl::StrFormat(
      "MoE dispatch %s%s: %s; %.2f copies of each token leave its %s (%.1f MB per GPU per dispatch), %.1f MB over "
      "NVLink; permutation %s; the host waits on the token counts %d time%s per MoE layer.",
      DispatchName(cost.kind), c.dispatcher_defaulted ? " (Megatron Bridge default)" : "", sent, cost.copies_per_token,
      cost.kind == DispatchKind::kDeepEp ? "block" : "NVLink domain", cost.network_bytes / 1e6, cost.nvlink_bytes / 1e6,
      cost.kind == DispatchKind::kHybridEp ? "fused into the transfer"
      : c.moe_permute_fusion               ? "fused (Transformer Engine)"
                                           : "unfused (PyTorch gather and scatter-add, measured rates)",
      cost.host_syncs, cost.host_syncs == 1 ? "" : "s");
}

}  // namespace parplan
