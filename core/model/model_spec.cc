#include "core/model/model_spec.h"

namespace parplan {

LayerCounts CountLayers(const ModelSpec& model) {
  LayerCounts counts;
  if (!model.hybrid_layer_pattern.empty()) {
    for (char c : model.hybrid_layer_pattern) {
      switch (c) {
        case 'M': ++counts.mamba; break;
        case '*': case 'G': case 'D': ++counts.attention; break;
        case '-': ++counts.dense_mlp; break;
        case 'E': ++counts.moe; break;
        default: break;
      }
    }
    return counts;
  }
  counts.attention = model.num_layers;
  if (model.num_moe_experts <= 0) {
    counts.dense_mlp = model.num_layers;
    return counts;
  }
  const int64_t freq = model.moe_layer_freq > 0 ? model.moe_layer_freq : 1;
  for (int64_t i = 0; i < model.num_layers; ++i) {
    bool moe = i >= model.first_k_dense_layers && (i - model.first_k_dense_layers) % freq == 0;
    if (moe) {
      ++counts.moe;
    } else {
      ++counts.dense_mlp;
    }
  }
  return counts;
}

int64_t HybridPatternLayers(const std::string& pattern) {
  int64_t n = 0;
  for (char c : pattern) {
    if (c != '|') ++n;
  }
  return n;
}

}  // namespace parplan
