#include "core/model/layer_kind.h"

namespace parplan {

LayerKind KindOfLayer(const ModelSpec& m, int64_t index) {
  if (!m.hybrid_layer_pattern.empty()) {
    int64_t i = 0;
    for (char ch : MainHybridPattern(m.hybrid_layer_pattern)) {
      if (ch == '|') continue;
      if (i++ != index) continue;
      switch (ch) {
        case 'M':
          return LayerKind::kMamba;
        case '-':
          return LayerKind::kMlpOnly;
        case 'E':
          return LayerKind::kMoeOnly;
        default:
          return LayerKind::kAttentionOnly;
      }
    }
    return LayerKind::kAttentionOnly;
  }
  if (m.num_moe_experts <= 0) return LayerKind::kDenseTransformer;
  const int64_t freq = m.moe_layer_freq > 0 ? m.moe_layer_freq : 1;
  const bool moe = index >= m.first_k_dense_layers && (index - m.first_k_dense_layers) % freq == 0;
  return moe ? LayerKind::kMoeTransformer : LayerKind::kDenseTransformer;
}

LayerKind MtpLayerKind(const ModelSpec& m) {
  return m.num_moe_experts > 0 ? LayerKind::kMoeTransformer : LayerKind::kDenseTransformer;
}

bool HasAttention(LayerKind kind) {
  return kind == LayerKind::kDenseTransformer || kind == LayerKind::kMoeTransformer ||
         kind == LayerKind::kAttentionOnly;
}

bool HasDenseMlp(LayerKind kind) { return kind == LayerKind::kDenseTransformer || kind == LayerKind::kMlpOnly; }

bool HasMoe(LayerKind kind) { return kind == LayerKind::kMoeTransformer || kind == LayerKind::kMoeOnly; }

}  // namespace parplan
