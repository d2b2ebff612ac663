#include "core/model/layer_params.h"

#include "core/model/param_count.h"

namespace parplan {

LayerParams ParamsOfLayer(const ModelSpec& m, LayerKind kind) {
  const double attention = static_cast<double>(AttentionParams(m));
  const double mlp = m.ffn_hidden_size > 0 ? static_cast<double>(DenseMlpParams(m, m.ffn_hidden_size)) : 0;
  const double experts = static_cast<double>(m.num_moe_experts) * ExpertParams(m);
  const double moe_shared = m.num_moe_experts > 0 ? static_cast<double>(MoeSharedParams(m)) : 0;
  switch (kind) {
    case LayerKind::kDenseTransformer:
      return {attention + mlp, 0};
    case LayerKind::kMoeTransformer:
      return {attention + moe_shared, experts};
    case LayerKind::kMamba:
      return {static_cast<double>(MambaParams(m)), 0};
    case LayerKind::kAttentionOnly:
      return {attention, 0};
    case LayerKind::kMlpOnly:
      return {mlp, 0};
    case LayerKind::kMoeOnly:
      return {moe_shared, experts};
  }
  return {};
}

LayerParams MtpParams(const ModelSpec& m) {
  const LayerKind kind = m.num_moe_experts > 0 ? LayerKind::kMoeTransformer : LayerKind::kDenseTransformer;
  LayerParams p = ParamsOfLayer(m, kind);
  p.dense += 2.0 * m.hidden_size * m.hidden_size + 2.0 * m.hidden_size;  // eh projection + two norms
  return p;
}

}  // namespace parplan
