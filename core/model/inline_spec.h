// An inline architecture (ModelRef spec, `--model-file spec.json`) as the
// planner takes it: refused where it leaves open a choice that changes the
// parameter count and that no Megatron default settles the way a model
// family does, and every field it left out named with the value it got.
#ifndef PARPLAN_CORE_MODEL_INLINE_SPEC_H_
#define PARPLAN_CORE_MODEL_INLINE_SPEC_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/model/model_spec.h"

namespace parplan {

// INVALID_ARGUMENT naming each field `spec` (as given, before defaults)
// leaves ambiguous, with its allowed values and the parameter count each
// gives; OK when all are settled. `prefix` is the spec's request path
// ("model.spec"). Megatron's own defaults differ from what the catalog's
// families use (transformer_config.py:221 gated_linear_unit False, :256
// normalization LayerNorm; gpt_model.py:110 position_embedding_type
// learned_absolute), so filling either way silently gives another model:
//  - gated_linear_unit: a proto bool cannot say "not given", so false is
//    taken as stated only with an activation_func other than silu (a plain
//    gelu / relu / squared_relu MLP); false with no activation or silu reads
//    as a Llama-style SwiGLU spec that left the flag out. Moot without MLP
//    layers.
//  - normalization: must be given, unless the spec is MLA
//    (MLATransformerConfig.normalization = RMSNorm, transformer_config.py:3303).
//  - position_embedding_type: must be given, unless the spec is MLA (rotary
//    by construction: qk_pos_emb_head_dim), states a RoPE scaling
//    (rope_scaling_type), or is hybrid (HybridModel's 'none',
//    megatron/core/models/hybrid/hybrid_model.py:123).
absl::Status CheckInlineSpecSettled(const ModelSpec& spec, const std::string& prefix);

// Fills what the family settles (MLA: RMSNorm and rope; a RoPE scaling:
// rope; hybrid: none), then Megatron-Core's defaults (ApplyMegatronDefaults),
// and names every field the spec did not give: one line per field
// ("kv_channels = 128 (not given: Megatron-Core's default hidden / heads)"),
// also recorded in model->field_sources and as one line of model->notes.
std::vector<std::string> DefaultInlineSpec(ModelSpec* model);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_INLINE_SPEC_H_
