#include "core/model/norm_modules.h"

namespace parplan {

bool SeparateAttentionNorm(const ModelSpec& m, LayerKind kind) {
  return HasAttention(kind) && m.multi_latent_attention;
}

bool SeparateMlpNorm(LayerKind kind) { return HasMoe(kind); }

int RecomputableNorms(const ModelSpec& m, LayerKind kind) {
  return (SeparateAttentionNorm(m, kind) ? 1 : 0) + (SeparateMlpNorm(kind) ? 1 : 0);
}

}  // namespace parplan
