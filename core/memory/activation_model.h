// Activation bytes a layer keeps for its backward pass, per token of one
// microbatch on one GPU, module by module (derivation in core/memory/README.md).
//
// Conventions: bf16 activations (2 bytes); TE fused (flash) attention keeps
// no s^2 terms (unfused attention keeps its softmax probabilities, below);
// dropout off (modern LLM configs); tokens of a microbatch on one
// GPU = seq_length * mbs / CP. Under FP8/FP4 recipes Transformer Engine saves
// the quantized copy of each GEMM input (1 B, MXFP8 1.03 B, NVFP4 0.56 B per
// element) instead of the bf16 tensor; tensors other kernels need (norm and
// activation-function inputs, attention Q/K/V/O) stay bf16. With sequence parallelism the regions outside
// the TP-split GEMMs (norm inputs/outputs) are split by TP too; without it
// they are replicated on every TP rank. Megatron saves the sequence-sharded
// input of a column-parallel GEMM and re-gathers it in backward.
#ifndef PARPLAN_CORE_MEMORY_ACTIVATION_MODEL_H_
#define PARPLAN_CORE_MEMORY_ACTIVATION_MODEL_H_

#include <cstdint>

#include "core/config/parallel_config.h"
#include "core/model/layer_kind.h"
#include "core/model/model_spec.h"

namespace parplan {

// Bytes per token (of the microbatch, on this GPU) stored by one layer when
// nothing is recomputed beyond `config`'s selective modules. `tp`, `sp`,
// `etp` come from the config.
double LayerActivationBytesPerToken(const ModelSpec& model, LayerKind kind, const ResolvedConfig& config);

// Unfused attention (attention_backend unfused: Transformer Engine's
// UnfusedDotProductAttention; local: Megatron-Core's DotProductAttention,
// megatron/core/transformer/dot_product_attention.py) materialises the
// scores of every (query, key) pair: one s x s matrix per sequence and head.
// Bytes of one such bf16 matrix row per query token on this GPU: 2 B x
// heads / TP x the keys a query is scored against (the whole sequence: the
// causal mask and windows are applied to a full matrix). Zero for fused
// attention. With dropout off (the model bridges' HF value, mostly 0) the
// softmax output is what backward keeps: the dropout returns it as is and
// the PV batched GEMM saves that same tensor (Korthikanti et al. 2022's
// 5·a·s²·b adds the dropout mask a·s²·b and its output 2·a·s²·b).
double UnfusedScoreBytesPerToken(const ModelSpec& model, const ResolvedConfig& config);

// Bytes per token a fully recomputed layer keeps: its input only.
double LayerInputBytesPerToken(const ModelSpec& model, const ResolvedConfig& config);

// Bytes per element of a saved GEMM input under `precision`.
double GemmInputBytes(Precision precision);

// Bytes per token of an MTP depth: the [h; h] projection input plus one
// transformer layer of the model's last-layer type.
double MtpActivationBytesPerToken(const ModelSpec& model, const ResolvedConfig& config);

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_ACTIVATION_MODEL_H_
