#include "core/perf/perf_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/model/layer_params.h"
#include "core/model/param_count.h"
#include "core/perf/collectives.h"
#include "core/perf/kernel_time.h"
#include "core/perf/layer_time.h"
#include "core/system/links.h"

namespace parplan {
namespace {

// Exposed part of a communication of `comm_s` that can overlap `compute_s`.
double Exposed(double comm_s, double fraction, double window, double compute_s) {
  return std::max(fraction * comm_s, comm_s - window * compute_s);
}

// Whether layer `k` (0-based) of a chunk repeats its forward under full
// recompute: every layer (uniform) or the first recompute_num_layers (block).
bool FullyRecomputed(const ResolvedConfig& c, int64_t k) {
  if (c.recompute != RecomputeGranularity::kFull) return false;
  return c.recompute_method == RecomputeMethod::kUniform || k < c.recompute_num_layers;
}

// Compute seconds of one microbatch on one stage, by kind, and the
// communication that overlaps it.
struct StageTime {
  double gemm = 0, attention = 0, moe = 0, elementwise = 0, recompute = 0, logits = 0, overhead = 0;
  double backward = 0;  // of the above, the backward passes (what DP gradient reduction hides behind)
  double tp_s = 0, cp_s = 0, ep_s = 0, fsdp_s = 0, first_gather_s = 0;
  double dense_gemm_s = 0;
  double Compute() const { return gemm + attention + moe + elementwise + recompute + logits + overhead; }
  // Adds another share's compute (by kind), backward and dense-GEMM time, and FSDP traffic.
  void Add(const StageTime& o) {
    gemm += o.gemm;
    attention += o.attention;
    moe += o.moe;
    elementwise += o.elementwise;
    recompute += o.recompute;
    logits += o.logits;
    overhead += o.overhead;
    backward += o.backward;
    dense_gemm_s += o.dense_gemm_s;
    fsdp_s += o.fsdp_s;
  }
};

void AddByKind(StageTime* st, LayerPart part, double seconds) {
  switch (KindOfPart(part)) {
    case ComputeKind::kGemm:
      st->gemm += seconds;
      break;
    case ComputeKind::kAttention:
      st->attention += seconds;
      break;
    case ComputeKind::kMoe:
      st->moe += seconds;
      break;
    case ComputeKind::kElementwise:
      st->elementwise += seconds;
      break;
  }
}

}  // namespace

std::array<StepPart, kStepParts> StepParts(const PerfBreakdown& b) {
  return {{{"GEMMs", b.gemm_s, true},
           {"attention", b.attention_s, true},
           {"MoE routing and expert GEMMs", b.moe_s, true},
           {"element-wise kernels", b.elementwise_s, true},
           {"recompute", b.recompute_s, true},
           {"output layer (logits)", b.logits_s, true},
           {"host launch and MoE sync overhead", b.overhead_s, true},
           {"pipeline bubble", b.bubble_s, false},
           {"exposed TP communication", b.tp_comm_s, false},
           {"exposed CP communication", b.cp_comm_s, false},
           {"exposed EP all-to-all", b.ep_comm_s, false},
           {"exposed DP communication", b.dp_comm_s, false},
           {"exposed PP communication", b.pp_comm_s, false},
           {"exposed FSDP gathers and reduce-scatters", b.fsdp_comm_s, false},
           {"optimizer step", b.optimizer_s, false}}};
}

double PeakTflops(const SystemSpec& s, Precision p) {
  if (IsFp4(p) && s.fp4_dense_tflops > 0) return s.fp4_dense_tflops;
  if ((IsFp4(p) || IsFp8(p)) && s.fp8_dense_tflops > 0) return s.fp8_dense_tflops;
  return s.bf16_dense_tflops;
}

PerfEstimate EstimatePerformance(const ModelSpec& m, const ResolvedConfig& c, const StagePlan& plan, int64_t world,
                                 const SystemSpec& sys, const PerfParams& P) {
  PerfEstimate e;
  const WorldSizing sizing = SizeWorld(MeshOf(c), world, 0, 0, 0);
  const int64_t dp = sizing.dp;
  const int64_t edp = sizing.edp;
  const int64_t mb = std::max<int64_t>(1, c.gbs / (c.mbs * dp));
  e.microbatches = mb;
  e.peak_tflops = PeakTflops(sys, c.precision);
  const Device device = MakeDevice(sys, c.precision);
  const Device logits_device = MakeDevice(sys, Precision::kBf16);
  const double h = static_cast<double>(m.hidden_size);
  const double tokens = static_cast<double>(c.seq_length) * c.mbs / c.cp;
  e.flops = ModelFlopsPerToken(m, c.seq_length, c.tp, c.mtp_num_layers);

  // Collective times of one layer's communication, per occurrence.
  const double tp_one_s = RingCollectiveSeconds(tokens * h * 2.0, c.tp, 1, sys, P);
  const Link cp_link = LinkOfSpan(sys, c.tp * c.cp);

  // Megatron FSDP (optim_grads_params) shards dense parameters over the
  // DP*CP group (ranks TP apart) and experts over the expert-DP group (EP*ETP
  // apart); every microbatch all-gathers each layer's weights before its
  // forward and again before its backward, and reduce-scatters its gradients
  // after the backward (Megatron-LM docs/user-guide/features/megatron_fsdp.md).
  const int64_t fsdp_dense_group = dp * c.cp;
  const double gathered_bytes = GemmWeightBytes(c.precision);
  const double grad_comm_bytes = c.grad_fp32 ? 4.0 : 2.0;
  // Seconds to move `bytes_per_param` (gathered weights plus reduced
  // gradients) of these parameters over their FSDP groups.
  auto fsdp_seconds = [&](double dense_params, double expert_params, double bytes_per_param) {
    return RingCollectiveSeconds(dense_params / c.tp * bytes_per_param, fsdp_dense_group, c.tp, sys, P) +
           RingCollectiveSeconds(expert_params / (c.ep * c.etp) * bytes_per_param, edp, c.ep * c.etp, sys, P);
  };
  const bool selective = c.recompute == RecomputeGranularity::kSelective;
  // TP overlap (userbuffers) needs TP > 1 and sequence parallelism (Bridge
  // comm_overlap.py turns it off otherwise) and the TP group on NVLink.
  const bool tp_overlap = c.tp_comm_overlap && c.tp > 1 && c.sp && LinkOfSpan(sys, c.tp) == Link::kNvlink;

  const std::vector<std::vector<int64_t>> first = FirstLayerIndices(plan);
  // What one layer adds to its stage for one microbatch. Layers of one kind
  // (and attention span) under one recompute choice add the same: computed
  // once per estimate.
  struct LayerShare {
    StageTime time;
    double tp_count = 0, ep_count = 0, cp_steps = 0, ep_one_s = 0, cp_one_s = 0, gather_s = 0;
  };
  std::array<bool, kLayerParts> selected{};  // parts selective recompute repeats
  if (selective) {
    for (int i = 0; i < kLayerParts; ++i) {
      for (const std::string& module : c.recompute_modules)
        selected[i] = selected[i] || RecomputedBy(static_cast<LayerPart>(i), module);
    }
  }
  const bool moe_selected = selective && c.Recomputes("moe");
  auto share_of = [&](LayerKind kind, int64_t index, bool mtp, bool full_recompute) {
    LayerShare out;
    StageTime& st = out.time;
    const LayerTime t = TimeLayer(m, c, kind, index, mtp, tp_overlap, device, P);
    for (int i = 0; i < kLayerParts; ++i) {
      const LayerPart part = static_cast<LayerPart>(i);
      AddByKind(&st, part, t.forward[i] + t.backward[i]);
      st.backward += t.backward[i];
      if (full_recompute || selected[i]) st.recompute += t.forward[i];
      if (KindOfPart(part) == ComputeKind::kGemm) st.dense_gemm_s += t.forward[i] + t.backward[i];
    }
    // The GPU waits for a host that issues kernels slower than it runs them.
    const double repeat = full_recompute ? 4.0 / 3.0 : 1.0;
    const double gpu = t.Forward() * repeat + t.Backward();
    st.overhead += std::max(0.0, t.host_s * repeat - gpu) + t.sync_s * repeat;
    // Communication: forward and backward, and the forward again when recomputed.
    out.tp_count = t.tp_collectives * (2 + (full_recompute ? 1 : 0));
    out.ep_count = t.ep_all_to_alls * (2 + (full_recompute || moe_selected ? 1 : 0));
    if (t.ep_bytes > 0) out.ep_one_s = AllToAllSeconds(t.ep_bytes, c.ep, c.etp, sys, P);
    if (c.cp > 1 && t.cp_chunk_bytes > 0) {
      out.cp_steps = 3.0 * (c.cp - 1);
      out.cp_one_s = SendRecvSeconds(t.cp_chunk_bytes, cp_link, sys, P);
    }
    if (c.fsdp) {
      const LayerParams lp = mtp ? MtpParams(m) : ParamsOfLayer(m, kind);
      st.fsdp_s = fsdp_seconds(lp.dense, lp.expert, 2.0 * gathered_bytes + grad_comm_bytes);
      out.gather_s = fsdp_seconds(lp.dense, lp.expert, gathered_bytes);
    }
    return out;
  };
  std::array<std::optional<LayerShare>, 6 * 4 * 2> shares;
  double worst = -1;
  StageTime slowest;
  for (int64_t r = 0; r < plan.pp; ++r) {
    StageTime st;
    double tp_count = 0, ep_count = 0, cp_steps = 0, ep_one_s = 0, cp_one_s = 0;
    auto add_layer = [&](LayerKind kind, int64_t index, bool mtp, bool full_recompute) {
      const int key =
          ((static_cast<int>(kind) * 2 + (IsLocalAttentionLayer(m, index) ? 1 : 0)) * 2 + (mtp ? 1 : 0)) * 2 +
          (full_recompute ? 1 : 0);
      if (!shares[key].has_value()) shares[key] = share_of(kind, index, mtp, full_recompute);
      const LayerShare& l = *shares[key];
      st.Add(l.time);
      tp_count += l.tp_count;
      ep_count += l.ep_count;
      cp_steps += l.cp_steps;
      if (l.ep_one_s > 0) ep_one_s = l.ep_one_s;
      if (l.cp_one_s > 0) cp_one_s = l.cp_one_s;
      // The first layer's forward gather has nothing to prefetch behind.
      if (st.first_gather_s == 0) st.first_gather_s = l.gather_s;
    };
    for (int64_t v = 0; v < plan.vpp; ++v) {
      for (int64_t k = 0; k < plan.decoder_layers[r][v]; ++k) {
        const int64_t index = first[r][v] + k;
        add_layer(KindOfLayer(m, index), index, false, FullyRecomputed(c, k));
      }
    }
    for (int64_t d = 0; d < plan.mtp_layers[r]; ++d) add_layer(MtpLayerKind(m), m.num_layers + d, true, false);
    if (plan.has_loss[r]) {
      const double vocab = static_cast<double>(PaddedVocab(m, c.tp));
      // The output layer is a plain ColumnParallelLinear: bf16 whatever the
      // run's precision (Megatron-LM gpt_model.py; TE's MXFP8 output
      // projection only when explicitly enabled).
      const TrainingGemm g = TrainingGemmSeconds(tokens, vocab / c.tp, h, 1 + plan.mtp_layers[r], logits_device);
      st.logits += g.forward + g.backward;
      st.backward += g.backward;
      // Softmax cross-entropy over the logits (fp32), forward and backward.
      st.logits += StreamSeconds(3 * tokens * vocab / c.tp * 4.0 * (1 + plan.mtp_layers[r]), device, 2);
    }
    if (c.fsdp) {
      // Embedding and output layer (bf16), also FSDP units.
      const double vocab_params = static_cast<double>(PaddedVocab(m, c.tp)) * h;
      const double ends = (plan.has_embedding[r] ? 1.0 : 0.0) +
                          (plan.has_loss[r] && !m.share_embeddings_and_output_weights ? 1.0 : 0.0);
      st.fsdp_s += fsdp_seconds(ends * vocab_params, 0, 2.0 * 2.0 + grad_comm_bytes);
    }
    const double compute = st.Compute();
    st.tp_s = Exposed(tp_count * tp_one_s, tp_overlap ? P.tp_exposed_overlap : P.tp_exposed, P.overlap_window, compute);
    st.ep_s = Exposed(ep_count * ep_one_s, c.overlap_moe_expert_parallel_comm ? P.ep_exposed_overlap : P.ep_exposed,
                      P.overlap_window, compute);
    st.cp_s = Exposed(cp_steps * cp_one_s, P.cp_exposed, P.overlap_window, st.attention);
    // Gathers are prefetched one unit ahead and hide behind the compute of
    // the unit before; the first gather of the forward cannot.
    const double fsdp_exposed =
        c.fsdp ? st.first_gather_s + Exposed(st.fsdp_s - st.first_gather_s, P.dp_exposed, P.overlap_window, compute)
               : 0.0;
    st.fsdp_s = fsdp_exposed;
    const double stage_total = compute + st.tp_s + st.cp_s + st.ep_s + fsdp_exposed;
    if (stage_total > worst) {
      worst = stage_total;
      e.slowest_stage = r;
      slowest = st;
    }
  }
  const double per_microbatch = worst;
  PerfBreakdown& b = e.breakdown;
  b.gemm_s = slowest.gemm * mb;
  b.attention_s = slowest.attention * mb;
  b.moe_s = slowest.moe * mb;
  b.elementwise_s = slowest.elementwise * mb;
  b.recompute_s = slowest.recompute * mb;
  b.logits_s = slowest.logits * mb;
  b.overhead_s = slowest.overhead * mb;
  b.compute_s = slowest.Compute() * mb;
  b.tp_comm_s = slowest.tp_s * mb;
  b.cp_comm_s = slowest.cp_s * mb;
  b.ep_comm_s = slowest.ep_s * mb;
  b.fsdp_comm_s = slowest.fsdp_s * mb;
  // Achieved rate of the dense GEMMs on the slowest stage: its layers'
  // average dense-GEMM FLOPs over their time.
  int64_t slowest_layers = 0;
  for (int64_t v = 0; v < plan.vpp; ++v) slowest_layers += plan.decoder_layers[e.slowest_stage][v];
  const double gemm_flops = e.flops.dense_gemm / m.num_layers * slowest_layers * tokens / c.tp;
  e.gemm_efficiency =
      slowest.dense_gemm_s > 0 ? std::min(1.0, gemm_flops / (slowest.dense_gemm_s * device.peak_flops)) : 0;

  // Pipeline: p2p of the [tokens x h] activation per boundary, and the bubble.
  if (c.pp > 1) {
    const double outside = c.sp ? static_cast<double>(c.tp) : 1.0;
    const double p2p = SendRecvSeconds(tokens / outside * h * 2.0, LinkOfSpan(sys, world), sys, P);
    b.pp_comm_s = 2.0 * plan.vpp * p2p * P.pp_exposed * mb;
    b.bubble_s = per_microbatch * (c.pp - 1.0) / plan.vpp;
  }

  // DP: gradient reduce-scatter + parameter all-gather once per step (dense over DP*CP, experts over EDP).
  const ParamCounts params = CountParams(m);
  const double dense_local = (params.total - params.routed_experts) / static_cast<double>(c.tp * c.pp);
  const double expert_local = params.routed_experts / static_cast<double>(c.pp * c.ep * c.etp);
  const double grad_b = c.grad_fp32 ? 4.0 : 2.0;
  auto dp_seconds = [&](double local_params, int64_t group, int64_t stride) {
    return RingCollectiveSeconds(grad_b * local_params, group, stride, sys, P) +
           RingCollectiveSeconds(2.0 * local_params, group, stride, sys, P);
  };
  // Gradient reduction overlaps the backward passes of the step when
  // overlap_grad_reduce is on; otherwise it all waits for the last one.
  // Under FSDP it happens per microbatch instead (fsdp_comm_s).
  const double dp_s = dp_seconds(dense_local, dp * c.cp, c.tp) + dp_seconds(expert_local, edp, c.ep * c.etp);
  b.dp_comm_s = c.fsdp                  ? 0.0
                : c.overlap_grad_reduce ? Exposed(dp_s, P.dp_exposed, P.overlap_window, slowest.backward * mb)
                                        : dp_s;
  // Optimizer: fused Adam over the fp32 master weights, moments and
  // gradients of its shard, then the bf16 weights written back.
  const double shard_dense = c.distributed_optimizer || c.fsdp ? dp * c.cp : 1;
  const double shard_expert = c.distributed_optimizer || c.fsdp ? edp : 1;
  const double shard_params = dense_local / shard_dense + expert_local / shard_expert;
  b.optimizer_s = AdamSeconds(shard_params, device) + StreamSeconds(2.0 * shard_params, device);

  e.step_time_s = b.compute_s + b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.dp_comm_s + b.pp_comm_s + b.fsdp_comm_s +
                  b.bubble_s + b.optimizer_s;
  const double tokens_per_step = static_cast<double>(c.gbs) * c.seq_length;
  e.tokens_per_s_per_gpu = tokens_per_step / e.step_time_s / world;
  e.model_tflops_per_gpu = e.tokens_per_s_per_gpu * e.flops.total / 1e12;
  e.mfu = e.model_tflops_per_gpu / e.peak_tflops;
  e.assumptions.push_back(absl::StrFormat(
      "GEMMs timed from their shapes: large ones at %.0f%% of the %.0f TFLOP/s %s peak, less for tiles and waves "
      "that do not fill the %d SMs, never faster than HBM allows; the slowest stage's dense GEMMs average %.0f%% of "
      "peak. Fused attention (cuDNN) at %.0f%% of the bf16 peak forward and %.0f%% backward per busy SM (head dim "
      "128), with the causal mask's uneven blocks spread over the SMs. Kernel rates are measured "
      "(core/perf/kernel_rates.cc), not fitted.",
      100 * device.gemm_ceiling, e.peak_tflops, PrecisionName(c.precision), device.sm_count, 100 * e.gemm_efficiency,
      100 * device.rates.attention_forward, 100 * device.rates.attention_backward));
  if (m.num_moe_experts > 0) {
    const double per_expert = tokens / (c.sp ? c.tp : 1) * m.moe_router_topk * c.ep * c.etp / m.num_moe_experts;
    e.assumptions.push_back(absl::StrFormat(
        "Expert GEMMs grouped over %d local experts with %.0f tokens each per microbatch (balanced routing; real "
        "routing is slower); routing and token permutation from the bytes they move.",
        static_cast<int>(std::max<int64_t>(1, m.num_moe_experts / c.ep)), per_expert));
  }
  e.assumptions.push_back(absl::StrFormat(
      "Norms from the bytes they move at %.0f%% of HBM bandwidth, activations and other element-wise kernels at "
      "%.0f%%. The "
      "host issues each module's kernels in %.0f us per microbatch (%.0f us more for an MoE module) unless CUDA "
      "graphs capture it (cuda_graph_impl %s); a layer takes the longer of its GPU and host time, and an MoE layer "
      "idles %.0f us after its token-count sync unless the whole iteration is graphed.",
      100 * device.rates.reduction_efficiency, 100 * device.rates.stream_efficiency, P.host_module_us, P.host_moe_us, c.cuda_graph_impl, P.moe_sync_us));
  e.assumptions.push_back(absl::StrFormat(
      "Collectives at %.0f%% of line rate (NVLink %.0f GB/s inside the %d-GPU domain%s, scale-out %.0f GB/s per GPU "
      "outside; rings across hosts share each domain's NICs) plus %.0f us (NVLink) / %.0f us (network) per ring "
      "step. Exposed after overlap: TP %.0f%% (tp_comm_overlap %s), EP %.0f%% (overlap_moe_expert_parallel_comm %s), "
      "CP %.0f%%, DP %s, PP %.0f%%, or whatever the compute alongside cannot hide.",
      100 * P.link_efficiency, sys.nvlink_gbps_unidirectional, sys.nvlink_domain_size,
      sys.gpus_per_node > sys.nvlink_domain_size
          ? absl::StrFormat(", PCIe %.0f GB/s between domains of a %d-GPU host", LinkGbytesPerSecond(sys, Link::kPcie),
                            sys.gpus_per_node)
          : std::string(),
      LinkGbytesPerSecond(sys, Link::kNetwork), P.nvlink_step_latency_us, P.network_step_latency_us,
      100 * (c.tp_comm_overlap ? P.tp_exposed_overlap : P.tp_exposed), c.tp_comm_overlap ? "on" : "off",
      100 * (c.overlap_moe_expert_parallel_comm ? P.ep_exposed_overlap : P.ep_exposed),
      c.overlap_moe_expert_parallel_comm ? "on" : "off", 100 * P.cp_exposed,
      c.overlap_grad_reduce ? absl::StrFormat("%.0f%% (overlap_grad_reduce on)", 100 * P.dp_exposed)
                            : std::string("100% (overlap_grad_reduce off)"),
      100 * P.pp_exposed));
  if (c.fsdp) {
    e.assumptions.push_back(absl::StrFormat(
        "Megatron FSDP: per microbatch each layer's weights are all-gathered twice (%.2f B/param, forward and "
        "backward) and its gradients reduce-scattered (%.0f B/param) over %d GPUs at %.0f GB/s bus bandwidth%s; "
        "exposed like DP communication (%.0f%%, or what the layer's compute cannot hide) plus the first gather.",
        gathered_bytes, grad_comm_bytes, static_cast<int>(fsdp_dense_group), RingBandwidth(sys, fsdp_dense_group, c.tp),
        m.num_moe_experts > 0 ? absl::StrFormat(" (experts over %d GPUs at %.0f GB/s)", static_cast<int>(edp),
                                                RingBandwidth(sys, edp, c.ep * c.etp))
                              : std::string(),
        100 * P.dp_exposed));
  }
  return e;
}

}  // namespace parplan
