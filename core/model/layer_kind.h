// What one decoder layer position holds. A GPT layer is attention + an MLP
// (dense or MoE); a hybrid-pattern position is one mixer ('M', '*', '-', 'E').
#ifndef PARPLAN_CORE_MODEL_LAYER_KIND_H_
#define PARPLAN_CORE_MODEL_LAYER_KIND_H_

#include <cstdint>

#include "core/model/model_spec.h"

namespace parplan {

enum class LayerKind { kDenseTransformer, kMoeTransformer, kMamba, kAttentionOnly, kMlpOnly, kMoeOnly };

// The kind of decoder layer `index` (0-based) of `model`.
LayerKind KindOfLayer(const ModelSpec& model, int64_t index);

// The kind MTP depths copy: the model's last layer.
LayerKind MtpLayerKind(const ModelSpec& model);

// What a layer of `kind` runs: self-attention, a dense MLP, a MoE block.
bool HasAttention(LayerKind kind);
bool HasDenseMlp(LayerKind kind);
bool HasMoe(LayerKind kind);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_LAYER_KIND_H_
