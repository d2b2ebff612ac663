// What the attention backend decides about memory: whether core attention
// materialises the s x s scores, and so whether selective recompute of
// core_attn frees anything. One function for `validate` (the
// recompute.core_attn_fused rule) and `memory` (activation_model,
// memory_steps), so the two cannot disagree.
//
// Megatron-Core: selective recompute of "core_attn" checkpoints the core
// attention call (megatron/core/transformer/attention.py:392-395
// checkpoint_core_attention, :1555 _checkpointed_attention_forward, Megatron-LM
// d98e8a64): only its inputs Q, K, V are kept and the call runs again in
// backward. Unfused attention (attention_backend unfused: Transformer Engine's
// UnfusedDotProductAttention; local: Megatron-Core's DotProductAttention)
// keeps its softmax probabilities (s x s per sequence and head) for backward,
// which the checkpoint frees. Fused / flash kernels keep only Q, K, V, O and
// the softmax statistics; Q, K, V are the checkpoint's inputs and O is the
// output projection's saved input, so the checkpoint frees nothing. Megatron-
// Core's warning (transformer_config.py:1983-1989) fires for every selective
// core_attn recompute and says it is not needed with fused attention; parplan
// warns only where it frees nothing.
#ifndef PARPLAN_CORE_MODEL_ATTENTION_SCORES_H_
#define PARPLAN_CORE_MODEL_ATTENTION_SCORES_H_

#include <cstdint>

#include "core/model/model_spec.h"

namespace parplan {

// The attention facts the scores depend on (from the resolved config:
// ResolvedConfig::unfused_attention, tp, seq_length).
struct AttentionScoreInputs {
  bool unfused_attention = false;
  int64_t tp = 1;
  int64_t seq_length = 0;
};

// Bytes of the bf16 score row one query token keeps on this GPU per
// attention layer: 2 B x heads / TP x the keys it is scored against (the
// whole sequence: the causal mask and windows are applied to a full matrix).
// Zero for fused attention. With dropout off (the model bridges' HF value,
// mostly 0) the softmax output is what backward keeps: the dropout returns it
// as is and the PV batched GEMM saves that same tensor (Korthikanti et al.
// 2022's 5·a·s²·b adds the dropout mask a·s²·b and its output 2·a·s²·b).
double UnfusedScoreBytesPerToken(const ModelSpec& model, const AttentionScoreInputs& in);

// Bytes per token and attention layer that selective recompute of core_attn
// frees: the kept scores (unfused attention), zero with fused attention.
double CoreAttnRecomputeSavedBytesPerToken(const ModelSpec& model, const AttentionScoreInputs& in);

// True when selective core_attn recompute frees memory: unfused attention
// (ResolvedConfig::unfused_attention), whose kept scores it drops.
bool CoreAttnRecomputeSavesMemory(bool unfused_attention);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_ATTENTION_SCORES_H_
