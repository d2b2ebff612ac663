#include "core/perf/perf_model.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/memory/activation_model.h"
#include "core/model/layer_params.h"
#include "core/model/param_count.h"
#include "core/system/links.h"

namespace parplan {
namespace {

int ArchIndex(const SystemSpec& s) { return s.gpu_arch == "blackwell" ? 1 : 0; }

int PrecisionIndex(Precision p) {
  if (IsFp4(p)) return 2;
  if (IsFp8(p)) return 1;
  return 0;
}

// Achievable fraction of peak for a GEMM of `gflop` per call.
double GemmEfficiency(const PerfParams& p, int arch, int prec, double gflop) {
  return std::max(p.min_gemm_efficiency, p.gemm_efficiency[arch][prec] * gflop / (gflop + p.gemm_half_gflop));
}

// Seconds for a collective moving `bytes` per GPU over a link of `gbps` GB/s.
double LinkSeconds(double bytes, double gbytes_per_s) { return gbytes_per_s > 0 ? bytes / (gbytes_per_s * 1e9) : 0; }

// Exposed part of a communication of `comm_s` that can overlap `compute_s`.
double Exposed(double comm_s, double fraction, double window, double compute_s) {
  return std::max(fraction * comm_s, comm_s - window * compute_s);
}

// GB/s per GPU for a group of `span` consecutive ranks (NVLink, PCIe or network).
double GroupBandwidth(const SystemSpec& s, int64_t span) { return LinkGbytesPerSecond(s, LinkOfSpan(s, span)); }

}  // namespace

double PeakTflops(const SystemSpec& s, Precision p) {
  if (IsFp4(p) && s.fp4_dense_tflops > 0) return s.fp4_dense_tflops;
  if ((IsFp4(p) || IsFp8(p)) && s.fp8_dense_tflops > 0) return s.fp8_dense_tflops;
  return s.bf16_dense_tflops;
}

PerfEstimate EstimatePerformance(const ModelSpec& m, const ResolvedConfig& c, const StagePlan& plan, int64_t world,
                                 const SystemSpec& sys, const PerfParams& P) {
  PerfEstimate e;
  const int64_t dp = world / (c.tp * c.pp * c.cp);
  const int64_t edp = world / (c.pp * c.ep * c.etp);
  const int64_t mb = std::max<int64_t>(1, c.gbs / (c.mbs * dp));
  e.microbatches = mb;
  const int arch = ArchIndex(sys);
  const int prec = PrecisionIndex(c.precision);
  e.peak_tflops = PeakTflops(sys, c.precision);
  const double peak = e.peak_tflops * 1e12;
  const double peak_bf16 = sys.bf16_dense_tflops * 1e12;
  const double hbm = sys.hbm_bw_tbps * 1e12;
  const double h = static_cast<double>(m.hidden_size);
  // Tokens of one microbatch in the GEMMs of one GPU (sequence-parallel regions gathered).
  const double tokens = static_cast<double>(c.seq_length) * c.mbs / c.cp;
  const double act_bytes = c.precision == Precision::kBf16 ? 2.0 : 1.0;
  e.flops = ModelFlopsPerToken(m, c.seq_length, c.tp, c.mtp_num_layers);

  // Representative GEMM sizes (GFLOP per call, forward).
  const double dense_gemm_gflop = 2.0 * tokens * h * std::max<double>(m.ffn_hidden_size, h) / c.tp / 1e9;
  e.gemm_efficiency = GemmEfficiency(P, arch, prec, dense_gemm_gflop);
  // Routed pairs on one GPU: its tokens (split by TP under SP) times top-k, gathered over ETP;
  // spread over its E/EP local experts.
  const double outside = c.sp ? static_cast<double>(c.tp) : 1.0;
  const double local_experts = std::max<double>(1.0, static_cast<double>(m.num_moe_experts) / c.ep);
  const double tokens_per_expert =
      m.num_moe_experts > 0 ? tokens / outside * m.moe_router_topk * c.etp / local_experts : 0;
  const double expert_gemm_gflop =
      m.num_moe_experts > 0 ? 2.0 * tokens_per_expert * h * m.moe_ffn_hidden_size / c.etp / 1e9 : 0;
  const double expert_eff = m.num_moe_experts > 0
                                ? std::max(P.min_gemm_efficiency, GemmEfficiency(P, arch, prec, expert_gemm_gflop) *
                                                                      tokens_per_expert /
                                                                      (tokens_per_expert + P.expert_half_tokens))
                                : 1;
  // Recomputation adds forward passes: full recomputes the whole layer (4/3 of fwd+bwd),
  // selective mlp/moe the MLP forward.
  const double full_factor = c.recompute == RecomputeGranularity::kFull ? 4.0 / 3.0 : 1.0;
  const double mlp_factor = c.Recomputes("mlp") ? 4.0 / 3.0 : 1.0;
  const double moe_factor = c.Recomputes("moe") ? 4.0 / 3.0 : 1.0;

  // Per-stage compute time of one microbatch (all chunks), and per-stage communication.
  const std::vector<std::vector<int64_t>> first = FirstLayerIndices(plan);
  // Element-wise HBM traffic per layer kind (saved activations without recompute), computed once.
  ResolvedConfig plain = c;
  plain.recompute = RecomputeGranularity::kNone;
  plain.recompute_modules.clear();
  plain.offload_modules.clear();
  double elementwise_bytes[6];
  for (int k = 0; k < 6; ++k) {
    elementwise_bytes[k] = LayerActivationBytesPerToken(m, static_cast<LayerKind>(k), plain);
  }
  // Megatron FSDP (optim_grads_params) shards dense parameters over the
  // DP*CP group (ranks TP apart) and experts over the expert-DP group (EP*ETP
  // apart); every microbatch all-gathers each layer's weights before its
  // forward and again before its backward, and reduce-scatters its gradients
  // after the backward (Megatron-LM docs/user-guide/features/megatron_fsdp.md).
  const int64_t fsdp_dense_group = dp * c.cp;
  const double fsdp_dense_bw = RingBandwidth(sys, fsdp_dense_group, c.tp);
  const double fsdp_expert_bw = RingBandwidth(sys, edp, c.ep * c.etp);
  const double gathered_bytes = GemmWeightBytes(c.precision);
  const double grad_comm_bytes = c.grad_fp32 ? 4.0 : 2.0;
  // Seconds to move `bytes_per_param` (gathered weights plus reduced
  // gradients) of these parameters over their FSDP groups.
  auto fsdp_seconds = [&](double dense_params, double expert_params, double bytes_per_param) {
    auto one = [&](double params, int64_t group, double bw) {
      if (group <= 1 || params <= 0) return 0.0;
      const double share = (group - 1.0) / group;
      return LinkSeconds(params * share * bytes_per_param, bw);
    };
    return one(dense_params / c.tp, fsdp_dense_group, fsdp_dense_bw) +
           one(expert_params / (c.ep * c.etp), edp, fsdp_expert_bw);
  };
  double worst = -1;
  for (int64_t r = 0; r < plan.pp; ++r) {
    double seconds = 0, tp_b = 0, cp_b = 0, ep_b = 0, fsdp_s = 0, first_gather_s = 0;
    auto add_layer = [&](LayerKind kind, int64_t index, bool mtp) {
      const FlopsPerToken f = LayerFlopsPerToken(m, kind, index, c.seq_length, mtp);
      if (c.fsdp) {
        const LayerParams lp = mtp ? MtpParams(m) : ParamsOfLayer(m, kind);
        fsdp_s += fsdp_seconds(lp.dense, lp.expert, 2.0 * gathered_bytes + grad_comm_bytes);
        // The first layer's forward gather has nothing to prefetch behind.
        if (first_gather_s == 0) first_gather_s = fsdp_seconds(lp.dense, lp.expert, gathered_bytes);
      }
      const bool moe = kind == LayerKind::kMoeTransformer || kind == LayerKind::kMoeOnly;
      const double mlp_share = moe ? moe_factor : mlp_factor;
      const double dense_flops = f.dense_gemm * tokens / c.tp * full_factor * (moe ? 1.0 : mlp_share);
      const double expert_flops = f.expert_gemm * tokens / outside * full_factor * mlp_share;
      const double core_flops = f.attention_core * tokens / c.tp * full_factor;
      seconds += dense_flops / (peak * e.gemm_efficiency);
      if (f.expert_gemm > 0) seconds += expert_flops / (peak * expert_eff);
      seconds += core_flops / (peak_bf16 * P.attention_efficiency);
      // Element-wise work: passes over the layer's saved activations in HBM.
      seconds += P.elementwise_passes * elementwise_bytes[static_cast<int>(kind)] * tokens * full_factor / hbm;
      if (moe) {
        // Token permutation for the experts: every routed (token, expert) pair's hidden vector is copied.
        seconds += P.moe_permute_passes * tokens / outside * m.moe_router_topk * h * act_bytes * full_factor / hbm;
      }
      seconds += (P.layer_latency_us + (moe ? P.moe_latency_us : 0.0)) * 1e-6 * full_factor;
      // TP: 4 sequence-parallel all-gather/reduce-scatter (or 2 all-reduces) forward and backward,
      // each moving (t-1)/t of the [tokens x h] activation.
      if (c.tp > 1) {
        const double collectives = (kind == LayerKind::kMamba || kind == LayerKind::kAttentionOnly ||
                                    kind == LayerKind::kMlpOnly || kind == LayerKind::kMoeOnly)
                                       ? 4.0
                                       : 8.0;
        tp_b += collectives * full_factor * (c.tp - 1.0) / c.tp * tokens * h * act_bytes;
      }
      // CP: K and V of every other CP rank pass through (forward), twice that in backward.
      if (c.cp > 1 && (kind == LayerKind::kDenseTransformer || kind == LayerKind::kMoeTransformer ||
                       kind == LayerKind::kAttentionOnly)) {
        const double kv = m.multi_latent_attention
                              ? static_cast<double>(m.num_attention_heads) * (m.qk_head_dim + m.qk_pos_emb_head_dim + m.v_head_dim)
                              : 2.0 * m.kv_channels * m.num_query_groups;
        cp_b += 3.0 * (c.cp - 1.0) / c.cp * tokens * kv / c.tp * 2.0;
      }
      // EP: dispatch and combine all-to-alls, forward and backward.
      if (moe && c.ep > 1) {
        ep_b += 4.0 * full_factor * (c.ep - 1.0) / c.ep * tokens / outside * m.moe_router_topk * h * act_bytes;
      }
    };
    for (int64_t v = 0; v < plan.vpp; ++v) {
      for (int64_t k = 0; k < plan.decoder_layers[r][v]; ++k) {
        const int64_t index = first[r][v] + k;
        add_layer(KindOfLayer(m, index), index, false);
      }
    }
    for (int64_t d = 0; d < plan.mtp_layers[r]; ++d) add_layer(MtpLayerKind(m), m.num_layers + d, true);
    if (plan.has_loss[r]) {
      const double vocab = static_cast<double>(PaddedVocab(m, c.tp));
      seconds += 6.0 * h * vocab * tokens / c.tp * (1 + plan.mtp_layers[r]) / (peak * e.gemm_efficiency);
    }
    if (c.fsdp) {
      // Embedding and output layer (bf16), also FSDP units.
      const double vocab_params = static_cast<double>(PaddedVocab(m, c.tp)) * h;
      const double ends = (plan.has_embedding[r] ? 1.0 : 0.0) +
                          (plan.has_loss[r] && !m.share_embeddings_and_output_weights ? 1.0 : 0.0);
      fsdp_s += fsdp_seconds(ends * vocab_params, 0, 2.0 * 2.0 + grad_comm_bytes);
    }
    // Gathers are prefetched one unit ahead and hide behind the compute of
    // the unit before; the first gather of the forward cannot.
    const double fsdp_exposed =
        c.fsdp ? first_gather_s + Exposed(fsdp_s - first_gather_s, P.dp_exposed, P.overlap_window, seconds) : 0.0;
    const double tp_s = Exposed(LinkSeconds(tp_b, GroupBandwidth(sys, c.tp)), P.tp_exposed, P.overlap_window, seconds);
    const double cp_s =
        Exposed(LinkSeconds(cp_b, GroupBandwidth(sys, c.tp * c.cp)), P.cp_exposed, P.overlap_window, seconds);
    const double ep_s =
        Exposed(LinkSeconds(ep_b, GroupBandwidth(sys, c.ep * c.etp)), P.ep_exposed, P.overlap_window, seconds);
    const double stage_total = seconds + tp_s + cp_s + ep_s + fsdp_exposed;
    if (stage_total > worst) {
      worst = stage_total;
      e.slowest_stage = r;
      e.breakdown.compute_s = seconds * mb;
      e.breakdown.tp_comm_s = tp_s * mb;
      e.breakdown.cp_comm_s = cp_s * mb;
      e.breakdown.ep_comm_s = ep_s * mb;
      e.breakdown.fsdp_comm_s = fsdp_exposed * mb;
    }
  }
  const double per_microbatch = worst;

  // Pipeline: p2p of the [tokens x h] activation per boundary, and the bubble.
  if (c.pp > 1) {
    const double p2p = 2.0 * plan.vpp * tokens / outside * h * 2.0;
    e.breakdown.pp_comm_s = LinkSeconds(p2p, GroupBandwidth(sys, world)) * P.pp_exposed * mb;
    e.breakdown.bubble_s = per_microbatch * (c.pp - 1.0) / plan.vpp;
  }

  // DP: gradient reduce-scatter + parameter all-gather once per step (dense over DP*CP, experts over EDP).
  const ParamCounts params = CountParams(m);
  const double dense_local = (params.total - params.routed_experts) / static_cast<double>(c.tp * c.pp);
  const double expert_local = params.routed_experts / static_cast<double>(c.pp * c.ep * c.etp);
  const double grad_b = c.grad_fp32 ? 4.0 : 2.0;
  // A ring over the DP group (ranks `stride` apart): NCCL moves only the
  // ring edges that leave a domain over the network, so the group's members
  // in one domain share the load over their own NICs (RingBandwidth).
  auto dp_seconds = [&](double local_params, int64_t group, int64_t stride) {
    if (group <= 1) return 0.0;
    const double bytes = (grad_b + 2.0) * local_params * (group - 1.0) / group;
    return LinkSeconds(bytes, RingBandwidth(sys, group, stride));
  };
  // Gradient reduction overlaps the backward pass of the step (about 2/3 of
  // compute). Under FSDP it happens per microbatch instead (fsdp_comm_s).
  e.breakdown.dp_comm_s = c.fsdp ? 0.0
                                 : Exposed(dp_seconds(dense_local, dp * c.cp, c.tp) + dp_seconds(expert_local, edp, c.ep * c.etp),
                                           P.dp_exposed, P.overlap_window, e.breakdown.compute_s * 2.0 / 3.0);
  // Optimizer: Adam reads and writes master weights, moments, gradients and weights of its shard.
  const double shard_dense = c.distributed_optimizer || c.fsdp ? dp * c.cp : 1;
  const double shard_expert = c.distributed_optimizer || c.fsdp ? edp : 1;
  e.breakdown.optimizer_s = 2.0 * 18.0 * (dense_local / shard_dense + expert_local / shard_expert) / hbm;

  const PerfBreakdown& b = e.breakdown;
  e.step_time_s = b.compute_s + b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.dp_comm_s + b.pp_comm_s +
                  b.fsdp_comm_s + b.bubble_s + b.optimizer_s;
  const double tokens_per_step = static_cast<double>(c.gbs) * c.seq_length;
  e.tokens_per_s_per_gpu = tokens_per_step / e.step_time_s / world;
  e.model_tflops_per_gpu = e.tokens_per_s_per_gpu * e.flops.total / 1e12;
  e.mfu = e.model_tflops_per_gpu / e.peak_tflops;
  e.assumptions.push_back(absl::StrFormat(
      "Dense GEMMs at %.0f%% of the %.0f TFLOP/s %s peak (per-call %.2f GFLOP; efficiency %.2f * G/(G + %.1f)); "
      "fused attention at %.0f%% of the bf16 peak.",
      100 * e.gemm_efficiency, e.peak_tflops, PrecisionName(c.precision), dense_gemm_gflop,
      P.gemm_efficiency[arch][prec], P.gemm_half_gflop, 100 * P.attention_efficiency));
  if (m.num_moe_experts > 0) {
    e.assumptions.push_back(absl::StrFormat(
        "Expert GEMMs: %.0f tokens per expert per microbatch, %.0f%% efficiency; token permutation %.1f HBM passes "
        "over the routed hidden vectors; balanced routing (real routing is slower).",
        tokens_per_expert, 100 * expert_eff, P.moe_permute_passes));
  }
  e.assumptions.push_back(absl::StrFormat(
      "Per layer and microbatch (fwd + bwd): %.1f HBM passes over its saved activations (norms, activations, casts) "
      "and %.0f us fixed (%.0f us more per MoE layer: router, permutation) for launches and synchronisation.",
      P.elementwise_passes, P.layer_latency_us, P.moe_latency_us));
  e.assumptions.push_back(absl::StrFormat(
      "Communication exposed after overlap: TP %.0f%%, CP %.0f%%, EP %.0f%%, DP %.0f%%, PP %.0f%%; NVLink %.0f GB/s "
      "inside the %d-GPU domain%s, scale-out %.0f GB/s per GPU outside.",
      100 * P.tp_exposed, 100 * P.cp_exposed, 100 * P.ep_exposed, 100 * P.dp_exposed, 100 * P.pp_exposed,
      sys.nvlink_gbps_unidirectional, sys.nvlink_domain_size,
      sys.gpus_per_node > sys.nvlink_domain_size
          ? absl::StrFormat(", PCIe %.0f GB/s between domains of a %d-GPU host",
                            LinkGbytesPerSecond(sys, Link::kPcie), sys.gpus_per_node)
          : std::string(),
      LinkGbytesPerSecond(sys, Link::kNetwork)));
  if (c.fsdp) {
    e.assumptions.push_back(absl::StrFormat(
        "Megatron FSDP: per microbatch each layer's weights are all-gathered twice (%.2f B/param, forward and "
        "backward) and its gradients reduce-scattered (%.0f B/param) over %d GPUs at %.0f GB/s bus bandwidth%s; "
        "exposed like DP communication (%.0f%%, or what the layer's compute cannot hide) plus the first gather.",
        gathered_bytes, grad_comm_bytes, static_cast<int>(fsdp_dense_group), fsdp_dense_bw,
        m.num_moe_experts > 0 ? absl::StrFormat(" (experts over %d GPUs at %.0f GB/s)", static_cast<int>(edp),
                                                fsdp_expert_bw)
                              : std::string(),
        100 * P.dp_exposed));
  }
  return e;
}

}  // namespace parplan
