#include "core/model/attention_scores.h"

namespace parplan {

double UnfusedScoreBytesPerToken(const ModelSpec& m, const AttentionScoreInputs& in) {
  if (!in.unfused_attention || in.tp <= 0) return 0;
  const double heads = static_cast<double>(m.num_attention_heads) / static_cast<double>(in.tp);
  return 2.0 * heads * static_cast<double>(in.seq_length);
}

bool CoreAttnRecomputeSavesMemory(bool unfused_attention) { return unfused_attention; }

double CoreAttnRecomputeSavedBytesPerToken(const ModelSpec& m, const AttentionScoreInputs& in) {
  return CoreAttnRecomputeSavesMemory(in.unfused_attention) ? UnfusedScoreBytesPerToken(m, in) : 0.0;
}

}  // namespace parplan
