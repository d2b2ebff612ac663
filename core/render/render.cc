#include "core/render/render.h"

#include <cctype>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/config/precision.h"
#include "core/import/field_map.h"
#include "core/pipeline/layout_parser.h"

namespace parplan {
namespace {

// One Bridge override: section.field, its Python literal and its CLI value.
struct Setting {
  std::string bridge_path;   // "model.tensor_model_parallel_size"
  std::string python_value;  // "8", "True", "None", "\"Et|tL\""
  std::string cli_value;     // "8", "true", "null", "'Et|tL'"
};

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

// A Python float literal: 0.5, 1.0 (never "1").
std::string DecimalLiteral(double v) {
  std::string text = absl::StrCat(v);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

Setting Int(const std::string& path, int64_t v) { return {path, absl::StrCat(v), absl::StrCat(v)}; }

// A shell word: quoted when it holds anything beyond plain characters.
std::string ShellWord(const std::string& s) {
  for (char ch : s) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) ||
          std::string_view("._,:/=+-").find(ch) != std::string_view::npos)) {
      return ShellQuote(s);
    }
  }
  return s.empty() ? "''" : s;
}

// Settings whose Megatron-LM flag is written even at Megatron-LM's default,
// so the launch states them.
bool AlwaysWritten(const std::string& field) {
  static const char* const kAlways[] = {"config.tp",
                                        "config.pp",
                                        "config.cp",
                                        "config.mbs",
                                        "config.ep",
                                        "config.etp",
                                        "config.cp_comm_type",
                                        "config.moe_token_dispatcher_type",
                                        "model.kv_channels",
                                        "model.moe_router_topk",
                                        "config.optimizer_offload_fraction"};
  for (const char* f : kAlways) {
    if (field == f) return true;
  }
  return false;
}

// The Megatron-LM arguments of the plan (and of the model, when it is
// given): one per field-map entry whose value differs from Megatron-LM's
// parser default (megatron/training/arguments.py at d98e8a64), through the
// same table the Megatron-LM import reads, so importing these arguments
// gives the plan back. Flags that only mean something together (precision,
// GQA, activation) and the switches Megatron-LM asserts alongside others
// are written here.
std::vector<std::string> MegatronLmArgs(const ResolvedConfig& c, const ModelSpec* model, bool expert_dims,
                                        std::vector<std::string>* notes) {
  std::vector<std::string> lm;
  auto add = [&lm](const std::vector<std::string>& words) {
    if (words.empty()) return;
    std::string line = words[0];
    for (size_t i = 1; i < words.size(); ++i) absl::StrAppend(&line, " ", ShellWord(words[i]));
    lm.push_back(line);
  };
  const bool moe = model != nullptr ? model->is_moe() : expert_dims;
  for (const FieldEntry& e : FieldMap()) {
    if (e.megatron.empty() || e.get == nullptr) continue;
    const std::string& f = e.field;
    const bool is_model = f.rfind("model.", 0) == 0;
    if (is_model && model == nullptr) continue;
    if ((f == "config.ep" || f == "config.etp" || f.rfind("config.moe_", 0) == 0) && !expert_dims) continue;
    if (f == "config.overlap_moe_expert_parallel_comm" && !expert_dims) continue;
    if (is_model && f.find("moe") != std::string::npos && !moe) continue;
    if (f == "config.optimizer_state_dtype" || f == "config.offload_modules" ||
        f == "config.cpu_offloading_num_layers" || f == "config.fp8_param_gather" || f == "model.gated_linear_unit" ||
        f == "model.activation_func" || f == "model.num_query_groups" || f == "model.window_size" ||
        f == "model.rope_scaling_factor") {
      continue;  // written below
    }
    if (is_model && model != nullptr && !model->multi_latent_attention &&
        (f == "model.q_lora_rank" || f == "model.kv_lora_rank" || f == "model.qk_head_dim" ||
         f == "model.qk_pos_emb_head_dim" || f == "model.v_head_dim")) {
      continue;
    }
    if (is_model && model != nullptr && !model->is_hybrid() && f.rfind("model.mamba_", 0) == 0) continue;
    if (f == "config.precision") {
      add(absl::StrSplit(MegatronLmPrecisionFlags(c.precision), ' '));
      continue;
    }
    std::optional<std::string> value = e.get(c, model);
    if (!value.has_value()) continue;
    if (*value == e.megatron_default && !AlwaysWritten(f)) continue;
    add(MegatronLmArguments(e, *value));
  }
  if (IsFp8(c.precision) && c.fp8_param_gather) add({"--fp8-param-gather"});
  if (IsFp4(c.precision) && c.fp4_param_gather) add({"--fp4-param-gather"});
  if (c.optimizer_bf16) {
    add({"--use-precision-aware-optimizer"});
    add({"--exp-avg-dtype", "bf16"});
    add({"--exp-avg-sq-dtype", "bf16"});
  } else if (c.optimizer_cpu_offload) {
    // Megatron-LM asserts the precision-aware optimizer with offload (arguments.py:1885).
    add({"--use-precision-aware-optimizer"});
  }
  if (c.cpu_offloading_num_layers > 0) {
    // Megatron-LM has no --cpu-offloading flag: it turns cpu_offloading on
    // from the layer count (arguments.py:1950-1951).
    add({"--cpu-offloading-num-layers", absl::StrCat(c.cpu_offloading_num_layers)});
  }
  if (!c.offload_modules.empty()) {
    add({"--fine-grained-activation-offloading"});
    std::vector<std::string> words = {"--offload-modules"};
    for (const auto& m : c.offload_modules) words.push_back(m);
    add(words);
  }
  if (c.fsdp) {
    add({"--data-parallel-sharding-strategy", "optim_grads_params"});
    add({"--ckpt-format", "fsdp_dtensor"});  // asserted under Megatron FSDP (arguments.py:1169)
  }
  if (c.cuda_graph_impl != "none") {
    add({"--te-rng-tracker"});  // Megatron-LM turns it on for CUDA graphs anyway (arguments.py:1960)
    if (c.cuda_graph_impl == "full_iteration") add({"--no-check-for-nan-in-loss-and-grad"});
  }
  if (expert_dims && c.use_transformer_engine_op_fuser && model != nullptr && model->is_moe() &&
      !model->gated_linear_unit && model->ResolvedActivation() == "squared_relu") {
    add({"--use-fused-weighted-squared-relu"});
  }
  if (model != nullptr) {
    // Activation (argument_utils.py:310-326): --swiglu, --quick-geglu, --squared-relu; plain GELU is the default.
    const std::string act = model->ResolvedActivation();
    if (model->gated_linear_unit && act == "silu") {
      add({"--swiglu"});
    } else if (model->gated_linear_unit && act == "quick_gelu") {
      add({"--quick-geglu"});
    } else if (!model->gated_linear_unit && act == "squared_relu") {
      add({"--squared-relu"});
    } else if (!(act == "gelu" && !model->gated_linear_unit)) {
      notes->push_back(absl::StrCat("the model's ", model->gated_linear_unit ? "gated " : "", act,
                                    " MLP has no Megatron-LM flag (only --swiglu, --quick-geglu, --squared-relu and "
                                    "the default GELU); set it in a custom spec"));
    }
    // Query groups (argument_utils.py:330-333): only with --group-query-attention.
    if (model->num_query_groups > 0 && model->num_query_groups != model->num_attention_heads &&
        !model->multi_latent_attention) {
      add({"--group-query-attention"});
      add({"--num-query-groups", absl::StrCat(model->num_query_groups)});
    }
    if (model->window_size > 0) add({"--window-size", absl::StrCat(model->window_size, ",0")});
    if (model->rope_scaling_factor > 0 && !model->rope_scaling_type.empty()) {
      add({model->multi_latent_attention ? "--rotary-scaling-factor" : "--rope-scaling-factor",
           absl::StrCat(model->rope_scaling_factor)});
    }
    if (model->vocab_size <= 0) {
      notes->push_back(
          "the model states no vocabulary size: Megatron-LM takes it from the tokenizer (--tokenizer-type and "
          "--tokenizer-model)");
    }
  }
  return lm;
}

// A Python literal and a CLI override value for a model field's canonical value.
std::pair<std::string, std::string> BridgeModelValue(const FieldEntry& e, const std::string& value) {
  switch (e.kind) {
    case FieldKind::kBool:
      return {value == "true" ? "True" : "False", value};
    case FieldKind::kInt:
    case FieldKind::kDouble:
      return {value, value};
    default:
      break;
  }
  if (e.field == "model.moe_layer_freq" || e.field == "model.window_attn_skip_freq") {
    std::vector<int> list;
    int64_t n = 0;
    if (absl::SimpleAtoi(value, &n)) return {value, value};
    if (EvalLayerPattern(value, e.field, 4096, &list).ok()) {
      const std::string joined = absl::StrCat("[", absl::StrJoin(list, ","), "]");
      return {value, joined};
    }
  }
  return {Quote(value), ShellQuote(value)};
}

}  // namespace

RenderedConfig RenderConfig(const ResolvedConfig& c, const ModelSpec* model, const ResolvedPlacement& placement) {
  RenderedConfig out;
  std::vector<Setting> s;
  s.push_back(Int("model.tensor_model_parallel_size", c.tp));
  s.push_back(Int("model.pipeline_model_parallel_size", c.pp));
  const bool layout = !c.pipeline_layout.empty();
  // Hybrid models derive VPP from the pattern's '|' segments; Megatron-LM
  // (arguments.py:820) and Bridge (hybrid_provider.py:291) refuse the flag.
  const bool hybrid = model != nullptr && model->is_hybrid();
  if (c.vpp > 1 && !layout && !hybrid) {
    s.push_back(Int("model.virtual_pipeline_model_parallel_size", c.vpp));
  } else {
    s.push_back({"model.virtual_pipeline_model_parallel_size", "None", "null"});
    if (layout) {
      auto stages = ParseLayoutStages(c.pipeline_layout, "pipeline_layout");
      if (stages.ok() && c.pp > 0 && stages->size() % c.pp == 0) {
        out.notes.push_back(
            absl::StrCat("virtual_pipeline_model_parallel_size is None because the layout sets the "
                         "virtual stages: ",
                         stages->size(), " stages = PP ", c.pp, " x ", stages->size() / c.pp,
                         " per rank (Megatron derives VPP from the layout)."));
      }
    }
  }
  s.push_back(Int("model.context_parallel_size", c.cp));
  // Expert dimensions only where experts exist (Megatron ignores them for
  // dense models): with a model, when it has experts (or EP > 1, which the
  // rules then reject); without one, when EP or ETP was set. A resolved
  // config passed back (etp = tp written out, as Recommend's plans carry it)
  // renders the same as the request it came from.
  const bool expert_dims = model != nullptr ? (model->is_moe() || c.ep > 1) : (c.ep > 1 || !c.etp_defaulted);
  if (expert_dims) {
    s.push_back(Int("model.expert_model_parallel_size", c.ep));
    s.push_back(Int("model.expert_tensor_parallel_size", c.etp));
  }
  s.push_back({"model.sequence_parallel", c.sp ? "True" : "False", c.sp ? "true" : "false"});
  if (c.first_stage_layers > 0) {
    s.push_back(Int("model.num_layers_in_first_pipeline_stage", c.first_stage_layers));
  }
  if (c.last_stage_layers > 0) {
    s.push_back(Int("model.num_layers_in_last_pipeline_stage", c.last_stage_layers));
  }
  if (c.account_for_embedding) {
    s.push_back({"model.account_for_embedding_in_pipeline_split", "True", "true"});
  }
  if (c.account_for_loss) {
    s.push_back({"model.account_for_loss_in_pipeline_split", "True", "true"});
  }
  if (layout) {
    s.push_back({"model.pipeline_model_parallel_layout", Quote(c.pipeline_layout), ShellQuote(c.pipeline_layout)});
  }
  if (c.mtp_num_layers > 0 || (model != nullptr && model->mtp_num_layers > 0)) {
    s.push_back(Int("model.mtp_num_layers", c.mtp_num_layers));
  }
  if (c.seq_length > 0) {
    s.push_back(Int("model.seq_length", c.seq_length));
    s.push_back(Int("dataset.seq_length", c.seq_length));
  }
  auto str = [](const std::string& path, const std::string& value) { return Setting{path, Quote(value), value}; };
  // Overlap and CUDA graph switches where they differ from Megatron Bridge's defaults.
  if (c.tp_comm_overlap) s.push_back({"comm_overlap.tp_comm_overlap", "True", "true"});
  if (!c.overlap_grad_reduce) s.push_back({"ddp.overlap_grad_reduce", "False", "false"});
  if (c.overlap_moe_expert_parallel_comm) {
    s.push_back({"comm_overlap.overlap_moe_expert_parallel_comm", "True", "true"});
    // The overlap refuses moe_shared_expert_overlap (transformer_config.py:3039,
    // Bridge comm_overlap.py:513), which Bridge's DeepSeek, GLM-4.5 and
    // Nemotron-H bridges turn on (e.g. deepseek_v3_bridge.py:72);
    // Megatron-LM's flag is off unless given.
    if (model != nullptr && model->moe_shared_expert_intermediate_size > 0) {
      s.push_back({"model.moe_shared_expert_overlap", "False", "false"});
    }
  }
  if (c.cuda_graph_impl != "none") {
    s.push_back(str("model.cuda_graph_impl", c.cuda_graph_impl));
    // Bridge asserts Transformer Engine's RNG tracker for CUDA graphs
    // (models/gpt_provider.py:235; config.py:1415 sets rng.te_rng_tracker from
    // it); Megatron-LM turns it on with a warning (arguments.py:1960).
    s.push_back({"model.use_te_rng_tracker", "True", "true"});
    // The full-iteration graph refuses the NaN check on the loss, on by
    // default (Bridge training/config.py:1510, Megatron-LM arguments.py:1236).
    if (c.cuda_graph_impl == "full_iteration") {
      s.push_back({"rerun_state_machine.check_for_nan_in_loss", "False", "false"});
    }
    if (!c.cuda_graph_modules.empty()) {
      s.push_back({"model.cuda_graph_modules",
                   absl::StrCat("[",
                                absl::StrJoin(c.cuda_graph_modules, ", ",
                                              [](std::string* out, const std::string& m) {
                                                absl::StrAppend(out, "\"", m, "\"");
                                              }),
                                "]"),
                   absl::StrJoin(c.cuda_graph_modules, ",")});
    }
  }
  if (c.attention_backend != "auto") {
    s.push_back(str("model.attention_backend", c.attention_backend));
  }
  // RoPE fusion where given, or where it departs from the model bridge's own default.
  if ((c.given != nullptr && c.given->apply_rope_fusion.has_value()) || c.apply_rope_fusion != BridgeFusesRope(model)) {
    s.push_back(
        {"model.apply_rope_fusion", c.apply_rope_fusion ? "True" : "False", c.apply_rope_fusion ? "true" : "false"});
  }
  // The CP communication type wherever CP splits the sequence, even when it
  // is Megatron's default p2p, so the plan says which one it runs.
  if (c.cp > 1) {
    s.push_back(str("model.cp_comm_type", c.cp_comm_type));
  }
  if (!c.hierarchical_cp_sizes.empty()) {
    // Megatron-LM takes the list space-separated (nargs '+').
    s.push_back({"model.hierarchical_context_parallel_sizes",
                 absl::StrCat("[", absl::StrJoin(c.hierarchical_cp_sizes, ", "), "]"),
                 absl::StrCat("[", absl::StrJoin(c.hierarchical_cp_sizes, ","), "]")});
  }
  // Token dispatch, written out for MoE: Megatron-LM's defaults (allgather,
  // no permute fusion) differ from what Bridge's model bridges set.
  if (expert_dims) {
    s.push_back(str("model.moe_token_dispatcher_type", c.moe_token_dispatcher_type));
    if (c.moe_token_dispatcher_type == "flex") {
      s.push_back(str("model.moe_flex_dispatcher_backend", c.moe_flex_dispatcher_backend));
    }
    s.push_back(
        {"model.moe_permute_fusion", c.moe_permute_fusion ? "True" : "False", c.moe_permute_fusion ? "true" : "false"});
    if (c.moe_router_force_load_balancing) {
      s.push_back({"model.moe_router_force_load_balancing", "True", "true"});
      out.notes.push_back(
          "Warning: moe_router_force_load_balancing is benchmark only: it routes tokens evenly instead of as the "
          "router decides, so the model trains differently (NVIDIA's perf recipes set it to measure speed); never "
          "for a real run.");
    }
  }
  // Transformer Engine's op fuser: off in Megatron-Core and Bridge unless set.
  if (c.use_transformer_engine_op_fuser) {
    s.push_back({"model.use_transformer_engine_op_fuser", "True", "true"});
    if (model != nullptr && model->is_moe()) {
      // The fused grouped expert MLP takes squared ReLU only through the
      // fused weighted kernel (megatron/core/transformer/moe/experts.py:422),
      // off by default (transformer_config.py:516); NVIDIA's Nemotron 3
      // recipes set it (Bridge perf_recipes/nemotronh/common.py:120).
      if (!model->gated_linear_unit && model->ResolvedActivation() == "squared_relu") {
        s.push_back({"model.use_fused_weighted_squared_relu", "True", "true"});
      }
      out.notes.push_back(
          "use_transformer_engine_op_fuser: the fused grouped expert MLP needs Transformer Engine >= 2.14 "
          "(megatron/core/transformer/moe/experts.py:393); with SwiGLU or quick-GeGLU experts it also needs the "
          "environment variable NVTE_CUTEDSL_FUSED_GROUPED_MLP=1 (experts.py:454), which NVIDIA's recipes set; "
          "otherwise Megatron-Core's assert at experts.py:288 fails.");
    }
  }
  if (c.recompute != RecomputeGranularity::kNone) {
    s.push_back(str("model.recompute_granularity", RecomputeName(c.recompute)));
    if (c.recompute == RecomputeGranularity::kSelective) {
      std::vector<std::string> quoted;
      for (const auto& m : c.recompute_modules) quoted.push_back(Quote(m));
      s.push_back({"model.recompute_modules", absl::StrCat("[", absl::StrJoin(quoted, ", "), "]"),
                   absl::StrCat("[", absl::StrJoin(c.recompute_modules, ","), "]")});
    } else {
      s.push_back(str("model.recompute_method", RecomputeMethodName(c.recompute_method)));
      s.push_back(Int("model.recompute_num_layers", c.recompute_num_layers));
    }
  }
  if (c.cpu_offloading_num_layers > 0) {
    s.push_back({"model.cpu_offloading", "True", "true"});
    s.push_back(Int("model.cpu_offloading_num_layers", c.cpu_offloading_num_layers));
  }
  if (!c.offload_modules.empty()) {
    out.notes.push_back(
        "Fine-grained activation offloading with Transformer Engine >= 2.10 needs the environment "
        "variable NVTE_CPU_OFFLOAD_V1=1 (Megatron-LM arguments.py:1939, Bridge config.py:2212).");
    std::vector<std::string> quoted;
    for (const auto& m : c.offload_modules) quoted.push_back(Quote(m));
    s.push_back({"model.fine_grained_activation_offloading", "True", "true"});
    s.push_back({"model.offload_modules", absl::StrCat("[", absl::StrJoin(quoted, ", "), "]"),
                 absl::StrCat("[", absl::StrJoin(c.offload_modules, ","), "]")});
  }
  if (c.fine_grained_offloading_max_inflight_offloads.has_value()) {
    s.push_back(
        Int("model.fine_grained_offloading_max_inflight_offloads", *c.fine_grained_offloading_max_inflight_offloads));
  }
  if (c.fsdp) {
    s.push_back({"ddp.use_megatron_fsdp", "True", "true"});
    s.push_back(str("ddp.data_parallel_sharding_strategy", "optim_grads_params"));
    // Megatron-LM asserts fsdp_dtensor checkpoints under Megatron FSDP
    // (megatron/training/arguments.py:1169; Bridge config.py:1107 when saving or loading).
    s.push_back(str("checkpoint.ckpt_format", "fsdp_dtensor"));
    out.notes.push_back(
        "Megatron FSDP: do not set CUDA_DEVICE_MAX_CONNECTIONS=1 (Megatron-LM arguments.py:1166 and "
        "Bridge config.py:1110 refuse it).");
  } else {
    const char* on = c.distributed_optimizer ? "True" : "False";
    s.push_back({"ddp.use_distributed_optimizer", on, c.distributed_optimizer ? "true" : "false"});
    s.push_back({"optimizer.use_distributed_optimizer", on, c.distributed_optimizer ? "true" : "false"});
  }
  s.push_back({"ddp.grad_reduce_in_fp32", c.grad_fp32 ? "True" : "False", c.grad_fp32 ? "true" : "false"});
  if (c.optimizer_bf16) {
    s.push_back({"optimizer.use_precision_aware_optimizer", "True", "true"});
    s.push_back({"optimizer.exp_avg_dtype", "torch.bfloat16", "bf16"});
    s.push_back({"optimizer.exp_avg_sq_dtype", "torch.bfloat16", "bf16"});
  }
  if (c.optimizer_cpu_offload) {
    // The fraction is always written: Megatron-Core (and so Bridge) defaults
    // it to 0.0 (optimizer_config.py:350), Megatron-LM's flag to 1.0
    // (arguments.py:2922).
    const std::string fraction = DecimalLiteral(c.optimizer_offload_fraction);
    s.push_back({"optimizer.optimizer_cpu_offload", "True", "true"});
    s.push_back({"optimizer.optimizer_offload_fraction", fraction, fraction});
  }
  if (c.lora) {
    out.notes.push_back(
        "peft=lora: use Megatron Bridge's LoRA PEFT config (cfg.peft = LoRA(...)) and set "
        "checkpoint.pretrained_checkpoint (Bridge training/config.py:1627 requires it); Megatron-LM "
        "has no LoRA flag.");
  }
  s.push_back(Int("train.micro_batch_size", c.mbs));
  if (c.gbs > 0) s.push_back(Int("train.global_batch_size", c.gbs));
  const std::string recipe = BridgeMixedPrecisionRecipe(c.precision);
  if (IsFp8(c.precision) && c.fp8_param_gather != Fp8ParamGatherDefault(c.precision)) {
    // Bridge's preset overwrites ddp.fp8_param_gather with its own value
    // (mixed_precision.py update_config_with_precision_overrides), so the
    // switch goes on the MixedPrecisionConfig itself.
    s.push_back({"mixed_precision", absl::StrCat("get_mixed_precision_config(", Quote(recipe), ")"), recipe});
    s.push_back({"mixed_precision.fp8_param_gather", c.fp8_param_gather ? "True" : "False",
                 c.fp8_param_gather ? "true" : "false"});
    out.notes.push_back(absl::StrCat(
        "fp8_param_gather = ", c.fp8_param_gather ? "True" : "False", " differs from the ", recipe,
        " preset: set it on the MixedPrecisionConfig (from megatron.bridge.training.mixed_precision import "
        "get_mixed_precision_config); the preset overwrites ddp.fp8_param_gather. Numerics: ",
        c.fp8_param_gather ? "weights held and gathered in FP8" : "BF16 weights held and gathered, cast per use", "."));
  } else {
    s.push_back({"mixed_precision", Quote(recipe), recipe});
  }

  // A model that is not from the catalog goes to Bridge as model.* fields
  // (a recipe's provider would otherwise supply its own architecture).
  if (model != nullptr && model->origin != "catalog") {
    for (const FieldEntry& e : FieldMap()) {
      if (e.field.rfind("model.", 0) != 0 || e.bridge.empty() || e.get == nullptr) continue;
      if (e.field == "model.activation_func") continue;  // a callable: written below
      std::optional<std::string> value = e.get(c, model);
      if (!value.has_value()) continue;
      std::string path = e.bridge[0];
      if (e.field == "model.rope_scaling_type") {  // Bridge's rope_scaling is the Llama 3.x switch
        if (*value == "llama3") s.push_back({path, "True", "true"});
        continue;
      }
      if (e.field == "model.window_size") {  // Megatron-Core's (left, right) tuple
        s.push_back({path, absl::StrCat("(", *value, ", 0)"), absl::StrCat("[", *value, ",0]")});
        continue;
      }
      if (e.field == "model.rope_scaling_factor" && model->multi_latent_attention && e.bridge.size() > 1) {
        path = e.bridge[1];  // MLA providers' rotary_scaling_factor
      }
      auto [python_value, cli_value] = BridgeModelValue(e, *value);
      s.push_back({path, python_value, cli_value});
    }
    if (model->multi_latent_attention) {
      out.notes.push_back(
          "multi-latent attention: the MLA fields (q_lora_rank, kv_lora_rank, qk_head_dim, ...) take effect on an "
          "MLA provider (Bridge's MLAModelProvider / DeepSeek providers), not on a plain GPTModelProvider");
    }
    const std::string act = model->ResolvedActivation();
    const std::string callable = act == "silu" || act == "gelu" || act == "relu"
                                     ? absl::StrCat("torch.nn.functional.", act)
                                     : absl::StrCat("megatron.core.activations.", act);
    out.notes.push_back(absl::StrCat("model.activation_func = ", callable,
                                     " (a callable: set it in Python; the CLI overrides cannot)"));
  }
  std::vector<std::string> python, cli;
  for (const auto& x : s) {
    python.push_back(absl::StrCat("cfg.", x.bridge_path, " = ", x.python_value));
    cli.push_back(absl::StrCat(x.bridge_path, "=", x.cli_value));
  }
  const std::vector<std::string> lm = MegatronLmArgs(c, model, expert_dims, &out.notes);
  out.bridge_python = absl::StrJoin(python, "\n") + "\n";
  out.bridge_cli = absl::StrJoin(cli, " ");
  out.megatron_lm_args = absl::StrJoin(lm, " \\\n  ");
  if ((c.tp > 1 || c.cp > 1) && !c.fsdp) {
    out.notes.push_back("Megatron-LM on Hopper with TP/CP > 1 expects CUDA_DEVICE_MAX_CONNECTIONS=1.");
  }
  if (placement.gpus > 0 && placement.gpus_per_node > 0) {
    const int64_t per_node = placement.gpus_per_node;
    const int64_t nodes = (placement.gpus + per_node - 1) / per_node;
    const int64_t tasks = placement.gpus < per_node ? placement.gpus : per_node;
    out.slurm_header = absl::StrCat("#!/bin/bash\n#SBATCH --nodes=", nodes, "\n#SBATCH --ntasks-per-node=", tasks,
                                    "\n#SBATCH --gpus-per-node=", tasks, "\n#SBATCH --exclusive\n");
    // A rack-scale NVLink domain (GB200 NVL72: 18 trays of 4 GPUs) is placed
    // as the plan counts on: whole segments of `used` GPUs per rack, through
    // Slurm's topology/block plugin (--segment, Slurm >= 23.11).
    const int64_t domain = placement.nvlink_domain_size;
    const int64_t used = placement.gpus_per_nvlink_domain > 0 ? placement.gpus_per_nvlink_domain : domain;
    const bool rack = domain > per_node && used > 0 && used % per_node == 0 && placement.gpus % used == 0;
    if (rack) {
      absl::StrAppend(&out.slurm_header, "#SBATCH --segment=", used / per_node, "\n");
    }
    absl::StrAppend(&out.slurm_header, "# world size ", placement.gpus, " = ", nodes, " node(s) x ", tasks, " GPU(s)",
                    placement.system.has_value() ? absl::StrCat(" (", placement.system->id, ")") : "", "\n");
    if (rack) {
      absl::StrAppend(&out.slurm_header, "# ", placement.gpus / used, " NVLink domain(s) of ", used, " of ", domain,
                      " GPUs (", used / per_node, " of ", domain / per_node,
                      " hosts each): --segment keeps each block of ", used / per_node,
                      " nodes inside one domain (Slurm topology/block with one block per rack)\n");
    }
    absl::StrAppend(&out.slurm_header, "# srun --nodes=", nodes, " --ntasks-per-node=", tasks,
                    " --gpus-per-node=", tasks, " --cpu-bind=none <your launch command>\n");
    if (placement.gpus % per_node != 0) {
      out.notes.push_back(absl::StrCat(placement.gpus, " GPUs is not a multiple of ", per_node,
                                       " per node: the header requests ", nodes * per_node, " GPUs; launch ",
                                       placement.gpus, " ranks"));
    }
  } else {
    out.notes.push_back("No Slurm header: pass gpus and a system (or gpus_per_node).");
  }
  return out;
}

}  // namespace parplan
