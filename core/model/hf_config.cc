#include "core/model/hf_config.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/model/hf_families.h"
#include "core/model/hf_reader.h"
#include "core/model/model_checks.h"
#include "core/util/field_error.h"
#include "nlohmann/json.hpp"

namespace parplan {

using nlohmann::json;

bool HasHfConfigKeys(absl::string_view text) {
  for (const char* key : {"\"num_hidden_layers\"", "\"model_type\"", "\"architectures\"", "\"text_config\""}) {
    if (absl::StrContains(text, key)) return true;
  }
  return false;
}

absl::StatusOr<ModelSpec> ParseHfConfig(absl::string_view text, const std::string& field) {
  if (text.size() > kMaxHfConfigBytes) {
    return FieldError(field,
                      absl::StrCat("config.json is ", text.size(), " bytes; allowed at most ", kMaxHfConfigBytes));
  }
  json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return FieldError(field, "not valid JSON; pass the text of a Hugging Face config.json");
  }
  if (!root.is_object()) return FieldError(field, "config.json must be a JSON object");
  const json& cfg = (root.contains("text_config") && root["text_config"].is_object()) ? root["text_config"] : root;
  HfReader r(cfg, field);
  HfReader top(root, field);  // identity keys only; its errors are not reported
  ModelSpec m;
  m.origin = "hf_config";
  std::string model_type = r.String("model_type");
  if (model_type.empty() && &cfg != &root) model_type = top.String("model_type");
  std::string name = top.String("_name_or_path");
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
  // The native context; RoPE scaling may extend it (ApplyRopeScaling below).
  m.seq_length = r.Int({"max_position_embeddings", "n_positions"});
  const std::string act = r.Has("hidden_act")          ? r.String("hidden_act")
                          : r.Has("hidden_activation") ? r.String("hidden_activation")
                                                       : r.String("activation_function");  // GPT-2, OPT
  m.gated_linear_unit = !IsPlainMlpActivation(act);
  m.activation_func = MegatronActivation(act);
  // LayerNorm models name its epsilon (GPT-2 layer_norm_epsilon, GPT-NeoX
  // layer_norm_eps); RMSNorm models rms_norm_eps.
  if (!r.Has("rms_norm_eps") && (r.Has("layer_norm_epsilon") || r.Has("layer_norm_eps"))) m.normalization = "LayerNorm";
  // Megatron Bridge model_bridge.py CONFIG_MAPPING: attention_bias -> add_qkv_bias, mlp_bias -> add_bias_linear.
  m.add_qkv_bias = r.Bool("attention_bias", false);
  m.add_bias_linear = r.Bool("mlp_bias", false);

  // MoE.
  m.num_moe_experts = r.Int({"num_local_experts", "n_routed_experts", "num_experts"});
  m.moe_router_topk = r.Int({"num_experts_per_tok", "experts_per_token", "moe_topk"});
  const int64_t intermediate = r.Int({"intermediate_size", "n_inner", "ffn_dim"});
  const int64_t moe_intermediate = r.Int({"moe_intermediate_size"});
  if (m.num_moe_experts > 0) {
    m.moe_ffn_hidden_size = moe_intermediate > 0 ? moe_intermediate : intermediate;
    m.first_k_dense_layers = r.Int({"first_k_dense_replace"});
    // Dense layers (DeepSeek's first-k) use intermediate_size.
    m.ffn_hidden_size = intermediate;
    // DeepSeek, GLM-4.5 (Megatron Bridge glm45_bridge.py: moe_shared_expert_intermediate_size =
    // moe_intermediate_size for its one shared expert, moe_layer_freq [0] * first_k_dense_replace + [1] * rest).
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

  // Families.
  if (IsLlama4(model_type)) ApplyLlama4Moe(r, &m);
  if (model_type == "gpt_oss") ApplyGptOss(r, &m);
  if (IsGemma(model_type)) ApplyGemma(r, model_type, &m);
  if (IsGptStyle(model_type)) ApplyGptStyle(r, model_type, &m);
  ApplyAttentionLayout(r, model_type, &m);
  if (!m.learned_positions()) ApplyRopeScaling(r, &m);
  if (m.seq_length > kMaxTokens) {
    m.notes.push_back(absl::StrCat("max_position_embeddings ", m.seq_length, " is read as ", kMaxTokens,
                                   " tokens, the longest context parplan plans."));
    m.seq_length = kMaxTokens;
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
  m.notes.insert(m.notes.begin(), absl::StrCat("Parsed from a Hugging Face config.json (model_type \"",
                                               model_type.substr(0, 64), "\")."));
  if (&cfg != &root) {
    m.notes.push_back("Only the language model (text_config) is counted, not the vision or other towers.");
  }
  return m;
}

}  // namespace parplan
