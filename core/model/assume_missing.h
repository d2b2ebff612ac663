// Estimates for models with unknown architecture fields: rather than refuse,
// fill each unknown field by a named rule, mark the model approximate and
// say which values were assumed. Used by the estimate calls (memory,
// performance, recommend); validation keeps reporting the model as
// incomplete and skips the checks that would need the unknown fields.
#ifndef PARPLAN_CORE_MODEL_ASSUME_MISSING_H_
#define PARPLAN_CORE_MODEL_ASSUME_MISSING_H_

#include <string>
#include <vector>

#include "core/model/model_spec.h"

namespace parplan {

// Fills the unknown fields of `model` (see MissingFields), in this order:
//  1. Megatron-Core's own defaults for unset fields (transformer_config.py):
//     num_query_groups = heads, kv_channels = hidden / heads,
//     ffn_hidden_size = 4 * hidden, moe_ffn_hidden_size = ffn_hidden_size
//     (or 4 * hidden / top-k without dense layers), moe_router_topk = 2; Mamba-2 state 128, head dim 64, 8 groups,
//     heads = 2 * hidden / head dim (megatron/core/ssm/mamba_mixer.py).
//  2. Widths and counts from the size-only shape of the published parameter
//     count (core/model/size_model.h) when hidden_size, heads, vocabulary or
//     experts are unknown and a published count exists; otherwise head dim
//     128 and a 131,072-token vocabulary.
//  3. MLA ranks and head dims of DeepSeek-V3 (q 1536, kv 512, qk 128 + 64, v 128).
//  4. num_layers solved from the published total parameter count.
// Returns one line per assumed field ("num_layers = 88 (solved from the
// published 120B total)"); empty when nothing was unknown. Sets
// model->approximate, appends to approximation_note and recomputes
// missing_fields (still non-empty when a field has no rule: a hybrid model
// without its layer pattern, a layer count with no published size).
std::vector<std::string> AssumeMissingFields(ModelSpec* model);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_ASSUME_MISSING_H_
