#include "core/model/inline_spec.h"

#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/model/model_checks.h"
#include "core/model/param_count.h"
#include "core/util/field_error.h"
#include "core/util/text.h"

namespace parplan {
namespace {

bool HasMlp(const ModelSpec& m) {
  if (!m.is_hybrid()) return true;
  const LayerCounts counts = CountLayers(m);
  return counts.dense_mlp + counts.moe > 0;
}

// The spec's total parameters with `choose` applied and the other open
// choices held at the Llama-style values (gated, RMSNorm, rope), after
// Megatron's defaults; "" when the spec is too incomplete to count.
std::string TotalWith(const ModelSpec& spec, const std::function<void(ModelSpec*)>& choose) {
  ModelSpec m = spec;
  if (!m.gated_linear_unit && (m.activation_func.empty() || m.activation_func == "silu")) m.gated_linear_unit = true;
  if (m.normalization.empty()) m.normalization = "RMSNorm";
  if (m.position_embedding_type.empty()) m.position_embedding_type = "rope";
  choose(&m);
  ApplyMegatronDefaults(&m);
  m.missing_fields = MissingFields(m);
  if (!m.complete()) return "";
  return WithCommas(CountParams(m).total);
}

// "; the parameter count differs: true 70,553,706,496, false 51,758,686,208"
std::string Counts(const std::vector<std::pair<std::string, std::string>>& choices) {
  std::vector<std::string> parts;
  for (const auto& [choice, total] : choices) {
    if (total.empty()) return "; the parameter count differs between them";
    parts.push_back(absl::StrCat(choice, " gives ", total));
  }
  return absl::StrCat("; the parameter count differs: ", absl::StrJoin(parts, ", "), " parameters");
}

}  // namespace

absl::Status CheckInlineSpecSettled(const ModelSpec& spec, const std::string& prefix) {
  FieldErrors errors;
  const bool mla = spec.multi_latent_attention;
  if (HasMlp(spec) && !spec.gated_linear_unit && (spec.activation_func.empty() || spec.activation_func == "silu")) {
    errors.Add(
        absl::StrCat(prefix, ".gated_linear_unit"),
        absl::StrCat(
            "gated_linear_unit not given (false",
            spec.activation_func.empty() ? " with no activation_func" : " with activation_func silu",
            " reads the same): allowed true (a gated MLP, fc1 two matrices: SwiGLU as in Llama, Qwen, Mistral, "
            "DeepSeek) or false with activation_func gelu, relu or squared_relu (a plain MLP: GPT-3, Nemotron-H)",
            Counts({{"true", TotalWith(spec, [](ModelSpec* m) { m->gated_linear_unit = true; })},
                    {"false", TotalWith(spec, [](ModelSpec* m) { m->gated_linear_unit = false; })}}),
            ". Megatron-Core's default is false (transformer_config.py:221); say which"));
  }
  if (spec.normalization.empty() && !mla) {
    errors.Add(
        absl::StrCat(prefix, ".normalization"),
        absl::StrCat("normalization not given: allowed RMSNorm (a weight per channel: Llama, Qwen, Mistral, "
                     "DeepSeek) or LayerNorm (weight and bias: GPT-3, OPT)",
                     Counts({{"RMSNorm", TotalWith(spec, [](ModelSpec* m) { m->normalization = "RMSNorm"; })},
                             {"LayerNorm", TotalWith(spec, [](ModelSpec* m) { m->normalization = "LayerNorm"; })}}),
                     ". Megatron-Core's default is LayerNorm (transformer_config.py:256); say which"));
  }
  if (spec.position_embedding_type.empty() && !mla && spec.rope_scaling_type.empty() && !spec.is_hybrid()) {
    errors.Add(
        absl::StrCat(prefix, ".position_embedding_type"),
        absl::StrCat(
            "position_embedding_type not given: allowed rope (rotary, no parameters; also yarn or none) or "
            "learned_absolute (a seq_length x hidden_size table: GPT-2, GPT-3, OPT)",
            spec.seq_length > 0
                ? Counts({{"rope", TotalWith(spec, [](ModelSpec* m) { m->position_embedding_type = "rope"; })},
                          {"learned_absolute",
                           TotalWith(spec, [](ModelSpec* m) { m->position_embedding_type = "learned_absolute"; })}})
                : std::string("; the parameter count differs by the learned table"),
            ". Megatron-Core's GPTModel defaults to learned_absolute (megatron/core/models/gpt/gpt_model.py:110); "
            "say which"));
  }
  return errors.ToStatus();
}

std::vector<std::string> DefaultInlineSpec(ModelSpec* m) {
  const ModelSpec given = *m;
  std::vector<std::pair<std::string, std::string>> filled;  // field, "value (why)"
  auto add = [&filled](const char* field, const std::string& value, const std::string& why) {
    filled.emplace_back(field, absl::StrCat(value, " (", why, ")"));
  };
  // What the family settles.
  if (m->multi_latent_attention) {
    if (m->normalization.empty()) {
      m->normalization = "RMSNorm";
      add("normalization", "RMSNorm", "MLA: MLATransformerConfig's default, transformer_config.py:3303");
    }
    if (m->position_embedding_type.empty()) {
      m->position_embedding_type = "rope";
      add("position_embedding_type", "rope", "MLA is rotary: qk_pos_emb_head_dim");
    }
  }
  if (m->position_embedding_type.empty() && !m->rope_scaling_type.empty()) {
    m->position_embedding_type = "rope";
    add("position_embedding_type", "rope", absl::StrCat("the spec's RoPE scaling ", m->rope_scaling_type));
  }
  if (m->position_embedding_type.empty() && m->is_hybrid()) {
    m->position_embedding_type = "none";
    add("position_embedding_type", "none",
        "Megatron-Core HybridModel's default, megatron/core/models/hybrid/hybrid_model.py:123");
  }
  // Megatron-Core's defaults.
  ApplyMegatronDefaults(m);
  auto changed = [&add](const char* field, int64_t before, int64_t after, const std::string& why) {
    if (before == 0 && after != 0) add(field, absl::StrCat(after), why);
  };
  changed("num_layers", given.num_layers, m->num_layers, "the hybrid pattern's length");
  changed("mtp_num_layers", given.mtp_num_layers, m->mtp_num_layers,
          "the pattern's MTP depths, as Megatron-LM infers them (arguments.py:865)");
  changed("num_query_groups", given.num_query_groups, m->num_query_groups,
          "Megatron-Core's default: the heads, no grouped KV");
  changed("kv_channels", given.kv_channels, m->kv_channels, "Megatron-Core's default: hidden / heads");
  changed("ffn_hidden_size", given.ffn_hidden_size, m->ffn_hidden_size, "Megatron-Core's default: 4 * hidden");
  changed("moe_ffn_hidden_size", given.moe_ffn_hidden_size, m->moe_ffn_hidden_size,
          "Megatron-Core's default: ffn_hidden_size");
  changed("make_vocab_size_divisible_by", given.make_vocab_size_divisible_by, m->make_vocab_size_divisible_by,
          "Megatron's default");
  if (given.softmax_type.empty()) add("softmax_type", m->softmax_type, "Megatron-Core's default");
  if (given.normalization.empty() && !m->multi_latent_attention) {
    add("normalization", m->normalization, "parplan's default");
  }
  if (given.position_embedding_type.empty() && m->position_embedding_type == "rope" && !m->multi_latent_attention &&
      given.rope_scaling_type.empty()) {
    add("position_embedding_type", m->position_embedding_type, "parplan's default");
  }
  if (given.activation_func.empty() && HasMlp(*m)) {
    add("activation_func", m->ResolvedActivation(),
        m->gated_linear_unit ? "a gated MLP's default: SwiGLU" : "a plain MLP's default");
  }
  // A proto bool cannot say "not given": false is all a spec without it
  // can mean, and each changes the parameter count.
  if (!given.share_embeddings_and_output_weights) {
    add("share_embeddings_and_output_weights", "false", "untied input and output embeddings; false reads as not given");
  }
  if (!given.add_bias_linear) {
    add("add_bias_linear", "false",
        "no linear biases, where Megatron-Core's default is true; false reads as not given");
  }
  if (!given.add_qkv_bias && !given.add_bias_linear) {
    add("add_qkv_bias", "false", "no QKV bias; false reads as not given");
  }
  std::vector<std::string> lines;
  for (const auto& [field, text] : filled) {
    lines.push_back(absl::StrCat(field, " = ", text));
    m->field_sources[field] = absl::StrCat("not given in the inline spec: ", text);
  }
  if (!lines.empty()) {
    m->notes.push_back(absl::StrCat("Not given in the inline spec, defaulted: ", absl::StrJoin(lines, "; "), "."));
  }
  return lines;
}

}  // namespace parplan
