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
#include "core/model/attention_scores.h"
#include "core/model/layer_kind.h"
#include "core/model/model_spec.h"

namespace parplan {

// Bytes per token (of the microbatch, on this GPU) stored by one layer when
// nothing is recomputed beyond `config`'s selective modules. `tp`, `sp`,
// `etp` come from the config.
double LayerActivationBytesPerToken(const ModelSpec& model, LayerKind kind, const ResolvedConfig& config);

// Unfused attention's kept s x s scores per token and attention layer on
// this GPU, and what selective core_attn recompute frees of them: `config`'s
// backend, TP and sequence length into the one function of
// core/model/attention_scores.h (which `validate` uses too). Zero for fused
// attention.
AttentionScoreInputs AttentionScoreInputsOf(const ResolvedConfig& config);
double UnfusedScoreBytesPerToken(const ModelSpec& model, const ResolvedConfig& config);
double CoreAttnRecomputeSavedBytesPerToken(const ModelSpec& model, const ResolvedConfig& config);

// Bytes per token a fully recomputed layer keeps: its input only.
double LayerInputBytesPerToken(const ModelSpec& model, const ResolvedConfig& config);

// Bytes per element of a saved GEMM input under `precision`.
double GemmInputBytes(Precision precision);

// Bytes per token of an MTP depth: the [h; h] projection input plus one
// transformer layer of the model's last-layer type.
double MtpActivationBytesPerToken(const ModelSpec& model, const ResolvedConfig& config);

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_ACTIVATION_MODEL_H_
