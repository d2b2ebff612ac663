#include "core/perf/perf_steps.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "core/model/layer_params.h"
#include "core/model/param_count.h"
#include "core/perf/collectives.h"
#include "core/perf/flops.h"
#include "core/perf/host_launches.h"
#include "core/perf/optimizer_offload.h"
#include "core/perf/token_dispatch.h"
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

// Megatron FSDP (optim_grads_params) shards dense parameters over the DP*CP
// group (ranks TP apart) and experts over the expert-DP group (EP*ETP apart);
// every microbatch all-gathers each layer's weights before its forward and
// again before its backward, and reduce-scatters its gradients after the
// backward (Megatron-LM docs/user-guide/features/megatron_fsdp.md). Seconds
// to move `bytes_per_param` of these parameters over their FSDP groups.
double FsdpSeconds(const StepInputs& in, double dense_params, double expert_params, double bytes_per_param) {
  const ResolvedConfig& c = *in.config;
  return RingCollectiveSeconds(dense_params / c.tp * bytes_per_param, in.links.dp_cp.spread, *in.system, *in.params) +
         RingCollectiveSeconds(expert_params / (c.ep * c.etp) * bytes_per_param, in.links.edp.spread, *in.system,
                               *in.params);
}

double GradCommBytes(const ResolvedConfig& c) { return c.grad_fp32 ? 4.0 : 2.0; }

// Visits stage `stage`'s layers in order: `visit(kind, index, mtp, full_recompute)`.
template <typename Visit>
void ForEachLayerOfStage(const StepInputs& in, int64_t stage, Visit visit) {
  const std::vector<std::vector<int64_t>>& first = in.first_layers;
  const ModelSpec& m = *in.model;
  const StagePlan& plan = *in.plan;
  for (int64_t v = 0; v < plan.vpp; ++v) {
    for (int64_t k = 0; k < plan.decoder_layers[stage][v]; ++k) {
      const int64_t index = first[stage][v] + k;
      visit(KindOfLayer(m, index), index, false, FullyRecomputed(*in.config, k));
    }
  }
  for (int64_t d = 0; d < plan.mtp_layers[stage]; ++d) visit(MtpLayerKind(m), m.num_layers + d, true, false);
}

const char* LayerKindLabel(LayerKind kind, bool mtp) {
  if (mtp) return "MTP depth";
  switch (kind) {
    case LayerKind::kDenseTransformer:
      return "transformer (dense MLP)";
    case LayerKind::kMoeTransformer:
      return "transformer (MoE)";
    case LayerKind::kMamba:
      return "Mamba";
    case LayerKind::kAttentionOnly:
      return "attention";
    case LayerKind::kMlpOnly:
      return "MLP";
    case LayerKind::kMoeOnly:
      return "MoE";
  }
  return "layer";
}

// One MoE layer's token dispatch on this run: the microbatch's tokens after
// sequence parallelism over the EP group as the rank layout spreads it.
DispatchCost DispatchOfStep(const StepInputs& in) {
  const ResolvedConfig& c = *in.config;
  const double local = c.sp ? in.tokens / c.tp : in.tokens;
  return DispatchCostOf(*in.model, c, local, in.links.ep.spread, *in.system, *in.params, in.device.sm_count);
}

}  // namespace

void StageTime::Add(const StageTime& o) {
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

StepInputs PrepareStep(const ModelSpec& m, const ResolvedConfig& c, const StagePlan& plan, int64_t world,
                       const SystemSpec& sys, const PerfParams& P) {
  StepInputs in;
  in.model = &m;
  in.config = &c;
  in.plan = &plan;
  in.system = &sys;
  in.params = &P;
  in.world = world;
  const WorldSizing sizing = SizeWorld(MeshOf(c), world, 0, 0, 0);
  in.dp = sizing.dp;
  in.edp = sizing.edp;
  in.microbatches = std::max<int64_t>(1, c.gbs / (c.mbs * in.dp));
  in.tokens = static_cast<double>(c.seq_length) * c.mbs / c.cp;
  // TP overlap (userbuffers) needs TP > 1 and sequence parallelism (Bridge
  // comm_overlap.py turns it off otherwise) and the TP group on NVLink.
  in.links = LinksOfGroups(MeshOf(c), world, sys);
  in.cp = CpShapeOf(c);
  in.cp_links = CpLinksOf(c, in.cp, in.links.cp.spread, world, sys);
  in.tp_overlap = c.tp_comm_overlap && c.tp > 1 && c.sp && LinkOfGroup(sys, in.links.tp.spread) == Link::kNvlink;
  in.device = MakeDevice(sys, c.precision);
  in.logits_device = MakeDevice(sys, Precision::kBf16);
  in.first_layers = FirstLayerIndices(plan);
  if (c.recompute == RecomputeGranularity::kSelective) {
    for (int i = 0; i < kLayerParts; ++i) {
      for (const std::string& module : c.recompute_modules)
        in.selected[i] = in.selected[i] || RecomputedBy(static_cast<LayerPart>(i), module);
    }
  }
  return in;
}

LayerShare ShareOfLayer(const StepInputs& in, LayerKind kind, int64_t index, bool mtp, bool full_recompute) {
  const ResolvedConfig& c = *in.config;
  const SystemSpec& sys = *in.system;
  const PerfParams& P = *in.params;
  LayerShare out;
  StageTime& st = out.time;
  out.layer = TimeLayer(*in.model, c, kind, index, mtp, in.tp_overlap, in.device, P);
  const LayerTime& t = out.layer;
  for (int i = 0; i < kLayerParts; ++i) {
    const LayerPart part = static_cast<LayerPart>(i);
    AddByKind(&st, part, t.forward[i] + t.backward[i]);
    st.backward += t.backward[i];
    if (full_recompute) {
      st.recompute += t.forward[i];
    } else if (in.selected[i]) {
      // "layernorm" repeats only the separate norms (core/model/norm_modules.h).
      st.recompute += part == LayerPart::kNorms ? t.norm_recompute_forward_s : t.forward[i];
    }
    if (KindOfPart(part) == ComputeKind::kGemm) st.dense_gemm_s += t.forward[i] + t.backward[i];
  }
  // The GPU waits for a host that issues kernels slower than it runs them:
  // the layer takes the longer of the two, each with what recompute adds
  // (full: the whole forward again; selective: the recomputed modules'
  // kernels on the GPU, their launches and checkpoints on the host). On a
  // MoE layer that reads its token counts on the host (t.sync_s > 0) the
  // host cannot run ahead of the GPU: the checkpoints, the Transformer
  // Engine calls and the launches a recompute replays show whatever the
  // GPU's load (tests/data/recompute_ab_runs.csv: Moonlight's mla_up_proj
  // costs its checkpoint plus 29 replayed launches per layer, 27 of them
  // its unfused RoPE; Nemotron 3 Nano's layernorm about 0.9 ms per norm
  // where the model has the layer GPU-bound). A whole-MoE replay's launches
  // come before its token-count sync, while the GPU still runs the layer's
  // earlier backward, and stay on the host side; on GPU-bound dense layers
  // all of it hides (Llama 3 70B's core_attn).
  const double repeat = full_recompute ? 4.0 / 3.0 : 1.0;
  const bool selective = !full_recompute;
  const bool host_tied = t.sync_s > 0;
  const double selective_gpu = selective ? st.recompute : 0.0;
  const double checkpoints = selective ? t.recompute_checkpoint_s : 0.0;
  const double tied_launches = host_tied ? t.recompute_host_s - t.recompute_moe_host_s : 0.0;
  const double selective_host = selective ? t.recompute_host_s - tied_launches + (host_tied ? 0.0 : checkpoints) : 0.0;
  const double selective_fixed = selective && host_tied ? checkpoints + tied_launches : 0.0;
  const double gpu = t.Forward() * repeat + t.Backward() + selective_gpu;
  st.overhead += std::max(0.0, t.host_s * repeat + selective_host - gpu) + t.sync_s * repeat + selective_fixed;
  // Communication: forward and backward, and the forward again when recomputed.
  const bool moe_selected = c.recompute == RecomputeGranularity::kSelective && c.Recomputes("moe");
  // Selective "mlp" repeats the dense MLP's all-gather and reduce-scatter.
  const bool mlp_again = !full_recompute && HasDenseMlp(kind) && c.tp > 1 && c.Recomputes("mlp");
  out.tp_count = t.tp_collectives * (2 + (full_recompute ? 1 : 0)) + (mlp_again ? 2 : 0);
  out.ep_count = t.ep_all_to_alls * (2 + (full_recompute || moe_selected ? 1 : 0));
  if (t.ep_all_to_alls > 0) {
    const DispatchCost d = DispatchOfStep(in);
    out.ep_one_s = d.one_way_s;
    out.ep_sm_share = d.sm_share;
  }
  if (c.cp > 1) {
    const CpCommSeconds cp = CpCommOf(t.cp, in.cp, in.cp_links, sys, P);
    const bool core_attn_again = full_recompute || in.selected[static_cast<int>(LayerPart::kCoreAttention)];
    out.cp_s = cp.exposed.forward * (core_attn_again ? 2.0 : 1.0) + cp.exposed.backward;
  }
  if (c.fsdp) {
    const double gathered = GatheredWeightBytes(c);
    const LayerParams lp = mtp ? MtpParams(*in.model) : ParamsOfLayer(*in.model, kind);
    st.fsdp_s = FsdpSeconds(in, lp.dense, lp.expert, 2.0 * gathered + GradCommBytes(c));
    out.gather_s = FsdpSeconds(in, lp.dense, lp.expert, gathered);
  }
  return out;
}

const LayerShare& LayerShareCache::Get(const StepInputs& in, LayerKind kind, int64_t index, bool mtp,
                                       bool full_recompute) {
  const int key =
      ((static_cast<int>(kind) * 2 + (IsLocalAttentionLayer(*in.model, index) ? 1 : 0)) * 2 + (mtp ? 1 : 0)) * 2 +
      (full_recompute ? 1 : 0);
  if (!shares_[key].has_value()) shares_[key] = ShareOfLayer(in, kind, index, mtp, full_recompute);
  return *shares_[key];
}

StageTime TimeStage(const StepInputs& in, int64_t r, LayerShareCache* cache) {
  const ModelSpec& m = *in.model;
  const ResolvedConfig& c = *in.config;
  const StagePlan& plan = *in.plan;
  const SystemSpec& sys = *in.system;
  const PerfParams& P = *in.params;
  const double h = static_cast<double>(m.hidden_size);
  StageTime st;
  double tp_count = 0, ep_count = 0, ep_one_s = 0, ep_sm_share = 0;
  ForEachLayerOfStage(in, r, [&](LayerKind kind, int64_t index, bool mtp, bool full) {
    const LayerShare& l = cache->Get(in, kind, index, mtp, full);
    st.Add(l.time);
    tp_count += l.tp_count;
    ep_count += l.ep_count;
    st.cp_s += l.cp_s;
    if (l.ep_one_s > 0) ep_one_s = l.ep_one_s;
    ep_sm_share = std::max(ep_sm_share, l.ep_sm_share);
    // The first layer's forward gather has nothing to prefetch behind.
    if (st.first_gather_s == 0) st.first_gather_s = l.gather_s;
  });
  if (plan.has_loss[r]) {
    const double vocab = static_cast<double>(PaddedVocab(m, c.tp));
    // The output layer is a plain ColumnParallelLinear: bf16 whatever the
    // run's precision (Megatron-LM gpt_model.py; TE's MXFP8 output
    // projection only when explicitly enabled).
    const double heads = 1.0 + plan.mtp_layers[r];
    const TrainingGemm g = TrainingGemmSeconds(in.tokens, vocab / c.tp, h, heads, in.logits_device);
    st.logits += g.forward + g.backward;
    st.backward += g.backward;
    // Softmax cross-entropy over the logits (fp32), forward and backward.
    st.logits += StreamSeconds(3 * in.tokens * vocab / c.tp * 4.0 * heads, in.device, 2);
  }
  if (c.fsdp) {
    // Embedding and output layer (bf16), also FSDP units.
    const double vocab_params = static_cast<double>(PaddedVocab(m, c.tp)) * h;
    const double ends =
        (plan.has_embedding[r] ? 1.0 : 0.0) + (plan.has_loss[r] && !m.share_embeddings_and_output_weights ? 1.0 : 0.0);
    st.fsdp_s += FsdpSeconds(in, ends * vocab_params, 0, 2.0 * 2.0 + GradCommBytes(c));
  }
  const double compute = st.Compute();
  const double tp_one_s = RingCollectiveSeconds(in.tokens * h * 2.0, in.links.tp.spread, sys, P);
  st.tp_s =
      Exposed(tp_count * tp_one_s, in.tp_overlap ? P.tp_exposed_overlap : P.tp_exposed, P.overlap_window, compute);
  st.ep_s = Exposed(ep_count * ep_one_s, c.overlap_moe_expert_parallel_comm ? P.ep_exposed_overlap : P.ep_exposed,
                    P.overlap_window, compute);
  // The hidden part ran beside compute that lost the dispatch kernels' SMs.
  st.ep_s += std::max(0.0, ep_count * ep_one_s - st.ep_s) * ep_sm_share;
  // Gathers are prefetched one unit ahead and hide behind the compute of the
  // unit before; the first gather of the forward cannot.
  st.fsdp_s = c.fsdp
                  ? st.first_gather_s + Exposed(st.fsdp_s - st.first_gather_s, P.dp_exposed, P.overlap_window, compute)
                  : 0.0;
  return st;
}

SlowestStage FindSlowestStage(const StepInputs& in, LayerShareCache* cache) {
  SlowestStage slowest;
  double worst = -1;
  for (int64_t r = 0; r < in.plan->pp; ++r) {
    const StageTime st = TimeStage(in, r, cache);
    if (st.Total() > worst) {
      worst = st.Total();
      slowest.stage = r;
      slowest.time = st;
    }
  }
  return slowest;
}

PipelineTerms PipelineSeconds(const StepInputs& in, const SlowestStage& slowest) {
  PipelineTerms t;
  const ResolvedConfig& c = *in.config;
  if (c.pp <= 1) return t;
  // p2p of the [tokens x h] activation per boundary, each way, per chunk.
  const double outside = c.sp ? static_cast<double>(c.tp) : 1.0;
  const double bytes = in.tokens / outside * static_cast<double>(in.model->hidden_size) * 2.0;
  const double p2p = SendRecvSeconds(bytes, LinkOfGroup(*in.system, in.links.pp.spread), *in.system, *in.params);
  t.p2p_s = 2.0 * in.plan->vpp * p2p * in.params->pp_exposed * in.microbatches;
  t.bubble_s = slowest.time.Total() * (c.pp - 1.0) / in.plan->vpp;
  return t;
}

namespace {

// Parameters one GPU holds (dense, routed experts) before optimizer sharding.
std::pair<double, double> LocalParams(const StepInputs& in) {
  const ResolvedConfig& c = *in.config;
  const ParamCounts params = CountParams(*in.model);
  const double dense_local = (params.total - params.routed_experts) / static_cast<double>(c.tp * c.pp);
  const double expert_local = params.routed_experts / static_cast<double>(c.pp * c.ep * c.etp);
  return {dense_local, expert_local};
}

}  // namespace

double DataParallelSeconds(const StepInputs& in, double backward_s) {
  const ResolvedConfig& c = *in.config;
  if (c.fsdp) return 0;  // per microbatch instead (fsdp_comm_s)
  const auto [dense_local, expert_local] = LocalParams(in);
  const double grad_b = GradCommBytes(c);
  auto dp_seconds = [&](double local_params, const GroupSpread& group) {
    return RingCollectiveSeconds(grad_b * local_params, group, *in.system, *in.params) +
           RingCollectiveSeconds(2.0 * local_params, group, *in.system, *in.params);
  };
  const double dp_s = dp_seconds(dense_local, in.links.dp_cp.spread) + dp_seconds(expert_local, in.links.edp.spread);
  // Gradient reduction overlaps the backward passes of the step when
  // overlap_grad_reduce is on; otherwise it all waits for the last one.
  return c.overlap_grad_reduce ? Exposed(dp_s, in.params->dp_exposed, in.params->overlap_window, backward_s) : dp_s;
}

double OptimizerShardParams(const StepInputs& in) {
  const ResolvedConfig& c = *in.config;
  const auto [dense_local, expert_local] = LocalParams(in);
  const double shard_dense = c.distributed_optimizer || c.fsdp ? in.dp * c.cp : 1;
  const double shard_expert = c.distributed_optimizer || c.fsdp ? in.edp : 1;
  return dense_local / shard_dense + expert_local / shard_expert;
}

double OptimizerSeconds(const StepInputs& in) {
  const double shard_params = OptimizerShardParams(in);
  const double offloaded = in.config->OffloadedOptimizerShare() * shard_params;
  const double on_gpu = shard_params - offloaded;
  return AdamSeconds(on_gpu, in.device) + StreamSeconds(2.0 * on_gpu, in.device) +
         CpuOptimizerSeconds(offloaded, *in.system, in.params->link_efficiency).Total();
}

std::vector<LayerCompute> LayerComputes(const StepInputs& in, int64_t stage, LayerShareCache* cache) {
  std::vector<LayerCompute> out;
  ForEachLayerOfStage(in, stage, [&](LayerKind kind, int64_t index, bool mtp, bool) {
    const LayerTime& t = cache->Get(in, kind, index, mtp, false).layer;
    const std::string label = std::string(LayerKindLabel(kind, mtp)) +
                              (!mtp && IsLocalAttentionLayer(*in.model, index) ? ", local attention" : "");
    for (LayerCompute& l : out) {
      if (l.layer == label) {
        ++l.count;
        return;
      }
    }
    LayerCompute l;
    l.layer = label;
    l.count = 1;
    l.forward_s = t.Forward();
    l.backward_s = t.Backward();
    l.host_s = t.host_s;
    for (int i = 0; i < kLayerParts; ++i) {
      const double s = t.forward[i] + t.backward[i];
      switch (KindOfPart(static_cast<LayerPart>(i))) {
        case ComputeKind::kGemm:
          l.gemm_s += s;
          break;
        case ComputeKind::kAttention:
          l.attention_s += s;
          break;
        case ComputeKind::kMoe:
          l.moe_s += s;
          break;
        case ComputeKind::kElementwise:
          l.elementwise_s += s;
          break;
      }
    }
    out.push_back(l);
  });
  return out;
}

std::vector<std::string> PerfAssumptions(const StepInputs& in, const PerfEstimate& e) {
  const ModelSpec& m = *in.model;
  const ResolvedConfig& c = *in.config;
  const SystemSpec& sys = *in.system;
  const PerfParams& P = *in.params;
  const Device& device = in.device;
  std::vector<std::string> out;
  // The model's head dimension (its first layer's), where it moves the rate
  // (AttentionHeadShare: exponentials per tile against the MMA).
  std::string head_dim_note;
  if (m.num_attention_heads > 0 && c.tp > 0) {
    const AttentionShape shape = AttentionShapeOf(m, c, 0);
    const double dim = (shape.qk_dim + shape.v_dim) / 2;
    const double fwd = AttentionHeadShare(dim, false, device), bwd = AttentionHeadShare(dim, true, device);
    if (dim > 0 && (std::abs(fwd - 1) > 0.005 || std::abs(bwd - 1) > 0.005)) {
      head_dim_note = absl::StrFormat(
          "; at this model's head dim %.0f on this GPU (%.0f softmax exponentials per clock per SM against its "
          "MMA) x%.2f forward and x%.2f backward",
          dim, device.exp_per_clock_per_sm, fwd, bwd);
    }
  }
  out.push_back(absl::StrFormat(
      "GEMMs timed from their shapes: large ones at %.0f%% of the %.0f TFLOP/s %s peak, less for tiles and waves "
      "that do not fill the %d SMs, never faster than HBM allows; the slowest stage's dense GEMMs average %.0f%% of "
      "peak. Fused attention (cuDNN) at %.0f%% of the bf16 peak forward and %.0f%% backward per busy SM (head dim "
      "128%s), with the causal mask's uneven blocks spread over the SMs. Kernel rates are measured "
      "(core/perf/kernel_rates.cc), not fitted.",
      100 * device.gemm_ceiling, e.peak_tflops, PrecisionName(c.precision), device.sm_count, 100 * e.gemm_efficiency,
      100 * device.rates.attention_forward, 100 * device.rates.attention_backward, head_dim_note));
  if (m.num_moe_experts > 0) {
    const double per_expert = in.tokens / (c.sp ? c.tp : 1) * m.moe_router_topk * c.ep * c.etp / m.num_moe_experts;
    out.push_back(absl::StrFormat(
        "Expert GEMMs as one GEMM per local expert (Transformer Engine GroupedLinear) over %d local experts with "
        "%.0f tokens each per microbatch (balanced routing; real routing is slower); routing and token permutation "
        "from the bytes they move.",
        static_cast<int>(std::max<int64_t>(1, m.num_moe_experts / c.ep)), per_expert));
    if (c.ep * c.etp > 1) out.push_back(DescribeDispatch(DispatchOfStep(in), c, device.sm_count));
  }
  out.push_back(
      absl::StrFormat("Norms from the bytes they move at %.0f%% of HBM bandwidth, activations and other "
                      "element-wise kernels at %.0f%%.",
                      100 * device.rates.reduction_efficiency, 100 * device.rates.stream_efficiency));
  // Host launches of each layer kind the model has (the MoE one for MoE models).
  LayerKind kind = KindOfLayer(m, 0);
  for (int64_t i = 0; m.is_moe() && i < m.num_layers; ++i) {
    if (HasMoe(KindOfLayer(m, i))) {
      kind = KindOfLayer(m, i);
      break;
    }
  }
  const std::vector<RegionLaunches> regions = LayerLaunches(m, c, kind, false);
  std::string host = absl::StrFormat(
      "The host issues each kernel in %.0f us (cuda_graph_impl %s); launches per %s layer and microbatch, forward + "
      "backward: %s; a layer takes the longer of its GPU and host time.",
      P.host_launch_us, c.cuda_graph_impl, m.is_moe() ? "MoE" : "decoder", DescribeLaunches(regions));
  if (m.is_moe() && !GraphCaptures(c, HostRegion::kMoeDispatch)) {
    absl::StrAppendFormat(&host,
                          " Each MoE layer blocks the host on its token counts %d time%s (%.0f us idle each) and the "
                          "GPU then waits for the expert GEMMs' launches (%.0f us each).",
                          DispatchHostSyncs(m, c), DispatchHostSyncs(m, c) == 1 ? "" : "s", P.moe_sync_us,
                          P.expert_launch_us);
  }
  out.push_back(host);
  out.push_back(absl::StrFormat(
      "Collectives at %.0f%% of line rate (NVLink %.0f GB/s inside the %d-GPU domain%s, scale-out %.0f GB/s per GPU "
      "outside; rings across hosts share each domain's NICs) plus %.0f us (NVLink) / %.0f us (network) per ring "
      "step. Exposed after overlap: TP %.0f%% (tp_comm_overlap %s), EP %.0f%% (overlap_moe_expert_parallel_comm %s), "
      "DP %s, PP %.0f%%, or whatever the compute alongside cannot hide.",
      100 * P.link_efficiency, sys.nvlink_gbps_unidirectional, sys.nvlink_domain_size,
      sys.gpus_per_node > sys.nvlink_domain_size
          ? absl::StrFormat(", PCIe %.0f GB/s between domains of a %d-GPU host", LinkGbytesPerSecond(sys, Link::kPcie),
                            sys.gpus_per_node)
          : std::string(),
      LinkGbytesPerSecond(sys, Link::kNetwork), P.nvlink_step_latency_us, P.network_step_latency_us,
      100 * (c.tp_comm_overlap ? P.tp_exposed_overlap : P.tp_exposed), c.tp_comm_overlap ? "on" : "off",
      100 * (c.overlap_moe_expert_parallel_comm ? P.ep_exposed_overlap : P.ep_exposed),
      c.overlap_moe_expert_parallel_comm ? "on" : "off",
      c.overlap_grad_reduce ? absl::StrFormat("%.0f%% (overlap_grad_reduce on)", 100 * P.dp_exposed)
                            : std::string("100% (overlap_grad_reduce off)"),
      100 * P.pp_exposed));
  out.push_back(DescribeGroupLinks(in.links, sys));
  if (c.OffloadedOptimizerShare() > 0) {
    out.push_back(
        DescribeOptimizerOffload(c.OffloadedOptimizerShare() * OptimizerShardParams(in), sys, P.link_efficiency));
  }
  if (c.cp > 1) {
    out.push_back(absl::StrCat(
        "Context parallelism (cp_comm_type ", in.cp.type, "): ", DescribeCp(in.cp, in.cp_links, sys),
        ". Ring transfers of K/V (backward: K/V and dK/dV) hide behind the attention block of the step before and "
        "show only where a transfer outlasts it; all-to-alls of Q/K/V/O and K/V all-gathers (reduce-scatters "
        "backward) wait on the attention's critical path."));
  }
  if (c.fsdp) {
    const int64_t group = in.dp * c.cp;
    out.push_back(absl::StrFormat(
        "Megatron FSDP: per microbatch each layer's weights are all-gathered twice (%.2f B/param, forward and "
        "backward) and its gradients reduce-scattered (%.0f B/param) over %d GPUs at %.0f GB/s bus bandwidth%s; "
        "exposed like DP communication (%.0f%%, or what the layer's compute cannot hide) plus the first gather.",
        GatheredWeightBytes(c), GradCommBytes(c), static_cast<int>(group), RingBandwidth(sys, in.links.dp_cp.spread),
        m.num_moe_experts > 0 ? absl::StrFormat(" (experts over %d GPUs at %.0f GB/s)", static_cast<int>(in.edp),
                                                RingBandwidth(sys, in.links.edp.spread))
                              : std::string(),
        100 * P.dp_exposed));
  }
  return out;
}

}  // namespace parplan
