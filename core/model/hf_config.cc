#include "core/model/hf_config.h"

#include <algorithm>
#include <initializer_list>

#include "absl/strings/str_cat.h"
#include "core/model/model_checks.h"
#include "core/util/field_error.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace {

using nlohmann::json;

// Reads the first present key among `keys` as a non-negative integer.
// A present key with a wrong type is an error; absent gives 0.
class Reader {
 public:
  Reader(const json& obj, const std::string& field) : obj_(obj), field_(field) {}

  int64_t Int(std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
      auto it = obj_.find(key);
      if (it == obj_.end() || it->is_null()) continue;
      if (it->is_number_integer() || it->is_number_unsigned()) {
        int64_t v = it->get<int64_t>();
        if (v < 0 || v > (int64_t{1} << 40)) {
          errors_.Add(field_, absl::StrCat("\"", key, "\" = ", v, " is out of range; allowed 0..2^40"));
          return 0;
        }
        return v;
      }
      if (it->is_number_float()) {
        double d = it->get<double>();
        if (d >= 0 && d <= 1e12 && d == static_cast<double>(static_cast<int64_t>(d))) {
          return static_cast<int64_t>(d);
        }
      }
      errors_.Add(field_, absl::StrCat("\"", key, "\" must be a non-negative integer, got ",
                                       it->dump().substr(0, 64)));
      return 0;
    }
    return 0;
  }

  bool Has(const char* key) const { return obj_.contains(key) && !obj_[key].is_null(); }

  bool Bool(const char* key, bool fallback) {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return fallback;
    if (it->is_boolean()) return it->get<bool>();
    errors_.Add(field_, absl::StrCat("\"", key, "\" must be true or false"));
    return fallback;
  }

  std::string String(const char* key) {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return "";
    if (it->is_string()) return it->get<std::string>();
    errors_.Add(field_, absl::StrCat("\"", key, "\" must be a string"));
    return "";
  }

  FieldErrors& errors() { return errors_; }

 private:
  const json& obj_;
  std::string field_;
  FieldErrors errors_;
};

}  // namespace

absl::StatusOr<ModelSpec> ParseHfConfig(absl::string_view text, const std::string& field) {
  if (text.size() > kMaxHfConfigBytes) {
    return FieldError(field, absl::StrCat("config.json is ", text.size(),
                                          " bytes; allowed at most ", kMaxHfConfigBytes));
  }
  json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return FieldError(field, "not valid JSON; pass the text of a Hugging Face config.json");
  }
  if (!root.is_object()) return FieldError(field, "config.json must be a JSON object");
  const json& cfg = (root.contains("text_config") && root["text_config"].is_object())
                        ? root["text_config"]
                        : root;
  Reader r(cfg, field);
  ModelSpec m;
  m.origin = "hf_config";
  std::string model_type = r.String("model_type");
  std::string name = Reader(root, field).String("_name_or_path");
  if (name.empty() && root.contains("architectures") && root["architectures"].is_array() &&
      !root["architectures"].empty() && root["architectures"][0].is_string()) {
    name = root["architectures"][0].get<std::string>();
  }
  m.name = name.empty() ? (model_type.empty() ? "hf_config" : model_type) : name.substr(0, 256);
  m.id = "hf:" + (model_type.empty() ? std::string("unknown") : model_type.substr(0, 64));

  m.num_layers = r.Int({"num_hidden_layers", "n_layer", "num_layers"});
  m.hidden_size = r.Int({"hidden_size", "n_embd", "d_model"});
  m.num_attention_heads = r.Int({"num_attention_heads", "n_head"});
  m.num_query_groups = r.Int({"num_key_value_heads", "num_kv_heads"});
  m.kv_channels = r.Int({"head_dim"});
  m.vocab_size = r.Int({"vocab_size"});
  m.share_embeddings_and_output_weights = r.Bool("tie_word_embeddings", false);
  m.seq_length = std::min<int64_t>(r.Int({"max_position_embeddings", "n_positions"}), 131072);
  const std::string act = r.String("hidden_act");
  m.gated_linear_unit = !(act == "relu2" || act == "gelu" || act == "gelu_new" || act == "relu");
  if (model_type == "gpt_oss") m.gated_linear_unit = true;

  // MoE.
  m.num_moe_experts = r.Int({"num_local_experts", "n_routed_experts", "num_experts"});
  m.moe_router_topk = r.Int({"num_experts_per_tok", "moe_topk"});
  const int64_t intermediate = r.Int({"intermediate_size", "n_inner"});
  const int64_t moe_intermediate = r.Int({"moe_intermediate_size"});
  if (m.num_moe_experts > 0) {
    m.moe_ffn_hidden_size = moe_intermediate > 0 ? moe_intermediate : intermediate;
    m.first_k_dense_layers = r.Int({"first_k_dense_replace"});
    // Dense layers (DeepSeek's first-k) use intermediate_size.
    m.ffn_hidden_size = intermediate;
    const int64_t n_shared = r.Int({"n_shared_experts"});
    const int64_t shared_size = r.Int({"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"});
    if (shared_size > 0) {
      m.moe_shared_expert_intermediate_size = shared_size;
    } else if (n_shared > 0) {
      m.moe_shared_expert_intermediate_size = n_shared * m.moe_ffn_hidden_size;
    }
    const int64_t freq = r.Int({"moe_layer_freq", "decoder_sparse_step"});
    m.moe_layer_freq = freq > 0 ? freq : 1;
    if (m.first_k_dense_layers == 0 && m.ffn_hidden_size == m.moe_ffn_hidden_size) {
      m.ffn_hidden_size = m.moe_ffn_hidden_size;
    }
  } else {
    m.ffn_hidden_size = intermediate;
  }

  // MLA.
  m.kv_lora_rank = r.Int({"kv_lora_rank"});
  if (m.kv_lora_rank > 0) {
    m.multi_latent_attention = true;
    m.q_lora_rank = r.Int({"q_lora_rank"});
    m.qk_head_dim = r.Int({"qk_nope_head_dim"});
    m.qk_pos_emb_head_dim = r.Int({"qk_rope_head_dim"});
    m.v_head_dim = r.Int({"v_head_dim"});
    if (m.num_query_groups == 0) m.num_query_groups = m.num_attention_heads;
  }
  m.mtp_num_layers = r.Int({"num_nextn_predict_layers", "mtp_num_layers"});

  // Nemotron-H hybrid.
  std::string pattern = r.String("hybrid_override_pattern");
  if (!pattern.empty()) {
    m.hybrid_layer_pattern = pattern;
    m.mamba_num_heads = r.Int({"mamba_num_heads"});
    m.mamba_head_dim = r.Int({"mamba_head_dim"});
    m.mamba_state_dim = r.Int({"ssm_state_size", "mamba_state_dim"});
    m.mamba_num_groups = r.Int({"n_groups", "mamba_n_groups"});
    if (m.num_moe_experts > 0 && m.ffn_hidden_size == 0) m.ffn_hidden_size = m.moe_ffn_hidden_size;
  }

  // Sliding window.
  if (r.Has("sliding_window") && r.Bool("use_sliding_window", true)) {
    m.window_size = r.Int({"sliding_window"});
  }

  if (!r.errors().empty()) return r.errors().ToStatus();

  FieldErrors required;
  if (m.num_layers == 0 && m.hybrid_layer_pattern.empty()) {
    required.Add(field, "config.json lacks \"num_hidden_layers\" (the layer count)");
  }
  if (m.hidden_size == 0) required.Add(field, "config.json lacks \"hidden_size\"");
  if (m.num_attention_heads == 0) required.Add(field, "config.json lacks \"num_attention_heads\"");
  if (m.vocab_size == 0) required.Add(field, "config.json lacks \"vocab_size\"");
  if (m.num_moe_experts > 0 && m.moe_router_topk == 0) {
    required.Add(field, "MoE config lacks \"num_experts_per_tok\" (experts per token)");
  }
  if (!required.empty()) return required.ToStatus();

  ApplyMegatronDefaults(&m);
  if (absl::Status s = CheckArchitectureBounds(m, field); !s.ok()) return s;
  m.missing_fields = MissingFields(m);
  m.notes.push_back(absl::StrCat("Parsed from a Hugging Face config.json (model_type \"",
                                 model_type.substr(0, 64), "\")."));
  return m;
}

}  // namespace parplan
