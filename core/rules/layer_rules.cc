// Rules from Megatron-Core's layer constructors and config checks on the
// modules a model is built of: MoE biases and shared experts, the Mamba mixer
// and its context parallelism, hybrid patterns, MTP under full recompute, and
// recompute / offload combinations. Each cites the file and line at
// Megatron-LM d98e8a64dd (core/rules/MEGATRON_CHECKS.md lists every check).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/model/attention_scores.h"
#include "core/rules/rule_context.h"

namespace parplan {
namespace {

// Megatron's defaults for unset widths, and what it says about them.
void CheckDefaultedWidths(const RuleContext& ctx, const ModelSpec& m) {
  // megatron/training/arguments.py:1332: kv_channels = hidden / heads needs an exact split.
  if (m.kv_channels_defaulted && m.num_attention_heads > 0 && m.hidden_size % m.num_attention_heads != 0) {
    ctx.Add("model.kv_channels_divisible", {"model.kv_channels", "model.hidden_size", "model.num_attention_heads"},
            absl::StrCat("kv_channels not given and hidden_size ", m.hidden_size,
                         " is not divisible by num_attention_heads ", m.num_attention_heads),
            "give kv_channels (the head dimension)");
  }
  // transformer_config.py:1687, arguments.py:1652 (warnings).
  if (m.moe_ffn_defaulted) {
    ctx.Add("model.moe_ffn_defaulted", {"model.moe_ffn_hidden_size"},
            absl::StrCat("moe_ffn_hidden_size not given: Megatron uses ffn_hidden_size = ", m.moe_ffn_hidden_size,
                         " for each expert"),
            "give moe_ffn_hidden_size if the experts are narrower");
  }
}

void CheckMoeModules(const RuleContext& ctx, const ModelSpec& m) {
  const auto& c = ctx.in.config;
  // megatron/training/arguments.py:1982: a MoE latent size needs experts.
  if (m.moe_latent_size > 0 && m.num_moe_experts <= 0) {
    ctx.Add("moe.latent_needs_moe", {"model.moe_latent_size", "model.num_moe_experts"},
            absl::StrCat("moe_latent_size ", m.moe_latent_size, " on a model without experts"),
            "drop moe_latent_size or give num_moe_experts");
  }
  // transformer_config.py:1702 (error) / :1694 (warning when moe_layer_freq
  // leaves dense layers): an expert width without experts.
  if (m.moe_ffn_hidden_size > 0 && m.num_moe_experts <= 0) {
    if (m.moe_layer_freq > 1) {
      ctx.Add("model.moe_ffn_ignored", {"model.moe_ffn_hidden_size"},
              "moe_ffn_hidden_size is set without experts; Megatron-Core ignores it for these dense layers",
              "drop moe_ffn_hidden_size");
    } else {
      ctx.Add("model.moe_ffn_without_experts", {"model.moe_ffn_hidden_size", "model.num_moe_experts"},
              "moe_ffn_hidden_size is set but the model has no experts",
              "set num_moe_experts or remove moe_ffn_hidden_size");
    }
  }
  if (!m.is_moe()) return;
  // transformer_config.py:2613 "Bias in Moe is only supported when ETP==1".
  if (m.add_bias_linear && c.etp != 1) {
    ctx.Add("etp.moe_bias_needs_etp1", {"etp", "model.add_bias_linear"},
            absl::StrCat("'", m.id, "' has biases on its expert linears (add_bias_linear) and ETP=", c.etp,
                         c.etp_defaulted ? " (defaulted to TP)" : "",
                         ": Megatron-Core supports MoE biases only with ETP=1"),
            "set etp=1");
  }
  // moe/shared_experts.py:124 SharedExpertMLP asserts add_bias_linear is False.
  if (m.add_bias_linear && m.moe_shared_expert_intermediate_size > 0) {
    ctx.Add("moe.shared_expert_bias", {"model.add_bias_linear", "model.moe_shared_expert_intermediate_size"},
            "shared experts with add_bias_linear: Megatron-Core's SharedExpertMLP has no bias support",
            "set add_bias_linear=false (or drop the shared expert)");
  }
}

// Mamba-2 mixer (megatron/core/ssm/mamba_mixer.py __init__) and its context
// parallelism (megatron/core/ssm/mamba_context_parallel.py).
void CheckMamba(const RuleContext& ctx, const ModelSpec& m) {
  const auto& c = ctx.in.config;
  // mamba_mixer.py:250: without mamba_num_heads, d_inner = 2 * hidden must split into head_dim heads.
  if (CountLayers(m).mamba > 0 && m.mamba_num_heads <= 0 && m.mamba_head_dim > 0 &&
      (2 * m.hidden_size) % m.mamba_head_dim != 0) {
    ctx.Add("model.mamba_inner_headdim_divisible", {"model.mamba_head_dim", "model.hidden_size"},
            absl::StrCat("mamba_num_heads unset: the Mamba inner width 2 * ", m.hidden_size,
                         " is not divisible by mamba_head_dim ", m.mamba_head_dim),
            "give mamba_num_heads, or a head dim dividing 2 * hidden_size");
  }
  if (CountLayers(m).mamba == 0 || m.mamba_num_heads <= 0 || m.mamba_num_groups <= 0) return;
  const int64_t heads = m.mamba_num_heads, groups = m.mamba_num_groups;
  if (heads % groups != 0) {  // mamba_mixer.py:274
    ctx.Add("model.mamba_heads_groups_divisible", {"model.mamba_num_heads", "model.mamba_num_groups"},
            absl::StrCat("mamba_num_heads ", heads, " is not divisible by mamba_num_groups ", groups),
            "use a head count that is a multiple of the group count");
  }
  // mamba_mixer.py:254: the in-projection output width must be a multiple of 16 under FP8.
  if (IsFp8(c.precision) && m.mamba_head_dim > 0 && m.mamba_state_dim > 0) {
    const int64_t inner = heads * m.mamba_head_dim;
    const int64_t width = 2 * inner + 2 * groups * m.mamba_state_dim + heads;
    if (width % 16 != 0) {
      ctx.Add("precision.fp8_mamba_in_proj_align16", {"precision", "model.mamba_num_heads"},
              absl::StrCat("FP8 needs the Mamba in-projection width (2*", inner, " + 2*", groups, "*",
                           m.mamba_state_dim, " + ", heads, " = ", width, ") to be a multiple of 16"),
              "use bf16 for this model, or Mamba dimensions that align");
    }
  }
  if (c.cp > 1 && c.tp > 0 && heads % c.tp == 0 && groups % c.tp == 0) {
    const int64_t local_heads = heads / c.tp, local_groups = groups / c.tp;
    if (local_heads % c.cp != 0) {  // mamba_context_parallel.py:106
      ctx.Add("cp.mamba_heads_divisible", {"cp", "tp", "model.mamba_num_heads"},
              absl::StrCat("Mamba context parallelism splits the ", local_heads, " heads per TP rank (", heads,
                           " / TP ", c.tp, ") over CP=", c.cp, ": not divisible"),
              absl::StrCat("use a CP dividing ", local_heads));
    }
    // mamba_context_parallel.py:120 / :127: groups per TP rank either divide
    // over CP or are replicated across it.
    const bool ok = local_groups < c.cp ? c.cp % local_groups == 0 : local_groups % c.cp == 0;
    if (!ok) {
      ctx.Add(
          "cp.mamba_groups_divisible", {"cp", "tp", "model.mamba_num_groups"},
          absl::StrCat("Mamba context parallelism with ", local_groups, " groups per TP rank (", groups, " / TP ", c.tp,
                       ") and CP=", c.cp, ": the groups must divide over CP, or CP must be a multiple of them"),
          "use a CP that divides, or is a multiple of, the groups per TP rank");
    }
  }
}

// megatron/core/models/hybrid/hybrid_layer_allocation.py.
void CheckHybridPattern(const RuleContext& ctx, const ModelSpec& m) {
  const auto& c = ctx.in.config;
  const std::string& p = m.hybrid_layer_pattern;
  if (p.empty()) return;
  // megatron/training/arguments.py:820, Bridge hybrid_provider.py:291: VPP
  // comes from the pattern's '|' segments, never from the flag.
  if (c.vpp_given) {
    ctx.Add("hybrid.vpp_flag_rejected", {"vpp", "model.hybrid_layer_pattern"},
            absl::StrCat("VPP=", c.vpp,
                         " given for a hybrid model: Megatron derives virtual stages from the "
                         "pattern's '|' segments and refuses the flag"),
            "drop vpp; put PP*VPP segments separated by '|' into the pattern");
  }
  for (absl::string_view segment : absl::StrSplit(p, absl::ByAnyChar("|/"))) {
    const bool attention = segment.find('*') != absl::string_view::npos;
    const bool mla = segment.find('+') != absl::string_view::npos || segment.find('D') != absl::string_view::npos;
    if (attention && mla) {  // :298 / :326
      ctx.Add("hybrid.attention_with_mla", {"model.hybrid_layer_pattern"},
              "the hybrid pattern mixes standard attention (*) with MLA/DSA (+, D): not supported in one model",
              "use one attention kind in the pattern");
      break;
    }
  }
  // hybrid_layer_allocation.py:262: every MTP depth has the same pattern.
  const std::vector<std::string> mtp = MtpHybridPatterns(p);
  for (size_t i = 1; i < mtp.size(); ++i) {
    if (mtp[i] != mtp[0]) {
      ctx.Add("hybrid.mtp_patterns_differ", {"model.hybrid_layer_pattern"},
              absl::StrCat("MTP depth ", i + 1, " has pattern '", mtp[i].substr(0, 32), "' but depth 1 has '",
                           mtp[0].substr(0, 32), "': all MTP patterns must be identical"),
              "repeat one MTP pattern after each '/'");
      break;
    }
  }
  // megatron/training/arguments.py:872 (Bridge hybrid_provider.py:225):
  // the pattern's depth wins over a different mtp_num_layers.
  if (!mtp.empty() && c.mtp_num_layers != static_cast<int64_t>(mtp.size())) {
    ctx.Add("hybrid.mtp_depth_mismatch", {"mtp_num_layers", "model.hybrid_layer_pattern"},
            absl::StrCat("mtp_num_layers = ", c.mtp_num_layers, " but the pattern has ", mtp.size(),
                         " MTP depth(s): Megatron uses the pattern's ", mtp.size()),
            absl::StrCat("set mtp_num_layers = ", mtp.size(), " or change the pattern"));
  }
  // arguments.py:902: MTP on a hybrid model without an MTP pattern.
  if (mtp.empty() && c.mtp_num_layers > 0) {
    ctx.Add("hybrid.mtp_needs_pattern", {"mtp_num_layers", "model.hybrid_layer_pattern"},
            absl::StrCat("mtp_num_layers = ", c.mtp_num_layers,
                         " on a hybrid model whose pattern has no '/' MTP part: Megatron-LM warns (Bridge recipes "
                         "pass the MTP pattern as mtp_hybrid_override_pattern)"),
            "append '/' and the MTP layer pattern per depth (e.g. 'M*M*/*E') for Megatron-LM");
  }
  if (c.pp > 1 && MainHybridPattern(p).find('|') == std::string::npos) {  // :393 deprecation warning
    ctx.Add("hybrid.no_pipes_deprecated", {"model.hybrid_layer_pattern", "pp"},
            absl::StrCat("a hybrid pattern without '|' stage breaks with PP=", c.pp, " is deprecated in Megatron-Core"),
            absl::StrCat("add ", c.pp - 1, " '|' breaks to the pattern to place the stages explicitly"));
  }
}

// multi_token_prediction.py:1625 / :1632: MTP layers under full recompute.
void CheckMtpRecompute(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  if (c.mtp_num_layers <= 0 || c.recompute != RecomputeGranularity::kFull) return;
  if (c.recompute_method == RecomputeMethod::kUniform && c.recompute_num_layers != 1) {
    ctx.Add("recompute.mtp_uniform_needs_one", {"recompute_num_layers", "mtp_num_layers"},
            absl::StrCat("full uniform recompute of ", c.recompute_num_layers,
                         " layers per checkpoint: MTP layers need recompute_num_layers = 1"),
            "set recompute_num_layers=1, or use the block method");
  }
  if (c.recompute_method == RecomputeMethod::kBlock) {
    ctx.Add("recompute.mtp_block_not_recomputed", {"recompute_method", "mtp_num_layers"},
            "full block recompute does not recompute the MTP layers (Megatron-Core warns): they keep their "
            "activations",
            "expected with block recompute; use uniform to recompute MTP too");
  }
}

// transformer_config.py: recompute and fine-grained offloading combinations.
void CheckRecomputeOffload(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  if (c.recompute == RecomputeGranularity::kSelective) {
    // transformer_config.py:1983-1989 warns on every selective core_attn
    // recompute that fused attention does not need it. Whether it frees
    // memory is the attention backend's call, decided by the one function
    // the memory model uses too (core/model/attention_scores.h): unfused
    // attention's kept s x s scores, nothing with fused / flash kernels.
    if (c.Recomputes("core_attn") && !CoreAttnRecomputeSavesMemory(c.unfused_attention)) {
      ctx.Add("recompute.core_attn_fused", {"recompute_modules", "attention_backend"},
              absl::StrCat("core_attn recompute with fused attention (attention_backend ", c.attention_backend,
                           ") saves nothing: the fused kernel keeps no s x s scores, only Q, K, V (the "
                           "checkpoint's inputs) and its output (the projection's input); Megatron-Core warns"),
              "drop core_attn (it only re-runs attention in backward), or use attention_backend unfused / local "
              "where it frees the scores; recompute mlp, moe_act or layernorm instead");
    }
    if (c.precision == Precision::kFp8Ds && (c.Recomputes("moe_act") || c.Recomputes("layernorm"))) {  // :2003
      ctx.Add("recompute.fp8_delayed_act_norm", {"recompute_modules", "precision"},
              "FP8 delayed scaling does not support moe_act or layernorm recompute",
              "use fp8-cs (current scaling), or drop moe_act / layernorm from recompute_modules");
    }
    if (c.Recomputes("moe")) {  // :2169
      std::vector<std::string> inside;
      for (const char* mod : {"moe_act", "expert_fc1", "fused_group_mlp"}) {
        if (c.Offloads(mod)) inside.push_back(mod);
      }
      if (!inside.empty()) {
        ctx.Add("offload.inside_recomputed_moe", {"offload_modules", "recompute_modules"},
                absl::StrCat("offloading ", absl::StrJoin(inside, ", "),
                             " while recomputing the whole MoE layer (moe in recompute_modules)"),
                "remove moe from recompute_modules, or those modules from offload_modules");
      }
    }
  }
  // :2187: fused_group_mlp offload needs use_transformer_engine_op_fuser,
  // which Megatron-Core and Bridge default to False (transformer_config.py:525,
  // Bridge gpt_provider.py:169). NVIDIA's Nemotron 3 Ultra recipes turn it on
  // (Bridge perf_recipes/nemotronh/common.py:116) to offload fused_group_mlp.
  if (c.Offloads("fused_group_mlp") && !c.use_transformer_engine_op_fuser) {
    ctx.Add("offload.fused_group_mlp_needs_op_fuser", {"offload_modules", "use_transformer_engine_op_fuser"},
            absl::StrCat("offload_modules includes fused_group_mlp with use_transformer_engine_op_fuser = false",
                         c.op_fuser_given ? "" : " (not given: Megatron-Core's and Bridge's default)",
                         "; Megatron-Core needs the op fuser for it"),
            "set use_transformer_engine_op_fuser=true (as NVIDIA's Nemotron 3 Ultra recipes do), or offload "
            "expert_fc1 / moe_act instead");
  }
  if (c.Offloads("fused_group_mlp") && (c.Offloads("expert_fc1") || c.Offloads("moe_act"))) {  // :2191
    ctx.Add("offload.fused_group_mlp_exclusive", {"offload_modules"},
            "fused_group_mlp offloads the whole fused grouped MLP and cannot be combined with expert_fc1 or moe_act",
            "keep fused_group_mlp alone, or offload expert_fc1 / moe_act instead");
  }
}

// Transformer Engine's op fuser (use_transformer_engine_op_fuser). On MoE
// layers the grouped experts (grouped GEMM, as Bridge's MoE bridges set it)
// build the fused grouped MLP, and megatron/core/transformer/moe/experts.py:288
// asserts _is_fused_impl_supported (experts.py:382-455). On a GPT model's dense
// layers the MLP is TEFusedMLP (megatron/core/models/gpt/gpt_layer_specs.py:538),
// whose activation op raises for other activations
// (megatron/core/extensions/transformer_engine.py:979). Hybrid models build
// their dense MLPs without it (megatron/core/models/hybrid/hybrid_layer_specs.py:218).
void CheckOpFuser(const RuleContext& ctx, const ModelSpec& m) {
  const auto& c = ctx.in.config;
  if (!c.use_transformer_engine_op_fuser) return;
  const std::string act = m.ResolvedActivation();
  const std::string act_words =
      absl::StrCat(m.gated_linear_unit ? "gated " : "", act, m.activation_func.empty() ? " (defaulted)" : "");
  if (m.is_moe()) {
    if (c.etp > 1) {  // experts.py:397: the expert TP group must be one rank.
      ctx.Add("op_fuser.expert_tp", {"use_transformer_engine_op_fuser", "etp"},
              absl::StrCat("use_transformer_engine_op_fuser = true with ETP = ", c.etp,
                           c.etp_defaulted ? " (defaulted to TP)" : "",
                           ": the fused grouped expert MLP does not support expert tensor parallelism "
                           "(Megatron-Core asserts 'Fused GroupedMLP is not supported for this configuration')"),
              "set etp=1, or use_transformer_engine_op_fuser=false");
    }
    std::vector<std::string> partial;  // experts.py:399
    for (const char* mod : {"expert_fc1", "moe_act"}) {
      if (c.Offloads(mod)) partial.push_back(mod);
    }
    if (!partial.empty()) {
      ctx.Add("op_fuser.partial_expert_offload", {"use_transformer_engine_op_fuser", "offload_modules"},
              absl::StrCat("use_transformer_engine_op_fuser = true with offload_modules ", absl::StrJoin(partial, ", "),
                           ": the fused grouped expert MLP offloads only as a whole (fused_group_mlp); "
                           "expert_fc1 / moe_act offload runs only unfused"),
              "offload fused_group_mlp instead, or set use_transformer_engine_op_fuser=false");
    }
    // experts.py:418-427: SwiGLU, quick-GeGLU, or squared ReLU (with the
    // fused weighted kernel, which the rendered config turns on).
    const bool glu = m.gated_linear_unit && (act == "silu" || act == "quick_gelu");
    const bool srelu = !m.gated_linear_unit && act == "squared_relu";
    if (!glu && !srelu) {
      ctx.Add("op_fuser.expert_activation",
              {"use_transformer_engine_op_fuser", "model.activation_func", "model.gated_linear_unit"},
              absl::StrCat("use_transformer_engine_op_fuser = true with ", act_words,
                           " experts: the fused grouped expert MLP takes only gated silu (SwiGLU), gated "
                           "quick_gelu or plain squared_relu"),
              "set use_transformer_engine_op_fuser=false for this model");
    }
  }
  // transformer_engine.py:960-983: gelu, silu and relu, gated or not.
  if (!m.is_hybrid() && CountLayers(m).dense_mlp > 0 && act != "gelu" && act != "silu" && act != "relu") {
    ctx.Add("op_fuser.dense_activation",
            {"use_transformer_engine_op_fuser", "model.activation_func", "model.gated_linear_unit"},
            absl::StrCat("use_transformer_engine_op_fuser = true with ", act_words,
                         " dense MLP layers: Transformer Engine's fused MLP (TEFusedMLP) takes only gelu, silu and "
                         "relu, gated or not"),
            "set use_transformer_engine_op_fuser=false for this model");
  }
}

}  // namespace

void CheckLayerRules(const RuleContext& ctx) {
  CheckMtpRecompute(ctx);
  CheckRecomputeOffload(ctx);
  const ModelSpec* m = ctx.in.model;
  if (m == nullptr) return;
  CheckDefaultedWidths(ctx, *m);
  CheckMoeModules(ctx, *m);
  CheckOpFuser(ctx, *m);
  CheckMamba(ctx, *m);
  CheckHybridPattern(ctx, *m);
}

}  // namespace parplan
