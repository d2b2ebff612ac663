#include "core/perf/host_launches.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/perf/context_parallel.h"
#include "core/perf/token_dispatch.h"

namespace parplan {

// Kernels of one input quantization per GEMM and pass: current scaling
// zeroes and reduces the amax, computes the scale and casts (4; Transformer
// Engine csrc/quantizer.cpp, common/recipe/current_scaling.cu); NVFP4 needs
// the amax for its global scale (2); block-scaled MXFP8 / FP8 blockwise and
// delayed scaling cast in one kernel (1).
double QuantizeKernels(Precision p) {
  switch (p) {
    case Precision::kBf16:
      return 0;
    case Precision::kFp8Cs:
      return 4;
    case Precision::kNvfp4:
      return 2;
    default:
      return 1;
  }
}

double MlaRopeLaunches(const ResolvedConfig& c) { return c.apply_rope_fusion ? 2 : 2 * 12 + 3; }

namespace {

bool HasModule(const ResolvedConfig& c, const char* module) {
  const auto& g = c.cuda_graph_modules;
  return std::find(g.begin(), g.end(), module) != g.end();
}

RegionLaunches Region(HostRegion region, const char* name, double forward, double backward, double replay_forward,
                      double replay_backward, const ResolvedConfig& c) {
  RegionLaunches r;
  r.region = region;
  r.name = name;
  r.forward = forward;
  r.backward = backward;
  r.captured = GraphCaptures(c, region);
  // A full-iteration graph replays the whole step with one launch.
  const bool whole_iteration = c.cuda_graph_impl == "full_iteration";
  r.replay_forward = whole_iteration ? 0 : replay_forward;
  r.replay_backward = whole_iteration ? 0 : replay_backward;
  return r;
}

// The host work Transformer Engine's context-parallel attention adds to one
// call (TransformerEngine 4329ff84 dot_product_attention/context_parallel.py),
// counted from the source, +-2:
//  - p2p (AttnFuncWithCPAndKVP2P): per ring step beyond the first, forward
//    the send/recv, the half chunk made contiguous, the attention, the
//    softmax-LSE correction (3) and the output correction (3); backward the
//    send/recv of K/V and dK/dV, the contiguous half, the attention, the dQ
//    and dK/dV accumulations (3); per call 4 each way (load-balance cat,
//    output init, final reshape, LSE layout).
//  - a2a (AttnFuncWithCPAndQKVOA2A): per tensor a layout copy, the
//    all-to-all and the copy back: Q, K, V then O forward (12), dO then dQ,
//    dK, dV backward (12).
//  - all_gather (AttnFuncWithCPAndKVAllGather): the K/V all-gather and its
//    chunk reorder (3), the second query chunk's attention (1), plus 1;
//    backward the gather again, both chunks' attention, dK/dV accumulation
//    and the reduce-scatter (8).
}  // namespace

CpLaunches CpAttentionLaunches(const ResolvedConfig& c) {
  CpLaunches l;
  if (c.cp <= 1) return l;
  const CpShape shape = CpShapeOf(c);
  if (shape.a2a > 1) {
    l.forward += 12;
    l.backward += 12;
  }
  if (shape.ring > 1) {
    l.forward += 4 + 9.0 * (shape.ring - 1);
    l.backward += 4 + 6.0 * (shape.ring - 1);
  }
  if (shape.gather > 1) {
    l.forward += 5;
    l.backward += 8;
  }
  return l;
}

CapturingGraph GraphOf(const ResolvedConfig& c, HostRegion region) {
  if (c.cuda_graph_impl == "full_iteration") return CapturingGraph::kFullIteration;
  if (c.cuda_graph_impl != "local" && c.cuda_graph_impl != "transformer_engine") return CapturingGraph::kNone;
  // An empty module list (or the deprecated "full") graphs every layer
  // (cuda_graphs.py:2143-2145); a dropless MoE layer's dispatch still runs
  // outside (its shapes depend on the routing).
  const bool whole_layer = c.cuda_graph_modules.empty() || HasModule(c, "full");
  // The local implementation adds moe_preprocess to moe_router and the
  // reverse (transformer_config.py:2807-2815); transformer_engine refuses
  // moe_preprocess without moe_router (:2821, rule
  // cuda_graph.moe_preprocess_needs_router).
  const bool local = c.cuda_graph_impl == "local";
  const bool router = HasModule(c, "moe_router") || (local && HasModule(c, "moe_preprocess"));
  const bool preprocess = HasModule(c, "moe_preprocess") || (local && HasModule(c, "moe_router"));
  auto scoped = [whole_layer](bool in_scope, CapturingGraph graph) {
    return whole_layer ? CapturingGraph::kLayer : in_scope ? graph : CapturingGraph::kNone;
  };
  switch (region) {
    case HostRegion::kAttention:
      return scoped(HasModule(c, "attn"), CapturingGraph::kAttn);
    case HostRegion::kDenseMlp:
      return scoped(HasModule(c, "mlp"), CapturingGraph::kMlp);
    case HostRegion::kMamba:
      return scoped(HasModule(c, "mamba"), CapturingGraph::kMamba);
    case HostRegion::kMoeRouter:
      if (HasModule(c, "moe")) return CapturingGraph::kMoe;
      return scoped(router, CapturingGraph::kMoeRouter);
    case HostRegion::kMoePreprocess:
      if (HasModule(c, "moe")) return CapturingGraph::kMoe;
      return scoped(preprocess, CapturingGraph::kMoeRouter);
    case HostRegion::kMoeDispatch:
      // Drop-and-pad only (transformer_config.py:2838-2844).
      return HasModule(c, "moe") ? CapturingGraph::kMoe : CapturingGraph::kNone;
    case HostRegion::kMtp:
      return whole_layer ? CapturingGraph::kLayer : CapturingGraph::kNone;
  }
  return CapturingGraph::kNone;
}

bool GraphCaptures(const ResolvedConfig& c, HostRegion region) { return GraphOf(c, region) != CapturingGraph::kNone; }

std::vector<HostRegion> LayerRegions(LayerKind kind, bool mtp) {
  std::vector<HostRegion> out;
  if (HasAttention(kind)) out.push_back(HostRegion::kAttention);
  if (HasDenseMlp(kind)) out.push_back(HostRegion::kDenseMlp);
  if (kind == LayerKind::kMamba) out.push_back(HostRegion::kMamba);
  if (HasMoe(kind)) {
    out.push_back(HostRegion::kMoeRouter);
    out.push_back(HostRegion::kMoePreprocess);
    out.push_back(HostRegion::kMoeDispatch);
  }
  if (mtp) out.push_back(HostRegion::kMtp);
  return out;
}

std::vector<RegionLaunches> LayerLaunches(const ModelSpec& m, const ResolvedConfig& c, LayerKind kind, bool mtp) {
  std::vector<RegionLaunches> out;
  const double q = QuantizeKernels(c.precision);
  const DispatchKind dispatcher = DispatchKindOf(c);
  const bool flex = dispatcher == DispatchKind::kDeepEp || dispatcher == DispatchKind::kHybridEp;
  for (const HostRegion region : LayerRegions(kind, mtp)) {
    switch (region) {
      case HostRegion::kAttention: {
        // GQA with q/k norms: 11 launches besides its 2 GEMMs forward, 16
        // backward (norm, split copies, q/k norms, RoPE, cuDNN attention and its
        // philox seed, bias-dropout-add, residual and norm-weight grad adds);
        // each GEMM 1 forward, 2 backward, and a quantization per pass. MLA runs
        // q-down, q-up, kv-down, kv-up and the output projection (4 without q
        // LoRA). Replay: launch, attention mask, input copies; backward launch,
        // grad copy, 3 norm-weight adds, 5 returned-gradient clones.
        // MLA adds its RoPE and Q/K/V assembly (MlaRopeLaunches) each way.
        const double gemms = m.multi_latent_attention ? (m.q_lora_rank > 0 ? 5 : 4) : 2;
        const double rope = m.multi_latent_attention ? MlaRopeLaunches(c) : 0;
        const CpLaunches cp = CpAttentionLaunches(c);
        out.push_back(Region(region, "attention", 11 + gemms * (1 + q) + rope + cp.forward,
                             16 + gemms * (2 + q) + rope + cp.backward, 5, 10, c));
        break;
      }
      case HostRegion::kDenseMlp:
        // Norm+fc1, activation, fc2, bias-dropout-add: 5 forward, 9 backward.
        out.push_back(Region(region, "mlp", 5 + 2 * q, 9 + 2 * q, 2, 6, c));
        break;
      case HostRegion::kMamba:
        // Not counted line by line: in_proj with its norm, conv1d, the gated
        // norm, out_proj and the residual add, as the dense MLP's launches plus
        // the conv1d and the gated norm.
        out.push_back(Region(region, "mamba", 7 + 2 * q, 12 + 2 * q, 2, 6, c));
        break;
      case HostRegion::kMoeRouter: {
        // Norm, gating GEMM (bf16), fused top-k, aux-loss score, counts, fused
        // aux loss, metrics: 10 forward (+2 for forced load balancing's random
        // logits), 14 backward. Shared experts not overlapped run inside it.
        double router_f = 10 + (c.moe_router_force_load_balancing ? 2 : 0);
        double router_b = 14;
        if (m.moe_shared_expert_intermediate_size > 0) {
          router_f += 3 + 2 * q;
          router_b += 6 + 2 * q;
        }
        // The router and preprocess graph replays as one: launch and an input
        // copy; backward launch, 3 grad copies, 2 weight-grad adds, 2 clones.
        const bool preprocess_graphed = GraphCaptures(c, HostRegion::kMoePreprocess);
        out.push_back(Region(region, "moe_router", router_f, router_b, 2, preprocess_graphed ? 4 : 8, c));
        break;
      }
      case HostRegion::kMoePreprocess: {
        // alltoall: counts, splits, the counts' all-gather, sums and the fused
        // permute's 4 kernels (11), its backward unpermute (1). Flex does its
        // permutation inside the dispatch (HybridEP) or after it (DeepEP).
        // The drop-and-pad 'moe' scope replays the whole block as one graph:
        // launch and input copy forward; backward launch, grad copies, weight-grad
        // adds and ~34 returned-gradient clones (the experts' dummy wgrads).
        const bool whole_moe = GraphOf(c, region) == CapturingGraph::kMoe;
        out.push_back(Region(region, "moe_preprocess", flex ? 2 : 11, flex ? 0 : 1, 0, whole_moe ? 0 : 4, c));
        break;
      }
      case HostRegion::kMoeDispatch: {
        // Uncaptured remainder besides the experts. alltoall: 2 all-to-alls,
        // 4 device-to-host copies, chunk sort, un-sort, combine, unpermute and
        // residual add (14 forward, 6 backward). HybridEP: probabilities cast,
        // routing-map gather, metadata, staging copies, dispatch, combine (~12
        // each way). DeepEP: top-k, layout, notify and dispatch, the multihot
        // conversion (~10 small ops), the fused permute, combine (~23 forward,
        // ~12 backward).
        double dispatch_f = 14, dispatch_b = 6;
        if (dispatcher == DispatchKind::kHybridEp) dispatch_f = dispatch_b = 12;
        if (dispatcher == DispatchKind::kDeepEp) dispatch_f = 23, dispatch_b = 12;
        if (c.ep * c.etp <= 1) dispatch_f = 4, dispatch_b = 2;  // no exchange: permute and unpermute only
        out.push_back(Region(region, "moe_dispatch", dispatch_f, dispatch_b, 0, 30, c));
        break;
      }
      case HostRegion::kMtp:
        // Two norms, the concatenation and the 2h -> h projection.
        out.push_back(Region(region, "mtp", 4 + q, 6 + q, 2, 4, c));
        break;
    }
  }
  return out;
}

double IssuedLaunches(const std::vector<RegionLaunches>& regions) {
  double total = 0;
  for (const RegionLaunches& r : regions) total += r.Issued();
  return total;
}

std::string DescribeLaunches(const std::vector<RegionLaunches>& regions) {
  std::vector<std::string> parts;
  for (const RegionLaunches& r : regions) {
    parts.push_back(r.captured ? absl::StrFormat("%s %.0f (graphed: %.0f for the replay)", r.name,
                                                 r.forward + r.backward, r.Issued())
                               : absl::StrFormat("%s %.0f", r.name, r.forward + r.backward));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace parplan
