#include "core/perf/layer_time.h"

#include <algorithm>
#include <cmath>

#include "core/perf/perf_model.h"
#include "core/model/norm_modules.h"
#include "core/perf/host_launches.h"
#include "core/perf/recompute_host.h"
#include "core/perf/token_dispatch.h"

namespace parplan {
namespace {

constexpr double kActivationBytes = 2;  // activations stay bf16 in every recipe (FP8 only inside GEMMs)
// SMs userbuffers overlap kernels take from the GEMMs beside them (typical
// of Megatron Bridge's comm_overlap.py configs, see TimeLayer).
constexpr int kPipelinedOverlapSms = 20;
constexpr int kBulkOverlapSms = 14;

struct Builder {
  LayerTime* t;
  const Device& d;
  void Gemm(LayerPart part, double m, double n, double k, double count = 1, bool looped = false) {
    const int i = static_cast<int>(part);
    const TrainingGemm g = TrainingGemmSeconds(m, n, k, count, d, looped);
    t->forward[i] += g.forward;
    t->backward[i] += g.backward;
  }
  // A TP GEMM whose forward and backward run beside userbuffers overlap
  // kernels holding some SMs (`forward_device`, `backward_device`).
  void TpGemm(LayerPart part, double m, double n, double k, const Device& forward_device,
              const Device& backward_device) {
    const int i = static_cast<int>(part);
    t->forward[i] += TrainingGemmSeconds(m, n, k, 1, forward_device).forward;
    t->backward[i] += TrainingGemmSeconds(m, n, k, 1, backward_device).backward;
  }
  // Streaming kernels moving `forward_bytes` forward (`kernels` of them) and
  // `backward_ratio` times that backward.
  void Stream(LayerPart part, double forward_bytes, double backward_ratio, double kernels = 1) {
    const int i = static_cast<int>(part);
    t->forward[i] += StreamSeconds(forward_bytes, d, kernels);
    t->backward[i] += StreamSeconds(backward_ratio * forward_bytes, d, kernels);
  }
  // `count` RMSNorm / LayerNorm kernels over `elements` values each.
  void Norm(LayerPart part, double elements, double count = 1) {
    const int i = static_cast<int>(part);
    const PassSeconds n = NormSeconds(elements, d);
    t->forward[i] += count * n.forward;
    t->backward[i] += count * n.backward;
  }
};

}  // namespace

ComputeKind KindOfPart(LayerPart p) {
  switch (p) {
    case LayerPart::kCoreAttention:
    case LayerPart::kMambaScan:
      return ComputeKind::kAttention;
    case LayerPart::kMoeRouting:
    case LayerPart::kExpertGemms:
    case LayerPart::kMoeActivation:
      return ComputeKind::kMoe;
    case LayerPart::kMlpActivation:
    case LayerPart::kNorms:
    case LayerPart::kOtherElementwise:
      return ComputeKind::kElementwise;
    default:
      return ComputeKind::kGemm;
  }
}

bool RecomputedBy(LayerPart p, const std::string& module) {
  if (module == "core_attn") return p == LayerPart::kCoreAttention;
  if (module == "mlp") return p == LayerPart::kMlp || p == LayerPart::kMlpActivation;
  if (module == "moe") {
    return p == LayerPart::kMoeRouting || p == LayerPart::kExpertGemms || p == LayerPart::kMoeActivation ||
           p == LayerPart::kSharedExperts;
  }
  if (module == "moe_act") return p == LayerPart::kMoeActivation;
  if (module == "shared_experts") return p == LayerPart::kSharedExperts;
  if (module == "layernorm") return p == LayerPart::kNorms;
  if (module == "mla_up_proj") return p == LayerPart::kMlaUpProjections;
  return false;
}

double LayerTime::Forward() const {
  double s = 0;
  for (double v : forward) s += v;
  return s;
}

double LayerTime::Backward() const {
  double s = 0;
  for (double v : backward) s += v;
  return s;
}

LayerTime TimeLayer(const ModelSpec& m, const ResolvedConfig& c, LayerKind kind, int64_t index, bool mtp,
                    bool tp_overlap, const Device& d, const PerfParams& P) {
  LayerTime t;
  Builder b{&t, d};
  const double h = static_cast<double>(m.hidden_size);
  const double tp = static_cast<double>(c.tp);
  // Tokens of one microbatch in this GPU's GEMMs (sequence-parallel regions
  // gathered) and in its sequence-parallel regions (norms, residuals, router).
  const double tokens = static_cast<double>(c.seq_length) * c.mbs / c.cp;
  const double local = c.sp ? tokens / tp : tokens;
  const double gate = m.gated_linear_unit ? 2.0 : 1.0;
  // Fused SwiGLU reads 2 and writes 1 forward, reads 3 and writes 2
  // backward; GeLU reads 1 and writes 1, then reads 2 and writes 1.
  const double act_passes = m.gated_linear_unit ? 3.0 : 2.0;
  const double act_backward = m.gated_linear_unit ? 5.0 / 3.0 : 1.5;

  const bool attention = HasAttention(kind);
  const bool dense_mlp = HasDenseMlp(kind);
  const bool moe = HasMoe(kind);
  // TP communication overlap (Transformer Engine userbuffers) runs its
  // copies and reductions on SMs the GEMMs beside them lose: the
  // row-parallel forward GEMMs (projection, fc2) give up the pipelined
  // reduce-scatter's SMs, the column-parallel backward GEMMs (QKV, fc1) the
  // bulk all-gather's and reduce-scatter's (Megatron Bridge comm_overlap.py
  // userbuffers configs: proj_fprop 24-32 and fc2_fprop 8-16 SMs with
  // set_sm_margin; qkv_wgrad 24, fc1_wgrad 2-4, dgrads 2-16 bulk).
  Device row_forward = d, column_backward = d;
  if (tp_overlap) {
    row_forward.sm_count = std::max(1, d.sm_count - kPipelinedOverlapSms);
    column_backward.sm_count = std::max(1, d.sm_count - kBulkOverlapSms);
  }
  const int modules = (attention ? 1 : 0) + (dense_mlp || moe ? 1 : 0) + (kind == LayerKind::kMamba ? 1 : 0);
  t.moe = moe;

  // One pre-norm and one residual add per module; the add's backward sums
  // the two incoming gradients (the same three passes).
  b.Norm(LayerPart::kNorms, h * local, modules);
  // "layernorm" recompute repeats only the separate TENorms' forward.
  if (c.Recomputes("layernorm")) {
    t.norm_recompute_forward_s = RecomputableNorms(m, kind) * NormSeconds(h * local, d).forward;
  }
  for (int i = 0; i < modules; ++i) b.Stream(LayerPart::kOtherElementwise, 3 * h * local * kActivationBytes, 1.0);

  if (attention) {
    // Heads, head dims and K/V width on this TP rank, windows and chunks
    // (core/perf/context_parallel.h AttentionShapeOf).
    const AttentionShape shape = AttentionShapeOf(m, c, index);
    const double heads = shape.heads, qk_dim = shape.qk_dim, v_dim = shape.v_dim;
    if (m.multi_latent_attention) {
      if (m.q_lora_rank > 0) {
        // Down projections are replicated on every TP rank (Megatron-LM
        // multi_latent_attention.py builds them "duplicated").
        b.Gemm(LayerPart::kAttentionProjections, tokens, m.q_lora_rank, h);
        b.Gemm(LayerPart::kMlaUpProjections, tokens, heads * qk_dim, m.q_lora_rank);
        b.Norm(LayerPart::kNorms, m.q_lora_rank * tokens);
      } else {
        // Without q LoRA linear_q_proj runs inside mla_up_proj's checkpoint
        // (multi_latent_attention.py qkv_up_proj_and_rope_apply).
        b.Gemm(LayerPart::kMlaUpProjections, tokens, heads * qk_dim, h);
      }
      b.Gemm(LayerPart::kAttentionProjections, tokens, m.kv_lora_rank + m.qk_pos_emb_head_dim, h);
      b.Gemm(LayerPart::kMlaUpProjections, tokens, heads * (m.qk_head_dim + m.v_head_dim), m.kv_lora_rank);
      b.Norm(LayerPart::kNorms, m.kv_lora_rank * tokens);
      b.Stream(LayerPart::kOtherElementwise, 2 * heads * 2 * m.qk_pos_emb_head_dim * tokens * kActivationBytes, 1.0);
      b.Gemm(LayerPart::kAttentionProjections, tokens, h, heads * v_dim);
    } else {
      const double d_head = static_cast<double>(m.kv_channels);
      const double groups = std::max(1.0, m.num_query_groups / tp);
      b.TpGemm(LayerPart::kAttentionProjections, tokens, (heads + 2 * groups) * d_head, h, d, column_backward);
      b.TpGemm(LayerPart::kAttentionProjections, tokens, h, heads * d_head, row_forward, d);
      // Fused rotary embedding on Q and K (reads and writes them; its backward the same on their gradients).
      b.Stream(LayerPart::kOtherElementwise, 2 * (heads + groups) * d_head * tokens * kActivationBytes, 1.0);
    }
    if (c.unfused_attention) {
      // Batched QK^T and PV over the whole s x s score matrix of each
      // (sequence, head) (causal masking skips nothing), and the fused
      // scale-mask-softmax reading and writing the scores (Megatron-LM
      // DotProductAttention with FusedScaleMaskSoftmax).
      const double s_len = static_cast<double>(c.seq_length) / c.cp;
      const double batches = c.mbs * heads;
      b.Gemm(LayerPart::kCoreAttention, s_len, s_len, qk_dim, batches);
      b.Gemm(LayerPart::kCoreAttention, s_len, v_dim, s_len, batches);
      b.Stream(LayerPart::kCoreAttention, 2 * s_len * s_len * batches * kActivationBytes, 2.0);
    } else {
      // cuDNN fused attention of one microbatch: the whole causal sequence
      // (windows and chunks as the model defines them) without CP, or as
      // Transformer Engine splits it under the run's cp_comm_type
      // (core/perf/context_parallel.h).
      t.cp = AttentionUnderCp(shape, CpShapeOf(c), d);
      t.forward[static_cast<int>(LayerPart::kCoreAttention)] += t.cp.compute.forward;
      t.backward[static_cast<int>(LayerPart::kCoreAttention)] += t.cp.compute.backward;
    }
  }
  if (dense_mlp) {
    const double f = static_cast<double>(m.ffn_hidden_size);
    b.TpGemm(LayerPart::kMlp, tokens, gate * f / tp, h, d, column_backward);
    b.TpGemm(LayerPart::kMlp, tokens, h, f / tp, row_forward, d);
    // GeLU's erf runs at its own measured rate; SwiGLU, ReLU and squared
    // ReLU stream.
    if (m.gated_linear_unit || m.ResolvedActivation().find("gelu") == std::string::npos) {
      b.Stream(LayerPart::kMlpActivation, act_passes * f / tp * tokens * kActivationBytes, act_backward);
    } else {
      const PassSeconds g = GeluSeconds(f / tp * tokens, d);
      t.forward[static_cast<int>(LayerPart::kMlpActivation)] += g.forward;
      t.backward[static_cast<int>(LayerPart::kMlpActivation)] += g.backward;
    }
  }
  if (moe) {
    const double experts = static_cast<double>(m.num_moe_experts);
    const double topk = static_cast<double>(m.moe_router_topk);
    const double etp = static_cast<double>(c.etp);
    // Router on the sequence-parallel tokens, then its scores and top-k.
    b.Gemm(LayerPart::kMoeRouting, local, experts, h);
    b.Stream(LayerPart::kMoeRouting, 6 * experts * local * 4.0, 2.0, 4);
    // Permute each token into its top-k expert slots and back, as the
    // dispatcher does it (core/perf/token_dispatch.h).
    const double pairs = local * topk;
    const PassSeconds permute = PermuteSeconds(m, c, local, d);
    t.forward[static_cast<int>(LayerPart::kMoeRouting)] += permute.forward;
    t.backward[static_cast<int>(LayerPart::kMoeRouting)] += permute.backward;
    // Balanced routing: each local expert receives the EP group's pairs / E,
    // gathered over its ETP group.
    const double local_experts = std::max(1.0, experts / c.ep);
    const double per_expert = pairs * c.ep * etp / experts;
    const double width = m.moe_latent_size > 0 ? static_cast<double>(m.moe_latent_size) : h;
    const double ffn = static_cast<double>(m.moe_ffn_hidden_size);
    if (m.moe_latent_size > 0) {
      b.Gemm(LayerPart::kExpertGemms, local, width, h);
      b.Gemm(LayerPart::kExpertGemms, local, h, width);
    }
    // Transformer Engine's GroupedLinear runs one cuBLAS GEMM per local
    // expert (general_grouped_gemm over a few streams), each paying its own
    // launch and wave quantization.
    b.Gemm(LayerPart::kExpertGemms, per_expert, gate * ffn / etp, width, local_experts, true);
    b.Gemm(LayerPart::kExpertGemms, per_expert, width, ffn / etp, local_experts, true);
    b.Stream(LayerPart::kMoeActivation, act_passes * ffn / etp * per_expert * local_experts * kActivationBytes,
             act_backward);
    if (m.moe_shared_expert_intermediate_size > 0) {
      const double s = static_cast<double>(m.moe_shared_expert_intermediate_size);
      b.Gemm(LayerPart::kSharedExperts, tokens, gate * s / tp, h);
      b.Gemm(LayerPart::kSharedExperts, tokens, h, s / tp);
      b.Stream(LayerPart::kSharedExperts, act_passes * s / tp * tokens * kActivationBytes, act_backward);
    }
    if (c.ep > 1) {
      t.ep_all_to_alls = 2;
      t.ep_bytes = pairs * h * kActivationBytes;
    }
  }
  if (kind == LayerKind::kMamba) {
    const double heads = static_cast<double>(m.mamba_num_heads);
    const double d_in = heads > 0 && m.mamba_head_dim > 0 ? heads * m.mamba_head_dim : 2 * h;
    const double state = static_cast<double>(m.mamba_state_dim);
    const double groups = static_cast<double>(std::max<int64_t>(1, m.mamba_num_groups));
    b.Gemm(LayerPart::kMambaProjections, tokens, (2 * d_in + 2 * groups * state + heads) / tp, h);
    b.Gemm(LayerPart::kMambaProjections, tokens, h, d_in / tp);
    // Causal conv1d over x, B, C, and the gated RMSNorm on the output
    // (mamba_ssm's Triton layernorm_gated, whose backward is slow).
    b.Stream(LayerPart::kOtherElementwise, 2 * (d_in + 2 * groups * state) / tp * tokens * kActivationBytes, 2.0);
    const PassSeconds norm = GatedNormSeconds(d_in / tp * tokens, d);
    t.forward[static_cast<int>(LayerPart::kNorms)] += norm.forward;
    t.backward[static_cast<int>(LayerPart::kNorms)] += norm.backward;
    const PassSeconds scan = SsdScanSeconds(tokens, d_in / tp, heads / tp, groups, state, d);
    t.forward[static_cast<int>(LayerPart::kMambaScan)] += scan.forward;
    t.backward[static_cast<int>(LayerPart::kMambaScan)] += scan.backward;
  }
  if (mtp) {
    // MTP depth: norms of the hidden state and the next token's embedding, and the 2h -> h projection.
    b.Norm(LayerPart::kNorms, h * local, 2);
    b.Gemm(LayerPart::kAttentionProjections, tokens, h / tp, 2 * h);
  }
  if (c.tp > 1) {
    t.tp_collectives = 2 * modules + (mtp ? 2 : 0);
    t.tp_buffer_bytes = tokens * h * kActivationBytes;
  }
  // Host time: the kernels the host issues for the regions CUDA graphs do
  // not capture, and the replays of those they do (core/perf/host_launches.h).
  const std::vector<RegionLaunches> regions = LayerLaunches(m, c, kind, mtp);
  double host_us = P.host_launch_us * IssuedLaunches(regions);
  // The SSD's Triton kernels are launched from Python, forward and backward
  // (measured: KernelRates::ssd_host_us).
  if (kind == LayerKind::kMamba && !GraphCaptures(c, HostRegion::kMamba)) host_us += d.rates.ssd_host_us;
  // A dropless MoE layer blocks the host on the token counts (only the
  // drop-and-pad 'moe' scope and full-iteration graphs avoid it); the GPU
  // then idles for the sync and for each expert kernel the host issues
  // after it: forward fc1 and fc2, backward their data and weight
  // gradients, six GEMMs per local expert, each with a quantization kernel
  // in FP8/FP4.
  if (moe && !GraphCaptures(c, HostRegion::kMoeDispatch)) {
    const double kernels = 6.0 * (d.quantize_bytes > 0 ? 2.0 : 1.0);
    const double local_experts = std::max(1.0, static_cast<double>(m.num_moe_experts) / c.ep);
    t.sync_s = (P.moe_sync_us * DispatchHostSyncs(m, c) + P.expert_launch_us * kernels * local_experts) * 1e-6;
  }
  const RecomputeHost recompute = SelectiveRecomputeHost(m, c, kind);
  t.recompute_host_s = P.host_launch_us * recompute.launches * 1e-6;
  t.recompute_moe_host_s = P.host_launch_us * recompute.moe_launches * 1e-6;
  t.recompute_checkpoint_s =
      (P.recompute_checkpoint_us * recompute.checkpoints + P.recompute_te_norm_us * recompute.te_norm_calls +
       P.recompute_te_attention_us * recompute.te_attention_calls) *
      1e-6;
  t.host_s = host_us * 1e-6;
  return t;
}

}  // namespace parplan
