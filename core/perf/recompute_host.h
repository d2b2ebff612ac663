// What selective recompute costs the host in one layer: the kernels the
// recomputed forward issues again in the backward, and the checkpoints
// around them. Megatron-Core wraps each recomputed module in a checkpoint
// (Megatron-LM d98e8a64 tensor_parallel/random.py: CheckpointFunction for
// core_attn and mlp, CheckpointWithoutOutput for layernorm, moe_act and
// mla_up_proj; transformer_layer.py, moe/experts.py,
// multi_latent_attention.py): the forward saves the CPU, CUDA and tracker
// RNG states, the backward restores them around the replay, runs it under
// its recompute contexts and hands its outputs back (a hook, a nested
// autograd call). On a layer whose GPU waits for the host every launch and
// every checkpoint adds to the step; a CUDA graph that captures the module's
// region replays the recompute with it (no host cost).
#ifndef PARPLAN_CORE_PERF_RECOMPUTE_HOST_H_
#define PARPLAN_CORE_PERF_RECOMPUTE_HOST_H_

#include "core/config/parallel_config.h"
#include "core/model/layer_kind.h"
#include "core/model/model_spec.h"

namespace parplan {

struct RecomputeHost {
  double launches = 0;  // kernels the recomputed forward issues again, per microbatch
  // Of `launches`, those of a whole-MoE replay ('moe'): issued before its
  // token-count sync, while the GPU still runs the layer's earlier backward.
  double moe_launches = 0;
  double checkpoints = 0;  // checkpoint regions entered, per microbatch
  // Transformer Engine modules whose call the recompute repeats and whose
  // host time is far above their launches: the norms (TENorm, through TE's
  // operation fuser) and the fused attention (TEDotProductAttention: its
  // backend selection and fused attention wrapper). Plain GEMM modules and
  // fused activations are counted by their launches.
  double te_norm_calls = 0;
  double te_attention_calls = 0;
};

// The launches and checkpoints `c`'s selective recompute adds to one layer
// of `kind` of `m` (0 for other granularities, for modules the layer does
// not have, and for regions `c`'s CUDA graphs capture). Counted from the
// Megatron-Core source for Transformer Engine layers, per module:
//  - core_attn: fused attention and its philox seed (2), one TE module call,
//    and Transformer Engine's context-parallel forward launches; unfused
//    attention's batched GEMMs and softmax (3).
//  - mla_up_proj: the q projection (linear_q_proj without q LoRA,
//    linear_q_up_proj with it) and linear_kv_up_proj, each with its FP8/FP4
//    quantization, and the RoPE and Q/K/V assembly (MlaRopeLaunches,
//    core/perf/host_launches.h: 2 kernels fused, 27 unfused).
//  - layernorm: one norm kernel and one TE module call per separate TENorm
//    (core/model/norm_modules.h).
//  - moe_act: the weighted SwiGLU (fused_bias_swiglu.py: activation,
//    probability multiply, cast: 3).
//  - mlp: the dense MLP region's forward (norm+fc1, activation, fc2, add).
//  - shared_experts: fc1, activation, fc2.
//  - moe: the MoE block's router, preprocess and dispatch forward launches.
//    The replayed token-count sync and the expert launches after it are not
//    charged: no measured pair isolates them, and at the fitted
//    PerfParams::moe_sync_us they made NVIDIA's Nemotron 3 Nano H100 runs
//    (moe + layernorm recompute) 10 points slower than published.
RecomputeHost SelectiveRecomputeHost(const ModelSpec& m, const ResolvedConfig& c, LayerKind kind);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_RECOMPUTE_HOST_H_
