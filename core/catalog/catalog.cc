#include "core/catalog/catalog.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/model/model_checks.h"
#include "core/util/text.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace {

using nlohmann::json;

int64_t IntOr0(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return 0;
  return it->get<int64_t>();
}

double DoubleOr0(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return 0;
  return it->get<double>();
}

std::string StringOrEmpty(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

bool BoolOr(const json& obj, const char* key, bool fallback) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_boolean()) return fallback;
  return it->get<bool>();
}

std::vector<std::string> Strings(const json& obj, const char* key) {
  std::vector<std::string> out;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> StringMap(const json& obj, const char* key) {
  std::map<std::string, std::string> out;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_object()) return out;
  for (auto kv = it->begin(); kv != it->end(); ++kv) {
    if (kv.value().is_string()) out[kv.key()] = kv.value().get<std::string>();
  }
  return out;
}

ModelSpec ParseModel(const json& j) {
  ModelSpec m;
  m.id = StringOrEmpty(j, "id");
  m.name = StringOrEmpty(j, "name");
  m.hf_id = StringOrEmpty(j, "hf_id");
  m.aliases = Strings(j, "aliases");
  m.kind = StringOrEmpty(j, "kind");
  m.origin = "catalog";
  m.published_total_params = StringOrEmpty(j, "published_total_params");
  m.published_active_params = StringOrEmpty(j, "published_active_params");
  m.first_k_dense_layers = IntOr0(j, "first_k_dense_layers");
  const json& a = j.at("arch");
  m.num_layers = IntOr0(a, "num_layers");
  m.hidden_size = IntOr0(a, "hidden_size");
  m.ffn_hidden_size = IntOr0(a, "ffn_hidden_size");
  m.num_attention_heads = IntOr0(a, "num_attention_heads");
  m.num_query_groups = IntOr0(a, "num_query_groups");
  m.kv_channels = IntOr0(a, "kv_channels");
  m.vocab_size = IntOr0(a, "vocab_size");
  m.make_vocab_size_divisible_by = IntOr0(a, "make_vocab_size_divisible_by");
  if (m.make_vocab_size_divisible_by == 0) m.make_vocab_size_divisible_by = 128;
  m.seq_length = IntOr0(a, "seq_length");
  m.gated_linear_unit = BoolOr(a, "gated_linear_unit", true);
  m.share_embeddings_and_output_weights = BoolOr(a, "share_embeddings_and_output_weights", false);
  m.multi_latent_attention = BoolOr(a, "multi_latent_attention", false);
  m.q_lora_rank = IntOr0(a, "q_lora_rank");
  m.kv_lora_rank = IntOr0(a, "kv_lora_rank");
  m.qk_head_dim = IntOr0(a, "qk_head_dim");
  m.qk_pos_emb_head_dim = IntOr0(a, "qk_pos_emb_head_dim");
  m.v_head_dim = IntOr0(a, "v_head_dim");
  m.num_moe_experts = IntOr0(a, "num_moe_experts");
  m.moe_router_topk = IntOr0(a, "moe_router_topk");
  m.moe_ffn_hidden_size = IntOr0(a, "moe_ffn_hidden_size");
  m.moe_shared_expert_intermediate_size = IntOr0(a, "moe_shared_expert_intermediate_size");
  m.moe_layer_freq = IntOr0(a, "moe_layer_freq");
  if (m.moe_layer_freq == 0) m.moe_layer_freq = 1;
  m.moe_latent_size = IntOr0(a, "moe_latent_size");
  m.mtp_num_layers = IntOr0(a, "mtp_num_layers");
  m.hybrid_layer_pattern = StringOrEmpty(a, "hybrid_layer_pattern");
  m.add_bias_linear = BoolOr(a, "add_bias_linear", false);
  m.add_qkv_bias = BoolOr(a, "add_qkv_bias", false);
  if (!StringOrEmpty(a, "softmax_type").empty()) m.softmax_type = StringOrEmpty(a, "softmax_type");
  // null = not recorded: parplan's defaults (rope, RMSNorm, silu/gelu by gating).
  if (!StringOrEmpty(a, "position_embedding_type").empty()) {
    m.position_embedding_type = StringOrEmpty(a, "position_embedding_type");
  }
  // RoPE scaling as the model's config states it (null = none); seq_length
  // is then the scaled native context.
  m.rope_scaling_type = StringOrEmpty(a, "rope_scaling_type");
  m.rope_scaling_factor = DoubleOr0(a, "rope_scaling_factor");
  m.rope_original_context = IntOr0(a, "rope_original_context");
  if (!StringOrEmpty(a, "normalization").empty()) m.normalization = StringOrEmpty(a, "normalization");
  m.activation_func = StringOrEmpty(a, "activation_func");
  m.mamba_state_dim = IntOr0(a, "mamba_state_dim");
  m.mamba_head_dim = IntOr0(a, "mamba_head_dim");
  m.mamba_num_heads = IntOr0(a, "mamba_num_heads");
  m.mamba_num_groups = IntOr0(a, "mamba_num_groups");
  if (a.contains("window_size") && a["window_size"].is_array() && !a["window_size"].empty() &&
      a["window_size"][0].is_number()) {
    m.window_size = a["window_size"][0].get<int64_t>();
  }
  m.window_attn_skip_freq = IntOr0(a, "window_attn_skip_freq");
  // kv_channels: Megatron derives hidden/heads when the provider leaves it unset.
  if (m.kv_channels == 0 && m.num_attention_heads > 0 && m.hidden_size > 0 && !m.multi_latent_attention) {
    m.kv_channels = m.hidden_size / m.num_attention_heads;
  }
  // The per-field "sources" are embedded apart (kCatalogSourcesJson) and
  // parsed only when asked for: Catalog::ModelFieldSources.
  m.completions = StringMap(j, "completions");
  for (const auto& [field, source] : m.completions) m.field_sources[field] = source;
  m.notes = Strings(j, "notes");
  m.pretrain_seq_length = IntOr0(j, "pretrain_seq_length");
  if (m.pretrain_seq_length > 0) m.field_sources["pretrain_seq_length"] = StringOrEmpty(j, "pretrain_seq_source");
  if (!StringOrEmpty(j, "params_source").empty()) {
    m.field_sources["published_params"] = StringOrEmpty(j, "params_source");
  }
  m.missing_fields = MissingFields(m);
  return m;
}

SystemSpec ParseSystem(const json& j) {
  SystemSpec s;
  s.id = StringOrEmpty(j, "id");
  s.name = StringOrEmpty(j, "name");
  s.aliases = Strings(j, "aliases");
  s.gpu_arch = StringOrEmpty(j, "gpu_arch");
  s.gpus_per_node = static_cast<int>(IntOr0(j, "gpus_per_node"));
  s.nvlink_domain_size = static_cast<int>(IntOr0(j, "nvlink_domain_size"));
  s.hbm_gb = DoubleOr0(j, "hbm_gb");
  s.hbm_bw_tbps = DoubleOr0(j, "hbm_bw_tbps");
  s.bf16_dense_tflops = DoubleOr0(j, "bf16_dense_tflops");
  s.fp8_dense_tflops = DoubleOr0(j, "fp8_dense_tflops");
  s.fp4_dense_tflops = DoubleOr0(j, "fp4_dense_tflops");
  s.nvlink_gbps_unidirectional = DoubleOr0(j, "nvlink_gbps_unidirectional");
  s.scaleout_gbps_per_gpu = DoubleOr0(j, "scaleout_gbps_per_gpu");
  s.pcie_gbps_unidirectional = DoubleOr0(j, "pcie_gbps_unidirectional");
  s.host_link_gbps_unidirectional = DoubleOr0(j, "host_link_gbps_unidirectional");
  s.host_memory_gbps_per_gpu = DoubleOr0(j, "host_memory_gbps_per_gpu");
  s.sm_count = static_cast<int>(DoubleOr0(j, "sm_count"));
  s.exp_per_clock_per_sm = DoubleOr0(j, "exp_per_clock_per_sm");
  s.description = StringOrEmpty(j, "description");
  s.sources = StringMap(j, "sources");
  s.notes = Strings(j, "notes");
  if (!StringOrEmpty(j, "node_note").empty()) s.notes.insert(s.notes.begin(), StringOrEmpty(j, "node_note"));
  return s;
}

bool Matches(absl::string_view query, const std::string& id, const std::vector<std::string>& aliases,
             const std::string& hf_id) {
  const std::string q = NormalizeName(query);
  if (q == NormalizeName(id)) return true;
  for (const auto& a : aliases) {
    if (q == NormalizeName(a)) return true;
  }
  if (!hf_id.empty()) {
    if (q == NormalizeName(hf_id)) return true;
    auto slash = hf_id.rfind('/');
    if (slash != std::string::npos && q == NormalizeName(hf_id.substr(slash + 1))) return true;
  }
  return false;
}

}  // namespace

Catalog::Catalog() {
  json root = json::parse(kCatalogJson, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.contains("models") || !root.contains("systems")) {
    // The catalog is compiled in; a broken one is a build defect, not input.
    std::cerr << "parplan: embedded catalog is corrupt\n";
    std::abort();
  }
  for (const auto& m : root["models"]) models_.push_back(ParseModel(m));
  for (const auto& s : root["systems"]) systems_.push_back(ParseSystem(s));
}

std::map<std::string, std::string> Catalog::ModelFieldSources(const std::string& model_id) const {
  static const auto* by_id = [] {
    auto* out = new std::map<std::string, std::map<std::string, std::string>>();
    const json root = json::parse(kCatalogSourcesJson, nullptr, /*allow_exceptions=*/false);
    if (root.is_discarded() || !root.is_object()) return out;
    for (const auto& item : root.items()) (*out)[item.key()] = StringMap(root, item.key().c_str());
    return out;
  }();
  const auto it = by_id->find(model_id);
  return it == by_id->end() ? std::map<std::string, std::string>{} : it->second;
}

const Catalog& Catalog::Get() {
  static const Catalog* catalog = new Catalog();
  return *catalog;
}

absl::StatusOr<ModelSpec> Catalog::FindModel(absl::string_view name) const {
  for (const auto& m : models_) {
    if (Matches(name, m.id, m.aliases, m.hf_id)) return m;
  }
  std::vector<std::string> ids;
  for (const auto& m : models_) ids.push_back(m.id);
  return absl::NotFoundError(absl::StrCat("model '", name.substr(0, 256), "' is not in the catalog; closest: ",
                                          absl::StrJoin(ClosestNames(name, ids, 3), ", "),
                                          " (list all with `parplan models`)"));
}

absl::StatusOr<SystemSpec> Catalog::FindSystem(absl::string_view name) const {
  for (const auto& s : systems_) {
    if (Matches(name, s.id, s.aliases, "")) return s;
  }
  std::vector<std::string> ids;
  for (const auto& s : systems_) ids.push_back(s.id);
  return absl::NotFoundError(absl::StrCat("system '", name.substr(0, 256), "' is not in the catalog; closest: ",
                                          absl::StrJoin(ClosestNames(name, ids, 3), ", "),
                                          "; known: ", absl::StrJoin(ids, " ")));
}

}  // namespace parplan
