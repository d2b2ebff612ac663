#include "core/config/resolved_settings.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/config/nemo_containers.h"
#include "core/system/racks.h"
#include "core/util/text.h"

namespace parplan {
namespace {

std::string OnOff(bool b) { return b ? "true" : "false"; }

// Collects settings; `given` says whether the caller set the field.
class SettingList {
 public:
  explicit SettingList(std::vector<ResolvedSetting>* out) : out_(out) {}

  void Add(const std::string& field, std::string value, bool given, SettingSource source, std::string why) {
    ResolvedSetting s;
    s.field = field;
    s.value = std::move(value);
    s.source = given ? SettingSource::kUser : source;
    s.effect = EffectOf(field);
    s.why = given ? "given" : std::move(why);
    out_->push_back(std::move(s));
  }

 private:
  std::vector<ResolvedSetting>* out_;
};

std::string Bridge(const ResolvedConfig& c) {
  return absl::StrCat("Megatron Bridge ", BridgeVersionName(c.bridge_version));
}

}  // namespace

std::string SettingSourceName(SettingSource s) {
  switch (s) {
    case SettingSource::kUser:
      return "user";
    case SettingSource::kBridgeDefault:
      return "bridge_default";
    case SettingSource::kMegatronCoreDefault:
      return "megatron_core_default";
    case SettingSource::kMegatronLmDefault:
      return "megatron_lm_default";
    case SettingSource::kModel:
      return "model";
    case SettingSource::kSystem:
      return "system";
    case SettingSource::kParplan:
      return "parplan";
  }
  return "parplan";
}

std::string EffectClassName(EffectClass e) {
  switch (e) {
    case EffectClass::kExecution:
      return "execution";
    case EffectClass::kNumerics:
      return "numerics";
    case EffectClass::kSemantics:
      return "semantics";
    case EffectClass::kBenchmark:
      return "benchmark";
  }
  return "execution";
}

std::string EffectWarning(EffectClass e) {
  switch (e) {
    case EffectClass::kExecution:
      return "";
    case EffectClass::kNumerics:
      return "numerics: changes rounding (same model and data), so losses differ slightly";
    case EffectClass::kSemantics:
      return "training semantics: changes what is trained (batch, data, objective)";
    case EffectClass::kBenchmark:
      return "benchmark only: changes what training does; never for a real run";
  }
  return "";
}

EffectClass EffectOf(std::string_view field) {
  static const auto* numerics =
      new std::vector<std::string>{"precision", "fp8_param_gather", "grad_reduce_in_fp32", "optimizer_state_dtype"};
  static const auto* semantics = new std::vector<std::string>{"gbs", "seq_length", "mtp_num_layers", "peft"};
  for (const auto& f : *numerics) {
    if (field == f) return EffectClass::kNumerics;
  }
  for (const auto& f : *semantics) {
    if (field == f) return EffectClass::kSemantics;
  }
  if (field == "moe_router_force_load_balancing") return EffectClass::kBenchmark;
  return EffectClass::kExecution;
}

std::vector<ResolvedSetting> ListResolvedSettings(const ResolvedConfig& c, const ResolvedPlacement& placement,
                                                  const ModelSpec* model, int64_t dp, int64_t edp,
                                                  SettingsScope scope) {
  static const ParallelConfig kNothingGiven;
  const ParallelConfig& g = c.given != nullptr ? *c.given : kNothingGiven;
  const bool bridge = c.front_end == FrontEnd::kBridge;
  const bool search = scope == SettingsScope::kSearch;
  const bool moe = (model != nullptr && model->is_moe()) || c.ep > 1;
  const SettingSource fe_default = bridge ? SettingSource::kBridgeDefault : SettingSource::kMegatronLmDefault;
  std::vector<ResolvedSetting> out;
  SettingList s(&out);

  s.Add("front_end", FrontEndName(c.front_end), !g.front_end.empty(), SettingSource::kParplan,
        "Megatron Bridge, the front end NVIDIA's recipes run");
  if (bridge) {
    const NemoContainer* image = ContainerOf(c);
    s.Add("bridge_version",
          image == nullptr ? BridgeVersionName(c.bridge_version)
                           : absl::StrCat(BridgeVersionName(c.bridge_version), " (NeMo ", image->tag, " container)"),
          !g.bridge_version.empty(), SettingSource::kParplan, "the newest Megatron Bridge release parplan knows");
  }
  // The mesh. Under a search the sizes not pinned are the search's choice.
  auto dim = [&](const char* field, int64_t value, int64_t given_value) {
    const bool given = given_value > 0;
    if (search) {
      s.Add(field, absl::StrCat(value), given, SettingSource::kParplan, "chosen by the search");
    } else {
      s.Add(field, absl::StrCat(value), given, SettingSource::kMegatronCoreDefault, "not given: 1");
    }
  };
  dim("tp", c.tp, g.tp);
  dim("pp", c.pp, g.pp);
  if (c.pp > 1) {
    const bool layout_sets = !c.pipeline_layout.empty() || (model != nullptr && model->is_hybrid());
    const std::string why = layout_sets ? "set by the pipeline layout (Megatron derives VPP from it)"
                                        : (search ? "chosen by the search" : "not given: none");
    s.Add("vpp", c.vpp > 1 ? absl::StrCat(c.vpp) : "none", g.vpp > 0,
          layout_sets || search ? SettingSource::kParplan : SettingSource::kMegatronCoreDefault, why);
  }
  dim("cp", c.cp, g.cp);
  if (moe) {
    dim("ep", c.ep, g.ep);
    std::string etp_why;
    SettingSource etp_source = SettingSource::kMegatronCoreDefault;
    if (c.ep > 1 && bridge && BridgeSetsEtpToOne(c.bridge_version)) {
      etp_source = SettingSource::kBridgeDefault;
      etp_why = absl::StrCat(Bridge(c),
                             " sets 1 when EP > 1 (models/transformer_config.py "
                             "_set_moe_expert_tensor_parallel_default; up to 0.5.x and in Megatron-LM "
                             "ETP = TP)");
    } else if (c.ep > 1 && bridge) {
      etp_why = absl::StrCat("= TP: Megatron-Core's default, which ", Bridge(c),
                             " keeps (Bridge sets 1 when EP > 1 from 0.6.0)");
    } else {
      etp_source = bridge ? SettingSource::kMegatronCoreDefault : SettingSource::kMegatronLmDefault;
      etp_why = "= TP (Megatron-Core's default, model_parallel_config.py)";
    }
    if (search && !g.etp.has_value()) {
      etp_source = SettingSource::kParplan;
      etp_why = "chosen by the search";
    }
    s.Add("etp", absl::StrCat(c.etp), g.etp.has_value(), etp_source, etp_why);
  }
  if (dp > 0) s.Add("dp", absl::StrCat(dp), false, SettingSource::kParplan, "world / (TP x PP x CP)");
  if (moe && edp > 0) s.Add("edp", absl::StrCat(edp), false, SettingSource::kParplan, "world / (PP x EP x ETP)");
  if (c.tp > 1 || g.sp.has_value()) {
    s.Add("sp", OnOff(c.sp), g.sp.has_value(), fe_default,
          bridge ? "on with TP > 1, as Megatron Bridge's recipes set it (the provider's own default is off)"
                 : "off: Megatron-LM's --sequence-parallel is not set");
  }
  if (c.cp > 1) {
    s.Add("cp_comm_type", c.cp_comm_type, c.cp_comm_type_given,
          search ? SettingSource::kParplan : SettingSource::kMegatronCoreDefault,
          search ? "chosen by the search (Megatron's default p2p unless another type saves >= 5%)"
                 : "Megatron-Core's default p2p (model_parallel_config.py)");
    if (!c.hierarchical_cp_sizes.empty()) {
      s.Add("hierarchical_context_parallel_sizes", absl::StrJoin(c.hierarchical_cp_sizes, ","),
            !g.hierarchical_context_parallel_sizes.empty(), SettingSource::kParplan, "chosen by the search");
    }
  }
  // Batch and sequence.
  s.Add("mbs", absl::StrCat(c.mbs), g.mbs > 0, search ? SettingSource::kParplan : SettingSource::kMegatronCoreDefault,
        search ? "chosen by the search" : "not given: 1");
  if (c.gbs > 0) {
    std::string why = c.gbs_note;
    constexpr std::string_view kPrefix = "gbs not given: ";
    if (why.rfind(kPrefix, 0) == 0) why = absl::StrCat("not given: ", why.substr(kPrefix.size()));
    if (why.empty()) {
      why = c.seq_length > 0 ? absl::StrCat("not given: the multiple of MBS x DP nearest 4M tokens (",
                                            WithCommas(c.gbs * c.seq_length), " tokens per step), at most 16M")
                             : "not given";
    }
    s.Add("gbs", absl::StrCat(c.gbs), g.gbs > 0, SettingSource::kParplan, why);
  }
  if (c.seq_length > 0) {
    s.Add("seq_length", absl::StrCat(c.seq_length), g.seq_length > 0, SettingSource::kModel,
          model != nullptr && model->pretrain_seq_length > 0
              ? "the model's published pretraining length"
              : "the model's context, capped at 8,192 (no pretraining recipe known)");
  }
  if (c.mtp_num_layers > 0 || g.mtp_num_layers.has_value()) {
    s.Add("mtp_num_layers", absl::StrCat(c.mtp_num_layers), g.mtp_num_layers.has_value(), SettingSource::kModel,
          "the model's");
  }
  // Numerics.
  s.Add("precision", PrecisionName(c.precision), !g.precision.empty(), SettingSource::kBridgeDefault,
        "bf16_mixed, Megatron Bridge's default mixed precision");
  if (IsFp8(c.precision) || g.fp8_param_gather.has_value()) {
    s.Add("fp8_param_gather", OnOff(c.fp8_param_gather), g.fp8_param_gather.has_value(), fe_default,
          bridge ? absl::StrCat("from Bridge's ", BridgeMixedPrecisionRecipe(c.precision),
                                " preset (training/mixed_precision.py: on for delayed, current and MXFP8 scaling, "
                                "off for blockwise)")
                 : "off: Megatron-LM's --fp8-param-gather is not set");
  }
  s.Add("grad_reduce_in_fp32", OnOff(c.grad_fp32), g.grad_reduce_in_fp32.has_value(), fe_default,
        bridge ? "Bridge's bf16_mixed sets it (its perf recipes set false)"
               : "Megatron-LM's --accumulate-allreduce-grads-in-fp32 is not set");
  s.Add("optimizer_state_dtype", c.optimizer_bf16 ? "bf16" : "fp32", !g.optimizer_state_dtype.empty(),
        SettingSource::kMegatronCoreDefault, "fp32 Adam moments");
  if (c.lora || !g.peft.empty()) s.Add("peft", c.lora ? "lora" : "none", !g.peft.empty(), SettingSource::kParplan, "");
  // Recompute.
  const bool recompute_given = !g.recompute_granularity.empty();
  s.Add("recompute_granularity", RecomputeName(c.recompute), recompute_given,
        search ? SettingSource::kParplan : SettingSource::kMegatronCoreDefault,
        search ? "chosen by the search" : "not given: none");
  if (c.recompute == RecomputeGranularity::kSelective) {
    s.Add("recompute_modules", absl::StrJoin(c.recompute_modules, ","), !g.recompute_modules.empty(),
          search ? SettingSource::kParplan : SettingSource::kMegatronCoreDefault,
          search ? "chosen by the search" : "Megatron-Core's default [core_attn]");
  }
  if (c.recompute == RecomputeGranularity::kFull) {
    const std::string why = "Megatron-Core needs it with full recompute; NVIDIA's recipes' uniform / 1";
    s.Add("recompute_method", RecomputeMethodName(c.recompute_method), c.recompute_method_given,
          SettingSource::kParplan, why);
    s.Add("recompute_num_layers", absl::StrCat(c.recompute_num_layers), c.recompute_num_layers_given,
          SettingSource::kParplan, why);
  }
  // Optimizer and its placement.
  s.Add("use_distributed_optimizer", OnOff(c.distributed_optimizer), g.use_distributed_optimizer.has_value(),
        fe_default,
        bridge ? "Megatron Bridge's recipes (Megatron-Core's OptimizerConfig default is false)"
               : "Megatron-LM's --use-distributed-optimizer is not set");
  if (c.fsdp) s.Add("use_megatron_fsdp", "true", true, SettingSource::kUser, "");
  if (c.optimizer_cpu_offload || g.optimizer_cpu_offload.has_value()) {
    s.Add("optimizer_cpu_offload", OnOff(c.optimizer_cpu_offload), g.optimizer_cpu_offload.has_value(),
          SettingSource::kParplan, search ? "chosen by the search: nothing fits without it" : "");
    if (c.optimizer_cpu_offload) {
      s.Add("optimizer_offload_fraction", absl::StrCat(c.optimizer_offload_fraction), c.offload_fraction_given,
            bridge ? SettingSource::kMegatronCoreDefault : SettingSource::kMegatronLmDefault,
            bridge ? "Megatron-Core's 0.0 (optimizer_config.py:350)" : "Megatron-LM's 1.0 (arguments.py:2922)");
    }
  }
  if (c.expandable_segments_given || !c.expandable_segments) {
    s.Add("expandable_segments", OnOff(c.expandable_segments), c.expandable_segments_given, SettingSource::kParplan,
          "PyTorch's allocator (PYTORCH_CUDA_ALLOC_CONF); on in Megatron Bridge's recipes' env_vars");
  }
  if (c.cpu_offloading_num_layers > 0) {
    s.Add("cpu_offloading_num_layers", absl::StrCat(c.cpu_offloading_num_layers), true, SettingSource::kUser, "");
  }
  if (!c.offload_modules.empty()) {
    s.Add("offload_modules", absl::StrJoin(c.offload_modules, ","), true, SettingSource::kUser, "");
  }
  // Overlap.
  s.Add("overlap_grad_reduce", OnOff(c.overlap_grad_reduce), g.overlap_grad_reduce.has_value(), fe_default,
        bridge ? "Megatron Bridge's default" : "Megatron-LM's --overlap-grad-reduce is not set");
  if (c.tp > 1) {
    s.Add("tp_comm_overlap", OnOff(c.tp_comm_overlap), g.tp_comm_overlap.has_value(), SettingSource::kBridgeDefault,
          "Bridge's CommOverlapConfig: off unless asked");
  }
  // Kernels.
  s.Add("attention_backend", c.attention_backend, !g.attention_backend.empty(), SettingSource::kMegatronCoreDefault,
        "auto: Transformer Engine picks the fused kernel");
  s.Add("cuda_graph_impl", c.cuda_graph_impl, !g.cuda_graph_impl.empty(), SettingSource::kMegatronCoreDefault, "none");
  if ((model != nullptr && model->multi_latent_attention) || g.apply_rope_fusion.has_value()) {
    s.Add("apply_rope_fusion", OnOff(c.apply_rope_fusion), g.apply_rope_fusion.has_value(), fe_default,
          bridge ? (BridgeFusesRope(model) ? "Megatron Bridge's model bridge keeps it (its perf recipes set True too)"
                                           : "Megatron Bridge's DeepSeek, Kimi and Moonlight bridges set False (its "
                                             "perf recipes set True)")
                 : "Megatron-LM's default (--no-rope-fusion clears it)");
  }
  if (!c.cuda_graph_modules.empty()) {
    s.Add("cuda_graph_modules", absl::StrJoin(c.cuda_graph_modules, ","), true, SettingSource::kUser, "");
  }
  // MoE dispatch.
  if (moe) {
    s.Add("moe_token_dispatcher_type", c.moe_token_dispatcher_type, !g.moe_token_dispatcher_type.empty(), fe_default,
          bridge ? "Megatron Bridge's model bridges set alltoall (Megatron-Core's default is allgather)"
                 : "Megatron-LM's default allgather");
    if (c.moe_token_dispatcher_type == "flex") {
      s.Add("moe_flex_dispatcher_backend", c.moe_flex_dispatcher_backend, !g.moe_flex_dispatcher_backend.empty(),
            SettingSource::kMegatronCoreDefault, "Megatron-Core's default deepep");
    }
    s.Add("moe_permute_fusion", OnOff(c.moe_permute_fusion), g.moe_permute_fusion.has_value(), fe_default,
          bridge ? "Megatron Bridge's model bridges (Megatron-Core's default is false)"
                 : "Megatron-LM's --moe-permute-fusion is not set");
    s.Add("overlap_moe_expert_parallel_comm", OnOff(c.overlap_moe_expert_parallel_comm),
          g.overlap_moe_expert_parallel_comm.has_value(), SettingSource::kBridgeDefault, "off unless asked");
    s.Add("moe_router_force_load_balancing", OnOff(c.moe_router_force_load_balancing),
          g.moe_router_force_load_balancing.has_value(), SettingSource::kMegatronCoreDefault,
          "off: tokens routed as the router decides");
  }
  // Placement.
  if (placement.gpus > 0) {
    s.Add("placement.gpus", absl::StrCat(placement.gpus), placement.gpus_given, SettingSource::kParplan,
          "not given: the smallest valid world");
  }
  if (placement.gpus_per_node > 0) {
    s.Add("placement.gpus_per_node", absl::StrCat(placement.gpus_per_node), false, SettingSource::kSystem,
          placement.system.has_value() ? absl::StrCat("the system's (", placement.system->id, ")") : "given");
  }
  if (placement.gpus_per_nvlink_domain > 0 && placement.nvlink_domain_size > placement.gpus_per_node) {
    s.Add("placement.gpus_per_nvlink_domain", absl::StrCat(placement.gpus_per_nvlink_domain),
          placement.gpus_per_nvlink_domain_given,
          placement.domain_use_reason.empty() ? SettingSource::kSystem : SettingSource::kParplan,
          placement.domain_use_reason.empty()
              ? absl::StrCat("all ", placement.nvlink_domain_size, " GPUs of each NVLink domain")
              : absl::StrCat("the even split: ", placement.gpus, " GPUs over ",
                             (placement.gpus + placement.gpus_per_nvlink_domain - 1) / placement.gpus_per_nvlink_domain,
                             " domains of ", placement.gpus_per_nvlink_domain, " (of ", placement.nvlink_domain_size,
                             "), no more domains than filling them"));
  }
  return out;
}

std::vector<std::string> EffectWarnings(const std::vector<ResolvedSetting>& settings) {
  std::vector<std::string> out;
  for (const auto& s : settings) {
    const bool departs = (s.effect == EffectClass::kBenchmark && s.value == "true") ||
                         (s.effect == EffectClass::kNumerics && s.source == SettingSource::kUser) ||
                         (s.effect == EffectClass::kSemantics && s.source == SettingSource::kUser && s.field == "peft");
    if (!departs) continue;
    out.push_back(absl::StrCat(s.field, " = ", s.value, ": ", EffectWarning(s.effect)));
  }
  return out;
}

}  // namespace parplan
