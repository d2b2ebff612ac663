#include "server/api/convert.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/diagnostics/rule_catalog.h"
#include "core/util/field_error.h"
#include "core/model/param_count.h"

namespace parplan {

bool HasModel(const v1::ModelRef& ref) { return ref.source_case() != v1::ModelRef::SOURCE_NOT_SET; }

ModelSource ToModelSource(const v1::ModelRef& ref) {
  ModelSource s;
  switch (ref.source_case()) {
    case v1::ModelRef::kId:
      s.kind = ModelSource::Kind::kId;
      s.text = ref.id();
      break;
    case v1::ModelRef::kSpec:
      s.kind = ModelSource::Kind::kSpec;
      s.spec = FromModelArchitecture(ref.spec());
      break;
    case v1::ModelRef::kHfConfigJson:
      s.kind = ModelSource::Kind::kHfConfig;
      s.text = ref.hf_config_json();
      break;
    case v1::ModelRef::kSize:
      s.kind = ModelSource::Kind::kSize;
      s.text = ref.size();
      break;
    case v1::ModelRef::SOURCE_NOT_SET:
      break;
  }
  return s;
}

ModelSpec FromModelArchitecture(const v1::ModelArchitecture& a) {
  ModelSpec m;
  m.num_layers = a.num_layers();
  m.hidden_size = a.hidden_size();
  m.ffn_hidden_size = a.ffn_hidden_size();
  m.num_attention_heads = a.num_attention_heads();
  m.num_query_groups = a.num_query_groups();
  m.kv_channels = a.kv_channels();
  m.vocab_size = a.vocab_size();
  m.make_vocab_size_divisible_by = a.make_vocab_size_divisible_by();
  m.seq_length = a.seq_length();
  m.gated_linear_unit = a.gated_linear_unit();
  m.share_embeddings_and_output_weights = a.share_embeddings_and_output_weights();
  m.multi_latent_attention = a.multi_latent_attention();
  m.q_lora_rank = a.q_lora_rank();
  m.kv_lora_rank = a.kv_lora_rank();
  m.qk_head_dim = a.qk_head_dim();
  m.qk_pos_emb_head_dim = a.qk_pos_emb_head_dim();
  m.v_head_dim = a.v_head_dim();
  m.num_moe_experts = a.num_moe_experts();
  m.moe_router_topk = a.moe_router_topk();
  m.moe_ffn_hidden_size = a.moe_ffn_hidden_size();
  m.moe_shared_expert_intermediate_size = a.moe_shared_expert_intermediate_size();
  m.first_k_dense_layers = a.first_k_dense_layers();
  // 0 = not given (every layer); a negative value reaches the range check.
  m.moe_layer_freq = a.moe_layer_freq() != 0 ? a.moe_layer_freq() : 1;
  m.moe_latent_size = a.moe_latent_size();
  m.mtp_num_layers = a.mtp_num_layers();
  m.hybrid_layer_pattern = a.hybrid_layer_pattern();
  m.mamba_state_dim = a.mamba_state_dim();
  m.mamba_head_dim = a.mamba_head_dim();
  m.mamba_num_heads = a.mamba_num_heads();
  m.mamba_num_groups = a.mamba_num_groups();
  m.window_size = a.window_size();
  m.window_attn_skip_freq = a.window_attn_skip_freq();
  m.window_attn_pattern = a.window_attn_pattern();
  m.attention_chunk_size = a.attention_chunk_size();
  m.add_bias_linear = a.add_bias_linear();
  m.add_qkv_bias = a.add_qkv_bias();
  m.softmax_type = a.softmax_type();  // empty = not given: "vanilla", named as defaulted
  // Empty = not given: the core refuses a spec that leaves these open
  // (core/model/inline_spec.h) unless its family settles them.
  m.position_embedding_type = a.position_embedding_type();
  m.normalization = a.normalization();
  m.activation_func = a.activation_func();
  m.rope_scaling_type = a.rope_scaling_type();
  m.rope_scaling_factor = a.rope_scaling_factor();
  m.rope_original_context = a.rope_original_context();
  return m;
}

void ToModelArchitecture(const ModelSpec& m, v1::ModelArchitecture* a) {
  a->set_num_layers(m.num_layers);
  a->set_hidden_size(m.hidden_size);
  a->set_ffn_hidden_size(m.ffn_hidden_size);
  a->set_num_attention_heads(m.num_attention_heads);
  a->set_num_query_groups(m.num_query_groups);
  a->set_kv_channels(m.kv_channels);
  a->set_vocab_size(m.vocab_size);
  a->set_make_vocab_size_divisible_by(m.make_vocab_size_divisible_by);
  a->set_seq_length(m.seq_length);
  a->set_gated_linear_unit(m.gated_linear_unit);
  a->set_share_embeddings_and_output_weights(m.share_embeddings_and_output_weights);
  a->set_multi_latent_attention(m.multi_latent_attention);
  a->set_q_lora_rank(m.q_lora_rank);
  a->set_kv_lora_rank(m.kv_lora_rank);
  a->set_qk_head_dim(m.qk_head_dim);
  a->set_qk_pos_emb_head_dim(m.qk_pos_emb_head_dim);
  a->set_v_head_dim(m.v_head_dim);
  a->set_num_moe_experts(m.num_moe_experts);
  a->set_moe_router_topk(m.moe_router_topk);
  a->set_moe_ffn_hidden_size(m.moe_ffn_hidden_size);
  a->set_moe_shared_expert_intermediate_size(m.moe_shared_expert_intermediate_size);
  a->set_first_k_dense_layers(m.first_k_dense_layers);
  a->set_moe_layer_freq(m.num_moe_experts > 0 ? m.moe_layer_freq : 0);
  a->set_moe_latent_size(m.moe_latent_size);
  a->set_mtp_num_layers(m.mtp_num_layers);
  a->set_hybrid_layer_pattern(m.hybrid_layer_pattern);
  a->set_mamba_state_dim(m.mamba_state_dim);
  a->set_mamba_head_dim(m.mamba_head_dim);
  a->set_mamba_num_heads(m.mamba_num_heads);
  a->set_mamba_num_groups(m.mamba_num_groups);
  a->set_window_size(m.window_size);
  a->set_window_attn_skip_freq(m.window_attn_skip_freq);
  a->set_window_attn_pattern(m.window_attn_pattern);
  a->set_attention_chunk_size(m.attention_chunk_size);
  a->set_add_bias_linear(m.add_bias_linear);
  a->set_add_qkv_bias(m.add_qkv_bias);
  a->set_softmax_type(m.softmax_type);
  a->set_position_embedding_type(m.position_embedding_type);
  a->set_normalization(m.normalization);
  a->set_activation_func(m.ResolvedActivation());
  a->set_rope_scaling_type(m.rope_scaling_type);
  a->set_rope_scaling_factor(m.rope_scaling_factor);
  a->set_rope_original_context(m.rope_original_context);
}

void ToModelSummary(const ModelSpec& m, v1::ModelSummary* out) {
  out->set_id(m.id);
  out->set_name(m.name);
  out->set_kind(m.kind);
  out->set_origin(m.origin);
  out->set_complete(m.complete());
  for (const auto& f : m.missing_fields) out->add_missing_fields(f);
  out->set_approximate(m.approximate);
  out->set_approximation_note(m.approximation_note);
  out->set_hf_id(m.hf_id);
  if (m.complete()) {
    const ParamCounts counts = CountParams(m);
    out->set_total_params(counts.total);
    out->set_active_params(counts.active);
  }
}

void ToModelInfo(const ModelSpec& m, v1::ModelInfo* out) {
  out->set_id(m.id);
  out->set_name(m.name);
  out->set_hf_id(m.hf_id);
  for (const auto& a : m.aliases) out->add_aliases(a);
  out->set_kind(m.kind);
  out->set_origin(m.origin);
  out->set_complete(m.complete());
  for (const auto& f : m.missing_fields) out->add_missing_fields(f);
  out->set_approximate(m.approximate);
  out->set_approximation_note(m.approximation_note);
  ToModelArchitecture(m, out->mutable_arch());
  out->set_published_total_params(m.published_total_params);
  out->set_published_active_params(m.published_active_params);
  if (m.complete()) {
    const ParamCounts counts = CountParams(m);
    out->set_total_params(counts.total);
    out->set_active_params(counts.active);
  }
  if (m.origin == "catalog") {
    for (const auto& [k, v] : Catalog::Get().ModelFieldSources(m.id)) (*out->mutable_field_sources())[k] = v;
  }
  for (const auto& [k, v] : m.field_sources) (*out->mutable_field_sources())[k] = v;
  for (const auto& [k, v] : m.completions) (*out->mutable_completions())[k] = v;
  for (const auto& n : m.notes) out->add_notes(n);
}

void ToSystemInfo(const SystemSpec& s, v1::SystemInfo* out) {
  out->set_id(s.id);
  out->set_name(s.name);
  for (const auto& a : s.aliases) out->add_aliases(a);
  out->set_gpu_arch(s.gpu_arch);
  out->set_gpus_per_node(s.gpus_per_node);
  out->set_nvlink_domain_size(s.nvlink_domain_size);
  out->set_hbm_gb(s.hbm_gb);
  out->set_hbm_bw_tbps(s.hbm_bw_tbps);
  out->set_bf16_dense_tflops(s.bf16_dense_tflops);
  out->set_fp8_dense_tflops(s.fp8_dense_tflops);
  out->set_fp4_dense_tflops(s.fp4_dense_tflops);
  out->set_nvlink_gbps_unidirectional(s.nvlink_gbps_unidirectional);
  out->set_scaleout_gbps_per_gpu(s.scaleout_gbps_per_gpu);
  out->set_pcie_gbps_unidirectional(s.pcie_gbps_unidirectional);
  out->set_description(s.description);
  for (const auto& [k, v] : s.sources) (*out->mutable_sources())[k] = v;
  for (const auto& n : s.notes) out->add_notes(n);
}

ParallelConfig ToParallelConfig(const v1::ParallelConfig& c) {
  ParallelConfig r;
  r.tp = c.tp();
  r.pp = c.pp();
  r.vpp = c.vpp();
  r.cp = c.cp();
  r.ep = c.ep();
  if (c.has_etp()) r.etp = c.etp();
  if (c.has_sp()) r.sp = c.sp();
  r.mbs = c.mbs();
  r.gbs = c.gbs();
  r.seq_length = c.seq_length();
  r.first_stage_layers = c.num_layers_in_first_pipeline_stage();
  r.last_stage_layers = c.num_layers_in_last_pipeline_stage();
  r.account_for_embedding = c.account_for_embedding_in_pipeline_split();
  r.account_for_loss = c.account_for_loss_in_pipeline_split();
  r.pipeline_layout = c.pipeline_layout();
  r.precision = c.precision();
  if (c.has_mtp_num_layers()) r.mtp_num_layers = c.mtp_num_layers();
  r.recompute_granularity = c.recompute_granularity();
  r.recompute_modules.assign(c.recompute_modules().begin(), c.recompute_modules().end());
  r.recompute_method = c.recompute_method();
  r.recompute_num_layers = c.recompute_num_layers();
  if (c.has_use_distributed_optimizer()) r.use_distributed_optimizer = c.use_distributed_optimizer();
  r.use_megatron_fsdp = c.use_megatron_fsdp();
  if (c.has_grad_reduce_in_fp32()) r.grad_reduce_in_fp32 = c.grad_reduce_in_fp32();
  r.optimizer_state_dtype = c.optimizer_state_dtype();
  r.peft = c.peft();
  r.cpu_offloading_num_layers = c.cpu_offloading_num_layers();
  r.offload_modules.assign(c.offload_modules().begin(), c.offload_modules().end());
  if (c.has_tp_comm_overlap()) r.tp_comm_overlap = c.tp_comm_overlap();
  if (c.has_overlap_grad_reduce()) r.overlap_grad_reduce = c.overlap_grad_reduce();
  if (c.has_overlap_moe_expert_parallel_comm())
    r.overlap_moe_expert_parallel_comm = c.overlap_moe_expert_parallel_comm();
  r.cuda_graph_impl = c.cuda_graph_impl();
  r.cuda_graph_modules.assign(c.cuda_graph_modules().begin(), c.cuda_graph_modules().end());
  r.attention_backend = c.attention_backend();
  r.moe_token_dispatcher_type = c.moe_token_dispatcher_type();
  r.moe_flex_dispatcher_backend = c.moe_flex_dispatcher_backend();
  if (c.has_moe_permute_fusion()) r.moe_permute_fusion = c.moe_permute_fusion();
  if (c.has_apply_rope_fusion()) r.apply_rope_fusion = c.apply_rope_fusion();
  if (c.has_moe_router_force_load_balancing()) r.moe_router_force_load_balancing = c.moe_router_force_load_balancing();
  if (c.has_use_transformer_engine_op_fuser()) r.use_transformer_engine_op_fuser = c.use_transformer_engine_op_fuser();
  if (c.has_fine_grained_offloading_max_inflight_offloads()) {
    r.fine_grained_offloading_max_inflight_offloads = c.fine_grained_offloading_max_inflight_offloads();
  }
  r.cp_comm_type = c.cp_comm_type();
  r.hierarchical_context_parallel_sizes.assign(c.hierarchical_context_parallel_sizes().begin(),
                                               c.hierarchical_context_parallel_sizes().end());
  if (c.has_optimizer_cpu_offload()) r.optimizer_cpu_offload = c.optimizer_cpu_offload();
  if (c.has_optimizer_offload_fraction()) r.optimizer_offload_fraction = c.optimizer_offload_fraction();
  if (c.has_fp8_param_gather()) r.fp8_param_gather = c.fp8_param_gather();
  if (c.has_expandable_segments()) r.expandable_segments = c.expandable_segments();
  r.bridge_version = c.bridge_version();
  r.front_end = c.front_end();
  return r;
}

namespace {

// One figure under its two spellings (SystemSpec's, and SystemInfo's as
// GetSystem prints it, times `scale`): the value given, if any.
struct Spelling {
  const char* name;
  bool has;
  double value;
  const char* printed;
  bool has_printed;
  double printed_value;
  double scale;             // canonical = printed * scale
  bool printed_zero_unset;  // a printed 0 means "unknown"
};

std::vector<Spelling> Spellings(const v1::SystemSpec& f) {
  return {
      {"hbm_gib", f.has_hbm_gib(), f.hbm_gib(), "hbm_gb", f.has_hbm_gb(), f.hbm_gb(), 1, false},
      {"hbm_tbps", f.has_hbm_tbps(), f.hbm_tbps(), "hbm_bw_tbps", f.has_hbm_bw_tbps(), f.hbm_bw_tbps(), 1, false},
      {"bf16_tflops", f.has_bf16_tflops(), f.bf16_tflops(), "bf16_dense_tflops", f.has_bf16_dense_tflops(),
       f.bf16_dense_tflops(), 1, false},
      {"fp8_tflops", f.has_fp8_tflops(), f.fp8_tflops(), "fp8_dense_tflops", f.has_fp8_dense_tflops(),
       f.fp8_dense_tflops(), 1, false},
      {"fp4_tflops", f.has_fp4_tflops(), f.fp4_tflops(), "fp4_dense_tflops", f.has_fp4_dense_tflops(),
       f.fp4_dense_tflops(), 1, false},
      {"nvlink_gbps", f.has_nvlink_gbps(), f.nvlink_gbps(), "nvlink_gbps_unidirectional",
       f.has_nvlink_gbps_unidirectional(), f.nvlink_gbps_unidirectional(), 2, false},
      {"scaleout_gbps", f.has_scaleout_gbps(), f.scaleout_gbps(), "scaleout_gbps_per_gpu",
       f.has_scaleout_gbps_per_gpu(), f.scaleout_gbps_per_gpu(), 1, true},
      {"pcie_gbps", f.has_pcie_gbps(), f.pcie_gbps(), "pcie_gbps_unidirectional", f.has_pcie_gbps_unidirectional(),
       f.pcie_gbps_unidirectional(), 1, true},
  };
}

// The figure a spelling pair gives, if any (canonical spelling first).
std::optional<double> FigureOf(const Spelling& s) {
  if (s.has) return s.value;
  if (s.has_printed && !(s.printed_zero_unset && s.printed_value == 0)) return s.printed_value * s.scale;
  return std::nullopt;
}

}  // namespace

absl::Status CheckSystemSpecSpellings(const v1::SystemSpec& f, const std::string& prefix) {
  FieldErrors errors;
  for (const Spelling& s : Spellings(f)) {
    if (!s.has || !s.has_printed || (s.printed_zero_unset && s.printed_value == 0)) continue;
    const double printed = s.printed_value * s.scale;
    if (std::fabs(printed - s.value) > 1e-9 * std::max(1.0, std::fabs(s.value))) {
      errors.Add(absl::StrCat(prefix, ".", s.printed),
                 absl::StrCat(s.printed, " = ", s.printed_value, " means ", s.name, " = ", printed, ", but ", s.name,
                              " = ", s.value, " is given too; give one spelling"));
    }
  }
  return errors.ToStatus();
}

void CanonicalizeSystemSpec(v1::SystemSpec* spec) {
  const SystemFigures f = ToSystemFigures(*spec);
  spec->clear_hbm_gb();
  spec->clear_hbm_bw_tbps();
  spec->clear_bf16_dense_tflops();
  spec->clear_fp8_dense_tflops();
  spec->clear_fp4_dense_tflops();
  spec->clear_nvlink_gbps_unidirectional();
  spec->clear_scaleout_gbps_per_gpu();
  spec->clear_pcie_gbps_unidirectional();
  if (f.hbm_gib) spec->set_hbm_gib(*f.hbm_gib);
  if (f.hbm_tbps) spec->set_hbm_tbps(*f.hbm_tbps);
  if (f.bf16_tflops) spec->set_bf16_tflops(*f.bf16_tflops);
  if (f.fp8_tflops) spec->set_fp8_tflops(*f.fp8_tflops);
  if (f.fp4_tflops) spec->set_fp4_tflops(*f.fp4_tflops);
  if (f.nvlink_gbps) spec->set_nvlink_gbps(*f.nvlink_gbps);
  if (f.scaleout_gbps) spec->set_scaleout_gbps(*f.scaleout_gbps);
  if (f.pcie_gbps) spec->set_pcie_gbps(*f.pcie_gbps);
}

SystemFigures ToSystemFigures(const v1::SystemSpec& f) {
  SystemFigures r;
  r.name = f.name();
  r.gpu_arch = f.gpu_arch();
  const std::vector<Spelling> spellings = Spellings(f);
  r.hbm_gib = FigureOf(spellings[0]);
  r.hbm_tbps = FigureOf(spellings[1]);
  r.bf16_tflops = FigureOf(spellings[2]);
  r.fp8_tflops = FigureOf(spellings[3]);
  r.fp4_tflops = FigureOf(spellings[4]);
  r.nvlink_gbps = FigureOf(spellings[5]);
  r.scaleout_gbps = FigureOf(spellings[6]);
  r.pcie_gbps = FigureOf(spellings[7]);
  if (f.has_nvlink_domain_size()) r.nvlink_domain_size = f.nvlink_domain_size();
  if (f.has_gpus_per_node()) r.gpus_per_node = f.gpus_per_node();
  if (f.has_nics_per_node()) r.nics_per_node = f.nics_per_node();
  if (f.has_nic_gbps()) r.nic_gbps = f.nic_gbps();
  return r;
}

Placement ToPlacement(const v1::Placement& p) {
  Placement r;
  r.system = p.system();
  r.gpus = p.gpus();
  r.gpus_per_node = p.gpus_per_node();
  r.gpus_per_nvlink_domain = p.gpus_per_nvlink_domain();
  r.system_figures = ToSystemFigures(p.system_spec());
  return r;
}

void ToViolation(const Violation& v, v1::Violation* out) {
  out->set_rule(v.rule);
  out->set_severity(SeverityName(v.severity));
  for (const auto& f : v.fields) out->add_fields(f);
  out->set_message(v.message);
  out->set_fix(v.fix);
  if (const RuleInfo* rule = FindRule(v.rule)) out->set_source(rule->source);
}

void ToViolations(const std::vector<Violation>& violations, google::protobuf::RepeatedPtrField<v1::Violation>* out) {
  for (const auto& v : violations) ToViolation(v, out->Add());
}

void ToWorldSizing(const WorldSizing& w, v1::WorldSizing* out) {
  out->set_gpus(w.gpus);
  out->set_valid(w.valid);
  out->set_dp(w.dp);
  out->set_edp(w.edp);
  out->set_gpus_per_node(static_cast<int32_t>(w.gpus_per_node));
  out->set_nodes(w.nodes);
  out->set_partial_node(w.partial_node);
  out->set_microbatches(w.microbatches);
  for (const auto& p : w.problems) out->add_problems(p);
}

void ToResolvedConfig(const ResolvedConfig& c, v1::ParallelConfig* out) {
  out->set_tp(static_cast<int32_t>(c.tp));
  out->set_pp(static_cast<int32_t>(c.pp));
  out->set_vpp(static_cast<int32_t>(c.vpp));
  out->set_cp(static_cast<int32_t>(c.cp));
  out->set_ep(static_cast<int32_t>(c.ep));
  // ETP where experts are split or it was given: a defaulted ETP = TP of a
  // dense config stays unset, so the config asked back resolves the same
  // (and a dense model is not handed an expert dimension).
  if (c.ep > 1 || !c.etp_defaulted) out->set_etp(static_cast<int32_t>(c.etp));
  out->set_sp(c.sp);
  out->set_mbs(static_cast<int32_t>(c.mbs));
  out->set_gbs(c.gbs);
  out->set_seq_length(static_cast<int32_t>(c.seq_length));
  out->set_num_layers_in_first_pipeline_stage(static_cast<int32_t>(c.first_stage_layers));
  out->set_num_layers_in_last_pipeline_stage(static_cast<int32_t>(c.last_stage_layers));
  out->set_account_for_embedding_in_pipeline_split(c.account_for_embedding);
  out->set_account_for_loss_in_pipeline_split(c.account_for_loss);
  out->set_pipeline_layout(c.pipeline_layout);
  out->set_precision(PrecisionName(c.precision));
  out->set_mtp_num_layers(static_cast<int32_t>(c.mtp_num_layers));
  out->set_recompute_granularity(RecomputeName(c.recompute));
  for (const auto& m : c.recompute_modules) out->add_recompute_modules(m);
  if (c.recompute == RecomputeGranularity::kFull) {
    out->set_recompute_method(RecomputeMethodName(c.recompute_method));
    out->set_recompute_num_layers(static_cast<int32_t>(c.recompute_num_layers));
  }
  out->set_use_distributed_optimizer(c.distributed_optimizer);
  out->set_use_megatron_fsdp(c.fsdp);
  out->set_grad_reduce_in_fp32(c.grad_fp32);
  out->set_optimizer_state_dtype(c.optimizer_bf16 ? "bf16" : "fp32");
  out->set_peft(c.lora ? "lora" : "none");
  out->set_cpu_offloading_num_layers(static_cast<int32_t>(c.cpu_offloading_num_layers));
  for (const auto& m : c.offload_modules) out->add_offload_modules(m);
  out->set_tp_comm_overlap(c.tp_comm_overlap);
  out->set_overlap_grad_reduce(c.overlap_grad_reduce);
  out->set_overlap_moe_expert_parallel_comm(c.overlap_moe_expert_parallel_comm);
  out->set_cuda_graph_impl(c.cuda_graph_impl);
  for (const auto& m : c.cuda_graph_modules) out->add_cuda_graph_modules(m);
  out->set_attention_backend(c.attention_backend);
  // RoPE fusion where given: its default follows the model and the front end
  // (BridgeFusesRope), and the resolved settings list it for MLA models; a
  // default echoed here would come back as given and render differently.
  if (c.given != nullptr && c.given->apply_rope_fusion.has_value()) out->set_apply_rope_fusion(c.apply_rope_fusion);
  // Token dispatch only where experts are split (or the caller chose it).
  if (c.ep > 1 || c.dispatch_fields_given) {
    out->set_moe_token_dispatcher_type(c.moe_token_dispatcher_type);
    if (c.moe_token_dispatcher_type == "flex" || c.flex_backend_given) {
      out->set_moe_flex_dispatcher_backend(c.moe_flex_dispatcher_backend);
    }
    out->set_moe_permute_fusion(c.moe_permute_fusion);
    out->set_moe_router_force_load_balancing(c.moe_router_force_load_balancing);
  }
  // The op fuser and the offload cap where given (or on).
  if (c.op_fuser_given || c.use_transformer_engine_op_fuser) {
    out->set_use_transformer_engine_op_fuser(c.use_transformer_engine_op_fuser);
  }
  if (c.fine_grained_offloading_max_inflight_offloads.has_value()) {
    out->set_fine_grained_offloading_max_inflight_offloads(
        static_cast<int32_t>(*c.fine_grained_offloading_max_inflight_offloads));
  }
  // The CP communication type wherever CP splits the sequence (or it was
  // given), the hierarchical split where given.
  if (c.cp > 1 || c.cp_comm_type_given) out->set_cp_comm_type(c.cp_comm_type);
  for (const int64_t size : c.hierarchical_cp_sizes) {
    out->add_hierarchical_context_parallel_sizes(static_cast<int32_t>(size));
  }
  // Optimizer offload where on or given; its fraction where it applies or
  // was given.
  if (c.optimizer_cpu_offload || c.offload_fraction_given) {
    out->set_optimizer_cpu_offload(c.optimizer_cpu_offload);
    out->set_optimizer_offload_fraction(c.optimizer_offload_fraction);
  }
  if (IsFp8(c.precision) || (c.given != nullptr && c.given->fp8_param_gather.has_value())) {
    out->set_fp8_param_gather(c.fp8_param_gather);
  }
  if (c.expandable_segments_given || !c.expandable_segments) out->set_expandable_segments(c.expandable_segments);
  out->set_front_end(FrontEndName(c.front_end));
  if (c.front_end == FrontEnd::kBridge) out->set_bridge_version(BridgeVersionName(c.bridge_version));
}

void ToResolvedSettings(const std::vector<ResolvedSetting>& settings,
                        google::protobuf::RepeatedPtrField<v1::ResolvedSetting>* out) {
  for (const auto& s : settings) {
    v1::ResolvedSetting* r = out->Add();
    r->set_field(s.field);
    r->set_value(s.value);
    r->set_source(SettingSourceName(s.source));
    r->set_effect(EffectClassName(s.effect));
    r->set_why(s.why);
  }
}

void ToStageLayers(const StagePlan& plan, google::protobuf::RepeatedPtrField<v1::StageLayers>* out) {
  for (int64_t r = 0; r < plan.pp; ++r) {
    v1::StageLayers* s = out->Add();
    s->set_pp_rank(static_cast<int32_t>(r));
    for (int64_t layers : plan.decoder_layers[r]) s->add_decoder_layers(static_cast<int32_t>(layers));
    s->set_has_embedding(plan.has_embedding[r]);
    s->set_has_loss(plan.has_loss[r]);
    s->set_mtp_layers(static_cast<int32_t>(plan.mtp_layers[r]));
  }
}

void ToSplitRepair(const SplitRepair& repair, v1::SplitRepair* out) {
  out->set_change(repair.change);
  out->set_cli_flags(repair.cli_flags);
  ToResolvedConfig(repair.config, out->mutable_config());
  out->mutable_config()->set_vpp(static_cast<int32_t>(repair.plan.vpp));
  ToStageLayers(repair.plan, out->mutable_stages());
}

namespace {
int64_t Bytes(double b) { return static_cast<int64_t>(std::llround(b)); }
}  // namespace

void ToStageMemory(const StageMemory& st, v1::StageMemory* out) {
  out->set_pp_rank(static_cast<int32_t>(st.pp_rank));
  for (int64_t layers : st.decoder_layers) out->add_decoder_layers(static_cast<int32_t>(layers));
  out->set_dense_params(Bytes(st.dense_params));
  out->set_expert_params(Bytes(st.expert_params));
  out->set_params(Bytes(st.dense_params + st.expert_params));
  out->set_weight_bytes(Bytes(st.weight_bytes));
  out->set_low_precision_weight_bytes(Bytes(st.low_precision_weight_bytes));
  out->set_grad_bytes(Bytes(st.grad_bytes));
  out->set_optimizer_dense_bytes(Bytes(st.optimizer_dense_bytes));
  out->set_optimizer_expert_bytes(Bytes(st.optimizer_expert_bytes));
  out->set_activation_bytes(Bytes(st.activation_bytes));
  out->set_in_flight_microbatches(std::round(st.in_flight_microbatches * 1000) / 1000);
  out->set_recompute_working_bytes(Bytes(st.recompute_working_bytes));
  out->set_logits_bytes(Bytes(st.logits_bytes));
  out->set_embedding_bytes(Bytes(st.embedding_bytes));
  out->set_fsdp_working_bytes(Bytes(st.fsdp_working_bytes));
  out->set_dispatcher_buffer_bytes(Bytes(st.dispatcher_buffer_bytes));
  out->set_cuda_graph_bytes(Bytes(st.cuda_graph_bytes));
  out->set_attention_working_bytes(Bytes(st.attention_working_bytes));
  out->set_overhead_bytes(Bytes(st.overhead_bytes));
  out->set_fragmentation_bytes(Bytes(st.fragmentation_bytes));
  out->set_total_bytes(Bytes(st.total_bytes));
  for (const auto& ch : st.chunks) {
    v1::ChunkMemory* c = out->add_chunks();
    c->set_vpp_chunk(static_cast<int32_t>(ch.vpp_chunk));
    c->set_decoder_layers(static_cast<int32_t>(ch.decoder_layers));
    c->set_activation_bytes_per_microbatch(Bytes(ch.activation_bytes_per_microbatch));
    c->set_in_flight_microbatches(static_cast<int32_t>(ch.in_flight));
    c->set_activation_bytes(Bytes(ch.activation_bytes_per_microbatch * ch.in_flight));
  }
}

void ToMemorySuggestion(const MemoryFix& s, v1::MemorySuggestion* out) {
  out->set_change(s.change);
  ToResolvedConfig(s.config, out->mutable_config());
  out->set_peak_bytes(Bytes(s.peak_bytes));
  out->set_peak_gib(std::round(s.peak_bytes / kGiB * 100) / 100);
  out->set_fits(s.fits);
  out->set_note(s.note);
  if (s.step_time_s > 0) {
    out->set_step_time_s(s.step_time_s);
    out->set_step_time_delta_s(s.step_time_delta_s);
    out->set_step_time_delta_pct(s.step_time_delta_pct);
  }
  out->set_levers(s.levers);
}

void ToLayerComputeTime(const LayerCompute& l, v1::LayerComputeTime* out) {
  out->set_layer(l.layer);
  out->set_count(l.count);
  out->set_forward_s(l.forward_s);
  out->set_backward_s(l.backward_s);
  out->set_host_s(l.host_s);
  out->set_gemm_s(l.gemm_s);
  out->set_attention_s(l.attention_s);
  out->set_moe_s(l.moe_s);
  out->set_elementwise_s(l.elementwise_s);
}

void ToPerformanceBreakdown(const PerfBreakdown& b, v1::PerformanceBreakdown* out) {
  out->set_compute_s(b.compute_s);
  out->set_gemm_s(b.gemm_s);
  out->set_attention_s(b.attention_s);
  out->set_moe_s(b.moe_s);
  out->set_elementwise_s(b.elementwise_s);
  out->set_recompute_s(b.recompute_s);
  out->set_logits_s(b.logits_s);
  out->set_overhead_s(b.overhead_s);
  out->set_tp_comm_s(b.tp_comm_s);
  out->set_cp_comm_s(b.cp_comm_s);
  out->set_ep_comm_s(b.ep_comm_s);
  out->set_dp_comm_s(b.dp_comm_s);
  out->set_pp_comm_s(b.pp_comm_s);
  out->set_fsdp_comm_s(b.fsdp_comm_s);
  out->set_bubble_s(b.bubble_s);
  out->set_optimizer_s(b.optimizer_s);
}

}  // namespace parplan
