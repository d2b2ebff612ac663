#include "core/memory/memory_steps.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/memory/activation_model.h"
#include "core/model/layer_kind.h"
#include "core/model/layer_params.h"
#include "core/model/param_count.h"
#include "core/perf/context_parallel.h"
#include "core/perf/host_launches.h"

namespace parplan {
namespace {

constexpr double kMasterBytes = 4.0;  // the distributed optimizer's fp32 master weight, per parameter

// Whether `c`'s Adam moments are bf16: the precision-aware optimizer's, except
// under optimizer CPU offload, whose branch of Megatron-Core builds both sides'
// Adam without the moment dtypes (megatron/core/optimizer/__init__.py).
bool Bf16Moments(const ResolvedConfig& c) { return c.optimizer_bf16 && c.OffloadedOptimizerShare() == 0; }

// LoRA adapters Megatron Bridge adds by default (rank 32 on linear_qkv,
// linear_proj, linear_fc1, linear_fc2) to one dense transformer layer.
double LoraAdapterParams(const ModelSpec& m) {
  constexpr double kRank = 32;
  const double h = static_cast<double>(m.hidden_size);
  const double q = static_cast<double>(m.num_attention_heads * m.kv_channels);
  const double qkv = q + 2.0 * m.num_query_groups * m.kv_channels;
  const double ffn = static_cast<double>(m.ffn_hidden_size > 0 ? m.ffn_hidden_size : m.moe_ffn_hidden_size);
  const double fc1 = (m.gated_linear_unit ? 2 : 1) * ffn;
  return kRank * ((h + qkv) + (q + h) + (h + fc1) + (ffn + h));
}

// Forward passes whose activations a rank holds at its peak, per chunk.
// 1F1B: min(PP - rank, m). Interleaved (Megatron's schedule with microbatch
// groups of PP): warm-up (PP - rank - 1) * 2 + (VPP - 1) * PP, plus one;
// forward step k runs chunk (k / PP) % VPP.
std::vector<int64_t> InFlight(int64_t pp, int64_t vpp, int64_t rank, int64_t m) {
  std::vector<int64_t> counts(vpp, 0);
  if (pp == 1) return std::vector<int64_t>(vpp, 1);  // forward then backward, one microbatch
  if (vpp == 1) {
    counts[0] = std::min(pp - rank, m);
    return counts;
  }
  const int64_t steps = std::min((pp - rank - 1) * 2 + (vpp - 1) * pp + 1, m * vpp);
  for (int64_t k = 0; k < steps; ++k) ++counts[(k / pp) % vpp];
  return counts;
}

// Activations of one chunk per token, and the largest group full recompute
// rebuilds at once (bytes per token).
struct ChunkActivations {
  double per_token = 0, working_per_token = 0, max_layer = 0;
};

ChunkActivations ChunkActivationBytes(const MemoryInputs& in, int64_t stage, int64_t chunk) {
  const ModelSpec& m = *in.model;
  const ResolvedConfig& c = *in.config;
  const bool full = c.recompute == RecomputeGranularity::kFull;
  ChunkActivations a;
  double group_bytes = 0;
  for (int64_t k = 0; k < in.plan->decoder_layers[stage][chunk]; ++k) {
    const LayerKind kind = KindOfLayer(m, in.first_layers[stage][chunk] + k);
    const double layer_bytes = LayerActivationBytesPerToken(m, kind, c);
    a.max_layer = std::max(a.max_layer, layer_bytes);
    if (!full) {
      a.per_token += layer_bytes;
      continue;
    }
    // Full recompute (per chunk): uniform keeps the input of every group of
    // N layers and rebuilds one group at a time; block recomputes the first
    // N layers and keeps the rest.
    const int64_t n = c.recompute_num_layers;
    if (c.recompute_method == RecomputeMethod::kUniform) {
      if (k % n == 0) {
        a.per_token += LayerInputBytesPerToken(m, c);
        group_bytes = 0;
      }
      group_bytes += layer_bytes;
      a.working_per_token = std::max(a.working_per_token, group_bytes);
    } else if (k < n) {
      a.per_token += LayerInputBytesPerToken(m, c);
      a.working_per_token = std::max(a.working_per_token, layer_bytes);
    } else {
      a.per_token += layer_bytes;
    }
  }
  return a;
}

}  // namespace

MemoryInputs PrepareMemory(const ModelSpec& m, const ResolvedConfig& c, const StagePlan& plan, int64_t world,
                           const SystemSpec* system) {
  MemoryInputs in;
  in.system = system;
  in.dispatcher = DispatcherBufferBytes(m, c, system);
  in.model = &m;
  in.config = &c;
  in.plan = &plan;
  const WorldSizing sizing = SizeWorld(MeshOf(c), world, 0, 0, 0);
  in.dp = sizing.dp;
  in.edp = sizing.edp;
  if (c.gbs > 0 && c.gbs % (c.mbs * in.dp) == 0) {
    in.microbatches = c.gbs / (c.mbs * in.dp);
  } else {
    in.microbatches = std::max<int64_t>(4 * c.pp * plan.vpp, 1);
    in.microbatches_assumed = true;
  }
  in.dense_shards = c.fsdp || c.distributed_optimizer ? static_cast<double>(in.dp * c.cp) : 1.0;
  in.expert_shards = c.fsdp || c.distributed_optimizer ? static_cast<double>(in.edp) : 1.0;
  in.tokens = static_cast<double>(c.seq_length) * c.mbs / c.cp;
  in.vocab = static_cast<double>(PaddedVocab(m, c.tp));
  in.gemm_bytes = GatheredWeightBytes(c);
  in.grad_bytes = c.grad_fp32 ? 4.0 : 2.0;
  in.optimizer_bytes = kMasterBytes + (Bf16Moments(c) ? 4.0 : 8.0);  // fp32 master + two moments
  in.first_layers = FirstLayerIndices(plan);
  return in;
}

StageParams CountStageParams(const MemoryInputs& in, int64_t r) {
  const ModelSpec& m = *in.model;
  const ResolvedConfig& c = *in.config;
  const StagePlan& plan = *in.plan;
  const double tp = static_cast<double>(c.tp);
  const double expert_split = static_cast<double>(c.ep * c.etp);
  StageParams p;
  for (int64_t v = 0; v < plan.vpp; ++v) {
    for (int64_t k = 0; k < plan.decoder_layers[r][v]; ++k) {
      const LayerKind kind = KindOfLayer(m, in.first_layers[r][v] + k);
      const LayerParams lp = ParamsOfLayer(m, kind);
      p.dense += lp.dense / tp;
      p.expert += lp.expert / expert_split;
      p.gemm += lp.dense / tp + lp.expert / expert_split;
      p.largest_layer = std::max(p.largest_layer, lp.dense / tp + lp.expert / expert_split);
      if (c.lora && kind != LayerKind::kMamba) p.adapters += LoraAdapterParams(m) / tp;
    }
  }
  // Embedding, output layer (a copy of the embedding when tied and PP > 1), final norm, MTP.
  const double embedding_params = in.vocab * m.hidden_size;
  // The word embedding is split over TP; a learned position table is not.
  if (plan.has_embedding[r]) p.dense += embedding_params / tp + static_cast<double>(PositionEmbeddingParams(m));
  if (plan.has_loss[r]) {
    if (!m.share_embeddings_and_output_weights || !plan.has_embedding[r]) p.dense += embedding_params / tp;
    p.dense += static_cast<double>(NormParams(m));  // final norm
  }
  if (plan.mtp_layers[r] > 0) {
    const LayerParams mp = MtpParams(m);
    p.dense += plan.mtp_layers[r] * mp.dense / tp;
    p.expert += plan.mtp_layers[r] * mp.expert / expert_split;
    p.gemm += plan.mtp_layers[r] * (mp.dense / tp + mp.expert / expert_split);
  }
  return p;
}

void AddActivations(const MemoryInputs& in, int64_t r, StageMemory* st) {
  const ModelSpec& m = *in.model;
  const ResolvedConfig& c = *in.config;
  const StagePlan& plan = *in.plan;
  const double outside = c.sp ? static_cast<double>(c.tp) : 1.0;
  const std::vector<int64_t> in_flight = InFlight(plan.pp, plan.vpp, r, in.microbatches);
  double working = 0, max_layer_act = 0;
  for (int64_t v = 0; v < plan.vpp; ++v) {
    ChunkMemory ch;
    ch.vpp_chunk = v;
    ch.decoder_layers = plan.decoder_layers[r][v];
    const ChunkActivations a = ChunkActivationBytes(in, r, v);
    double per_token = a.per_token;
    max_layer_act = std::max(max_layer_act, a.max_layer);
    working = std::max(working, a.working_per_token * in.tokens);
    if (v == plan.vpp - 1 && plan.has_loss[r]) {
      per_token += 2 * 2.0 * m.hidden_size / outside;  // final norm input and output (output-layer input)
    }
    if (v == plan.vpp - 1 && plan.mtp_layers[r] > 0) {
      per_token += plan.mtp_layers[r] * MtpActivationBytesPerToken(m, c);
    }
    ch.activation_bytes_per_microbatch = per_token * in.tokens;
    ch.in_flight = in_flight[v];
    st->activation_bytes += ch.activation_bytes_per_microbatch * ch.in_flight;
    st->chunks.push_back(ch);
  }
  if (plan.has_embedding[r]) st->embedding_bytes = 8.0 * in.tokens * in_flight[0];
  if (plan.has_loss[r]) {
    // bf16 logits, one microbatch at a time: the fused vocabulary-parallel
    // cross entropy (Bridge default cross_entropy_loss_fusion) writes its
    // gradient in place instead of keeping an fp32 copy.
    st->logits_bytes = 2.0 * in.tokens * in.vocab / c.tp * (1 + plan.mtp_layers[r]);
  }
  double per_mb = 0;
  for (const auto& ch : st->chunks) per_mb += ch.activation_bytes_per_microbatch;
  if (c.cpu_offloading_num_layers > 0 && per_mb > 0) {
    // Megatron cpu_offloading: the activations of N layers of the stage move
    // to host memory; one layer's worth stays as the copy buffer.
    int64_t rank_layers = 0;
    for (int64_t layers : plan.decoder_layers[r]) rank_layers += layers;
    const int64_t offloaded = std::min<int64_t>(c.cpu_offloading_num_layers, std::max<int64_t>(0, rank_layers - 1));
    if (rank_layers > 0) {
      st->activation_bytes = st->activation_bytes * (rank_layers - offloaded) / rank_layers;
      if (offloaded > 0) st->activation_bytes += max_layer_act * in.tokens;
    }
  }
  st->in_flight_microbatches = per_mb > 0 ? st->activation_bytes / per_mb : 0;
  st->recompute_working_bytes = c.recompute == RecomputeGranularity::kFull ? working : 0;
}

void AddModelState(const MemoryInputs& in, const StageParams& p, StageMemory* st) {
  const ResolvedConfig& c = *in.config;
  st->dense_params = p.dense;
  st->expert_params = p.expert;
  // Weights: GEMM weights in the recipe's format, the rest (embeddings,
  // output layer, norms) in bf16. LoRA trains only its adapters.
  const double all = p.dense + p.expert;
  const double weights = in.gemm_bytes * p.gemm + 2.0 * (all - p.gemm);
  const double trainable_dense = c.lora ? p.adapters : p.dense;
  const double trainable_expert = c.lora ? 0.0 : p.expert;
  if (c.fsdp) {
    st->weight_bytes = weights * (all > 0 ? (p.dense / in.dense_shards + p.expert / in.expert_shards) / all : 0);
    st->low_precision_weight_bytes = LowPrecisionParamGather(c) && all > 0 ? st->weight_bytes * p.gemm / all : 0;
    st->grad_bytes = in.grad_bytes * (trainable_dense / in.dense_shards + trainable_expert / in.expert_shards);
    // Two layers gathered at a time (current + prefetch), with their gradients before reduce-scatter.
    st->fsdp_working_bytes = 2.0 * (in.gemm_bytes + in.grad_bytes) * p.largest_layer;
  } else {
    st->weight_bytes = weights + 2.0 * (c.lora ? p.adapters : 0.0);
    st->low_precision_weight_bytes = LowPrecisionParamGather(c) ? in.gemm_bytes * p.gemm : 0;
    st->grad_bytes = in.grad_bytes * (trainable_dense + trainable_expert);
  }
  // Optimizer CPU offload: Megatron-Core's HybridDeviceOptimizer
  // (megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py) runs the
  // step of optimizer_offload_fraction of the parameters on the host, on
  // host copies of their fp32 master weights with the Adam moments there.
  // The distributed optimizer's fp32 master shard stays in HBM (the hybrid
  // optimizer is built over it and copies the updated weights back into it,
  // distrib_optimizer.py), so only the moments leave: 8 B per parameter in
  // fp32, as Megatron Bridge's sweep measured (skill
  // nemo-mbridge-perf-cpu-offloading: 15.3 GB freed at 100% of a 1.905 B
  // parameter shard; tests/data/optimizer_offload_ab.csv).
  const double dense_state = in.optimizer_bytes * trainable_dense / in.dense_shards;
  const double expert_state = in.optimizer_bytes * trainable_expert / in.expert_shards;
  const double offloaded = c.OffloadedOptimizerShare() * (in.optimizer_bytes - kMasterBytes) / in.optimizer_bytes;
  st->optimizer_dense_bytes = dense_state * (1.0 - offloaded);
  st->optimizer_expert_bytes = expert_state * (1.0 - offloaded);
  st->optimizer_host_bytes = (dense_state + expert_state) * c.OffloadedOptimizerShare();
}

AttentionCallBytes AttentionCallBytesOf(const MemoryInputs& in, int64_t index) {
  const ModelSpec& m = *in.model;
  const ResolvedConfig& c = *in.config;
  AttentionCallBytes out;
  const bool mtp = index >= m.num_layers;
  const int64_t layer = mtp ? m.num_layers - 1 : index;
  if (!HasAttention(mtp ? MtpLayerKind(m) : KindOfLayer(m, layer))) return out;
  // Unfused attention: the softmax probabilities kept for backward, and in
  // the call one more s x s buffer (the raw scores the softmax reads in the
  // forward, the probabilities' gradient in the backward; Megatron's fused
  // scale-mask-softmax writes its input gradient in place). When core_attn
  // is recomputed what it frees (core/model/attention_scores.h, the function
  // the recompute.core_attn_fused rule reads) is rebuilt in the backward and
  // transient too.
  const double scores = UnfusedScoreBytesPerToken(m, c) * in.tokens;
  const double freed = c.Recomputes("core_attn") ? CoreAttnRecomputeSavedBytesPerToken(m, c) * in.tokens : 0.0;
  out.saved_scores = scores - freed;
  out.unfused_working = scores + freed;
  // CP: the buffers Transformer Engine holds during one call under
  // cp_comm_type (core/perf/context_parallel.h CpAttentionWork.working_bytes).
  if (c.cp > 1) out.cp_working = CpAttentionBytes(AttentionShapeOf(m, c, layer), CpShapeOf(c)).working_bytes;
  return out;
}

void AddAttentionWorking(const MemoryInputs& in, int64_t r, StageMemory* st) {
  const StagePlan& plan = *in.plan;
  double working = 0;
  for (int64_t v = 0; v < plan.vpp; ++v) {
    for (int64_t k = 0; k < plan.decoder_layers[r][v]; ++k) {
      working = std::max(working, AttentionCallBytesOf(in, in.first_layers[r][v] + k).working());
    }
  }
  if (plan.mtp_layers[r] > 0) working = std::max(working, AttentionCallBytesOf(in, in.model->num_layers).working());
  st->attention_working_bytes = working;
}

namespace {

// Whether stage `r` holds a MoE layer (decoder or MTP).
bool StageHasMoeLayers(const MemoryInputs& in, int64_t r) {
  const ModelSpec& m = *in.model;
  const StagePlan& plan = *in.plan;
  for (int64_t v = 0; v < plan.vpp; ++v) {
    for (int64_t k = 0; k < plan.decoder_layers[r][v]; ++k) {
      if (HasMoe(KindOfLayer(m, in.first_layers[r][v] + k))) return true;
    }
  }
  return plan.mtp_layers[r] > 0 && HasMoe(MtpLayerKind(m));
}

}  // namespace

void AddRuntimeBuffers(const MemoryInputs& in, int64_t r, StageMemory* st) {
  // Megatron-Core keeps one dispatcher buffer per process, built at the first
  // MoE layer's dispatch (fused_a2a.py:36 get_buffer / :400
  // init_hybrid_ep_buffer); a stage without MoE layers never builds it.
  if (in.dispatcher.total() > 0 && StageHasMoeLayers(in, r)) st->dispatcher_buffer_bytes = in.dispatcher.total();
  st->cuda_graph_bytes = GraphStageBytes(in, r, *st).total();
}

namespace {

double StageSubtotal(const StageMemory& st) {
  return st.weight_bytes + st.grad_bytes + st.optimizer_dense_bytes + st.optimizer_expert_bytes + st.activation_bytes +
         st.recompute_working_bytes + st.logits_bytes + st.embedding_bytes + st.fsdp_working_bytes +
         st.dispatcher_buffer_bytes + st.cuda_graph_bytes + st.attention_working_bytes;
}

}  // namespace

double FragmentationAllowance(const StageMemory& st, bool expandable_segments) {
  const double slack = kDefaultAllocatorSlack * StageSubtotal(st);
  if (expandable_segments) return slack;
  // Without expandable segments every cudaMalloc'd segment is fixed and
  // blocks of different segments never merge (PyTorch "CUDA semantics",
  // section "Optimizing memory usage with PYTORCH_CUDA_ALLOC_CONF",
  // expandable_segments; PyTorch DevLog, E. Yang, "When does fragmentation
  // occur in the CUDA caching allocator?", 2026-06-01). A large transient
  // freed into one segment and re-requested after smaller blocks split it
  // needs a new segment: the allowance adds the stage's largest transient
  // block (the logits, one attention call's buffers, one recomputed layer,
  // one FSDP-gathered layer). No run in ../shared/data was made without
  // expandable segments, so this term is not fitted.
  const double largest_transient =
      std::max({st.logits_bytes, st.attention_working_bytes, st.recompute_working_bytes, st.fsdp_working_bytes / 2});
  return slack + largest_transient;
}

void AddOverhead(const MemoryOptions& options, const ResolvedConfig& config, StageMemory* st) {
  const double subtotal = StageSubtotal(*st);
  st->fragmentation_bytes =
      options.overhead_gib.has_value() ? 0 : FragmentationAllowance(*st, config.expandable_segments);
  st->overhead_bytes = options.overhead_gib.has_value() ? *options.overhead_gib * kGiB
                                                        : kDefaultOverheadGiB * kGiB + st->fragmentation_bytes;
  st->total_bytes = subtotal + st->overhead_bytes;
}

void FindPeak(const SystemSpec* system, MemoryEstimate* e) {
  for (const auto& st : e->stages) {
    if (st.total_bytes > e->peak_bytes) {
      e->peak_bytes = st.total_bytes;
      e->peak_pp_rank = st.pp_rank;
    }
    e->first_iteration_peak_bytes = std::max(e->first_iteration_peak_bytes, st.total_bytes - st.fragmentation_bytes);
  }
  if (system != nullptr && system->hbm_gb > 0) {
    // Marketed "80 GB" HBM is 80 GiB of device memory (nvidia-smi: 81,559 MiB on H100).
    e->capacity_bytes = system->hbm_gb * kGiB;
    e->fits = e->peak_bytes <= e->capacity_bytes;
    e->headroom_bytes = e->capacity_bytes - e->peak_bytes;
  }
}

std::vector<std::string> MemoryAssumptions(const MemoryInputs& in, const MemoryOptions& options) {
  const ResolvedConfig& c = *in.config;
  std::vector<std::string> out;
  if (in.microbatches_assumed) {
    out.push_back(
        absl::StrCat("No usable GBS: assumed ", in.microbatches, " microbatches per step (the pipeline fills)."));
  }
  out.push_back(absl::StrFormat(
      "Per parameter: GEMM weights %.2f B (%s), other weights 2 B, gradients %.0f B (%s), Adam %.0f B (fp32 master + "
      "%s moments)%s%s.",
      in.gemm_bytes, PrecisionName(c.precision), in.grad_bytes, c.grad_fp32 ? "grad_reduce_in_fp32" : "bf16 buffers",
      in.optimizer_bytes,
      Bf16Moments(c)     ? "bf16"
      : c.optimizer_bf16 ? "fp32 (optimizer CPU offload builds Adam without the bf16 moment dtypes)"
                         : "fp32",
      c.fsdp
          ? "; weights, gradients and optimizer sharded by Megatron FSDP"
          : (c.distributed_optimizer ? (in.model->is_moe() ? "; optimizer sharded over DP*CP (dense) and EDP (experts)"
                                                           : "; optimizer sharded over DP*CP")
                                     : "; nothing sharded (no distributed optimizer)"),
      c.lora ? "; LoRA: base weights frozen, rank-32 adapters trained" : ""));
  out.push_back(absl::StrCat("Activations: bf16 (GEMM inputs in the recipe's low-precision format), ",
                             c.unfused_attention
                                 ? absl::StrCat("unfused attention (attention_backend ", c.attention_backend,
                                                ": the s x s softmax probabilities are kept, see the attention line)")
                                 : std::string("fused (flash) attention"),
                             ", no dropout, balanced MoE routing (real routing skew adds expert activations)."));
  if (c.cpu_offloading_num_layers > 0) {
    out.push_back(absl::StrCat("CPU offloading: activations of ", c.cpu_offloading_num_layers,
                               " layers per stage live in host memory (one layer stays as the copy "
                               "buffer); host memory and PCIe traffic are not checked."));
  }
  out.push_back(options.overhead_gib.has_value()
                    ? absl::StrFormat("Overhead fixed at %.2f GiB per GPU (caller's value).", *options.overhead_gib)
                    : (c.expandable_segments
                           ? absl::StrFormat("Overhead %.1f GiB (CUDA context, NCCL buffers, workspaces) + %.0f%% "
                                             "allocator slack (expandable segments%s); override with overhead_gib.",
                                             kDefaultOverheadGiB, kDefaultAllocatorSlack * 100,
                                             c.expandable_segments_given ? "" : ", as Bridge's recipes set them")
                           : absl::StrFormat("Overhead %.1f GiB (CUDA context, NCCL buffers, workspaces) + %.0f%% "
                                             "allocator slack + the stage's largest transient block "
                                             "(expandable_segments off: freed segments do not merge); override "
                                             "with overhead_gib.",
                                             kDefaultOverheadGiB, kDefaultAllocatorSlack * 100)));
  out.push_back(
      "Not modelled: host memory and PCIe traffic of activation offloading, ncclep's buffers, the exact layout of "
      "CUDA-graph "
      "pools (their temporaries are estimated, see the CUDA-graph line).");
  return out;
}

std::vector<std::string> AttentionAndOffloadNotes(const MemoryInputs& in, const MemoryEstimate& e) {
  const ResolvedConfig& c = *in.config;
  std::vector<std::string> out;
  if (e.stages.empty()) return out;
  const StageMemory& peak = e.stages[e.peak_pp_rank];
  if (c.OffloadedOptimizerShare() > 0) {
    double most = 0;
    for (const auto& st : e.stages) most = std::max(most, st.optimizer_host_bytes);
    const int64_t per_node = in.system != nullptr ? in.system->gpus_per_node : 0;
    out.push_back(absl::StrCat(
        absl::StrFormat("Optimizer CPU offload (optimizer_offload_fraction %.2f): the Adam moments of that share "
                        "leave HBM and %.2f GiB per GPU of fp32 master copies and moments on PP rank %d sit in host "
                        "memory; the distributed optimizer's fp32 master shard stays in HBM (Megatron-Core "
                        "HybridDeviceOptimizer, megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py)",
                        c.optimizer_offload_fraction, peak.optimizer_host_bytes / kGiB, peak.pp_rank),
        per_node > 0 ? absl::StrFormat("; host memory needed: up to %.1f GiB per %d-GPU node for that state alone "
                                       "(pinned gradient copies and the CPU Adam's buffers come on top)",
                                       most * per_node / kGiB, per_node)
                     : std::string(),
        "."));
  }
  // The stage's largest attention call, as AddAttentionWorking took it.
  AttentionCallBytes call;
  int64_t layers = 0;
  for (int64_t v = 0; v < in.plan->vpp; ++v) {
    for (int64_t k = 0; k < in.plan->decoder_layers[peak.pp_rank][v]; ++k) {
      const AttentionCallBytes b = AttentionCallBytesOf(in, in.first_layers[peak.pp_rank][v] + k);
      if (b.working() > 0 || b.saved_scores > 0) ++layers;
      if (b.working() + b.saved_scores > call.working() + call.saved_scores) call = b;
    }
  }
  if (c.unfused_attention && call.unfused_working > 0) {
    // saved = scores - freed, working = scores + freed (AttentionCallBytesOf).
    const double scores = (call.unfused_working + call.saved_scores) / 2;
    const bool freed = call.unfused_working > call.saved_scores;
    out.push_back(absl::StrFormat(
        "Unfused attention (attention_backend %s) materialises the s x s scores: %.0f heads per TP rank x %d "
        "queries x %d keys per sequence, %.2f GiB per layer and microbatch of bf16 softmax probabilities %s on PP "
        "rank %d (%d attention layers), plus %.2f GiB of raw scores while one layer runs (Korthikanti et al. 2022: "
        "2·a·s²·b without dropout).",
        c.attention_backend, static_cast<double>(in.model->num_attention_heads) / c.tp, c.seq_length / c.cp,
        c.seq_length, scores / kGiB, freed ? "rebuilt by core_attn recompute (not kept)" : "kept for backward",
        peak.pp_rank, layers, scores / kGiB));
  }
  if (call.cp_working > 0) {
    const CpShape cp = CpShapeOf(c);
    std::string what;
    if (cp.ring > 1 && cp.a2a > 1) {
      what = absl::StrCat("the a2a copies of Q, K, V and O over ", cp.a2a, " ranks and the p2p ring's K/V send and ",
                          "receive buffers (ring of ", cp.ring, ")");
    } else if (cp.ring > 1) {
      what = absl::StrCat("the p2p ring's K/V chunk being sent and the one arriving (ring of ", cp.ring, ")");
    } else if (cp.gather > 1) {
      what = absl::StrCat("K/V all-gathered from ", cp.gather,
                          " ranks, and in the backward their full-length gradients before the reduce-scatter");
    } else {
      what = absl::StrCat("the head-scattered a2a copies of Q, K, V and O over ", cp.a2a, " ranks");
    }
    out.push_back(absl::StrFormat(
        "Context parallelism (cp_comm_type %s, CP %d): one attention call holds %.2f GiB of working buffers on PP "
        "rank %d: %s (Transformer Engine's context_parallel.py); counted once, as one layer's call runs at a "
        "time.",
        cp.type, c.cp, call.cp_working / kGiB, peak.pp_rank, what));
  }
  return out;
}

std::vector<std::string> RuntimeBufferNotes(const MemoryInputs& in, const MemoryEstimate& e) {
  const ResolvedConfig& c = *in.config;
  std::vector<std::string> out;
  const std::string dispatcher = DispatcherBufferBytes(*in.model, c, in.system, true).reason;
  if (!dispatcher.empty()) {
    std::vector<std::string> ranks;
    for (const auto& st : e.stages) {
      if (st.dispatcher_buffer_bytes > 0) ranks.push_back(absl::StrCat(st.pp_rank));
    }
    const bool all = ranks.size() == e.stages.size();
    out.push_back(
        absl::StrCat("MoE dispatcher: ", dispatcher,
                     in.dispatcher.total() > 0
                         ? (all ? std::string("; on every PP rank")
                                : absl::StrCat("; on the PP rank(s) holding MoE layers: ", absl::StrJoin(ranks, ", ")))
                         : std::string(),
                     "."));
  }
  if (c.cuda_graph_impl != "none" && !e.stages.empty()) {
    const StageMemory& peak = e.stages[e.peak_pp_rank];
    const CudaGraphStage g = GraphStageBytes(in, peak.pp_rank, peak);
    const std::string scope =
        c.cuda_graph_impl == "full_iteration"
            ? std::string("the whole forward-backward of every microbatch")
            : (c.cuda_graph_modules.empty()
                   ? std::string(in.model->is_moe() && !GraphCaptures(c, HostRegion::kMoeDispatch)
                                     ? "whole layers but the dropless MoE dispatch, which runs eagerly between them"
                                     : "whole layers")
                   : absl::StrCat("[", absl::StrJoin(c.cuda_graph_modules, ", "), "]"));
    out.push_back(absl::StrFormat(
        "CUDA graphs (%s, %s): on PP rank %d %.2f GiB = static buffers %.2f GiB (%s) + private-pool working set %.2f "
        "GiB (one captured layer's activations for one microbatch, standing in for the temporaries the pool keeps "
        "from the eager allocator; approximate).",
        c.cuda_graph_impl, scope, peak.pp_rank, g.total() / kGiB, g.static_bytes / kGiB,
        c.cuda_graph_impl == "full_iteration"
            ? absl::StrCat("every microbatch's batch, 28 B a token x ", in.microbatches, " microbatches")
            : absl::StrCat(g.captured_layers,
                           " captured layers: a graph's output held besides the next graph's copy of it, per "
                           "hand-off and microbatch in flight, and the shared gradient buffer"),
        g.pool_bytes / kGiB));
  }
  return out;
}

}  // namespace parplan
