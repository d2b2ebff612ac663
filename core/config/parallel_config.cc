#include "core/config/parallel_config.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/system/racks.h"
#include "core/util/field_error.h"
#include "core/util/text.h"

namespace parplan {

const std::vector<std::string>& KnownRecomputeModules() {
  static const auto* modules = new std::vector<std::string>{
      // megatron/core/transformer/transformer_config.py:1945 (allowed_modules)
      "core_attn",    "mlp",         "moe",     "moe_act", "shared_experts", "layernorm", "mla_up_proj",
      "gdn_norm_out", "gdp_in_proj", "gdp_qkv", "mhc"};
  return *modules;
}

const std::vector<std::string>& KnownCudaGraphModules() {
  // megatron/core/transformer/enums.py CudaGraphModule (and the deprecated
  // cuda_graph_scope names it still accepts)
  static const auto* modules =
      new std::vector<std::string>{"full", "attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba"};
  return *modules;
}

const std::vector<std::string>& KnownOffloadModules() {
  static const auto* modules =
      new std::vector<std::string>{// megatron/core/transformer/transformer_config.py:2132 (allowed_modules)
                                   "core_attn", "attn_proj", "expert_fc1", "fused_group_mlp", "moe_act",
                                   "attn_norm", "mlp_norm",  "qkv_linear", "gdp_qkv"};
  return *modules;
}

const std::vector<std::string>& KnownRecomputeGranularities() {
  static const auto* names = new std::vector<std::string>{"none", "selective", "full"};
  return *names;
}
const std::vector<std::string>& KnownRecomputeMethods() {
  static const auto* names = new std::vector<std::string>{"uniform", "block"};
  return *names;
}
const std::vector<std::string>& KnownOptimizerStateDtypes() {
  static const auto* names = new std::vector<std::string>{"fp32", "bf16"};
  return *names;
}
const std::vector<std::string>& KnownPeftMethods() {
  static const auto* names = new std::vector<std::string>{"none", "lora"};
  return *names;
}
const std::vector<std::string>& KnownCudaGraphImpls() {
  // megatron/core/transformer/transformer_config.py cuda_graph_impl
  static const auto* names = new std::vector<std::string>{"none", "local", "transformer_engine", "full_iteration"};
  return *names;
}
const std::vector<std::string>& KnownAttentionBackends() {
  // megatron/core/transformer/enums.py AttnBackend
  static const auto* names = new std::vector<std::string>{"auto", "flash", "fused", "unfused", "local"};
  return *names;
}

const std::vector<std::string>& KnownTokenDispatchers() {
  // megatron/core/transformer/transformer_config.py:891
  static const auto* names = new std::vector<std::string>{"alltoall", "allgather", "flex"};
  return *names;
}
const std::vector<std::string>& KnownFlexBackends() {
  // megatron/core/transformer/transformer_config.py:898
  static const auto* names = new std::vector<std::string>{"deepep", "hybridep", "ncclep"};
  return *names;
}

const std::vector<std::string>& KnownCpCommTypes() {
  // megatron/core/model_parallel_config.py cp_comm_type; Transformer Engine
  // attention/dot_product_attention/context_parallel.py
  static const auto* names = new std::vector<std::string>{"p2p", "all_gather", "a2a", "a2a+p2p"};
  return *names;
}

std::string RecomputeName(RecomputeGranularity g) {
  switch (g) {
    case RecomputeGranularity::kNone:
      return "none";
    case RecomputeGranularity::kSelective:
      return "selective";
    case RecomputeGranularity::kFull:
      return "full";
  }
  return "none";
}

std::string RecomputeMethodName(RecomputeMethod m) { return m == RecomputeMethod::kBlock ? "block" : "uniform"; }

namespace {

// An optional enumerated string: empty or one of `allowed` (case-insensitive).
void CheckChoice(FieldErrors* errors, const std::string& field, const std::string& value,
                 const std::vector<std::string>& allowed) {
  const std::string v = NormalizeName(value);
  if (v.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return;
  errors->Add(field, absl::StrCat("'", value.substr(0, 32), "' is unknown; allowed ", absl::StrJoin(allowed, ", ")));
}

// A list of Megatron module names, at most 16, each one of `known`.
void CheckModules(FieldErrors* errors, const std::string& field, const std::vector<std::string>& modules,
                  const std::vector<std::string>& known, const char* kind) {
  if (static_cast<int64_t>(modules.size()) > kMaxModules)
    errors->Add(field, absl::StrCat("at most ", kMaxModules, " modules"));
  for (const auto& m : modules) {
    if (std::find(known.begin(), known.end(), NormalizeName(m)) == known.end()) {
      errors->Add(field, absl::StrCat("'", m.substr(0, 32), "' is not a Megatron ", kind, " module; allowed ",
                                      absl::StrJoin(known, ", ")));
      return;
    }
  }
}

}  // namespace

absl::Status CheckConfigBounds(const ParallelConfig& c, const std::string& prefix) {
  FieldErrors errors;
  auto f = [&prefix](const char* name) { return absl::StrCat(prefix, ".", name); };
  // 0 means "not given" for every dimension.
  errors.CheckRange(f("tp"), c.tp, 0, kMaxDim);
  errors.CheckRange(f("pp"), c.pp, 0, kMaxDim);
  errors.CheckRange(f("vpp"), c.vpp, 0, kMaxDim);
  errors.CheckRange(f("cp"), c.cp, 0, kMaxDim);
  errors.CheckRange(f("ep"), c.ep, 0, kMaxDim);
  if (c.etp.has_value()) errors.CheckRange(f("etp"), *c.etp, 1, kMaxDim);
  errors.CheckRange(f("mbs"), c.mbs, 0, kMaxMbs);
  errors.CheckRange(f("gbs"), c.gbs, 0, kMaxGbs);
  errors.CheckRange(f("seq_length"), c.seq_length, 0, kMaxSeqLength);
  errors.CheckRange(f("num_layers_in_first_pipeline_stage"), c.first_stage_layers, 0, kMaxStageLayers);
  errors.CheckRange(f("num_layers_in_last_pipeline_stage"), c.last_stage_layers, 0, kMaxStageLayers);
  if (c.mtp_num_layers.has_value()) errors.CheckRange(f("mtp_num_layers"), *c.mtp_num_layers, 0, kMaxMtpLayers);
  if (c.pipeline_layout.size() > kMaxLayoutChars) {
    errors.Add(f("pipeline_layout"),
               absl::StrCat("layout has ", c.pipeline_layout.size(), " characters; allowed at most ", kMaxLayoutChars));
  }
  if (c.precision.size() > 64) errors.Add(f("precision"), "precision name longer than 64 characters");
  CheckChoice(&errors, f("recompute_granularity"), c.recompute_granularity, KnownRecomputeGranularities());
  CheckChoice(&errors, f("recompute_method"), c.recompute_method, KnownRecomputeMethods());
  CheckChoice(&errors, f("optimizer_state_dtype"), c.optimizer_state_dtype, KnownOptimizerStateDtypes());
  CheckChoice(&errors, f("peft"), c.peft, KnownPeftMethods());
  errors.CheckRange(f("recompute_num_layers"), c.recompute_num_layers, 0, kMaxStageLayers);
  errors.CheckRange(f("cpu_offloading_num_layers"), c.cpu_offloading_num_layers, 0, kMaxStageLayers);
  CheckModules(&errors, f("recompute_modules"), c.recompute_modules, KnownRecomputeModules(), "recompute");
  CheckModules(&errors, f("offload_modules"), c.offload_modules, KnownOffloadModules(), "offload");
  CheckChoice(&errors, f("cuda_graph_impl"), c.cuda_graph_impl, KnownCudaGraphImpls());
  CheckChoice(&errors, f("attention_backend"), c.attention_backend, KnownAttentionBackends());
  CheckModules(&errors, f("cuda_graph_modules"), c.cuda_graph_modules, KnownCudaGraphModules(), "CUDA graph");
  CheckChoice(&errors, f("moe_token_dispatcher_type"), c.moe_token_dispatcher_type, KnownTokenDispatchers());
  CheckChoice(&errors, f("moe_flex_dispatcher_backend"), c.moe_flex_dispatcher_backend, KnownFlexBackends());
  // Megatron asserts >= 0 under the full-iteration graph
  // (transformer_config.py:2969); a negative cap would join after every offload.
  if (c.fine_grained_offloading_max_inflight_offloads.has_value()) {
    errors.CheckRange(f("fine_grained_offloading_max_inflight_offloads"),
                      *c.fine_grained_offloading_max_inflight_offloads, 0, kMaxInflightOffloads);
  }
  CheckChoice(&errors, f("cp_comm_type"), c.cp_comm_type, KnownCpCommTypes());
  if (static_cast<int64_t>(c.hierarchical_context_parallel_sizes.size()) > kMaxHierarchicalCpLevels) {
    errors.Add(f("hierarchical_context_parallel_sizes"),
               absl::StrCat(c.hierarchical_context_parallel_sizes.size(), " levels; allowed at most ",
                            kMaxHierarchicalCpLevels));
  }
  for (const int64_t size : c.hierarchical_context_parallel_sizes) {
    errors.CheckRange(f("hierarchical_context_parallel_sizes"), size, 1, kMaxDim);
  }
  if (absl::Status v = ParseFrontEnd(c.front_end, f("front_end")).status(); !v.ok()) {
    for (const auto& fv : FieldViolationsOf(v)) errors.Add(fv.field, fv.description);
  }
  if (absl::Status v = ParseBridgeVersion(c.bridge_version, f("bridge_version")).status(); !v.ok()) {
    for (const auto& fv : FieldViolationsOf(v)) errors.Add(fv.field, fv.description);
  }
  if (c.optimizer_offload_fraction.has_value()) {
    const double x = *c.optimizer_offload_fraction;
    if (!(x >= 0.0 && x <= 1.0)) {
      errors.Add(f("optimizer_offload_fraction"),
                 absl::StrCat("is ", x, "; allowed 0..1 (the share of the optimizer state on the host)"));
    }
  }
  return errors.ToStatus();
}

bool BridgeFusesRope(const ModelSpec* model) {
  if (model == nullptr || !model->multi_latent_attention) return true;
  return model->id.rfind("deepseek_v4", 0) == 0;
}

absl::StatusOr<ResolvedConfig> ResolveConfig(const ParallelConfig& c, const ModelSpec* model,
                                             const std::string& prefix) {
  if (absl::Status s = CheckConfigBounds(c, prefix); !s.ok()) return s;
  ResolvedConfig r;
  r.given = std::make_shared<const ParallelConfig>(c);
  r.front_end = *ParseFrontEnd(c.front_end, prefix);
  r.bridge_version = *ParseBridgeVersion(c.bridge_version, prefix);
  const bool bridge = r.front_end == FrontEnd::kBridge;
  r.tp = c.tp > 0 ? c.tp : 1;
  r.pp = c.pp > 0 ? c.pp : 1;
  r.vpp = c.vpp > 0 ? c.vpp : 1;
  r.vpp_given = c.vpp > 1;
  r.cp = c.cp > 0 ? c.cp : 1;
  r.ep = c.ep > 0 ? c.ep : 1;
  if (c.etp.has_value()) {
    r.etp = *c.etp;
  } else if (r.ep > 1 && !(bridge && BridgeSetsEtpToOne(r.bridge_version))) {
    // Megatron-LM, and Megatron Bridge up to 0.5.x: Megatron-Core's
    // expert_tensor_parallel_size = tp (model_parallel_config.py:506-507).
    r.etp = r.tp;
    r.etp_defaulted = true;
    if (r.tp > 1) {
      r.notes.push_back(absl::StrCat("etp not given: ETP = TP = ", r.tp, " (Megatron-Core's default, which ",
                                     bridge ? absl::StrCat("Megatron Bridge ", BridgeVersionName(r.bridge_version),
                                                           " keeps; from 0.6.0 Bridge sets 1")
                                            : "Megatron-LM keeps",
                                     "; pass etp=1 to keep experts unsplit)"));
    }
  } else if (r.ep > 1) {
    // Megatron Bridge sets expert_tensor_parallel_size = 1 when EP > 1 and it
    // is unset (_set_moe_expert_tensor_parallel_default,
    // src/megatron/bridge/models/transformer_config.py:80-88, from finalize()).
    r.etp = 1;
    r.etp_defaulted = true;
    if (r.tp > 1) {
      r.notes.push_back(absl::StrCat("etp not given: ETP=1 (Megatron Bridge ", BridgeVersionName(r.bridge_version),
                                     " default when EP > 1); Megatron-LM, Megatron-Core and Bridge up to 0.5.x ",
                                     "would use ETP = TP = ", r.tp, " (pass etp=", r.tp, " to plan that)"));
    } else {
      r.notes.push_back(absl::StrCat("etp not given: ETP=1 (Megatron Bridge ", BridgeVersionName(r.bridge_version),
                                     " default when EP > 1; Megatron-Core's ETP = TP is 1 too)"));
    }
  } else {
    // Megatron-Core: expert_tensor_parallel_size = tp when unset
    // (megatron/core/model_parallel_config.py:506-507); Bridge keeps it at EP = 1.
    r.etp = r.tp;
    r.etp_defaulted = true;
    if (r.tp > 1 && model != nullptr && model->is_moe()) {
      r.notes.push_back(absl::StrCat("etp not given: ETP = TP = ", r.tp,
                                     " (Megatron-Core default, which Megatron Bridge keeps when EP = 1); pass etp=1 to "
                                     "keep experts unsplit"));
    }
  }
  if (c.sp.has_value()) {
    r.sp = *c.sp;
  } else {
    // Bridge's recipes turn sequence parallelism on with TP > 1; Megatron-LM's
    // --sequence-parallel is off unless given (arguments.py).
    r.sp = bridge && r.tp > 1;
    r.sp_defaulted = true;
    if (r.tp > 1) {
      r.notes.push_back(bridge ? "sp not given: sequence parallelism on because tp > 1 (Megatron Bridge's recipes)"
                               : "sp not given: sequence parallelism off (Megatron-LM's default without "
                                 "--sequence-parallel)");
    }
  }
  r.mbs = c.mbs > 0 ? c.mbs : 1;
  r.gbs = c.gbs;
  r.seq_length = c.seq_length > 0 ? c.seq_length : (model != nullptr ? model->DefaultSeqLength() : 0);
  if (c.seq_length == 0 && r.seq_length > 0) {
    r.seq_length_note =
        absl::StrCat("seq_length not given: using ", r.seq_length, " tokens, ",
                     model->pretrain_seq_length > 0 ? "the length of the model's published pretraining recipe"
                                                    : absl::StrCat("the model's native context of ", model->seq_length,
                                                                   " capped at 8192 (no pretraining recipe known)"),
                     "; pass seq_length (--seq) to plan another length");
    r.notes.push_back(r.seq_length_note);
  }
  r.first_stage_layers = c.first_stage_layers;
  r.last_stage_layers = c.last_stage_layers;
  r.account_for_embedding = c.account_for_embedding;
  r.account_for_loss = c.account_for_loss;
  r.pipeline_layout = c.pipeline_layout;
  auto precision = ParsePrecision(c.precision, absl::StrCat(prefix, ".precision"));
  if (!precision.ok()) return precision.status();
  r.precision = *precision;
  if (c.mtp_num_layers.has_value()) {
    r.mtp_num_layers = *c.mtp_num_layers;
  } else if (model != nullptr) {
    r.mtp_num_layers = model->mtp_num_layers;
  }
  const std::string g = NormalizeName(c.recompute_granularity);
  r.recompute = g == "selective" ? RecomputeGranularity::kSelective
                                 : (g == "full" ? RecomputeGranularity::kFull : RecomputeGranularity::kNone);
  for (const auto& m : c.recompute_modules) r.recompute_modules.push_back(NormalizeName(m));
  if (r.recompute == RecomputeGranularity::kSelective && r.recompute_modules.empty()) {
    r.recompute_modules = {"core_attn"};  // Megatron-Core's default
  }
  r.recompute_method_given = !c.recompute_method.empty();
  r.recompute_method =
      NormalizeName(c.recompute_method) == "block" ? RecomputeMethod::kBlock : RecomputeMethod::kUniform;
  r.recompute_num_layers_given = c.recompute_num_layers > 0;
  r.recompute_num_layers = c.recompute_num_layers > 0 ? c.recompute_num_layers : 1;
  if (r.recompute == RecomputeGranularity::kFull && (!r.recompute_method_given || !r.recompute_num_layers_given)) {
    // Megatron-Core refuses full recompute without a method and a layer count
    // (transformer_config.py __post_init__); parplan takes NVIDIA's recipes'
    // uniform / 1 and the answer lists them as chosen.
    r.notes.push_back(absl::StrCat("full recompute: recompute_method = ", RecomputeMethodName(r.recompute_method),
                                   ", recompute_num_layers = ", r.recompute_num_layers,
                                   " (not given; Megatron-Core needs both with full recompute: NVIDIA's recipes' "
                                   "uniform / 1, every layer recomputed)"));
  }
  // Megatron-LM's --use-distributed-optimizer, --accumulate-allreduce-grads-in-fp32
  // and --overlap-grad-reduce are off unless given; Bridge's recipes and its
  // bf16_mixed preset turn them on.
  r.distributed_optimizer = c.use_distributed_optimizer.value_or(bridge);
  r.fsdp = c.use_megatron_fsdp;
  r.grad_fp32 = c.grad_reduce_in_fp32.value_or(bridge);
  r.optimizer_bf16 = NormalizeName(c.optimizer_state_dtype) == "bf16";
  r.lora = NormalizeName(c.peft) == "lora";
  r.cpu_offloading_num_layers = c.cpu_offloading_num_layers;
  for (const auto& m : c.offload_modules) r.offload_modules.push_back(NormalizeName(m));
  r.tp_comm_overlap = c.tp_comm_overlap.value_or(false);
  r.overlap_grad_reduce = c.overlap_grad_reduce.value_or(bridge);
  r.overlap_moe_expert_parallel_comm = c.overlap_moe_expert_parallel_comm.value_or(false);
  r.cuda_graph_impl = c.cuda_graph_impl.empty() ? "none" : NormalizeName(c.cuda_graph_impl);
  for (const auto& m : c.cuda_graph_modules) r.cuda_graph_modules.push_back(NormalizeName(m));
  r.attention_backend = c.attention_backend.empty() ? "auto" : NormalizeName(c.attention_backend);
  r.unfused_attention = r.attention_backend == "unfused" || r.attention_backend == "local";
  r.dispatcher_defaulted = c.moe_token_dispatcher_type.empty();
  if (!bridge) r.moe_token_dispatcher_type = "allgather";  // Megatron-LM's --moe-token-dispatcher-type default
  if (!r.dispatcher_defaulted) r.moe_token_dispatcher_type = NormalizeName(c.moe_token_dispatcher_type);
  r.flex_backend_given = !c.moe_flex_dispatcher_backend.empty();
  if (r.flex_backend_given) r.moe_flex_dispatcher_backend = NormalizeName(c.moe_flex_dispatcher_backend);
  r.dispatch_fields_given = !r.dispatcher_defaulted || r.flex_backend_given || c.moe_permute_fusion.has_value() ||
                            c.moe_router_force_load_balancing.has_value();
  r.moe_permute_fusion = c.moe_permute_fusion.value_or(bridge);
  r.moe_router_force_load_balancing = c.moe_router_force_load_balancing.value_or(false);
  r.apply_rope_fusion = c.apply_rope_fusion.value_or(!bridge || BridgeFusesRope(model));
  r.op_fuser_given = c.use_transformer_engine_op_fuser.has_value();
  r.use_transformer_engine_op_fuser = c.use_transformer_engine_op_fuser.value_or(false);
  r.fine_grained_offloading_max_inflight_offloads = c.fine_grained_offloading_max_inflight_offloads;
  r.cp_comm_type_given = !c.cp_comm_type.empty();
  if (r.cp_comm_type_given) r.cp_comm_type = NormalizeName(c.cp_comm_type);
  r.hierarchical_cp_sizes = c.hierarchical_context_parallel_sizes;
  r.optimizer_cpu_offload = c.optimizer_cpu_offload.value_or(false);
  r.expandable_segments_given = c.expandable_segments.has_value();
  r.expandable_segments = c.expandable_segments.value_or(true);
  r.offload_fraction_given = c.optimizer_offload_fraction.has_value();
  // Megatron-LM's --optimizer-offload-fraction defaults to 1.0 (arguments.py:2922),
  // Megatron-Core's and Bridge's OptimizerConfig to 0.0 (optimizer_config.py:350).
  r.optimizer_offload_fraction = c.optimizer_offload_fraction.value_or(bridge ? 0.0 : 1.0);
  // Bridge's presets set the low-precision gather (and overwrite
  // ddp.fp8_param_gather with it); Megatron-LM's --fp8-param-gather and
  // --fp4-param-gather are off unless given.
  r.fp8_param_gather = c.fp8_param_gather.value_or(bridge && Fp8ParamGatherDefault(r.precision));
  r.fp4_param_gather = bridge && IsFp4(r.precision);
  return r;
}

bool Fp8ParamGatherDefault(Precision p) {
  return p == Precision::kFp8Ds || p == Precision::kFp8Cs || p == Precision::kFp8Mx;
}

bool LowPrecisionParamGather(const ResolvedConfig& c) {
  return (IsFp4(c.precision) && c.fp4_param_gather) || (IsFp8(c.precision) && c.fp8_param_gather);
}

double GatheredWeightBytes(const ResolvedConfig& c) {
  return LowPrecisionParamGather(c) ? GemmWeightBytes(c.precision) : 2.0;
}

std::string SplitAccountingName(const ResolvedConfig& c) {
  if (c.account_for_embedding && c.account_for_loss) return "embedding + loss";
  if (c.account_for_embedding) return "embedding";
  if (c.account_for_loss) return "loss";
  return "none";
}

int64_t DefaultGlobalBatch(const ResolvedConfig& c, int64_t dp) {
  const int64_t unit = std::max<int64_t>(1, c.mbs * dp);
  const int64_t seq = std::max<int64_t>(1, c.seq_length);
  const int64_t target = std::max<int64_t>(1, kDefaultTokensPerStep / seq);
  const int64_t cap = std::max<int64_t>(1, kMaxDefaultTokensPerStep / seq);
  int64_t n = std::max<int64_t>(1, (target + unit / 2) / unit);
  if (n * unit > cap) n = std::max<int64_t>(1, cap / unit);
  return n * unit;
}

std::string GlobalBatchNote(const ResolvedConfig& c, int64_t dp, int64_t gbs) {
  const int64_t seq = std::max<int64_t>(1, c.seq_length);
  const int64_t tokens = gbs * seq;
  const int64_t unit = std::max<int64_t>(1, c.mbs * dp);
  std::string note = absl::StrCat(
      "gbs not given: ", WithCommas(gbs), " sequences x ", WithCommas(seq), " tokens = ", WithCommas(tokens),
      " tokens per step (default: the multiple of MBS x DP = ", c.mbs, " x ", WithCommas(dp),
      " nearest 4M tokens, at most 16M: 4M is Llama 3's starting batch, 16M Llama 3 "
      "405B's largest)");
  if (tokens > kMaxDefaultTokensPerStep) {
    const int64_t max_dp = std::max<int64_t>(1, kMaxDefaultTokensPerStep / (seq * std::max<int64_t>(1, c.mbs)));
    absl::StrAppend(&note, "; one microbatch per DP rank (", WithCommas(unit),
                    " sequences) is already above 16M tokens: DP at most ", WithCommas(max_dp),
                    " (more TP/PP/CP per replica, or fewer GPUs) would allow a published batch size");
  }
  return absl::StrCat(note, ".");
}

namespace {

// Not given: the even split of p->gpus (core/system/racks.h ChooseDomainUse),
// the one placement every method uses, with its reason in p's notes. True
// when it chose one.
bool ChooseDomainUseOf(ResolvedPlacement* p) {
  if (!p->system.has_value() || p->gpus_per_nvlink_domain_given) return false;
  p->domain_use_reason = ChooseDomainUse(p->gpus, &*p->system);
  if (p->domain_use_reason.empty()) return false;
  p->gpus_per_nvlink_domain = p->system->nvlink_domain_used;
  p->notes.push_back(p->domain_use_reason);
  return true;
}

}  // namespace

absl::StatusOr<ResolvedPlacement> ResolvePlacement(const Placement& p, const std::string& prefix) {
  FieldErrors errors;
  errors.CheckRange(absl::StrCat(prefix, ".gpus"), p.gpus, 0, kMaxGpus);
  errors.CheckRange(absl::StrCat(prefix, ".gpus_per_node"), p.gpus_per_node, 0, kMaxGpusPerNode);
  if (p.gpus_per_node > 0 && p.system_figures.gpus_per_node.has_value() &&
      *p.system_figures.gpus_per_node != p.gpus_per_node) {
    errors.Add(absl::StrCat(prefix, ".gpus_per_node"),
               absl::StrCat(p.gpus_per_node, " differs from system_spec.gpus_per_node = ",
                            *p.system_figures.gpus_per_node, "; give one"));
  }
  if (!errors.empty()) return errors.ToStatus();
  ResolvedPlacement r;
  r.gpus = p.gpus;
  r.gpus_given = p.gpus > 0;
  SystemRef ref;
  ref.id = p.system;
  ref.figures = p.system_figures;
  if (p.gpus_per_node > 0) ref.figures.gpus_per_node = p.gpus_per_node;
  const bool node_size_only = p.system.empty() && p.system_figures.empty();
  if (!node_size_only) {
    auto system = ResolveSystem(ref, absl::StrCat(prefix, ".system"), absl::StrCat(prefix, ".system_spec"));
    if (!system.ok()) return system.status();
    r.system = system->spec;
    r.notes = system->notes;
    r.gpus_per_node = r.system->gpus_per_node;
    r.nvlink_domain_size = r.system->nvlink_domain_size;
  } else if (p.gpus_per_node > 0) {
    r.gpus_per_node = p.gpus_per_node;
    r.nvlink_domain_size = p.gpus_per_node;
  }
  const std::string used_field = absl::StrCat(prefix, ".gpus_per_nvlink_domain");
  if (absl::Status used =
          CheckGpusPerDomain(p.gpus_per_nvlink_domain, r.nvlink_domain_size, r.gpus_per_node, used_field);
      !used.ok()) {
    return used;
  }
  r.gpus_per_nvlink_domain = p.gpus_per_nvlink_domain > 0 ? p.gpus_per_nvlink_domain : r.nvlink_domain_size;
  if (r.system.has_value()) {
    r.system->nvlink_domain_used = static_cast<int>(p.gpus_per_nvlink_domain);
  }
  r.gpus_per_nvlink_domain_given = p.gpus_per_nvlink_domain > 0;
  if (r.system.has_value() && !ChooseDomainUseOf(&r)) {
    const std::string use = DescribeDomainUse(*r.system, r.gpus);
    if (!use.empty()) r.notes.push_back(use);
  }
  return r;
}

std::string DescribeConfigChange(const ResolvedConfig& a, const ResolvedConfig& b) {
  std::vector<std::string> parts;
  auto dim = [&parts](const char* name, int64_t x, int64_t y) {
    if (x != y) parts.push_back(absl::StrCat(name, " ", x, " -> ", y));
  };
  dim("MBS", a.mbs, b.mbs);
  dim("EP", a.ep, b.ep);
  dim("PP", a.pp, b.pp);
  dim("TP", a.tp, b.tp);
  dim("CP", a.cp, b.cp);
  dim("VPP", a.vpp, b.vpp);
  if (a.recompute != b.recompute || a.recompute_modules != b.recompute_modules) {
    parts.push_back(
        b.recompute == RecomputeGranularity::kSelective
            ? absl::StrCat("selective recompute (", absl::StrJoin(b.recompute_modules, ", "), ")")
            : absl::StrCat(RecomputeName(b.recompute), " recompute",
                           b.recompute == RecomputeGranularity::kFull &&
                                   (b.recompute_method != RecomputeMethod::kUniform || b.recompute_num_layers != 1)
                               ? absl::StrCat(" (", b.recompute_method == RecomputeMethod::kBlock ? "block" : "uniform",
                                              ", ", b.recompute_num_layers, " layers)")
                               : std::string()));
  }
  if (a.OffloadedOptimizerShare() != b.OffloadedOptimizerShare()) {
    parts.push_back(b.OffloadedOptimizerShare() > 0
                        ? absl::StrCat("optimizer CPU offload ", b.optimizer_offload_fraction)
                        : std::string("optimizer CPU offload off"));
  }
  if (a.distributed_optimizer != b.distributed_optimizer) parts.push_back("distributed optimizer on");
  if (a.fsdp != b.fsdp) parts.push_back("Megatron FSDP on");
  if (a.account_for_embedding != b.account_for_embedding || a.account_for_loss != b.account_for_loss) {
    parts.push_back(absl::StrCat("pipeline-split accounting: ", SplitAccountingName(b)));
  }
  return absl::StrJoin(parts, " + ");
}

int64_t ResolveWorldAndBatch(ResolvedConfig* c, ResolvedPlacement* p) {
  const MeshDims dims = MeshOf(*c);
  if (p->gpus <= 0) {
    p->gpus = ComputeMinGpus(dims).min_gpus;
    ChooseDomainUseOf(p);
  }
  const int64_t dp = SizeWorld(dims, p->gpus, 0, 0, 0).dp;  // 0 when the world does not divide
  if (c->gbs == 0 && c->seq_length > 0 && dp > 0) {
    c->gbs = DefaultGlobalBatch(*c, dp);
    c->gbs_note = GlobalBatchNote(*c, dp, c->gbs);
  }
  return p->gpus;
}

ResolvedPlacement PlacementOn(const SystemSpec& system, int64_t gpus) {
  ResolvedPlacement p;
  p.system = system;
  p.gpus = gpus;
  p.gpus_per_node = system.gpus_per_node;
  p.nvlink_domain_size = system.nvlink_domain_size;
  p.gpus_per_nvlink_domain = RanksPerDomain(system);
  return p;
}

MeshDims MeshOf(const ResolvedConfig& c) {
  MeshDims d;
  d.tp = c.tp;
  d.pp = c.pp;
  d.cp = c.cp;
  d.ep = c.ep;
  d.etp = c.etp;
  return d;
}

}  // namespace parplan
