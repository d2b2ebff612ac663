#include "core/import/field_map.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/config/front_end.h"
#include "core/config/precision.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"
#include "core/util/text.h"

namespace parplan {
namespace {

constexpr int64_t kMaxSize = int64_t{1} << 40;  // any size or count a launch can state
constexpr size_t kMaxLayerPattern = 4096;

std::string Quoted(const std::string& v) {
  return absl::StrCat("\"", v.substr(0, 64), v.size() > 64 ? "..." : "", "\"");
}

absl::Status Bad(const std::string& argument, const std::string& value, const std::string& allowed) {
  return FieldError(argument, absl::StrCat(Quoted(value), " is not valid; allowed: ", allowed));
}

std::string Unquote(std::string v) { return UnquoteValue(std::move(v)); }

// The value for one of the closed name sets, normalized; "AttnBackend.flash"
// and "torch.bfloat16" style spellings (Bridge YAML) lose their prefix.
absl::Status OneOf(const std::string& value, const std::string& argument, const std::vector<std::string>& allowed,
                   std::string* out) {
  std::string v = Unquote(value);
  if (size_t dot = v.rfind('.'); dot != std::string::npos && v.find('(') == std::string::npos) v = v.substr(dot + 1);
  const std::string n = NormalizeName(v);
  for (const auto& a : allowed) {
    if (NormalizeName(a) == n) {
      *out = a;
      return absl::OkStatus();
    }
  }
  return Bad(argument, value, absl::StrJoin(allowed, ", "));
}

std::string BoolText(bool b) { return b ? "true" : "false"; }

// --- setters --------------------------------------------------------------

template <int64_t ParallelConfig::*M, int64_t Lo>
absl::Status SetConfigInt(ImportedConfig* out, const std::string& v, const std::string& a) {
  return ParseIntValue(v, a, Lo, kMaxSize, &(out->config.*M));
}

template <std::optional<int64_t> ParallelConfig::*M, int64_t Lo>
absl::Status SetConfigOptInt(ImportedConfig* out, const std::string& v, const std::string& a) {
  int64_t x = 0;
  if (absl::Status s = ParseIntValue(v, a, Lo, kMaxSize, &x); !s.ok()) return s;
  out->config.*M = x;
  return absl::OkStatus();
}

template <std::optional<bool> ParallelConfig::*M>
absl::Status SetConfigOptBool(ImportedConfig* out, const std::string& v, const std::string& a) {
  bool b = false;
  if (absl::Status s = ParseBoolValue(v, a, &b); !s.ok()) return s;
  out->config.*M = b;
  return absl::OkStatus();
}

template <bool ParallelConfig::*M>
absl::Status SetConfigBool(ImportedConfig* out, const std::string& v, const std::string& a) {
  return ParseBoolValue(v, a, &(out->config.*M));
}

template <std::string ParallelConfig::*M, const std::vector<std::string>& (*Allowed)()>
absl::Status SetConfigName(ImportedConfig* out, const std::string& v, const std::string& a) {
  return OneOf(v, a, Allowed(), &(out->config.*M));
}

template <std::vector<std::string> ParallelConfig::*M, const std::vector<std::string>& (*Allowed)()>
absl::Status SetConfigNames(ImportedConfig* out, const std::string& v, const std::string& a) {
  std::vector<std::string> names;
  for (const auto& item : SplitListValue(v)) {
    std::string n;
    if (absl::Status s = OneOf(item, a, Allowed(), &n); !s.ok()) return s;
    names.push_back(n);
  }
  out->config.*M = std::move(names);
  return absl::OkStatus();
}

template <int64_t ModelSpec::*M, int64_t Lo>
absl::Status SetModelInt(ImportedConfig* out, const std::string& v, const std::string& a) {
  int64_t x = 0;
  if (absl::Status s = ParseIntValue(v, a, Lo, kMaxSize, &x); !s.ok()) return s;
  MutableImportedModel(out)->*M = x;
  return absl::OkStatus();
}

template <bool ModelSpec::*M>
absl::Status SetModelBool(ImportedConfig* out, const std::string& v, const std::string& a) {
  bool b = false;
  if (absl::Status s = ParseBoolValue(v, a, &b); !s.ok()) return s;
  MutableImportedModel(out)->*M = b;
  return absl::OkStatus();
}

const std::vector<std::string>& Normalizations() {
  static const auto* v = new std::vector<std::string>{"LayerNorm", "RMSNorm"};
  return *v;
}
const std::vector<std::string>& PositionEmbeddings() {
  // megatron/training/arguments.py:2395 (--position-embedding-type choices)
  static const auto* v = new std::vector<std::string>{"learned_absolute", "rope", "yarn", "mrope", "relative", "none"};
  return *v;
}
const std::vector<std::string>& Activations() {
  static const auto* v = new std::vector<std::string>{"silu", "gelu", "quick_gelu", "relu", "squared_relu"};
  return *v;
}
const std::vector<std::string>& SoftmaxTypes() {
  // megatron/core/transformer/transformer_config.py:170
  static const auto* v = new std::vector<std::string>{"vanilla", "off-by-one", "learnable"};
  return *v;
}
const std::vector<std::string>& RopeScalingTypes() {
  static const auto* v = new std::vector<std::string>{"llama3", "yarn", "linear", "dynamic"};
  return *v;
}

template <std::string ModelSpec::*M, const std::vector<std::string>& (*Allowed)()>
absl::Status SetModelName(ImportedConfig* out, const std::string& v, const std::string& a) {
  std::string n;
  if (absl::Status s = OneOf(v, a, Allowed(), &n); !s.ok()) return s;
  MutableImportedModel(out)->*M = n;
  return absl::OkStatus();
}

absl::Status SetPrecision(ImportedConfig* out, const std::string& v, const std::string& a) {
  auto p = ParsePrecision(Unquote(v), a);
  if (!p.ok()) return p.status();
  out->config.precision = PrecisionName(*p);
  return absl::OkStatus();
}

absl::Status SetOptimizerStateDtype(ImportedConfig* out, const std::string& v, const std::string& a) {
  std::string n = NormalizeName(Unquote(v));
  if (absl::StartsWith(n, "torch.")) n = n.substr(6);
  if (n == "bf16" || n == "bfloat16") {
    out->config.optimizer_state_dtype = "bf16";
  } else if (n == "fp32" || n == "float32" || n == "float") {
    out->config.optimizer_state_dtype = "fp32";
  } else {
    // Megatron-LM also takes fp16 and fp8 (arguments.py --exp-avg-dtype);
    // parplan sizes Adam moments in fp32 or bf16 only.
    return Bad(a, v, "fp32, bf16 (torch.float32, torch.bfloat16); fp16 / fp8 moments are not modelled");
  }
  return absl::OkStatus();
}

absl::Status SetPeft(ImportedConfig* out, const std::string& v, const std::string& a) {
  std::string n = Unquote(v);
  if (n == "None" || n == "null" || n.empty()) n = "none";
  if (absl::StrContains(absl::AsciiStrToLower(n), "lora")) n = "lora";
  return OneOf(n, a, KnownPeftMethods(), &out->config.peft);
}

absl::Status SetOffloadFraction(ImportedConfig* out, const std::string& v, const std::string& a) {
  double f = 0;
  if (!absl::SimpleAtod(Unquote(v), &f) || !(f >= 0.0 && f <= 1.0)) return Bad(a, v, "a fraction in 0..1");
  out->config.optimizer_offload_fraction = f;
  return absl::OkStatus();
}

absl::Status SetHierarchicalCp(ImportedConfig* out, const std::string& v, const std::string& a) {
  std::vector<int64_t> sizes;
  if (absl::Status s = ParseIntListValue(v, a, &sizes); !s.ok()) return s;
  for (int64_t x : sizes) {
    if (x < 1) return Bad(a, v, "positive sizes");
  }
  out->config.hierarchical_context_parallel_sizes = std::move(sizes);
  return absl::OkStatus();
}

absl::Status SetRecomputeGranularity(ImportedConfig* out, const std::string& v, const std::string& a) {
  std::string n = Unquote(v);
  if (n == "None" || n == "null") n = "none";
  return OneOf(n, a, KnownRecomputeGranularities(), &out->config.recompute_granularity);
}

absl::Status SetPipelineLayout(ImportedConfig* out, const std::string& v, const std::string& a) {
  std::string layout = Unquote(v);
  if (layout.empty() || layout.size() > 65536) return Bad(a, v, "a non-empty layout such as 'Et*3|(tt|)*29,m|L'");
  out->config.pipeline_layout = layout;
  return absl::OkStatus();
}

absl::Status SetHybridPattern(ImportedConfig* out, const std::string& v, const std::string& a) {
  const std::string p = Unquote(v);
  if (p.empty() || p.size() > kMaxLayerPattern) return Bad(a, v, "a pattern of M * - E G D | / symbols");
  for (char c : p) {
    if (std::string_view("M*-EGD|/").find(c) == std::string_view::npos) {
      return Bad(a, v, "symbols M (Mamba), * (attention), - (MLP), E (MoE), G, D, | (stage break), / (MTP)");
    }
  }
  MutableImportedModel(out)->hybrid_layer_pattern = p;
  return absl::OkStatus();
}

// moe_layer_freq: an integer N (every N-th layer MoE) or the list form.
// The list form parplan models: k leading dense layers then all MoE
// (first_k_dense_layers = k), or a periodic list one MoE layer per N.
absl::Status SetMoeLayerFreq(ImportedConfig* out, const std::string& v, const std::string& a) {
  ModelSpec* m = MutableImportedModel(out);
  int64_t n = 0;
  if (absl::SimpleAtoi(Unquote(v), &n)) {
    if (n < 1) return Bad(a, v, "an integer >= 1 or a list such as ([0]*3+[1]*58)");
    m->moe_layer_freq = n;
    m->first_k_dense_layers = 0;
    return absl::OkStatus();
  }
  std::vector<int> list;
  if (absl::Status s = EvalLayerPattern(v, a, kMaxLayerPattern, &list); !s.ok()) return s;
  size_t k = 0;
  while (k < list.size() && list[k] == 0) ++k;
  bool rest_moe = k < list.size();
  for (size_t i = k; i < list.size(); ++i) rest_moe = rest_moe && list[i] == 1;
  if (rest_moe) {
    m->first_k_dense_layers = static_cast<int64_t>(k);
    m->moe_layer_freq = 1;
    return absl::OkStatus();
  }
  // Periodic: 1 at every index i with (i % N) == 0 (Megatron's integer form).
  for (size_t period = 2; period <= list.size(); ++period) {
    bool ok = true;
    for (size_t i = 0; ok && i < list.size(); ++i) ok = list[i] == ((i % period) == 0 ? 1 : 0);
    if (ok) {
      m->moe_layer_freq = static_cast<int64_t>(period);
      m->first_k_dense_layers = 0;
      return absl::OkStatus();
    }
  }
  return Bad(a, v,
             "an integer, k dense layers then all MoE ([0]*k+[1]*n), or a periodic list one MoE layer in N; other "
             "layer lists are not modelled");
}

// window_size: Megatron's (left, right) tuple; parplan models (left, 0).
absl::Status SetWindowSize(ImportedConfig* out, const std::string& v, const std::string& a) {
  std::vector<int64_t> parts;
  if (absl::Status s = ParseIntListValue(v, a, &parts); !s.ok()) return s;
  if (parts.empty() || parts.size() > 2 || parts[0] < 0 || (parts.size() == 2 && parts[1] != 0 && parts[1] != -1)) {
    return Bad(a, v, "a causal window (N, 0) or N");
  }
  MutableImportedModel(out)->window_size = parts[0];
  return absl::OkStatus();
}

// window_attn_skip_freq: an integer N or a list (1 = local, 0 = full).
absl::Status SetWindowSkip(ImportedConfig* out, const std::string& v, const std::string& a) {
  ModelSpec* m = MutableImportedModel(out);
  int64_t n = 0;
  if (absl::SimpleAtoi(Unquote(v), &n)) {
    if (n < 1) return Bad(a, v, "an integer >= 1 or a list such as [1,1,1,0]*3");
    m->window_attn_skip_freq = n;
    m->window_attn_pattern.clear();
    return absl::OkStatus();
  }
  std::vector<int> list;
  if (absl::Status s = EvalLayerPattern(v, a, kMaxLayerPattern, &list); !s.ok()) return s;
  std::string pattern;
  for (int x : list) pattern.push_back(x == 1 ? 'S' : 'F');
  m->window_attn_pattern = pattern;
  m->window_attn_skip_freq = 0;
  return absl::OkStatus();
}

absl::Status SetRopeScalingFactor(ImportedConfig* out, const std::string& v, const std::string& a) {
  double f = 0;
  if (!absl::SimpleAtod(Unquote(v), &f) || !(f > 0 && f < 1e6)) return Bad(a, v, "a positive factor");
  MutableImportedModel(out)->rope_scaling_factor = f;
  return absl::OkStatus();
}

absl::Status SetPlacementGpus(ImportedConfig* out, const std::string& v, const std::string& a) {
  return ParseIntValue(v, a, 1, kMaxGpus, &out->gpus);
}
absl::Status SetPlacementGpusPerNode(ImportedConfig* out, const std::string& v, const std::string& a) {
  return ParseIntValue(v, a, 1, 1024, &out->gpus_per_node);
}

absl::Status SetFrontEnd(ImportedConfig* out, const std::string& v, const std::string& a) {
  auto f = ParseFrontEnd(Unquote(v), a);
  if (!f.ok()) return f.status();
  out->config.front_end = FrontEndName(*f);
  return absl::OkStatus();
}
absl::Status SetBridgeVersion(ImportedConfig* out, const std::string& v, const std::string& a) {
  auto b = ParseBridgeVersion(Unquote(v), a);
  if (!b.ok()) return b.status();
  out->config.bridge_version = BridgeVersionName(*b);
  return absl::OkStatus();
}

// --- getters --------------------------------------------------------------

std::optional<std::string> GetFrontEnd(const ResolvedConfig& c, const ModelSpec*) { return FrontEndName(c.front_end); }
std::optional<std::string> GetBridgeVersion(const ResolvedConfig& c, const ModelSpec*) {
  return BridgeVersionName(c.bridge_version);
}

template <int64_t ResolvedConfig::*M>
std::optional<std::string> GetInt(const ResolvedConfig& c, const ModelSpec*) {
  return absl::StrCat(c.*M);
}
template <int64_t ResolvedConfig::*M>
std::optional<std::string> GetPositive(const ResolvedConfig& c, const ModelSpec*) {
  if (c.*M <= 0) return std::nullopt;
  return absl::StrCat(c.*M);
}
template <bool ResolvedConfig::*M>
std::optional<std::string> GetBool(const ResolvedConfig& c, const ModelSpec*) {
  return BoolText(c.*M);
}
template <std::string ResolvedConfig::*M>
std::optional<std::string> GetName(const ResolvedConfig& c, const ModelSpec*) {
  if ((c.*M).empty()) return std::nullopt;
  return c.*M;
}
template <std::vector<std::string> ResolvedConfig::*M>
std::optional<std::string> GetNames(const ResolvedConfig& c, const ModelSpec*) {
  if ((c.*M).empty()) return std::nullopt;
  return absl::StrJoin(c.*M, ",");
}
template <int64_t ModelSpec::*M>
std::optional<std::string> GetModelInt(const ResolvedConfig&, const ModelSpec* m) {
  if (m == nullptr || m->*M <= 0) return std::nullopt;
  return absl::StrCat(m->*M);
}
template <bool ModelSpec::*M>
std::optional<std::string> GetModelBool(const ResolvedConfig&, const ModelSpec* m) {
  if (m == nullptr) return std::nullopt;
  return BoolText(m->*M);
}
template <std::string ModelSpec::*M>
std::optional<std::string> GetModelName(const ResolvedConfig&, const ModelSpec* m) {
  if (m == nullptr || (m->*M).empty()) return std::nullopt;
  return m->*M;
}

std::optional<std::string> GetEtp(const ResolvedConfig& c, const ModelSpec*) { return absl::StrCat(c.etp); }
std::optional<std::string> GetPrecision(const ResolvedConfig& c, const ModelSpec*) {
  return PrecisionName(c.precision);
}
std::optional<std::string> GetRecompute(const ResolvedConfig& c, const ModelSpec*) {
  return RecomputeName(c.recompute);
}
std::optional<std::string> GetRecomputeModules(const ResolvedConfig& c, const ModelSpec*) {
  if (c.recompute != RecomputeGranularity::kSelective) return std::nullopt;
  return absl::StrJoin(c.recompute_modules, ",");
}
std::optional<std::string> GetRecomputeMethod(const ResolvedConfig& c, const ModelSpec*) {
  if (c.recompute != RecomputeGranularity::kFull) return std::nullopt;
  return RecomputeMethodName(c.recompute_method);
}
std::optional<std::string> GetRecomputeLayers(const ResolvedConfig& c, const ModelSpec*) {
  if (c.recompute != RecomputeGranularity::kFull) return std::nullopt;
  return absl::StrCat(c.recompute_num_layers);
}
std::optional<std::string> GetVpp(const ResolvedConfig& c, const ModelSpec* m) {
  // A layout or a hybrid pattern sets the virtual stages itself.
  if (!c.pipeline_layout.empty() || (m != nullptr && m->is_hybrid())) return std::nullopt;
  return absl::StrCat(c.vpp);
}
std::optional<std::string> GetSeqLength(const ResolvedConfig& c, const ModelSpec*) {
  if (c.seq_length <= 0) return std::nullopt;
  return absl::StrCat(c.seq_length);
}
std::optional<std::string> GetGbs(const ResolvedConfig& c, const ModelSpec*) {
  if (c.gbs <= 0) return std::nullopt;
  return absl::StrCat(c.gbs);
}
std::optional<std::string> GetMtp(const ResolvedConfig& c, const ModelSpec*) {
  if (c.mtp_num_layers <= 0) return std::nullopt;
  return absl::StrCat(c.mtp_num_layers);
}
std::optional<std::string> GetOptimizerDtype(const ResolvedConfig& c, const ModelSpec*) {
  return c.optimizer_bf16 ? "bf16" : "fp32";
}
std::optional<std::string> GetPeft(const ResolvedConfig& c, const ModelSpec*) { return c.lora ? "lora" : "none"; }
std::optional<std::string> GetCudaGraphModules(const ResolvedConfig& c, const ModelSpec*) {
  if (c.cuda_graph_impl == "none" || c.cuda_graph_modules.empty()) return std::nullopt;
  return absl::StrJoin(c.cuda_graph_modules, ",");
}
std::optional<std::string> GetFlexBackend(const ResolvedConfig& c, const ModelSpec*) {
  if (c.moe_token_dispatcher_type != "flex") return std::nullopt;
  return c.moe_flex_dispatcher_backend;
}
std::optional<std::string> GetInflight(const ResolvedConfig& c, const ModelSpec*) {
  if (!c.fine_grained_offloading_max_inflight_offloads.has_value()) return std::nullopt;
  return absl::StrCat(*c.fine_grained_offloading_max_inflight_offloads);
}
std::optional<std::string> GetCpCommType(const ResolvedConfig& c, const ModelSpec*) {
  if (c.cp <= 1 && !c.cp_comm_type_given) return std::nullopt;
  return c.cp_comm_type;
}
std::optional<std::string> GetHierarchicalCp(const ResolvedConfig& c, const ModelSpec*) {
  if (c.hierarchical_cp_sizes.empty()) return std::nullopt;
  return absl::StrJoin(c.hierarchical_cp_sizes, ",");
}
std::optional<std::string> GetOffloadFraction(const ResolvedConfig& c, const ModelSpec*) {
  if (!c.optimizer_cpu_offload) return std::nullopt;
  std::string text = absl::StrCat(c.optimizer_offload_fraction);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}
std::optional<std::string> GetFp8ParamGather(const ResolvedConfig& c, const ModelSpec*) {
  if (!IsFp8(c.precision)) return std::nullopt;
  return BoolText(c.fp8_param_gather);
}
std::optional<std::string> GetActivation(const ResolvedConfig&, const ModelSpec* m) {
  if (m == nullptr) return std::nullopt;
  return m->ResolvedActivation();
}
std::optional<std::string> GetRopeFactor(const ResolvedConfig&, const ModelSpec* m) {
  if (m == nullptr || m->rope_scaling_factor <= 0) return std::nullopt;
  return absl::StrCat(m->rope_scaling_factor);
}
std::optional<std::string> GetMoeLayerFreq(const ResolvedConfig&, const ModelSpec* m) {
  if (m == nullptr || m->num_moe_experts <= 0) return std::nullopt;
  if (m->first_k_dense_layers > 0 && m->num_layers > m->first_k_dense_layers) {
    return absl::StrCat("([0]*", m->first_k_dense_layers, "+[1]*", m->num_layers - m->first_k_dense_layers, ")");
  }
  return absl::StrCat(m->moe_layer_freq);
}
std::optional<std::string> GetWindowSkip(const ResolvedConfig&, const ModelSpec* m) {
  if (m == nullptr) return std::nullopt;
  if (!m->window_attn_pattern.empty()) {
    std::vector<std::string> bits;
    for (char ch : m->window_attn_pattern) bits.push_back(ch == 'S' ? "1" : "0");
    return absl::StrCat("[", absl::StrJoin(bits, ","), "]");
  }
  if (m->window_attn_skip_freq <= 0) return std::nullopt;
  return absl::StrCat(m->window_attn_skip_freq);
}
std::optional<std::string> GetWindowSize(const ResolvedConfig&, const ModelSpec* m) {
  if (m == nullptr || m->window_size <= 0) return std::nullopt;
  return absl::StrCat(m->window_size);
}
std::optional<std::string> GetMla(const ResolvedConfig&, const ModelSpec* m) {
  if (m == nullptr) return std::nullopt;
  return BoolText(m->multi_latent_attention);
}
std::optional<std::string> GetNumLayers(const ResolvedConfig&, const ModelSpec* m) {
  // A hybrid pattern states the layers itself (Megatron-LM derives
  // num_layers from it, arguments.py:788).
  if (m == nullptr || m->num_layers <= 0 || m->is_hybrid()) return std::nullopt;
  return absl::StrCat(m->num_layers);
}

// --- the table ------------------------------------------------------------

std::vector<FieldEntry> BuildTable() {
  using K = FieldKind;
  std::vector<FieldEntry> t;
  auto add = [&t](FieldEntry e) { t.push_back(std::move(e)); };
  // Parallel sizes (megatron/core/model_parallel_config.py; Bridge model.*).
  add({"config.tp",
       K::kInt,
       {{"--tensor-model-parallel-size"}},
       {"model.tensor_model_parallel_size"},
       "1",
       SetConfigInt<&ParallelConfig::tp, 1>,
       GetInt<&ResolvedConfig::tp>,
       ""});
  add({"config.pp",
       K::kInt,
       {{"--pipeline-model-parallel-size"}},
       {"model.pipeline_model_parallel_size"},
       "1",
       SetConfigInt<&ParallelConfig::pp, 1>,
       GetInt<&ResolvedConfig::pp>,
       ""});
  add({"config.vpp",
       K::kInt,
       {{"--num-virtual-stages-per-pipeline-rank"}, {"--num-layers-per-virtual-pipeline-stage", nullptr, true}},
       {"model.virtual_pipeline_model_parallel_size"},
       "1",
       SetConfigInt<&ParallelConfig::vpp, 1>,
       GetVpp,
       "--num-layers-per-virtual-pipeline-stage N gives VPP = num_layers / PP / N (arguments.py)"});
  add({"config.cp",
       K::kInt,
       {{"--context-parallel-size"}},
       {"model.context_parallel_size"},
       "1",
       SetConfigInt<&ParallelConfig::cp, 1>,
       GetInt<&ResolvedConfig::cp>,
       ""});
  add({"config.ep",
       K::kInt,
       {{"--expert-model-parallel-size"}},
       {"model.expert_model_parallel_size"},
       "1",
       SetConfigInt<&ParallelConfig::ep, 1>,
       GetInt<&ResolvedConfig::ep>,
       ""});
  add({"config.etp",
       K::kInt,
       {{"--expert-tensor-parallel-size"}},
       {"model.expert_tensor_parallel_size"},
       "",
       SetConfigOptInt<&ParallelConfig::etp, 1>,
       GetEtp,
       "Megatron-LM's default is TP"});
  add({"config.sp",
       K::kBool,
       {{"--sequence-parallel", "true"}},
       {"model.sequence_parallel"},
       "false",
       SetConfigOptBool<&ParallelConfig::sp>,
       GetBool<&ResolvedConfig::sp>,
       ""});
  add({"config.mbs",
       K::kInt,
       {{"--micro-batch-size"}},
       {"train.micro_batch_size"},
       "1",
       SetConfigInt<&ParallelConfig::mbs, 1>,
       GetInt<&ResolvedConfig::mbs>,
       ""});
  add({"config.gbs",
       K::kInt,
       {{"--global-batch-size"}},
       {"train.global_batch_size"},
       "",
       SetConfigInt<&ParallelConfig::gbs, 1>,
       GetGbs,
       ""});
  add({"config.seq_length",
       K::kInt,
       {{"--seq-length"}, {"--decoder-seq-length"}},
       {"model.seq_length", "dataset.seq_length"},
       "",
       SetConfigInt<&ParallelConfig::seq_length, 1>,
       GetSeqLength,
       ""});
  add({"config.first_stage_layers",
       K::kInt,
       {{"--decoder-first-pipeline-num-layers"}},
       {"model.num_layers_in_first_pipeline_stage"},
       "",
       SetConfigInt<&ParallelConfig::first_stage_layers, 0>,
       GetPositive<&ResolvedConfig::first_stage_layers>,
       ""});
  add({"config.last_stage_layers",
       K::kInt,
       {{"--decoder-last-pipeline-num-layers"}},
       {"model.num_layers_in_last_pipeline_stage"},
       "",
       SetConfigInt<&ParallelConfig::last_stage_layers, 0>,
       GetPositive<&ResolvedConfig::last_stage_layers>,
       ""});
  add({"config.account_for_embedding",
       K::kBool,
       {{"--account-for-embedding-in-pipeline-split", "true"}},
       {"model.account_for_embedding_in_pipeline_split"},
       "false",
       SetConfigBool<&ParallelConfig::account_for_embedding>,
       GetBool<&ResolvedConfig::account_for_embedding>,
       ""});
  add({"config.account_for_loss",
       K::kBool,
       {{"--account-for-loss-in-pipeline-split", "true"}},
       {"model.account_for_loss_in_pipeline_split"},
       "false",
       SetConfigBool<&ParallelConfig::account_for_loss>,
       GetBool<&ResolvedConfig::account_for_loss>,
       ""});
  add({"config.pipeline_layout",
       K::kString,
       {{"--pipeline-model-parallel-layout"}},
       {"model.pipeline_model_parallel_layout"},
       "",
       SetPipelineLayout,
       GetName<&ResolvedConfig::pipeline_layout>,
       ""});
  add({"config.precision",
       K::kPrecision,
       {{"--bf16", nullptr, true},
        {"--fp16", nullptr, true},
        {"--fp8-format", nullptr, true},
        {"--fp8-recipe", nullptr, true},
        {"--fp4-format", nullptr, true},
        {"--fp4-recipe", nullptr, true}},
       {"mixed_precision"},
       "",
       SetPrecision,
       GetPrecision,
       "Megatron-LM's --bf16 / --fp8-format / --fp8-recipe / --fp4-format / --fp4-recipe combine into one precision; "
       "Bridge names a mixed-precision preset (training/mixed_precision.py)"});
  add({"config.mtp_num_layers",
       K::kInt,
       {{"--mtp-num-layers"}},
       {"model.mtp_num_layers"},
       "",
       SetConfigOptInt<&ParallelConfig::mtp_num_layers, 0>,
       GetMtp,
       ""});
  // Recompute (megatron/core/transformer/transformer_config.py:532-).
  add({"config.recompute_granularity",
       K::kString,
       {{"--recompute-granularity"}, {"--recompute-activations", "selective"}},
       {"model.recompute_granularity"},
       "none",
       SetRecomputeGranularity,
       GetRecompute,
       "--recompute-activations is Megatron-LM's older spelling of --recompute-granularity selective"});
  add({"config.recompute_modules",
       K::kStringList,
       {{"--recompute-modules"}},
       {"model.recompute_modules"},
       "",
       SetConfigNames<&ParallelConfig::recompute_modules, KnownRecomputeModules>,
       GetRecomputeModules,
       ""});
  add({"config.recompute_method",
       K::kString,
       {{"--recompute-method"}},
       {"model.recompute_method"},
       "",
       SetConfigName<&ParallelConfig::recompute_method, KnownRecomputeMethods>,
       GetRecomputeMethod,
       ""});
  add({"config.recompute_num_layers",
       K::kInt,
       {{"--recompute-num-layers"}},
       {"model.recompute_num_layers"},
       "",
       SetConfigInt<&ParallelConfig::recompute_num_layers, 1>,
       GetRecomputeLayers,
       ""});
  // Optimizer and gradients (distributed_data_parallel_config.py, optimizer_config.py).
  add({"config.use_distributed_optimizer",
       K::kBool,
       {{"--use-distributed-optimizer", "true"}},
       {"ddp.use_distributed_optimizer", "optimizer.use_distributed_optimizer"},
       "false",
       SetConfigOptBool<&ParallelConfig::use_distributed_optimizer>,
       GetBool<&ResolvedConfig::distributed_optimizer>,
       ""});
  add({"config.use_megatron_fsdp",
       K::kBool,
       {{"--use-megatron-fsdp", "true"}},
       {"ddp.use_megatron_fsdp"},
       "false",
       SetConfigBool<&ParallelConfig::use_megatron_fsdp>,
       GetBool<&ResolvedConfig::fsdp>,
       ""});
  add({"config.grad_reduce_in_fp32",
       K::kBool,
       {{"--accumulate-allreduce-grads-in-fp32", "true"}, {"--grad-reduce-in-bf16", "false"}},
       {"ddp.grad_reduce_in_fp32"},
       "false",
       SetConfigOptBool<&ParallelConfig::grad_reduce_in_fp32>,
       GetBool<&ResolvedConfig::grad_fp32>,
       "Megatron-LM reduces gradients in the parameter dtype unless --accumulate-allreduce-grads-in-fp32"});
  add({"config.optimizer_state_dtype",
       K::kString,
       {{"--exp-avg-dtype"}, {"--exp-avg-sq-dtype"}},
       {"optimizer.exp_avg_dtype", "optimizer.exp_avg_sq_dtype"},
       "fp32",
       SetOptimizerStateDtype,
       GetOptimizerDtype,
       "Adam moments; Megatron-LM needs --use-precision-aware-optimizer for bf16"});
  add({"config.peft", K::kString, {}, {"peft"}, "none", SetPeft, GetPeft, "Megatron-LM has no LoRA flag"});
  add({"config.cpu_offloading_num_layers",
       K::kInt,
       {{"--cpu-offloading-num-layers"}},
       {"model.cpu_offloading_num_layers"},
       "0",
       SetConfigInt<&ParallelConfig::cpu_offloading_num_layers, 0>,
       GetPositive<&ResolvedConfig::cpu_offloading_num_layers>,
       ""});
  add({"config.offload_modules",
       K::kStringList,
       {{"--offload-modules"}},
       {"model.offload_modules"},
       "",
       SetConfigNames<&ParallelConfig::offload_modules, KnownOffloadModules>,
       GetNames<&ResolvedConfig::offload_modules>,
       "with --fine-grained-activation-offloading"});
  // Overlap, graphs, kernels.
  add({"config.tp_comm_overlap",
       K::kBool,
       {{"--tp-comm-overlap", "true"}},
       {"comm_overlap.tp_comm_overlap"},
       "false",
       SetConfigOptBool<&ParallelConfig::tp_comm_overlap>,
       GetBool<&ResolvedConfig::tp_comm_overlap>,
       ""});
  add({"config.overlap_grad_reduce",
       K::kBool,
       {{"--overlap-grad-reduce", "true"}},
       {"ddp.overlap_grad_reduce"},
       "false",
       SetConfigOptBool<&ParallelConfig::overlap_grad_reduce>,
       GetBool<&ResolvedConfig::overlap_grad_reduce>,
       ""});
  add({"config.overlap_moe_expert_parallel_comm",
       K::kBool,
       {{"--overlap-moe-expert-parallel-comm", "true"}},
       {"comm_overlap.overlap_moe_expert_parallel_comm", "model.overlap_moe_expert_parallel_comm"},
       "false",
       SetConfigOptBool<&ParallelConfig::overlap_moe_expert_parallel_comm>,
       GetBool<&ResolvedConfig::overlap_moe_expert_parallel_comm>,
       ""});
  add({"config.cuda_graph_impl",
       K::kString,
       {{"--cuda-graph-impl"}},
       {"model.cuda_graph_impl"},
       "none",
       SetConfigName<&ParallelConfig::cuda_graph_impl, KnownCudaGraphImpls>,
       GetName<&ResolvedConfig::cuda_graph_impl>,
       ""});
  add({"config.cuda_graph_modules",
       K::kStringList,
       {{"--cuda-graph-modules"}, {"--cuda-graph-scope"}},
       {"model.cuda_graph_modules", "model.cuda_graph_scope"},
       "",
       SetConfigNames<&ParallelConfig::cuda_graph_modules, KnownCudaGraphModules>,
       GetCudaGraphModules,
       ""});
  add({"config.attention_backend",
       K::kString,
       {{"--attention-backend"}},
       {"model.attention_backend"},
       "auto",
       SetConfigName<&ParallelConfig::attention_backend, KnownAttentionBackends>,
       GetName<&ResolvedConfig::attention_backend>,
       ""});
  add({"config.moe_token_dispatcher_type",
       K::kString,
       {{"--moe-token-dispatcher-type"}},
       {"model.moe_token_dispatcher_type"},
       "allgather",
       SetConfigName<&ParallelConfig::moe_token_dispatcher_type, KnownTokenDispatchers>,
       GetName<&ResolvedConfig::moe_token_dispatcher_type>,
       ""});
  add({"config.moe_flex_dispatcher_backend",
       K::kString,
       {{"--moe-flex-dispatcher-backend"}},
       {"model.moe_flex_dispatcher_backend"},
       "",
       SetConfigName<&ParallelConfig::moe_flex_dispatcher_backend, KnownFlexBackends>,
       GetFlexBackend,
       ""});
  add({"config.moe_permute_fusion",
       K::kBool,
       {{"--moe-permute-fusion", "true"}},
       {"model.moe_permute_fusion"},
       "false",
       SetConfigOptBool<&ParallelConfig::moe_permute_fusion>,
       GetBool<&ResolvedConfig::moe_permute_fusion>,
       ""});
  add({"config.moe_router_force_load_balancing",
       K::kBool,
       {{"--moe-router-force-load-balancing", "true"}},
       {"model.moe_router_force_load_balancing"},
       "false",
       SetConfigOptBool<&ParallelConfig::moe_router_force_load_balancing>,
       GetBool<&ResolvedConfig::moe_router_force_load_balancing>,
       ""});
  add({"config.apply_rope_fusion",
       K::kBool,
       {{"--no-rope-fusion", "false"}},
       {"model.apply_rope_fusion"},
       "true",
       SetConfigOptBool<&ParallelConfig::apply_rope_fusion>,
       GetBool<&ResolvedConfig::apply_rope_fusion>,
       "Megatron-LM fuses RoPE unless --no-rope-fusion; Bridge's DeepSeek/Kimi bridges clear it, its perf recipes "
       "set it"});
  add({"config.use_transformer_engine_op_fuser",
       K::kBool,
       {{"--use-transformer-engine-op-fuser", "true"}},
       {"model.use_transformer_engine_op_fuser"},
       "false",
       SetConfigOptBool<&ParallelConfig::use_transformer_engine_op_fuser>,
       GetBool<&ResolvedConfig::use_transformer_engine_op_fuser>,
       ""});
  add({"config.fine_grained_offloading_max_inflight_offloads",
       K::kInt,
       {{"--fine-grained-offloading-max-inflight-offloads"}},
       {"model.fine_grained_offloading_max_inflight_offloads"},
       "",
       SetConfigOptInt<&ParallelConfig::fine_grained_offloading_max_inflight_offloads, 0>,
       GetInflight,
       ""});
  add({"config.cp_comm_type",
       K::kString,
       {{"--cp-comm-type"}},
       {"model.cp_comm_type"},
       "p2p",
       SetConfigName<&ParallelConfig::cp_comm_type, KnownCpCommTypes>,
       GetCpCommType,
       ""});
  add({"config.hierarchical_context_parallel_sizes",
       K::kIntList,
       {{"--hierarchical-context-parallel-sizes"}},
       {"model.hierarchical_context_parallel_sizes"},
       "",
       SetHierarchicalCp,
       GetHierarchicalCp,
       ""});
  add({"config.optimizer_cpu_offload",
       K::kBool,
       {{"--optimizer-cpu-offload", "true"}},
       {"optimizer.optimizer_cpu_offload"},
       "false",
       SetConfigOptBool<&ParallelConfig::optimizer_cpu_offload>,
       GetBool<&ResolvedConfig::optimizer_cpu_offload>,
       ""});
  add({"config.optimizer_offload_fraction",
       K::kDouble,
       {{"--optimizer-offload-fraction"}},
       {"optimizer.optimizer_offload_fraction"},
       "1.0",
       SetOffloadFraction,
       GetOffloadFraction,
       "Megatron-LM's flag defaults to 1.0, Megatron-Core's field to 0.0"});
  add({"config.fp8_param_gather",
       K::kBool,
       {{"--fp8-param-gather", "true"}},
       {"ddp.fp8_param_gather", "mixed_precision.fp8_param_gather"},
       "false",
       SetConfigOptBool<&ParallelConfig::fp8_param_gather>,
       GetFp8ParamGather,
       ""});

  // Which front end's defaults and which Bridge release (core/config/front_end.h).
  add({"config.front_end",
       K::kString,
       {},
       {},
       "",
       SetFrontEnd,
       GetFrontEnd,
       "set by the importer: megatron-lm for Megatron-LM sources, bridge for Bridge ones"});
  add({"config.bridge_version",
       K::kString,
       {},
       {},
       "",
       SetBridgeVersion,
       GetBridgeVersion,
       "the Megatron Bridge release whose defaults apply"});

  // Model architecture (megatron/core/transformer/transformer_config.py,
  // megatron/training/arguments.py _add_network_size_args / _add_mla_args).
  add({"model.num_layers",
       K::kInt,
       {{"--num-layers"}, {"--decoder-num-layers"}},
       {"model.num_layers"},
       "",
       SetModelInt<&ModelSpec::num_layers, 1>,
       GetNumLayers,
       ""});
  add({"model.hidden_size",
       K::kInt,
       {{"--hidden-size"}},
       {"model.hidden_size"},
       "",
       SetModelInt<&ModelSpec::hidden_size, 1>,
       GetModelInt<&ModelSpec::hidden_size>,
       ""});
  add({"model.ffn_hidden_size",
       K::kInt,
       {{"--ffn-hidden-size"}},
       {"model.ffn_hidden_size"},
       "",
       SetModelInt<&ModelSpec::ffn_hidden_size, 1>,
       GetModelInt<&ModelSpec::ffn_hidden_size>,
       "Megatron's default is 4 x hidden_size"});
  add({"model.num_attention_heads",
       K::kInt,
       {{"--num-attention-heads"}},
       {"model.num_attention_heads"},
       "",
       SetModelInt<&ModelSpec::num_attention_heads, 1>,
       GetModelInt<&ModelSpec::num_attention_heads>,
       ""});
  add({"model.num_query_groups",
       K::kInt,
       {{"--num-query-groups"}, {"--group-query-attention", nullptr, true}},
       {"model.num_query_groups"},
       "",
       SetModelInt<&ModelSpec::num_query_groups, 1>,
       GetModelInt<&ModelSpec::num_query_groups>,
       "Megatron-LM reads --num-query-groups only with --group-query-attention; else groups = heads"});
  add({"model.kv_channels",
       K::kInt,
       {{"--kv-channels"}},
       {"model.kv_channels"},
       "",
       SetModelInt<&ModelSpec::kv_channels, 1>,
       GetModelInt<&ModelSpec::kv_channels>,
       ""});
  add({"model.vocab_size",
       K::kInt,
       {{"--vocab-size"}},
       {"model.vocab_size"},
       "",
       SetModelInt<&ModelSpec::vocab_size, 1>,
       GetModelInt<&ModelSpec::vocab_size>,
       "without --vocab-size Megatron-LM takes the vocabulary from the tokenizer"});
  add({"model.make_vocab_size_divisible_by",
       K::kInt,
       {{"--make-vocab-size-divisible-by"}},
       {"model.make_vocab_size_divisible_by"},
       "128",
       SetModelInt<&ModelSpec::make_vocab_size_divisible_by, 1>,
       GetModelInt<&ModelSpec::make_vocab_size_divisible_by>,
       ""});
  add({"model.seq_length",
       K::kInt,
       {{"--max-position-embeddings"}},
       {},
       "",
       SetModelInt<&ModelSpec::seq_length, 1>,
       GetModelInt<&ModelSpec::seq_length>,
       "the native context (max_position_embeddings)"});
  add({"model.gated_linear_unit",
       K::kBool,
       {{"--swiglu", "true"}, {"--quick-geglu", "true"}},
       {"model.gated_linear_unit"},
       "false",
       SetModelBool<&ModelSpec::gated_linear_unit>,
       GetModelBool<&ModelSpec::gated_linear_unit>,
       ""});
  add({"model.activation_func",
       K::kString,
       {{"--swiglu", "silu"},
        {"--quick-geglu", "quick_gelu"},
        {"--squared-relu", "squared_relu"},
        {"--openai-gelu", "gelu"}},
       {"model.activation_func"},
       "gelu",
       SetModelName<&ModelSpec::activation_func, Activations>,
       GetActivation,
       ""});
  add({"model.share_embeddings_and_output_weights",
       K::kBool,
       {{"--untie-embeddings-and-output-weights", "false"}},
       {"model.share_embeddings_and_output_weights"},
       "true",
       SetModelBool<&ModelSpec::share_embeddings_and_output_weights>,
       GetModelBool<&ModelSpec::share_embeddings_and_output_weights>,
       ""});
  add({"model.normalization",
       K::kString,
       {{"--normalization"}},
       {"model.normalization"},
       "LayerNorm",
       SetModelName<&ModelSpec::normalization, Normalizations>,
       GetModelName<&ModelSpec::normalization>,
       ""});
  add({"model.position_embedding_type",
       K::kString,
       {{"--position-embedding-type"},
        {"--use-rotary-position-embeddings", "rope"},
        {"--no-position-embedding", "none", true}},
       {"model.position_embedding_type"},
       "learned_absolute",
       SetModelName<&ModelSpec::position_embedding_type, PositionEmbeddings>,
       GetModelName<&ModelSpec::position_embedding_type>,
       "--no-position-embedding drops the learned table only when the type is learned_absolute"});
  add({"model.rope_scaling_type",
       K::kString,
       {{"--use-rope-scaling", "llama3"}},
       {"model.rope_scaling"},
       "",
       SetModelName<&ModelSpec::rope_scaling_type, RopeScalingTypes>,
       GetModelName<&ModelSpec::rope_scaling_type>,
       "Bridge's rope_scaling is a switch (Llama 3.x scaling)"});
  add({"model.rope_scaling_factor",
       K::kDouble,
       {{"--rope-scaling-factor"}, {"--rotary-scaling-factor"}},
       {"model.rope_scaling_factor", "model.rotary_scaling_factor"},
       "",
       SetRopeScalingFactor,
       GetRopeFactor,
       ""});
  add({"model.rope_original_context",
       K::kInt,
       {{"--yarn-original-max-position-embeddings"}},
       {"model.yarn_original_max_position_embeddings"},
       "",
       SetModelInt<&ModelSpec::rope_original_context, 1>,
       GetModelInt<&ModelSpec::rope_original_context>,
       ""});
  add({"model.add_bias_linear",
       K::kBool,
       {{"--disable-bias-linear", "false"}, {"--no-add-bias-linear", "false"}, {"--add-bias-linear", "true"}},
       {"model.add_bias_linear"},
       "true",
       SetModelBool<&ModelSpec::add_bias_linear>,
       GetModelBool<&ModelSpec::add_bias_linear>,
       "Megatron-Core's default is biases on (transformer_config.py:212)"});
  add({"model.add_qkv_bias",
       K::kBool,
       {{"--add-qkv-bias", "true"}},
       {"model.add_qkv_bias"},
       "false",
       SetModelBool<&ModelSpec::add_qkv_bias>,
       GetModelBool<&ModelSpec::add_qkv_bias>,
       ""});
  add({"model.softmax_type",
       K::kString,
       {{"--softmax-type"}},
       {"model.softmax_type"},
       "vanilla",
       SetModelName<&ModelSpec::softmax_type, SoftmaxTypes>,
       GetModelName<&ModelSpec::softmax_type>,
       ""});
  add({"model.multi_latent_attention",
       K::kBool,
       {{"--multi-latent-attention", "true"}},
       {"model.multi_latent_attention"},
       "false",
       SetModelBool<&ModelSpec::multi_latent_attention>,
       GetMla,
       ""});
  add({"model.q_lora_rank",
       K::kInt,
       {{"--q-lora-rank"}},
       {"model.q_lora_rank"},
       "",
       SetModelInt<&ModelSpec::q_lora_rank, 1>,
       GetModelInt<&ModelSpec::q_lora_rank>,
       "None = no query down-projection"});
  add({"model.kv_lora_rank",
       K::kInt,
       {{"--kv-lora-rank"}},
       {"model.kv_lora_rank"},
       "32",
       SetModelInt<&ModelSpec::kv_lora_rank, 1>,
       GetModelInt<&ModelSpec::kv_lora_rank>,
       ""});
  add({"model.qk_head_dim",
       K::kInt,
       {{"--qk-head-dim"}},
       {"model.qk_head_dim"},
       "128",
       SetModelInt<&ModelSpec::qk_head_dim, 1>,
       GetModelInt<&ModelSpec::qk_head_dim>,
       ""});
  add({"model.qk_pos_emb_head_dim",
       K::kInt,
       {{"--qk-pos-emb-head-dim"}},
       {"model.qk_pos_emb_head_dim"},
       "64",
       SetModelInt<&ModelSpec::qk_pos_emb_head_dim, 1>,
       GetModelInt<&ModelSpec::qk_pos_emb_head_dim>,
       ""});
  add({"model.v_head_dim",
       K::kInt,
       {{"--v-head-dim"}},
       {"model.v_head_dim"},
       "128",
       SetModelInt<&ModelSpec::v_head_dim, 1>,
       GetModelInt<&ModelSpec::v_head_dim>,
       ""});
  add({"model.num_moe_experts",
       K::kInt,
       {{"--num-experts"}},
       {"model.num_moe_experts"},
       "",
       SetModelInt<&ModelSpec::num_moe_experts, 1>,
       GetModelInt<&ModelSpec::num_moe_experts>,
       ""});
  add({"model.moe_router_topk",
       K::kInt,
       {{"--moe-router-topk"}},
       {"model.moe_router_topk"},
       "2",
       SetModelInt<&ModelSpec::moe_router_topk, 1>,
       GetModelInt<&ModelSpec::moe_router_topk>,
       ""});
  add({"model.moe_ffn_hidden_size",
       K::kInt,
       {{"--moe-ffn-hidden-size"}},
       {"model.moe_ffn_hidden_size"},
       "",
       SetModelInt<&ModelSpec::moe_ffn_hidden_size, 1>,
       GetModelInt<&ModelSpec::moe_ffn_hidden_size>,
       "Megatron's default is ffn_hidden_size"});
  add({"model.moe_shared_expert_intermediate_size",
       K::kInt,
       {{"--moe-shared-expert-intermediate-size"}},
       {"model.moe_shared_expert_intermediate_size"},
       "",
       SetModelInt<&ModelSpec::moe_shared_expert_intermediate_size, 1>,
       GetModelInt<&ModelSpec::moe_shared_expert_intermediate_size>,
       ""});
  add({"model.moe_layer_freq",
       K::kString,
       {{"--moe-layer-freq"}},
       {"model.moe_layer_freq"},
       "1",
       SetMoeLayerFreq,
       GetMoeLayerFreq,
       "an integer or the list form; sets first_k_dense_layers for ([0]*k+[1]*n)"});
  add({"model.moe_latent_size",
       K::kInt,
       {{"--moe-latent-size"}},
       {"model.moe_latent_size"},
       "",
       SetModelInt<&ModelSpec::moe_latent_size, 1>,
       GetModelInt<&ModelSpec::moe_latent_size>,
       ""});
  add({"model.hybrid_layer_pattern",
       K::kString,
       {{"--hybrid-layer-pattern"}, {"--hybrid-override-pattern"}},
       {"model.hybrid_layer_pattern", "model.hybrid_override_pattern"},
       "",
       SetHybridPattern,
       GetModelName<&ModelSpec::hybrid_layer_pattern>,
       ""});
  add({"model.mamba_state_dim",
       K::kInt,
       {{"--mamba-state-dim"}},
       {"model.mamba_state_dim"},
       "128",
       SetModelInt<&ModelSpec::mamba_state_dim, 1>,
       GetModelInt<&ModelSpec::mamba_state_dim>,
       ""});
  add({"model.mamba_head_dim",
       K::kInt,
       {{"--mamba-head-dim"}},
       {"model.mamba_head_dim"},
       "64",
       SetModelInt<&ModelSpec::mamba_head_dim, 1>,
       GetModelInt<&ModelSpec::mamba_head_dim>,
       ""});
  add({"model.mamba_num_heads",
       K::kInt,
       {{"--mamba-num-heads"}},
       {"model.mamba_num_heads"},
       "",
       SetModelInt<&ModelSpec::mamba_num_heads, 1>,
       GetModelInt<&ModelSpec::mamba_num_heads>,
       "Megatron's default is 2 x hidden_size / mamba_head_dim"});
  add({"model.mamba_num_groups",
       K::kInt,
       {{"--mamba-num-groups"}},
       {"model.mamba_num_groups"},
       "8",
       SetModelInt<&ModelSpec::mamba_num_groups, 1>,
       GetModelInt<&ModelSpec::mamba_num_groups>,
       ""});
  add({"model.window_size",
       K::kInt,
       {{"--window-size"}},
       {"model.window_size"},
       "",
       SetWindowSize,
       GetWindowSize,
       "Megatron's (left, right) tuple; (N, 0) is a causal window of N"});
  add({"model.window_attn_skip_freq",
       K::kString,
       {{"--window-attn-skip-freq"}},
       {"model.window_attn_skip_freq"},
       "",
       SetWindowSkip,
       GetWindowSkip,
       "an integer or the list form (1 = window, 0 = full)"});
  add({"model.attention_chunk_size",
       K::kInt,
       {},
       {"model.attention_chunk_size"},
       "",
       SetModelInt<&ModelSpec::attention_chunk_size, 1>,
       GetModelInt<&ModelSpec::attention_chunk_size>,
       ""});

  // Placement, from the launcher (torchrun / srun), not from training flags.
  add({"placement.gpus",
       K::kInt,
       {},
       {},
       "",
       SetPlacementGpus,
       nullptr,
       "torchrun --nproc_per_node x --nnodes, or srun's tasks"});
  add({"placement.gpus_per_node", K::kInt, {}, {}, "", SetPlacementGpusPerNode, nullptr, "torchrun --nproc_per_node"});
  return t;
}

std::string FlagKey(std::string_view flag) {
  std::string key(absl::StripLeadingAsciiWhitespace(absl::string_view(flag.data(), flag.size())));
  while (!key.empty() && key.front() == '-') key.erase(key.begin());
  std::replace(key.begin(), key.end(), '_', '-');
  return absl::AsciiStrToLower(key);
}

}  // namespace

const char* FieldKindName(FieldKind kind) {
  switch (kind) {
    case FieldKind::kInt:
      return "int";
    case FieldKind::kBool:
      return "bool";
    case FieldKind::kDouble:
      return "double";
    case FieldKind::kString:
      return "string";
    case FieldKind::kIntList:
      return "int_list";
    case FieldKind::kStringList:
      return "string_list";
    case FieldKind::kPrecision:
      return "precision";
  }
  return "string";
}

const std::vector<FieldEntry>& FieldMap() {
  static const auto* table = new std::vector<FieldEntry>(BuildTable());
  return *table;
}

const FieldEntry* FindField(std::string_view field) {
  for (const auto& e : FieldMap()) {
    if (e.field == field) return &e;
  }
  return nullptr;
}

std::vector<MegatronFlagMatch> FindMegatronFlag(std::string_view flag) {
  std::vector<MegatronFlagMatch> out;
  const std::string key = FlagKey(flag);
  if (key.empty()) return out;
  for (const auto& e : FieldMap()) {
    for (const auto& f : e.megatron) {
      if (FlagKey(f.name) == key) out.push_back({&e, &f});
    }
  }
  return out;
}

const FieldEntry* FindBridgePath(std::string_view path) {
  for (const auto& e : FieldMap()) {
    for (const auto& p : e.bridge) {
      if (p == path) return &e;
    }
  }
  return nullptr;
}

std::vector<std::string> MegatronLmArguments(const FieldEntry& entry, const std::string& value) {
  // A boolean's switch; for other kinds the value-taking flag, a switch
  // (--use-rotary-position-embeddings, --recompute-activations: older
  // spellings) only when no flag takes a value.
  auto switch_for = [&]() -> std::vector<std::string> {
    for (const auto& f : entry.megatron) {
      if (f.fixed != nullptr && !f.combined && value == f.fixed) return {f.name};
    }
    return {};
  };
  if (entry.kind == FieldKind::kBool) return switch_for();
  for (const auto& f : entry.megatron) {
    if (f.fixed != nullptr || f.combined) continue;
    if (entry.kind == FieldKind::kStringList || entry.kind == FieldKind::kIntList) {
      std::vector<std::string> out = {f.name};
      for (auto& item : SplitListValue(value)) out.push_back(item);
      return out;
    }
    return {f.name, value};
  }
  return switch_for();
}

ModelSpec* MutableImportedModel(ImportedConfig* out) {
  if (!out->model.has_value()) {
    ModelSpec m;
    m.origin = "import";
    out->model = std::move(m);
  }
  return &*out->model;
}

}  // namespace parplan
