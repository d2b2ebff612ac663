#include "core/model/hf_families.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/model/model_checks.h"

namespace parplan {
namespace {

// Gemma3TextConfig defaults (transformers configuration_gemma3.py) for keys
// the published gemma-3 multimodal configs leave out of text_config.
constexpr int64_t kGemma3Vocab = 262208;
constexpr int64_t kGemma3Positions = 131072;
// Llama4TextConfig defaults (configuration_llama4.py).
constexpr int64_t kLlama4ChunkSize = 8192;
constexpr int64_t kLlama4NopeInterval = 4;

// Per-layer kinds, local layers marked `local`: layer i (0-based) is full
// ('F') when (i + 1) % freq == 0. HF's sliding_window_pattern, Gemma 2's and
// GPT-OSS's alternation, Llama 4's no_rope_layer_interval and Megatron's
// integer window_attn_skip_freq all use this rule; freq <= 0 = all local.
std::string Periodic(int64_t layers, int64_t freq, char local) {
  std::string kinds(static_cast<size_t>(layers), local);
  if (freq <= 0) return kinds;
  for (int64_t i = freq - 1; i < layers; i += freq) kinds[i] = 'F';
  return kinds;
}

// The attention kind of every layer as HF's modeling code decides it:
// 'S' sliding window, 'C' chunked, 'F' full. Empty after an error.
std::string HfLayerKinds(HfReader& r, const std::string& t, int64_t layers, ModelSpec* m) {
  const std::vector<std::string> types = r.StringList("layer_types");
  if (!types.empty()) {
    if (static_cast<int64_t>(types.size()) != layers) {
      r.Fail("layer_types", absl::StrCat("has ", types.size(), " entries but num_hidden_layers = ", layers));
      return "";
    }
    std::string kinds;
    std::set<std::string> unknown;
    for (const std::string& type : types) {
      if (type == "sliding_attention") {
        kinds += 'S';
      } else if (type == "chunked_attention") {
        kinds += 'C';
      } else {
        kinds += 'F';
        if (type != "full_attention") unknown.insert(type.substr(0, 32));
      }
    }
    if (!unknown.empty()) {
      m->notes.push_back(absl::StrCat("layer_types has kinds parplan does not model (", absl::StrJoin(unknown, ", "),
                                      "); those layers are counted as full softmax attention."));
    }
    return kinds;
  }
  if (IsLlama4(t)) {
    // no_rope_layers[i] = 1: RoPE and chunked attention; 0: NoPE, full attention.
    const std::vector<int64_t> rope = r.IntList("no_rope_layers");
    if (rope.empty()) return Periodic(layers, r.IntOr("no_rope_layer_interval", kLlama4NopeInterval), 'C');
    if (static_cast<int64_t>(rope.size()) < layers) {
      r.Fail("no_rope_layers",
             absl::StrCat("has ", rope.size(), " entries; num_hidden_layers = ", layers, " needs at least as many"));
      return "";
    }
    std::string kinds;
    for (int64_t i = 0; i < layers; ++i) kinds += rope[i] != 0 ? 'C' : 'F';
    return kinds;
  }
  if (t == "gemma2" || t == "gpt_oss") return Periodic(layers, 2, 'S');
  if (t == "gemma3" || t == "gemma3_text") {
    const int64_t pattern =
        r.Has("sliding_window_pattern") ? r.Int({"sliding_window_pattern"}) : r.IntOr("_sliding_window_pattern", 6);
    return Periodic(layers, pattern, 'S');
  }
  return std::string(static_cast<size_t>(layers), 'S');  // Mistral, Qwen2 with use_sliding_window
}

}  // namespace

bool IsLlama4(const std::string& t) { return t == "llama4_text" || t == "llama4"; }

bool IsGemma(const std::string& t) { return t == "gemma" || t == "gemma2" || t == "gemma3" || t == "gemma3_text"; }

void ApplyAttentionLayout(HfReader& r, const std::string& t, ModelSpec* m) {
  const int64_t layers = m->num_layers;
  // Out-of-range layer counts are reported by CheckArchitectureBounds.
  if (layers <= 0 || layers > kMaxLayers || !m->hybrid_layer_pattern.empty()) return;
  const int64_t window = r.Bool("use_sliding_window", true) ? r.Int({"sliding_window", "sliding_window_size"}) : 0;
  const int64_t chunk =
      IsLlama4(t) ? r.IntOr("attention_chunk_size", kLlama4ChunkSize) : r.Int({"attention_chunk_size"});
  if (window <= 1 && chunk <= 0) return;  // no local size: every layer full
  std::string kinds = HfLayerKinds(r, t, layers, m);
  // A local kind without its size attends fully, as HF does with sliding_window null.
  for (char& k : kinds) {
    if ((k == 'S' && window <= 1) || (k == 'C' && chunk <= 0)) k = 'F';
  }
  const int64_t sliding = std::count(kinds.begin(), kinds.end(), 'S');
  const int64_t chunked = std::count(kinds.begin(), kinds.end(), 'C');
  if (sliding > 0 && chunked > 0) {
    r.Fail("layer_types", "mixes sliding_attention and chunked_attention layers; parplan models one local kind");
    return;
  }
  if (sliding + chunked == 0) return;
  if (sliding > 0) {
    // HF's window counts the token itself; Megatron's (left, 0) does not
    // (Megatron Bridge mistral_bridge.py, gemma2_bridge.py, gpt_oss_bridge.py: sliding_window - 1).
    m->window_size = window - 1;
    m->notes.push_back(absl::StrCat("Attention: ", sliding, " of ", layers, " layers use a sliding window of ", window,
                                    " tokens (window_size ", window - 1, "), the rest full attention."));
  } else {
    m->attention_chunk_size = chunk;
    m->notes.push_back(absl::StrCat("Attention: ", chunked, " of ", layers, " layers attend within chunks of ", chunk,
                                    " tokens, the rest full attention."));
  }
  for (char& k : kinds) {
    if (k == 'C') k = 'S';
  }
  const size_t first_full = kinds.find('F');
  if (first_full == std::string::npos) return;  // every layer local
  const int64_t freq = static_cast<int64_t>(first_full) + 1;
  if (freq >= 2 && kinds == Periodic(layers, freq, 'S')) {
    m->window_attn_skip_freq = freq;
  } else {
    m->window_attn_pattern = kinds;
  }
}

// Megatron Bridge's Llama4 providers (src/megatron/bridge/models/llama/llama_provider.py,
// removed in 217de1a2e: Llama4ModelProvider moe_shared_expert_intermediate_size 8192,
// attention_chunk_size 8192, nope_layer_interval 4; Llama4Experts128ModelProvider
// moe_layer_freq [0, 1] * 24) and llama4_utils.py (chunked attention) follow the same layout.
void ApplyLlama4Moe(HfReader& r, ModelSpec* m) {
  const int64_t layers = m->num_layers;
  if (layers > kMaxLayers) return;                  // reported by CheckArchitectureBounds
  const int64_t intermediate = m->ffn_hidden_size;  // the common parse put intermediate_size here
  const int64_t dense = r.Int({"intermediate_size_mlp"});
  m->ffn_hidden_size = dense > 0 ? dense : intermediate;
  std::vector<int64_t> moe;
  if (r.Has("moe_layers")) {
    moe = r.IntList("moe_layers");
  } else {
    const int64_t step = r.IntOr("interleave_moe_layer_step", 1);
    for (int64_t i = step - 1; step > 0 && i < layers; i += step) moe.push_back(i);
  }
  if (moe.empty() || m->num_moe_experts == 0) {
    m->num_moe_experts = 0;
    m->moe_router_topk = 0;
    m->moe_ffn_hidden_size = 0;
    m->moe_shared_expert_intermediate_size = 0;
    m->first_k_dense_layers = 0;
    m->moe_layer_freq = 1;
    return;
  }
  // Megatron's form: dense up to the first MoE layer, then every freq-th layer MoE.
  const int64_t first = moe[0];
  const int64_t freq = moe.size() > 1 ? moe[1] - moe[0] : std::max<int64_t>(layers - first, 1);
  std::vector<int64_t> expected;
  for (int64_t i = first; freq > 0 && i < layers; i += freq) expected.push_back(i);
  if (moe != expected) {
    r.Fail("moe_layers", absl::StrCat("lists ", moe.size(),
                                      " layers that are not every n-th layer from the first "
                                      "MoE layer to the last layer; parplan lays MoE layers out as "
                                      "first_k_dense_layers + moe_layer_freq"));
    return;
  }
  m->first_k_dense_layers = first;
  m->moe_layer_freq = freq;
  // Llama4TextMoe: routed experts and the one shared expert are intermediate_size wide.
  m->moe_ffn_hidden_size = intermediate;
  m->moe_shared_expert_intermediate_size = intermediate;
}

void ApplyGptOss(HfReader& r, ModelSpec* m) {
  // Megatron Bridge gpt_oss_bridge.py: add_bias_linear = True,
  // add_qkv_bias = attention_bias, softmax_type = "learnable" (self_attn.sinks).
  m->add_bias_linear = true;
  if (!r.Has("attention_bias")) m->add_qkv_bias = true;  // GptOssConfig default
  m->softmax_type = "learnable";
  m->gated_linear_unit = true;
}

void ApplyGemma(HfReader& r, const std::string& t, ModelSpec* m) {
  // Megatron Bridge gemma2_bridge.py / gemma3_provider.py: gated_linear_unit with
  // (fast) GELU, share_embeddings_and_output_weights = True.
  m->gated_linear_unit = true;
  if (!r.Has("tie_word_embeddings")) m->share_embeddings_and_output_weights = true;  // Gemma*Config default
  if (t == "gemma3" || t == "gemma3_text") {
    if (!r.Has("vocab_size")) m->vocab_size = kGemma3Vocab;
    if (!r.Has("max_position_embeddings")) m->seq_length = kGemma3Positions;
  }
  m->notes.push_back(
      "Gemma's extra post-attention and post-MLP norms (and Gemma 3's q/k norms) are not counted: "
      "a few vectors of hidden or head size per layer.");
}

void ApplyRopeScaling(HfReader& r, ModelSpec* m) {
  const char* key = r.Has("rope_scaling") ? "rope_scaling" : "rope_parameters";
  const nlohmann::json* obj = r.Object(key);
  if (obj == nullptr) return;
  // transformers v5 per-layer-type parameters (Gemma 3 style): the full
  // attention layers' scaling decides the context.
  if (!obj->contains("rope_type") && !obj->contains("type") && obj->contains("full_attention") &&
      (*obj)["full_attention"].is_object()) {
    obj = &(*obj)["full_attention"];
  }
  HfReader s(*obj, "");
  // transformers reads rope_type, else the older "type" (modeling_rope_utils.py, "BC: rope_type was
  // originally type"); so does Megatron Bridge (model_bridge.py:599).
  std::string type = s.Has("rope_type") ? s.String("rope_type") : s.String("type");
  const double factor = s.Number("factor");
  const int64_t original = s.Int({"original_max_position_embeddings"});
  for (const FieldViolation& v : s.errors().violations()) r.Fail(key, v.description);
  if (!s.errors().empty()) return;
  const auto& known = KnownRopeScalingTypes();
  if (std::find(known.begin(), known.end(), type) == known.end()) {
    // "default" / "mrope" (Qwen2-VL's multimodal sections) scale nothing.
    if (!type.empty() && type != "default" && type != "mrope") {
      m->notes.push_back(absl::StrCat("rope_scaling type \"", type.substr(0, 32),
                                      "\" is not read; the native context is max_position_embeddings."));
    }
    return;
  }
  m->rope_scaling_type = type;
  m->rope_scaling_factor = factor;
  m->rope_original_context = original;
  // YaRN: transformers takes max_position_embeddings as the post-YaRN context
  // and original_max_position_embeddings as the pre-YaRN one, factor their
  // ratio; without original_max_position_embeddings it assumes
  // max_position_embeddings is the pre-YaRN length, and when the two
  // disagree it uses the explicit factor (modeling_rope_utils.py,
  // _validate_yarn_rope_parameters: "implicit factor = post-yarn context
  // length / pre-yarn context length"). So a config that leaves
  // max_position_embeddings at the original length (Qwen's recipe: factor 4 on
  // 32,768) runs original x factor positions. llama3, linear, dynamic and
  // longrope configs state the scaled length in max_position_embeddings
  // (Llama 3.1: 131,072 with factor 8 on 8,192), which is kept.
  if (type == "yarn" && factor > 1) {
    if (m->rope_original_context == 0) m->rope_original_context = m->seq_length;
    const int64_t scaled = static_cast<int64_t>(static_cast<double>(m->rope_original_context) * factor + 0.5);
    if (m->seq_length <= m->rope_original_context && scaled > m->seq_length) {
      m->notes.push_back(absl::StrCat("max_position_embeddings ", m->seq_length,
                                      " is YaRN's original length: native context ", scaled, " = ",
                                      m->rope_original_context, " x factor ", factor, " (as transformers runs it)."));
      m->seq_length = scaled;
    }
  }
}

std::string MegatronActivation(const std::string& a) {
  if (a == "silu" || a == "swish") return "silu";
  if (a == "gelu" || a == "gelu_new" || a == "gelu_fast" || a == "gelu_pytorch_tanh") return "gelu";
  if (a == "quick_gelu") return "quick_gelu";
  if (a == "relu") return "relu";
  if (a == "relu2") return "squared_relu";
  return "";
}

bool IsPlainMlpActivation(const std::string& a) {
  return a == "relu2" || a == "gelu" || a == "gelu_new" || a == "gelu_fast" || a == "gelu_pytorch_tanh" || a == "relu";
}

bool IsGptStyle(const std::string& t) { return t == "gpt2" || t == "gpt_neox" || t == "opt"; }

void ApplyGptStyle(HfReader& r, const std::string& t, ModelSpec* m) {
  // transformers configuration_gpt2.py / configuration_gpt_neox.py /
  // configuration_opt.py: nn.LayerNorm with bias, biased Conv1D/Linear layers
  // (OPT: enable_bias, default true), a two-matrix MLP. GPT-2's wpe and OPT's
  // embed_positions are learned tables of n_positions / max_position_embeddings
  // rows (Megatron's learned_absolute); GPT-NeoX is rotary.
  m->normalization = "LayerNorm";
  m->gated_linear_unit = false;
  const bool bias = t != "opt" || r.Bool("enable_bias", true);
  m->add_bias_linear = bias;
  m->add_qkv_bias = bias;
  if (m->activation_func.empty()) m->activation_func = t == "opt" ? "relu" : "gelu";
  if (t == "gpt2" || t == "opt") {
    m->position_embedding_type = "learned_absolute";
    if (!r.Has("tie_word_embeddings")) m->share_embeddings_and_output_weights = true;
  } else {
    m->position_embedding_type = "rope";
    if (r.Bool("use_parallel_residual", true)) {
      m->notes.push_back(
          "GPT-NeoX use_parallel_residual: attention and MLP read the same input; counted as the usual "
          "sequential layer (same parameters and FLOPs).");
    }
  }
  if (t == "opt" && r.Has("word_embed_proj_dim") && r.Int({"word_embed_proj_dim"}) != m->hidden_size) {
    m->notes.push_back("OPT word_embed_proj_dim differs from hidden_size: its two projections are not counted.");
  }
}

}  // namespace parplan
