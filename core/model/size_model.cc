#include "core/model/size_model.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/model/model_checks.h"
#include "core/model/param_count.h"
#include "core/util/field_error.h"
#include "core/util/text.h"
#include "core/util/limits.h"

namespace parplan {
namespace {

constexpr int64_t kVocab = 128256;

struct Number {
  double value = 0;
  size_t begin = 0;
  size_t end = 0;
};

bool WordAt(const std::string& s, size_t pos, const char* word) {
  return s.compare(pos, std::string(word).size(), word) == 0;
}

ModelSpec BaseShape(int64_t h) {
  ModelSpec m;
  m.hidden_size = h;
  m.num_attention_heads = h / 128;
  m.num_query_groups = std::min<int64_t>(8, m.num_attention_heads);
  m.kv_channels = 128;
  m.vocab_size = kVocab;
  m.make_vocab_size_divisible_by = 128;
  m.gated_linear_unit = true;
  m.seq_length = 8192;
  m.origin = "size";
  m.approximate = true;
  return m;
}

int64_t RoundUp(double v, int64_t multiple) { return static_cast<int64_t>(std::ceil(v / multiple)) * multiple; }

// Real models pick layer counts with many divisors (32, 48, 80, 96, 126):
// round to a multiple of 8 from 32 layers, of 4 from 8, of 2 below, so that
// common PP sizes divide the stack.
double RoundLayers(double layers) {
  const double multiple = layers >= 32 ? 8 : (layers >= 8 ? 4 : 2);
  return std::max(2.0, std::round(layers / multiple) * multiple);
}

absl::StatusOr<ModelSpec> DenseFromSize(double total, const std::string& field) {
  ModelSpec best;
  double best_score = std::numeric_limits<double>::max();
  for (int64_t h = 1024; h <= 65536; h += 1024) {
    for (bool tied : {false, true}) {
      ModelSpec m = BaseShape(h);
      m.ffn_hidden_size = RoundUp(3.5 * h, 256);
      m.share_embeddings_and_output_weights = tied;
      m.num_layers = 1;
      const double emb = static_cast<double>(PaddedVocab(m, 1) * h) * (tied ? 1 : 2);
      const double per_layer = static_cast<double>(AttentionParams(m) + DenseMlpParams(m, m.ffn_hidden_size));
      const double exact = (total - emb) / per_layer;
      if (exact < 1.5 || exact > kMaxLayers) continue;
      const double layers = RoundLayers(exact);
      // Prefer untied; prefer layers ~= h/100.
      const double score = std::fabs(std::log(layers / (h / 100.0))) + (tied ? 1.0 : 0.0);
      if (score < best_score) {
        best_score = score;
        m.num_layers = static_cast<int64_t>(layers);
        best = m;
      }
    }
  }
  if (best.num_layers == 0) {
    return FieldError(field, absl::StrCat("no dense shape of ", HumanCount(total),
                                          " parameters fits the size-only family (1024..65536 wide, "
                                          "2..1024 layers); pass an inline spec instead"));
  }
  best.kind = "dense";
  return best;
}

absl::StatusOr<ModelSpec> MoeFromSize(double total, double active, const std::string& field) {
  struct Routing {
    int64_t experts;
    int64_t topk;
  };
  const std::vector<Routing> routings = {{8, 2}, {16, 2}, {32, 4}, {64, 8}, {128, 8}, {256, 8}};
  Routing routing = routings.back();
  double best_fit = std::numeric_limits<double>::max();
  for (const auto& r : routings) {
    double fit = std::fabs(std::log((static_cast<double>(r.topk) / r.experts) / (0.8 * active / total)));
    if (fit < best_fit) {
      best_fit = fit;
      routing = r;
    }
  }
  ModelSpec best;
  double best_score = std::numeric_limits<double>::max();
  for (int64_t h = 1024; h <= 32768; h += 1024) {
    ModelSpec m = BaseShape(h);
    m.num_moe_experts = routing.experts;
    m.moe_router_topk = routing.topk;
    m.moe_layer_freq = 1;
    const double emb = 2.0 * static_cast<double>(PaddedVocab(m, 1) * h);
    const double fixed = static_cast<double>(AttentionParams(m) + h * routing.experts + h);
    // T - A = L (E - k) 3 h f ;  A - emb = L * fixed + L k 3 h f
    const double fl = (total - active) / ((routing.experts - routing.topk) * 3.0 * h);
    const double exact = (active - emb - routing.topk * 3.0 * h * fl) / fixed;
    if (exact < 1.5 || exact > kMaxLayers) continue;
    const double layers = RoundLayers(exact);
    const double ffn = fl / layers;
    if (ffn < 128) continue;
    const double score = std::fabs(std::log(layers / (h / 80.0)));
    if (score < best_score) {
      best_score = score;
      m.num_layers = static_cast<int64_t>(layers);
      m.moe_ffn_hidden_size = RoundUp(ffn, 128);
      m.ffn_hidden_size = m.moe_ffn_hidden_size;
      best = m;
    }
  }
  if (best.num_layers == 0) {
    return FieldError(field, absl::StrCat("no MoE shape has ", HumanCount(total), " total and ", HumanCount(active),
                                          " active parameters in the size-only family; pass an "
                                          "inline spec instead"));
  }
  best.kind = "moe";
  return best;
}

}  // namespace

absl::StatusOr<SizePhrase> ParseSizePhrase(absl::string_view text, const std::string& field) {
  if (static_cast<int64_t>(text.size()) > kMaxNameChars) {
    return FieldError(field, absl::StrCat("size phrase longer than ", kMaxNameChars, " characters"));
  }
  std::string s = absl::AsciiStrToLower(text);
  std::vector<Number> numbers;
  for (size_t i = 0; i < s.size();) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
    // Scientific notation ("1e30b") is one number with its exponent.
    const size_t sign = j + 1 < s.size() && (s[j + 1] == '+' || s[j + 1] == '-') ? 1 : 0;
    if (j + 1 + sign < s.size() && s[j] == 'e' && std::isdigit(static_cast<unsigned char>(s[j + 1 + sign]))) {
      for (j += 1 + sign; j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]));) ++j;
    }
    std::string digits = s.substr(i, j - i);
    size_t k = j;
    while (k < s.size() && s[k] == ' ') ++k;
    double scale = 0;
    if (k < s.size()) {
      switch (s[k]) {
        case 'k':
          scale = 1e3;
          break;
        case 'm':
          scale = 1e6;
          break;
        case 'b':
          scale = 1e9;
          break;
        case 't':
          scale = 1e12;
          break;
        default:
          break;
      }
    }
    // "8x7b": a multiplier, not a size.
    if (scale == 0 || (k + 1 < s.size() && std::isalpha(static_cast<unsigned char>(s[k + 1])) &&
                       !(WordAt(s, k, "billion") || WordAt(s, k, "trillion") || WordAt(s, k, "million")))) {
      i = j;
      continue;
    }
    char* end = nullptr;
    double v = std::strtod(digits.c_str(), &end);
    if (end == digits.c_str() || !std::isfinite(v)) {
      i = j;
      continue;
    }
    numbers.push_back({v * scale, i, k + 1});
    i = k + 1;
  }
  SizePhrase out;
  out.moe = s.find("moe") != std::string::npos || s.find("expert") != std::string::npos ||
            s.find("mixture") != std::string::npos || s.find("active") != std::string::npos;
  for (const auto& n : numbers) {
    // Label by the nearest word after (or "a" just before, as in "30b-a3b").
    std::string after = s.substr(n.end, 12);
    bool is_active = after.find("active") != std::string::npos || (n.begin > 0 && s[n.begin - 1] == 'a');
    bool is_total = after.find("total") != std::string::npos;
    if (is_active && out.active == 0) {
      out.active = n.value;
    } else if (is_total && out.total == 0) {
      out.total = n.value;
    } else if (out.total == 0) {
      out.total = n.value;
    } else if (out.active == 0) {
      out.active = n.value;
    }
  }
  if (out.active > 0) out.moe = true;
  if (s.find("dense") != std::string::npos && out.active == 0) out.moe = false;
  if (out.total == 0) {
    return FieldError(field, absl::StrCat("no parameter count found in \"", text,
                                          "\"; write it like \"70B dense\" or \"235B total, 22B "
                                          "active MoE\""));
  }
  if (out.total < kMinSizeParams || out.total > kMaxSizeParams) {
    return FieldError(field,
                      absl::StrCat("total ", HumanCount(out.total), " parameters is out of range; allowed 0.2B..20T"));
  }
  if (out.moe && out.active == 0) {
    return FieldError(field,
                      "an MoE size needs the active parameters too, e.g. \"235B total, 22B "
                      "active MoE\"");
  }
  if (out.moe && out.active >= out.total) {
    return FieldError(field,
                      absl::StrCat("active ", HumanCount(out.active), " must be below total ", HumanCount(out.total)));
  }
  return out;
}

bool LooksLikeSizePhrase(absl::string_view text) {
  if (!ParseSizePhrase(text, "size").ok()) return false;
  const std::string s = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  for (const char* word : {"dense", "moe", "total", "active", "param", "expert", "mixture"}) {
    if (s.find(word) != std::string::npos) return true;
  }
  // Only a count: digits, an optional dot, an optional space and one unit letter.
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  while (i < s.size() && s[i] == ' ') ++i;
  return i + 1 == s.size() && std::string("kmbt").find(s[i]) != std::string::npos;
}

absl::StatusOr<ModelSpec> ModelFromSize(absl::string_view text, const std::string& field) {
  auto phrase = ParseSizePhrase(text, field);
  if (!phrase.ok()) return phrase.status();
  absl::StatusOr<ModelSpec> model =
      phrase->moe ? MoeFromSize(phrase->total, phrase->active, field) : DenseFromSize(phrase->total, field);
  if (!model.ok()) return model.status();
  ModelSpec& m = *model;
  const ParamCounts counts = CountParams(m);
  m.id = phrase->moe ? absl::StrCat("size:", HumanCount(phrase->total), "-A", HumanCount(phrase->active))
                     : absl::StrCat("size:", HumanCount(phrase->total), "-dense");
  m.name = absl::StrCat("approximate ", phrase->moe ? "MoE " : "dense ", HumanCount(phrase->total),
                        phrase->moe ? absl::StrCat(" (", HumanCount(phrase->active), " active)") : "");
  m.approximation_note = absl::StrFormat(
      "Size-only model: a documented %s shape (%d layers, hidden %d, %d heads / %d KV groups%s) "
      "with %s parameters%s; real models of this size differ. Pass the model id or its "
      "config.json for exact answers.",
      phrase->moe ? "MoE" : "Llama-style dense", m.num_layers, m.hidden_size, m.num_attention_heads, m.num_query_groups,
      phrase->moe ? absl::StrFormat(", %d experts top-%d of width %d", m.num_moe_experts, m.moe_router_topk,
                                    m.moe_ffn_hidden_size)
                  : absl::StrFormat(", MLP %d", m.ffn_hidden_size),
      HumanCount(static_cast<double>(counts.total)),
      phrase->moe ? absl::StrCat(" (", HumanCount(static_cast<double>(counts.active)), " active)") : "");
  m.published_total_params = HumanCount(phrase->total);
  if (phrase->moe) m.published_active_params = HumanCount(phrase->active);
  m.missing_fields = MissingFields(m);
  return m;
}

}  // namespace parplan
