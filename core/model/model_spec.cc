#include "core/model/model_spec.h"

#include "absl/strings/str_cat.h"
#include "core/util/text.h"

namespace parplan {

LayerCounts CountLayers(const ModelSpec& model) {
  LayerCounts counts;
  if (!model.hybrid_layer_pattern.empty()) {
    for (char c : MainHybridPattern(model.hybrid_layer_pattern)) {
      switch (c) {
        case 'M':
          ++counts.mamba;
          break;
        case '*':
        case 'G':
        case 'D':
        case '+':
          ++counts.attention;
          break;
        case '-':
          ++counts.dense_mlp;
          break;
        case 'E':
          ++counts.moe;
          break;
        default:
          break;
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

std::string MainHybridPattern(const std::string& pattern) { return pattern.substr(0, pattern.find('/')); }

std::vector<std::string> MtpHybridPatterns(const std::string& pattern) {
  std::vector<std::string> parts;
  size_t at = pattern.find('/');
  while (at != std::string::npos) {
    const size_t next = pattern.find('/', at + 1);
    parts.push_back(pattern.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
    at = next;
  }
  return parts;
}

int64_t HybridPatternLayers(const std::string& pattern) {
  int64_t n = 0;
  for (char c : MainHybridPattern(pattern)) {
    if (c != '|') ++n;
  }
  return n;
}

bool IsLocalAttentionLayer(const ModelSpec& m, int64_t index) {
  if (m.window_size <= 0 && m.attention_chunk_size <= 0) return false;
  if (!m.window_attn_pattern.empty()) {
    return index >= 0 && index < static_cast<int64_t>(m.window_attn_pattern.size()) &&
           m.window_attn_pattern[index] == 'S';
  }
  // Megatron (transformer/utils.py): layer_number % freq != 0 is local, layer_number 1-based.
  if (m.window_attn_skip_freq > 0) return (index + 1) % m.window_attn_skip_freq != 0;
  return true;
}

std::string RopeScalingText(const ModelSpec& m) {
  if (m.rope_scaling_type.empty()) return "";
  const std::string type = m.rope_scaling_type == "yarn"       ? "YaRN"
                           : m.rope_scaling_type == "longrope" ? "LongRoPE"
                           : m.rope_scaling_type == "dynamic"  ? "dynamic NTK"
                                                               : m.rope_scaling_type;
  std::string out = type;
  if (m.rope_scaling_factor > 0) absl::StrAppend(&out, " factor ", m.rope_scaling_factor);
  if (m.rope_original_context > 0) absl::StrAppend(&out, " on ", WithCommas(m.rope_original_context));
  return out;
}

}  // namespace parplan
