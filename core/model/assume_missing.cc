#include "core/model/assume_missing.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/model/model_checks.h"
#include "core/model/param_count.h"
#include "core/model/size_model.h"

namespace parplan {
namespace {

class Filler {
 public:
  explicit Filler(ModelSpec* m) : m_(*m) {}

  // Sets `*field` to `value` when it is unknown (0) and records why.
  void Fill(int64_t* field, const char* name, int64_t value, const std::string& why) {
    if (*field != 0 || value <= 0) return;
    *field = value;
    lines_.push_back(absl::StrCat(name, " = ", value, " (", why, ")"));
  }

  std::vector<std::string> Run() {
    const bool hybrid = m_.is_hybrid();
    const bool moe = m_.is_moe();
    const bool mla = m_.multi_latent_attention || m_.kind.find("mla") != std::string::npos;
    // A shape of the published size, for widths nobody published.
    std::optional<ModelSpec> shape;
    if (!m_.published_total_params.empty()) {
      std::string phrase = m_.published_total_params;
      if (moe && !m_.published_active_params.empty()) {
        absl::StrAppend(&phrase, " total, ", m_.published_active_params, " active MoE");
      }
      auto s = ModelFromSize(phrase, "model");
      if (s.ok()) shape = *s;
    }
    const std::string from_size =
        absl::StrCat("from the size-only shape of the published ", m_.published_total_params, " parameters");
    if (shape.has_value()) {
      Fill(&m_.hidden_size, "hidden_size", shape->hidden_size, from_size);
      Fill(&m_.num_attention_heads, "num_attention_heads", m_.hidden_size / 128, "head dim 128");
      Fill(&m_.vocab_size, "vocab_size", shape->vocab_size, from_size);
      if (moe) {
        Fill(&m_.num_moe_experts, "num_moe_experts", shape->num_moe_experts, from_size);
        Fill(&m_.moe_router_topk, "moe_router_topk", shape->moe_router_topk, from_size);
        Fill(&m_.moe_ffn_hidden_size, "moe_ffn_hidden_size", shape->moe_ffn_hidden_size, from_size);
      }
    }
    Fill(&m_.num_attention_heads, "num_attention_heads", m_.hidden_size / 128, "head dim 128");
    Fill(&m_.vocab_size, "vocab_size", 131072, "a typical 128K tokenizer; embedding and logits scale with it");
    Fill(&m_.num_query_groups, "num_query_groups", m_.num_attention_heads,
         "Megatron-Core's default: no grouped KV heads");
    if (!mla && m_.num_attention_heads > 0) {
      Fill(&m_.kv_channels, "kv_channels", m_.hidden_size / m_.num_attention_heads,
           "Megatron-Core's default: hidden / heads");
    }
    const LayerCounts counts = CountLayers(m_);
    if (counts.dense_mlp > 0 || (!moe && !hybrid)) {
      Fill(&m_.ffn_hidden_size, "ffn_hidden_size", 4 * m_.hidden_size, "Megatron-Core's default: 4 * hidden");
    }
    if (moe) {
      Fill(&m_.moe_router_topk, "moe_router_topk", 2, "Megatron-Core's default");
      Fill(&m_.moe_ffn_hidden_size, "moe_ffn_hidden_size", m_.ffn_hidden_size,
           "Megatron-Core's default: ffn_hidden_size");
      Fill(&m_.moe_ffn_hidden_size, "moe_ffn_hidden_size",
           4 * m_.hidden_size / std::max<int64_t>(1, m_.moe_router_topk),
           "a dense 4 * hidden MLP split over the top-k experts");
    }
    if (mla) {
      const char* ds = "DeepSeek-V3's value";
      Fill(&m_.q_lora_rank, "q_lora_rank", 1536, ds);
      Fill(&m_.kv_lora_rank, "kv_lora_rank", 512, ds);
      Fill(&m_.qk_head_dim, "qk_head_dim", 128, ds);
      Fill(&m_.qk_pos_emb_head_dim, "qk_pos_emb_head_dim", 64, ds);
      Fill(&m_.v_head_dim, "v_head_dim", 128, ds);
    }
    if (hybrid) {
      const char* mamba = "Megatron-Core's Mamba-2 default";
      Fill(&m_.mamba_state_dim, "mamba_state_dim", 128, mamba);
      Fill(&m_.mamba_head_dim, "mamba_head_dim", 64, mamba);
      Fill(&m_.mamba_num_groups, "mamba_num_groups", 8, mamba);
      if (m_.mamba_head_dim > 0) {
        Fill(&m_.mamba_num_heads, "mamba_num_heads", 2 * m_.hidden_size / m_.mamba_head_dim,
             "Megatron-Core's default: 2 * hidden / head dim");
      }
    }
    if (!hybrid && m_.num_layers == 0) SolveLayers();
    if (m_.kind.empty()) m_.kind = DeriveKind(m_);
    m_.missing_fields = MissingFields(m_);
    if (!lines_.empty()) {
      m_.approximate = true;
      const std::string note =
          absl::StrCat("Assumed for the estimate (unknown in the model): ", absl::StrJoin(lines_, "; "), ".");
      m_.approximation_note = m_.approximation_note.empty() ? note : absl::StrCat(m_.approximation_note, " ", note);
    }
    return lines_;
  }

 private:
  // Layers from the published total: total = fixed + L * per_layer.
  void SolveLayers() {
    auto size = ParseSizePhrase(m_.published_total_params, "model");
    if (!size.ok() || size->total <= 0) return;
    ModelSpec probe = m_;
    probe.num_layers = 1;
    probe.missing_fields = MissingFields(probe);
    if (!probe.complete()) return;
    const double one = static_cast<double>(CountParams(probe).total);
    probe.num_layers = 2;
    const double per_layer = static_cast<double>(CountParams(probe).total) - one;
    if (per_layer <= 0) return;
    const double layers = std::round((size->total - (one - per_layer)) / per_layer);
    Fill(&m_.num_layers, "num_layers", static_cast<int64_t>(std::clamp(layers, 1.0, static_cast<double>(kMaxLayers))),
         absl::StrCat("solved from the published ", m_.published_total_params, " total parameters"));
  }

  ModelSpec& m_;
  std::vector<std::string> lines_;
};

}  // namespace

std::vector<std::string> AssumeMissingFields(ModelSpec* model) {
  if (model->complete()) return {};
  return Filler(model).Run();
}

}  // namespace parplan
