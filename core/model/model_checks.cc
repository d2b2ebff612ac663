#include "core/model/model_checks.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"

namespace parplan {

const std::vector<std::string>& KnownSoftmaxTypes() {
  static const auto* names = new std::vector<std::string>{"vanilla", "off-by-one", "learnable"};
  return *names;
}

const std::vector<std::string>& KnownPositionEmbeddingTypes() {
  static const auto* names = new std::vector<std::string>{"rope", "yarn", "learned_absolute", "none"};
  return *names;
}

const std::vector<std::string>& KnownRopeScalingTypes() {
  static const auto* names = new std::vector<std::string>{"yarn", "llama3", "linear", "dynamic", "longrope"};
  return *names;
}

const std::vector<std::string>& KnownNormalizations() {
  static const auto* names = new std::vector<std::string>{"RMSNorm", "LayerNorm"};
  return *names;
}

const std::vector<std::string>& KnownActivations() {
  static const auto* names = new std::vector<std::string>{"silu", "gelu", "quick_gelu", "relu", "squared_relu"};
  return *names;
}

std::string DeriveKind(const ModelSpec& model) {
  const bool hybrid = !model.hybrid_layer_pattern.empty();
  const bool moe = model.num_moe_experts > 0;
  if (hybrid) return moe ? "hybrid_mamba_moe" : "hybrid_mamba";
  if (model.multi_latent_attention) return moe ? "mla_moe" : "mla";
  return moe ? "moe" : "dense";
}

void ApplyMegatronDefaults(ModelSpec* m) {
  // Megatron-LM infers mtp_num_layers from the pattern's '/' parts (arguments.py:865).
  if (m->mtp_num_layers == 0)
    m->mtp_num_layers = static_cast<int64_t>(MtpHybridPatterns(m->hybrid_layer_pattern).size());
  if (!m->hybrid_layer_pattern.empty() && m->num_layers == 0) {
    m->num_layers = HybridPatternLayers(m->hybrid_layer_pattern);
  }
  if (m->num_query_groups == 0) m->num_query_groups = m->num_attention_heads;
  if (m->kv_channels == 0 && m->num_attention_heads > 0) {
    m->kv_channels = m->hidden_size / m->num_attention_heads;
    m->kv_channels_defaulted = true;
  }
  if (m->ffn_hidden_size == 0 && CountLayers(*m).dense_mlp > 0) m->ffn_hidden_size = 4 * m->hidden_size;
  if (m->num_moe_experts > 0 && m->moe_ffn_hidden_size == 0 && m->ffn_hidden_size > 0) {
    m->moe_ffn_hidden_size = m->ffn_hidden_size;
    m->moe_ffn_defaulted = true;
  }
  if (m->make_vocab_size_divisible_by == 0) m->make_vocab_size_divisible_by = 128;
  if (m->softmax_type.empty()) m->softmax_type = "vanilla";
  if (m->position_embedding_type.empty()) m->position_embedding_type = "rope";
  if (m->normalization.empty()) m->normalization = "RMSNorm";
  if (m->kind.empty()) m->kind = DeriveKind(*m);
}

std::vector<std::string> MissingFields(const ModelSpec& m) {
  std::vector<std::string> missing;
  auto need = [&missing](bool known, const char* field) {
    if (!known) missing.push_back(field);
  };
  const bool hybrid = m.is_hybrid();
  const bool moe = m.is_moe();
  const bool mla = m.multi_latent_attention || m.kind.find("mla") != std::string::npos;
  if (hybrid) {
    need(!m.hybrid_layer_pattern.empty(), "hybrid_layer_pattern");
  } else {
    need(m.num_layers > 0, "num_layers");
  }
  need(m.hidden_size > 0, "hidden_size");
  need(m.vocab_size > 0, "vocab_size");
  const LayerCounts counts = CountLayers(m);
  const bool has_attention = counts.attention > 0 || m.num_layers == 0;
  if (has_attention) {
    need(m.num_attention_heads > 0, "num_attention_heads");
    need(m.num_query_groups > 0, "num_query_groups");
    if (!mla) need(m.kv_channels > 0 || m.num_attention_heads > 0, "kv_channels");
  }
  if (counts.dense_mlp > 0 || (!moe && !hybrid)) need(m.ffn_hidden_size > 0, "ffn_hidden_size");
  if (moe) {
    need(m.num_moe_experts > 0, "num_moe_experts");
    need(m.moe_router_topk > 0, "moe_router_topk");
    need(m.moe_ffn_hidden_size > 0, "moe_ffn_hidden_size");
  }
  if (mla) {
    need(m.kv_lora_rank > 0, "kv_lora_rank");
    need(m.qk_head_dim > 0, "qk_head_dim");
    need(m.qk_pos_emb_head_dim > 0, "qk_pos_emb_head_dim");
    need(m.v_head_dim > 0, "v_head_dim");
  }
  if (hybrid && (counts.mamba > 0 || m.hybrid_layer_pattern.empty())) {
    need(m.mamba_num_heads > 0, "mamba_num_heads");
    need(m.mamba_head_dim > 0, "mamba_head_dim");
    need(m.mamba_state_dim > 0, "mamba_state_dim");
    need(m.mamba_num_groups > 0, "mamba_num_groups");
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

namespace {

// Consistency of the local-attention fields: one local kind (window or
// chunk), and a per-layer pattern of 'S'/'F' that is as long as the model,
// has a local size to use and is not combined with the integer frequency.
template <typename FieldName>
void CheckLocalAttention(const ModelSpec& m, const FieldName& f, FieldErrors* errors) {
  if (m.window_size > 0 && m.attention_chunk_size > 0) {
    errors->Add(f("attention_chunk_size"),
                absl::StrCat("attention_chunk_size = ", m.attention_chunk_size, " and window_size = ", m.window_size,
                             " are both set; local layers use one or the other"));
  }
  const std::string& p = m.window_attn_pattern;
  if (p.empty()) return;
  if (static_cast<int64_t>(p.size()) > kMaxPatternChars) {
    errors->Add(f("window_attn_pattern"),
                absl::StrCat("pattern has ", p.size(), " characters; allowed at most ", kMaxPatternChars));
    return;
  }
  const size_t bad = p.find_first_not_of("SF");
  if (bad != std::string::npos) {
    errors->Add(f("window_attn_pattern"),
                absl::StrCat("character '", std::string(1, p[bad]), "' at layer ", bad,
                             " is not an attention kind; allowed S (local: sliding window or chunk), F (full)"));
    return;
  }
  if (m.num_layers > 0 && static_cast<int64_t>(p.size()) != m.num_layers) {
    errors->Add(f("window_attn_pattern"),
                absl::StrCat("pattern has ", p.size(), " layers but num_layers = ", m.num_layers, "; they must agree"));
  }
  if (m.window_attn_skip_freq > 0) {
    errors->Add(f("window_attn_skip_freq"),
                "window_attn_skip_freq and window_attn_pattern are both set; give one of them");
  }
  if (p.find('S') != std::string::npos && m.window_size <= 0 && m.attention_chunk_size <= 0) {
    errors->Add(f("window_attn_pattern"),
                "pattern has local (S) layers but neither window_size nor attention_chunk_size is set");
  }
}

}  // namespace

absl::Status CheckArchitectureBounds(const ModelSpec& m, const std::string& prefix) {
  FieldErrors errors;
  auto f = [&prefix](const char* name) { return absl::StrCat(prefix, ".", name); };
  errors.CheckRange(f("num_layers"), m.num_layers, 0, kMaxLayers);
  errors.CheckRange(f("hidden_size"), m.hidden_size, 0, kMaxWidth);
  errors.CheckRange(f("ffn_hidden_size"), m.ffn_hidden_size, 0, kMaxWidth);
  errors.CheckRange(f("num_attention_heads"), m.num_attention_heads, 0, kMaxWidth);
  errors.CheckRange(f("num_query_groups"), m.num_query_groups, 0, kMaxWidth);
  errors.CheckRange(f("kv_channels"), m.kv_channels, 0, kMaxWidth);
  errors.CheckRange(f("vocab_size"), m.vocab_size, 0, kMaxVocab);
  errors.CheckRange(f("make_vocab_size_divisible_by"), m.make_vocab_size_divisible_by, 0, kMaxVocabMultiple);
  errors.CheckRange(f("seq_length"), m.seq_length, 0, kMaxTokens);
  errors.CheckRange(f("q_lora_rank"), m.q_lora_rank, 0, kMaxWidth);
  errors.CheckRange(f("kv_lora_rank"), m.kv_lora_rank, 0, kMaxWidth);
  errors.CheckRange(f("qk_head_dim"), m.qk_head_dim, 0, kMaxWidth);
  errors.CheckRange(f("qk_pos_emb_head_dim"), m.qk_pos_emb_head_dim, 0, kMaxWidth);
  errors.CheckRange(f("v_head_dim"), m.v_head_dim, 0, kMaxWidth);
  errors.CheckRange(f("num_moe_experts"), m.num_moe_experts, 0, kMaxExperts);
  errors.CheckRange(f("moe_router_topk"), m.moe_router_topk, 0, kMaxExperts);
  errors.CheckRange(f("moe_ffn_hidden_size"), m.moe_ffn_hidden_size, 0, kMaxWidth);
  errors.CheckRange(f("moe_shared_expert_intermediate_size"), m.moe_shared_expert_intermediate_size, 0, kMaxWidth);
  errors.CheckRange(f("first_k_dense_layers"), m.first_k_dense_layers, 0, kMaxLayers);
  errors.CheckRange(f("moe_layer_freq"), m.moe_layer_freq, 0, kMaxLayers);
  errors.CheckRange(f("moe_latent_size"), m.moe_latent_size, 0, kMaxWidth);
  errors.CheckRange(f("mtp_num_layers"), m.mtp_num_layers, 0, kMaxMtpLayers);
  errors.CheckRange(f("mamba_state_dim"), m.mamba_state_dim, 0, kMaxWidth);
  errors.CheckRange(f("mamba_head_dim"), m.mamba_head_dim, 0, kMaxWidth);
  errors.CheckRange(f("mamba_num_heads"), m.mamba_num_heads, 0, kMaxWidth);
  errors.CheckRange(f("mamba_num_groups"), m.mamba_num_groups, 0, kMaxWidth);
  errors.CheckRange(f("window_size"), m.window_size, 0, kMaxTokens);
  errors.CheckRange(f("window_attn_skip_freq"), m.window_attn_skip_freq, 0, kMaxLayers);
  errors.CheckRange(f("attention_chunk_size"), m.attention_chunk_size, 0, kMaxTokens);
  CheckLocalAttention(m, f, &errors);
  errors.CheckRange(f("rope_original_context"), m.rope_original_context, 0, kMaxTokens);
  if (!(m.rope_scaling_factor >= 0 && m.rope_scaling_factor <= kMaxRopeScalingFactor)) {
    errors.Add(f("rope_scaling_factor"), absl::StrCat("rope_scaling_factor = ", m.rope_scaling_factor,
                                                      " is out of range; allowed 0..", kMaxRopeScalingFactor));
  }
  auto one_of = [&](const char* field, const std::string& value, const std::vector<std::string>& allowed,
                    bool empty_ok) {
    if ((empty_ok && value.empty()) || std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return;
    errors.Add(f(field),
               absl::StrCat("\"", value.substr(0, 32), "\" is not known; allowed ", absl::StrJoin(allowed, ", ")));
  };
  one_of("position_embedding_type", m.position_embedding_type, KnownPositionEmbeddingTypes(), true);
  one_of("rope_scaling_type", m.rope_scaling_type, KnownRopeScalingTypes(), true);
  one_of("normalization", m.normalization, KnownNormalizations(), true);
  one_of("activation_func", m.activation_func, KnownActivations(), true);
  const auto& softmax = KnownSoftmaxTypes();
  if (!m.softmax_type.empty() && std::find(softmax.begin(), softmax.end(), m.softmax_type) == softmax.end()) {
    errors.Add(f("softmax_type"), absl::StrCat("\"", m.softmax_type.substr(0, 32), "\" is not a softmax type; allowed ",
                                               absl::StrJoin(softmax, ", ")));
  }
  if (static_cast<int64_t>(m.hybrid_layer_pattern.size()) > kMaxPatternChars) {
    errors.Add(f("hybrid_layer_pattern"), absl::StrCat("pattern has ", m.hybrid_layer_pattern.size(),
                                                       " characters; allowed at most ", kMaxPatternChars));
  } else {
    const size_t mtp_at = m.hybrid_layer_pattern.find('/');
    for (size_t i = 0; i < m.hybrid_layer_pattern.size(); ++i) {
      const char c = m.hybrid_layer_pattern[i];
      // '|' only in the main part; '/' starts each MTP depth's pattern.
      if (std::string(i < mtp_at ? "M*-EGD+|/" : "M*-EGD+/").find(c) == std::string::npos) {
        errors.Add(f("hybrid_layer_pattern"),
                   absl::StrCat(
                       "character '", std::string(1, c),
                       "' is not a layer symbol; allowed M (Mamba), * (attention), "
                       "- (MLP), E (MoE), G (gated delta), D (DSA), + (MLA), | (pipeline stage break, main part only), "
                       "/ (before each MTP depth's pattern) "
                       "(megatron/core/models/hybrid/hybrid_layer_allocation.py Symbols)"));
        break;
      }
    }
    if (!m.hybrid_layer_pattern.empty() && m.num_layers != 0 &&
        m.num_layers != HybridPatternLayers(m.hybrid_layer_pattern)) {
      errors.Add(f("num_layers"),
                 absl::StrCat("num_layers = ", m.num_layers, " but hybrid_layer_pattern has ",
                              HybridPatternLayers(m.hybrid_layer_pattern), " layers; they must agree"));
    }
  }
  if (m.num_moe_experts > 0 && m.moe_router_topk > m.num_moe_experts) {
    errors.Add(f("moe_router_topk"),
               absl::StrCat("moe_router_topk = ", m.moe_router_topk, " exceeds num_moe_experts = ", m.num_moe_experts));
  }
  if (m.num_attention_heads > 0 && m.num_query_groups > m.num_attention_heads) {
    errors.Add(f("num_query_groups"), absl::StrCat("num_query_groups = ", m.num_query_groups,
                                                   " exceeds num_attention_heads = ", m.num_attention_heads));
  }
  if (m.num_layers > 0 && m.first_k_dense_layers > m.num_layers) {
    errors.Add(f("first_k_dense_layers"),
               absl::StrCat("first_k_dense_layers = ", m.first_k_dense_layers, " exceeds num_layers = ", m.num_layers));
  }
  return errors.ToStatus();
}

}  // namespace parplan
