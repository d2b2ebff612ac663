// Which of a layer's pre-norms run as their own module and which Transformer
// Engine fuses into the GEMM after them: what selective "layernorm"
// recompute can act on. Megatron-Core (Megatron-LM d98e8a64
// transformer_layer.py:470-531) checkpoints a norm only when it is not an
// IdentityOp, and its Transformer Engine layer specs (models/gpt/
// gpt_layer_specs.py) fuse the pre-attention norm into linear_qkv
// (TELayerNormColumnParallelLinear) for standard attention and the pre-MLP
// norm into linear_fc1 for a dense MLP, but build a separate TENorm before
// MLA's down projections (:117, :296) and before a MoE block's router
// (:157, :282, :313). Mamba layers have no layernorm recompute
// (ssm/mamba_layer.py). parplan models the Transformer Engine implementation.
#ifndef PARPLAN_CORE_MODEL_NORM_MODULES_H_
#define PARPLAN_CORE_MODEL_NORM_MODULES_H_

#include "core/model/layer_kind.h"
#include "core/model/model_spec.h"

namespace parplan {

// True when a layer's pre-attention norm is a separate TENorm (MLA), false
// when it is fused into the QKV GEMM (standard attention) or absent.
bool SeparateAttentionNorm(const ModelSpec& model, LayerKind kind);

// True when a layer's pre-MLP norm is a separate TENorm (a MoE block), false
// when it is fused into fc1 (dense MLP) or absent.
bool SeparateMlpNorm(LayerKind kind);

// Norms "layernorm" recompute checkpoints in one layer of `kind`: 0, 1 or 2.
int RecomputableNorms(const ModelSpec& model, LayerKind kind);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_NORM_MODULES_H_
