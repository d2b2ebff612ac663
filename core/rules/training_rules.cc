// Rules on the training knobs around the mesh: activation recomputation,
// activation offloading (megatron/core/transformer/transformer_config.py,
// __post_init__).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/rules/rule_context.h"

namespace parplan {

void CheckTrainingRules(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  const ModelSpec* m = ctx.in.model;
  // transformer_config.py:1926 refuses recompute_num_layers with selective;
  // recompute_method with selective is refused by Megatron-LM
  // (arguments.py:1426) and ignored by Megatron Bridge.
  if (c.recompute == RecomputeGranularity::kSelective && c.recompute_num_layers_given) {
    ctx.Add("recompute.selective_with_num_layers", {"recompute_num_layers"},
            "recompute_num_layers is set with selective recompute; Megatron-Core requires it unset",
            "drop recompute_num_layers, or use full recompute");
  }
  if (c.recompute == RecomputeGranularity::kSelective && c.recompute_method_given) {
    ctx.Add("recompute.selective_with_method", {"recompute_method"},
            "recompute_method is set with selective recompute: Megatron-LM refuses it, Megatron Bridge ignores it",
            "drop recompute_method, or use full recompute");
  }
  // transformer_config.py:1978: gdn_norm_out needs gated-delta-net attention ('G' layers).
  if (c.Recomputes("gdn_norm_out") && (m == nullptr || m->hybrid_layer_pattern.find('G') == std::string::npos)) {
    ctx.Add("recompute.gdn_norm_out_needs_gdn", {"recompute_modules"},
            "gdn_norm_out recompute needs gated delta net attention (G layers in the hybrid pattern)",
            "remove gdn_norm_out from recompute_modules");
  }
  // transformer_config.py:2150: gdp_qkv offload with gdp_in_proj recompute.
  if (c.Offloads("gdp_qkv") && c.Recomputes("gdp_in_proj")) {
    ctx.Add("offload.gdp_qkv_with_recomputed_in_proj", {"offload_modules", "recompute_modules"},
            "gdp_qkv offload together with gdp_in_proj recompute leaves nothing for the offload to keep",
            "drop one of them");
  }
  if (c.recompute != RecomputeGranularity::kFull && c.recompute != RecomputeGranularity::kSelective &&
      (c.recompute_method_given || c.recompute_num_layers_given)) {
    ctx.Add("recompute.method_without_full", {"recompute_method", "recompute_num_layers"},
            "recompute_method / recompute_num_layers have no effect without recompute_granularity=full",
            "set recompute_granularity=full or drop them");
  }
  if (m != nullptr && c.Recomputes("mla_up_proj") && !m->multi_latent_attention) {
    ctx.Add("recompute.mla_up_proj_needs_mla", {"recompute_modules", "model.multi_latent_attention"},
            absl::StrCat("mla_up_proj recompute needs multi-latent attention; '", m->id, "' has none"),
            "remove mla_up_proj from recompute_modules");
  }
  // transformer_config.py:1964 raises for moe_act without moe_grouped_gemm,
  // which parplan does not take: Megatron Bridge's MoE model bridges set it
  // (e.g. deepseek_v3_bridge.py:65, qwen3_moe_bridge.py:63) and so does its
  // Nemotron-H bridge for every hybrid model (nemotron_h_bridge.py:315); dense
  // GPT models keep the default False (gpt_provider.py:188,
  // transformer_config.py:850), so there moe_act is refused.
  const bool grouped_gemm = m != nullptr && (m->is_moe() || m->is_hybrid());
  if (m != nullptr && !grouped_gemm && c.Recomputes("moe_act")) {
    ctx.Add("recompute.moe_act_needs_grouped_gemm", {"recompute_modules"},
            absl::StrCat("moe_act in recompute_modules on the dense model '", m->id,
                         "': Megatron-Core allows it only with moe_grouped_gemm, which dense models leave off"),
            "remove moe_act; recompute mlp or layernorm instead");
  }
  std::vector<std::string> moe_modules;
  for (const char* mod : {"moe", "moe_act", "shared_experts"}) {
    if (c.Recomputes(mod) && (grouped_gemm || std::string(mod) != "moe_act")) moe_modules.push_back(mod);
  }
  if (m != nullptr && !m->is_moe() && !moe_modules.empty()) {
    ctx.Add("recompute.moe_module_on_dense", {"recompute_modules"},
            absl::StrCat("MoE recompute modules (", absl::StrJoin(moe_modules, ", "), ") on the dense model '", m->id,
                         "' change nothing"),
            "use mlp (dense MLP) or layernorm instead");
  }
  if (c.Offloads("attn_proj") && !c.Offloads("core_attn")) {
    ctx.Add("offload.attn_proj_needs_core_attn", {"offload_modules"},
            "attn_proj cannot be offloaded without core_attn (its input is core attention's output)",
            "add core_attn to offload_modules");
  }
  if (!c.offload_modules.empty() && c.cpu_offloading_num_layers > 0) {
    ctx.Add("offload.both_kinds", {"offload_modules", "cpu_offloading_num_layers"},
            "fine-grained activation offloading cannot be combined with cpu_offloading",
            "use either offload_modules or cpu_offloading_num_layers");
  }
  // Megatron-LM asserts fp8_param_gather (which Bridge's FP8/FP4 recipes set
  // and the planner's weight bytes assume) only with the distributed
  // optimizer or an FSDP (megatron/training/arguments.py:1096).
  if (LowPrecisionParamGather(c) && !c.distributed_optimizer && !c.fsdp) {
    ctx.Add("precision.param_gather_needs_dist_opt", {"precision", "fp8_param_gather", "use_distributed_optimizer"},
            absl::StrCat(PrecisionName(c.precision), " with ",
                         IsFp4(c.precision) ? "fp4_param_gather (Bridge's NVFP4 preset)" : "fp8_param_gather = true",
                         ": parameters gathered in low precision need the distributed optimizer or Megatron FSDP"),
            IsFp4(c.precision) ? "turn use_distributed_optimizer on"
                               : "turn use_distributed_optimizer on, or set fp8_param_gather = false");
  }
  // megatron/core/optimizer/__init__.py:1058: the precision-aware optimizer
  // (bf16 moments) needs the distributed optimizer.
  if (c.optimizer_bf16 && !c.distributed_optimizer && !c.fsdp) {
    ctx.Add("optimizer.bf16_moments_need_dist_opt", {"optimizer_state_dtype", "use_distributed_optimizer"},
            "bf16 Adam moments (precision-aware optimizer) need the distributed optimizer",
            "keep use_distributed_optimizer on, or fp32 moments");
  }
  if (c.fsdp && c.pp > 1) {
    ctx.Add("fsdp.pp_unsupported", {"use_megatron_fsdp", "pp"},
            absl::StrCat("Megatron FSDP with PP=", c.pp,
                         ": its device mesh spans DP*CP*EP*TP only, so the world cannot include pipeline stages"),
            "use PP=1 with Megatron FSDP, or the distributed optimizer with PP");
  }
  if (c.fsdp && !c.distributed_optimizer) {
    ctx.Add("fsdp.forces_dist_opt", {"use_megatron_fsdp", "use_distributed_optimizer"},
            "Megatron FSDP turns the distributed optimizer on (Megatron-LM and Bridge force it)",
            "drop use_distributed_optimizer=false");
  }
  if (c.cpu_offloading_num_layers > 0 && c.pp > 1) {
    ctx.Add("offload.cpu_with_pp", {"cpu_offloading_num_layers", "pp"},
            absl::StrCat("cpu_offloading with PP=", c.pp,
                         ": Megatron-Core has no support for pipeline parallelism with CPU offloading"),
            "use PP=1 with cpu_offloading, or fine-grained offload_modules, or drop the offloading");
  }
  if (c.cpu_offloading_num_layers > 0 && c.recompute != RecomputeGranularity::kNone) {
    ctx.Add("offload.cpu_with_recompute", {"cpu_offloading_num_layers", "recompute_granularity"},
            absl::StrCat("cpu_offloading with ", RecomputeName(c.recompute),
                         " recompute: CPU offloading does not work when activation recomputation is enabled"),
            "use either cpu_offloading or activation recomputation");
  }
  if (m != nullptr && c.cpu_offloading_num_layers >= m->num_layers && m->num_layers > 0) {
    ctx.Add("offload.too_many_layers", {"cpu_offloading_num_layers"},
            absl::StrCat("cpu_offloading_num_layers = ", c.cpu_offloading_num_layers,
                         " must be below num_layers = ", m->num_layers),
            absl::StrCat("offload at most ", m->num_layers - 1, " layers"));
  }
}

}  // namespace parplan
