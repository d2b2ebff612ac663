#include "core/import/megatron_args.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/config/precision.h"
#include "core/import/field_map.h"
#include "core/model/model_spec.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

// Megatron-LM's arguments.py / argument_utils.py, cited where a rule is applied.
constexpr const char* kArgsPy = "megatron/training/arguments.py";

std::string Lower(const std::string& s) { return absl::AsciiStrToLower(s); }

bool IsTrueText(const std::string& v) {
  const std::string l = Lower(v);
  return l == "true" || l == "1" || l == "yes";
}
bool IsFalseText(const std::string& v) {
  const std::string l = Lower(v);
  return l == "false" || l == "0" || l == "no";
}
bool IsNoneText(const std::string& v) { return v == "None" || v == "null" || v == "~"; }

std::string Shown(const MegatronArgument& a) {
  const std::string& n = a.written.empty() ? a.name : a.written;
  return a.has_value ? absl::StrCat(n, " ", a.value) : n;
}

// Collected values of the flags that only mean something together.
struct Combined {
  std::map<std::string, const MegatronArgument*> flags;  // by flag name
  const MegatronArgument* Get(const std::string& name) const {
    auto it = flags.find(name);
    return it == flags.end() ? nullptr : it->second;
  }
};

class Applier {
 public:
  Applier(MegatronSource source, std::string field, ImportedConfig* out)
      : source_(source), field_(std::move(field)), out_(out) {}

  absl::Status Run(const std::vector<MegatronArgument>& given) {
    out_->config.front_end = "megatron-lm";
    // argparse keeps the last of a repeated flag.
    std::vector<MegatronArgument> args;
    std::map<std::string, size_t> index;
    for (const auto& a : given) {
      auto it = index.find(a.name);
      if (it == index.end()) {
        index[a.name] = args.size();
        args.push_back(a);
        continue;
      }
      MegatronArgument& prev = args[it->second];
      if (prev.value != a.value || prev.has_value != a.has_value) {
        out_->warnings.push_back(absl::StrCat(a.name, " is given twice (line ", prev.line, ": ", Shown(prev), "; line ",
                                              a.line, ": ", Shown(a), "); Megatron-LM's argparse keeps the last"));
      }
      prev = a;
    }
    for (const auto& a : args) {
      if (absl::Status s = One(a); !s.ok()) return s;
    }
    if (absl::Status s = Precision(); !s.ok()) return s;
    if (absl::Status s = Checks(); !s.ok()) return s;
    BuildModel();
    return absl::OkStatus();
  }

 private:
  absl::Status Err(const MegatronArgument& a, const std::string& what) {
    return FieldError(field_, absl::StrCat("line ", a.line, ": ", Shown(a), ": ", what));
  }
  absl::Status Conflict(const MegatronArgument& a, const MegatronArgument& b, const std::string& why) {
    return FieldError(
        field_, absl::StrCat(Shown(a), " (line ", a.line, ") contradicts ", Shown(b), " (line ", b.line, "): ", why));
  }

  void List(const MegatronArgument& a, ArgumentStatus status, const std::string& maps_to, const std::string& note) {
    ImportedArgument ia;
    ia.name = a.written.empty() ? a.name : a.written;
    ia.value = a.has_value ? a.value : "true";
    ia.status = status;
    ia.maps_to = maps_to;
    std::string n = a.note;
    if (!note.empty()) n = n.empty() ? note : absl::StrCat(note, "; ", n);
    ia.note = n;
    ia.line = a.line;
    ia.origin =
        source_ == MegatronSource::kScript ? "script" : (source_ == MegatronSource::kYaml ? "yaml" : "args-block");
    out_->arguments.push_back(std::move(ia));
  }

  // Whether a switch is on: a bare flag, or true in YAML / the block.
  std::optional<bool> SwitchState(const MegatronArgument& a) const {
    if (!a.has_value) return true;
    if (IsTrueText(a.value)) return true;
    if (IsFalseText(a.value)) return false;
    return std::nullopt;
  }

  absl::Status One(const MegatronArgument& a) {
    if (source_ == MegatronSource::kArgsBlock && (a.name == "--num-virtual-stages-per-pipeline-rank-given" ||
                                                  a.name == "--num-layers-per-virtual-pipeline-stage")) {
      List(a, ArgumentStatus::kMapped, "config.vpp",
           "read through the block's virtual_pipeline_model_parallel_size, the VPP Megatron-LM derived");
      return absl::OkStatus();
    }
    if (a.has_value && IsNoneText(a.value) && source_ != MegatronSource::kScript) {
      // None: the setting is left at Megatron-LM's default.
      std::vector<std::string> fields;
      for (const auto& m : FindMegatronFlag(a.name)) fields.push_back(m.entry->field);
      if (fields.empty()) {
        std::string why;
        List(a, ClassifyUnmappedMegatronFlag(a.name, &why), "", absl::StrCat("None: not set; ", why));
      } else {
        List(a, ArgumentStatus::kMapped, absl::StrJoin(fields, ", "), "None: not set (Megatron-LM's default)");
      }
      return absl::OkStatus();
    }
    seen_[a.name] = &a;
    std::vector<MegatronFlagMatch> matches = FindMegatronFlag(a.name);
    if (matches.empty()) return Unmapped(a);
    std::vector<std::string> fields;
    for (const auto& m : matches) fields.push_back(m.entry->field);
    const std::string maps_to = absl::StrJoin(fields, ", ");
    if (!a.expanded) {
      List(a, ArgumentStatus::kMapped, maps_to, "value not known, so not applied");
      out_->warnings.push_back(absl::StrCat("line ", a.line, ": ", Shown(a), ": ", a.note.empty() ? "" : a.note,
                                            a.note.empty() ? "" : "; ", maps_to,
                                            " left unset (the script does not give the value)"));
      return absl::OkStatus();
    }
    std::string note;
    bool deferred = false;
    for (const auto& m : matches) {
      const FieldEntry& e = *m.entry;
      const MegatronFlag& f = *m.flag;
      if (f.combined) {
        combined_.flags[f.name] = &a;
        // Precision and VPP-by-layers are listed once combined.
        deferred = deferred || e.field == "config.precision" || e.field == "config.vpp";
        continue;
      }
      std::optional<std::string> value;
      if (f.fixed != nullptr) {
        std::optional<bool> on = SwitchState(a);
        if (!on.has_value()) return Err(a, "a switch takes no value other than true / false");
        if (*on) {
          value = f.fixed;
        } else if (source_ == MegatronSource::kArgsBlock && e.kind == FieldKind::kBool) {
          value = std::string(f.fixed) == "true" ? "false" : "true";
        } else {
          note = source_ == MegatronSource::kYaml ? "false: the flag is not passed" : "off";
        }
      } else {
        if (!a.has_value || a.value.empty()) return Err(a, "expects a value");
        value = a.value;
        // The block prints a one-element list for some scalars (cp_comm_type ['p2p']).
        if ((e.kind == FieldKind::kString || e.kind == FieldKind::kInt) && value->size() > 2 && value->front() == '[' &&
            value->back() == ']') {
          std::vector<std::string> items = SplitListValue(*value);
          if (items.size() == 1 && e.field != "model.moe_layer_freq" && e.field != "model.window_attn_skip_freq") {
            value = items[0];
          }
        }
      }
      if (!value.has_value()) continue;
      if (absl::Status s = e.set(out_, *value, a.written.empty() ? a.name : a.written); !s.ok()) {
        return FieldError(field_, absl::StrCat("line ", a.line, ": ", s.message()));
      }
      if (absl::StartsWith(e.field, "model.")) {
        MutableImportedModel(out_)->field_sources[e.field.substr(6)] = absl::StrCat("argument ", a.name);
      }
    }
    if (!deferred) List(a, ArgumentStatus::kMapped, maps_to, note);
    return absl::OkStatus();
  }

  absl::Status Unmapped(const MegatronArgument& a) {
    const std::string name = a.name;
    // Flags older Megatron-LM releases took and d98e8a64's parser refuses.
    static const std::map<std::string, std::string> kRemoved = {
        {"--checkpoint-activations",
         "older Megatron-LM's full activation recompute (now --recompute-granularity full "
         "--recompute-method uniform)"},
        {"--activations-checkpoint-method", "older spelling of --recompute-method"},
        {"--distribute-checkpointed-activations", "older spelling of --distribute-saved-activations"},
        {"--DDP-impl", "older choice of the data-parallel wrapper (now always Megatron-Core's DDP)"},
    };
    if (auto it = kRemoved.find(name); it != kRemoved.end()) {
      List(a, ArgumentStatus::kNotModelled, "", absl::StrCat("not an argument of Megatron-LM d98e8a64: ", it->second));
      out_->warnings.push_back(absl::StrCat(Shown(a), " (line ", a.line, ") is not an argument of Megatron-LM at ",
                                            "d98e8a64, whose parser refuses it: ", it->second,
                                            "; not applied to the plan"));
      return absl::OkStatus();
    }
    if (name == "--use-precision-aware-optimizer") {
      combined_.flags[name] = &a;  // settled with --exp-avg-dtype in Checks()
      return absl::OkStatus();
    }
    if (name == "--data-parallel-sharding-strategy") {
      if (Lower(a.value) == "optim_grads_params") {
        List(a, ArgumentStatus::kMapped, "config.use_megatron_fsdp",
             "the full sharding (ZeRO-3) parplan's Megatron FSDP plan models");
      } else {
        List(a, ArgumentStatus::kNotModelled, "", "parplan models Megatron FSDP with optim_grads_params sharding only");
        out_->warnings.push_back(absl::StrCat(Shown(a),
                                              ": parplan plans Megatron FSDP as optim_grads_params "
                                              "(parameters, gradients and optimizer state sharded); this sharding "
                                              "keeps more on each GPU than the plan says"));
      }
      return absl::OkStatus();
    }
    if (name == "--world-size" && source_ == MegatronSource::kArgsBlock) {
      if (absl::Status s = FindField("placement.gpus")->set(out_, a.value, a.written); !s.ok()) return s;
      List(a, ArgumentStatus::kMapped, "placement.gpus", "");
      return absl::OkStatus();
    }
    std::string note;
    ArgumentStatus status = ClassifyUnmappedMegatronFlag(name, &note);
    List(a, status, "", note);
    return absl::OkStatus();
  }

  // --bf16 / --fp16 / --fp8-format / --fp8-recipe / --fp4-format /
  // --fp4-recipe into one parplan precision (transformer_config.py:587-679:
  // fp8_recipe defaults to delayed, fp4_recipe to nvfp4).
  absl::Status Precision() {
    const MegatronArgument* bf16 = combined_.Get("--bf16");
    const MegatronArgument* fp16 = combined_.Get("--fp16");
    const MegatronArgument* fp8 = combined_.Get("--fp8-format");
    const MegatronArgument* recipe = combined_.Get("--fp8-recipe");
    const MegatronArgument* fp4 = combined_.Get("--fp4-format");
    const MegatronArgument* fp4_recipe = combined_.Get("--fp4-recipe");
    auto on = [&](const MegatronArgument* a) { return a != nullptr && SwitchState(*a).value_or(false); };
    auto set = [&](const MegatronArgument* a) {
      return a != nullptr && a->has_value && !a->value.empty() && !IsNoneText(a->value);
    };
    const bool is_bf16 = on(bf16), is_fp16 = on(fp16);
    if (is_bf16 && is_fp16) return Conflict(*bf16, *fp16, "Megatron-LM trains in one of bf16 and fp16");
    if (set(fp8) && set(fp4)) return Conflict(*fp8, *fp4, "FP8 and FP4 recipes are exclusive");
    std::string name = "bf16";
    std::string how;
    if (set(fp4)) {
      const std::string r = set(fp4_recipe) ? Lower(fp4_recipe->value) : "nvfp4";
      if (r != "nvfp4") return Err(*fp4_recipe, "parplan models the nvfp4 FP4 recipe only");
      name = "nvfp4";
      how = absl::StrCat(Shown(*fp4), set(fp4_recipe) ? absl::StrCat(" ", Shown(*fp4_recipe)) : "");
    } else if (set(fp8)) {
      const std::string r = set(recipe) ? Lower(recipe->value) : "delayed";
      static const std::map<std::string, std::string> kRecipes = {
          {"delayed", "fp8-ds"}, {"tensorwise", "fp8-cs"}, {"mxfp8", "fp8-mx"}, {"blockwise", "fp8-sc"}};
      auto it = kRecipes.find(r);
      if (it == kRecipes.end()) {
        return Err(*recipe, "allowed: delayed, tensorwise, mxfp8, blockwise (a custom recipe is not modelled)");
      }
      const std::string format = Lower(fp8->value);
      if (format != "hybrid" && format != "e4m3") return Err(*fp8, "allowed: hybrid, e4m3");
      name = it->second;
      how = absl::StrCat(Shown(*fp8), set(recipe) ? absl::StrCat(" ", Shown(*recipe))
                                                  : " (no --fp8-recipe: Megatron's default delayed scaling)");
    } else if (is_fp16) {
      out_->warnings.push_back(absl::StrCat(
          "--fp16 (line ", fp16->line,
          "): parplan has no FP16 precision; it plans FP16 as BF16 (both hold 2-byte weights, activations and "
          "gradients; the FP16 loss scaler is not modelled)"));
      how = "--fp16 (planned as bf16)";
    } else if (is_bf16) {
      how = "--bf16";
    }
    if (source_ != MegatronSource::kArgsBlock && set(recipe) && !set(fp8)) {
      out_->warnings.push_back(absl::StrCat(Shown(*recipe), " (line ", recipe->line,
                                            ") without --fp8-format: Megatron-LM trains without FP8; no effect"));
    }
    const bool any = bf16 != nullptr || fp16 != nullptr || fp8 != nullptr || fp4 != nullptr || recipe != nullptr ||
                     fp4_recipe != nullptr;
    if (!any) return absl::OkStatus();
    if (!is_bf16 && !is_fp16 && !set(fp8) && !set(fp4) && source_ != MegatronSource::kArgsBlock) {
      out_->warnings.push_back(
          "neither --bf16 nor --fp16: Megatron-LM trains in FP32, which parplan does not plan; planned as bf16");
    }
    out_->config.precision = name;
    for (const MegatronArgument* a : {bf16, fp16, fp8, recipe, fp4, fp4_recipe}) {
      if (a != nullptr) List(*a, ArgumentStatus::kMapped, "config.precision", absl::StrCat(name, " from ", how));
    }
    if (out_->config.fp8_param_gather.value_or(false) && !IsFp8(*ParsePrecision(name, "precision"))) {
      out_->warnings.push_back(absl::StrCat("--fp8-param-gather without an FP8 recipe (precision ", name,
                                            "): no FP8 parameters to gather; no effect"));
      out_->config.fp8_param_gather.reset();
    }
    return absl::OkStatus();
  }

  const MegatronArgument* Seen(const std::string& name) const {
    auto it = seen_.find(name);
    return it == seen_.end() ? nullptr : it->second;
  }
  bool SeenOn(const std::string& name) const {
    const MegatronArgument* a = Seen(name);
    return a != nullptr && SwitchState(*a).value_or(true) && !(a->has_value && IsNoneText(a->value));
  }

  // Megatron-LM's checks (arguments.py validate_args) and silent overrides.
  absl::Status Checks() {
    ParallelConfig& c = out_->config;
    // Virtual pipeline: one of three ways (arguments.py:928-938).
    const MegatronArgument* per_stage = combined_.Get("--num-layers-per-virtual-pipeline-stage");
    const MegatronArgument* vstages = Seen("--num-virtual-stages-per-pipeline-rank");
    const MegatronArgument* layout = Seen("--pipeline-model-parallel-layout");
    if (per_stage != nullptr && layout != nullptr) {
      return Conflict(*per_stage, *layout, "Megatron-LM takes at most one of them (arguments.py:928)");
    }
    if (vstages != nullptr && layout != nullptr && source_ != MegatronSource::kArgsBlock) {
      return Conflict(*vstages, *layout, "Megatron-LM takes at most one of them (arguments.py:928)");
    }
    if (per_stage != nullptr && vstages != nullptr && source_ != MegatronSource::kArgsBlock) {
      return Conflict(*per_stage, *vstages, "Megatron-LM takes at most one of them (arguments.py:928)");
    }
    if (per_stage != nullptr) {
      if (!per_stage->expanded) {
        List(*per_stage, ArgumentStatus::kMapped, "config.vpp", "value not known, so not applied");
      } else if (absl::Status s = VppFromLayersPerStage(*per_stage); !s.ok()) {
        return s;
      }
    }
    // Sequence parallelism needs TP > 1 (arguments.py:1432-1439).
    const int64_t tp = c.tp > 0 ? c.tp : 1;
    if (c.sp.value_or(false) && tp == 1) {
      out_->warnings.push_back(absl::StrCat("--sequence-parallel with --tensor-model-parallel-size ", tp,
                                            ": Megatron-LM turns sequence parallelism off when TP is 1 (", kArgsPy,
                                            ":1432-1439); planned without it"));
      c.sp = false;
    }
    if (c.tp_comm_overlap.value_or(false) && !c.sp.value_or(false)) {
      const MegatronArgument* o = Seen("--tp-comm-overlap");
      const MegatronArgument* sp = Seen("--sequence-parallel");
      if (o != nullptr) {
        if (sp != nullptr) {
          return Conflict(*o, *sp,
                          "TP communication overlap needs sequence parallelism on with TP > 1 (arguments.py:1442)");
        }
        return Err(*o, "TP communication overlap needs --sequence-parallel (arguments.py:1442)");
      }
    }
    // Megatron FSDP v1 runs the distributed optimizer (arguments.py:1125-1134).
    if (c.use_megatron_fsdp && !c.use_distributed_optimizer.value_or(false)) {
      out_->warnings.push_back(
          "--use-megatron-fsdp without --use-distributed-optimizer: Megatron-LM uses the distributed optimizer "
          "anyway (arguments.py:1125-1134)");
      c.use_distributed_optimizer = true;
    }
    // Adam moment dtype needs the precision-aware optimizer.
    const MegatronArgument* pao = combined_.Get("--use-precision-aware-optimizer");
    if (pao != nullptr) {
      if (!c.optimizer_state_dtype.empty() || c.optimizer_cpu_offload.value_or(false)) {
        List(*pao, ArgumentStatus::kMapped, "config.optimizer_state_dtype",
             "with --exp-avg-dtype / --optimizer-cpu-offload");
      } else {
        List(*pao, ArgumentStatus::kNotModelled, "",
             "the precision-aware optimizer with FP32 moments: master weights and moments as parplan sizes them");
      }
    } else if (c.optimizer_state_dtype == "bf16") {
      const MegatronArgument* d = Seen("--exp-avg-dtype");
      if (d == nullptr) d = Seen("--exp-avg-sq-dtype");
      if (d != nullptr) {
        out_->warnings.push_back(absl::StrCat(Shown(*d),
                                              ": Megatron-LM reads the moment dtype only with "
                                              "--use-precision-aware-optimizer; planned with BF16 moments as asked"));
      }
    }
    if (c.optimizer_cpu_offload.value_or(false) && !c.optimizer_offload_fraction.has_value()) {
      c.optimizer_offload_fraction = 1.0;  // Megatron-LM's --optimizer-offload-fraction default
      out_->notes.push_back("optimizer_offload_fraction = 1.0: Megatron-LM's --optimizer-offload-fraction default");
    }
    // Recompute: --recompute-activations is selective (arguments.py).
    const MegatronArgument* ra = Seen("--recompute-activations");
    const MegatronArgument* rg = Seen("--recompute-granularity");
    if (ra != nullptr && rg != nullptr && Lower(rg->value) != "selective" && source_ != MegatronSource::kArgsBlock &&
        SwitchState(*ra).value_or(false)) {
      return Conflict(*ra, *rg, "--recompute-activations means selective recompute");
    }
    const MegatronArgument* ffd = Seen("--decoder-first-pipeline-num-layers");
    if (per_stage != nullptr && ffd != nullptr) {
      return Conflict(*per_stage, *ffd,
                      "uneven first / last stages need --num-virtual-stages-per-pipeline-rank (arguments.py:955)");
    }
    return absl::OkStatus();
  }

  // VPP = (num_layers [+1 embedding] [+1 loss]) / PP / N (arguments.py:953-979).
  absl::Status VppFromLayersPerStage(const MegatronArgument& a) {
    int64_t per = 0;
    if (absl::Status s = ParseIntValue(a.value, a.name, 1, 1 << 20, &per); !s.ok()) {
      return FieldError(field_, absl::StrCat("line ", a.line, ": ", s.message()));
    }
    const ModelSpec* m = out_->model.has_value() ? &*out_->model : nullptr;
    int64_t layers = m != nullptr ? m->num_layers : 0;
    if (layers <= 0) return Err(a, "needs --num-layers to derive the virtual pipeline size");
    layers += out_->config.account_for_embedding ? 1 : 0;
    layers += out_->config.account_for_loss ? 1 : 0;
    const int64_t pp = out_->config.pp > 0 ? out_->config.pp : 1;
    if (layers % pp != 0 || (layers / pp) % per != 0) {
      return Err(a, absl::StrCat("the ", layers, " layers over PP ", pp,
                                 " do not split into virtual stages of this many layers (arguments.py:968-975)"));
    }
    const int64_t vpp = layers / pp / per;
    out_->config.vpp = vpp;
    List(a, ArgumentStatus::kMapped, "config.vpp",
         absl::StrCat("VPP = ", layers, " layers / PP ", pp, " / ", per, " = ", vpp));
    return absl::OkStatus();
  }

  void Default(ModelSpec* m, const std::string& field, const std::string& value, const std::string& why) {
    if (m->field_sources.count(field)) return;
    m->field_sources[field] = absl::StrCat("megatron_lm_default: ", why);
    out_->notes.push_back(absl::StrCat("model.", field, " = ", value, " (not given: ", why, ")"));
  }
  bool Given(const ModelSpec& m, const std::string& field) const { return m.field_sources.count(field) > 0; }

  // The model from the arguments alone, Megatron-LM's defaults where they
  // are silent (arguments.py:1320-1333 and the parser's defaults).
  void BuildModel() {
    if (!out_->model.has_value()) return;
    ModelSpec& m = *out_->model;
    m.origin = "import";
    m.id = "megatron-lm-import";
    m.name = "model of a Megatron-LM launch";
    const bool hybrid = !m.hybrid_layer_pattern.empty();
    if (hybrid) {
      const int64_t pattern_layers = HybridPatternLayers(MainHybridPattern(m.hybrid_layer_pattern));
      if (Given(m, "num_layers") && m.num_layers != pattern_layers) {
        out_->warnings.push_back(absl::StrCat("--num-layers ", m.num_layers, " with --hybrid-layer-pattern of ",
                                              pattern_layers, " layers: Megatron-LM takes the pattern's (", kArgsPy,
                                              ":788-797)"));
      }
      m.num_layers = pattern_layers;
      m.field_sources["num_layers"] = "the hybrid layer pattern";
    }
    // Activation: plain GELU unless --swiglu / --quick-geglu / --squared-relu.
    const MegatronArgument* swiglu = Seen("--swiglu");
    const MegatronArgument* sqrelu = Seen("--squared-relu");
    const MegatronArgument* geglu = Seen("--quick-geglu");
    if (!Given(m, "gated_linear_unit")) {
      m.gated_linear_unit = false;
      Default(&m, "gated_linear_unit", "false", "no --swiglu: Megatron-LM's plain MLP");
    }
    if (!Given(m, "activation_func")) {
      m.activation_func = "gelu";
      Default(&m, "activation_func", "gelu", "no --swiglu / --squared-relu / --quick-geglu: GELU");
    }
    auto on = [&](const MegatronArgument* a) { return a != nullptr && SwitchState(*a).value_or(false); };
    for (const MegatronArgument* other : {sqrelu, geglu}) {
      if (on(swiglu) && on(other)) {
        conflict_ = absl::StrCat(Shown(*swiglu), " (line ", swiglu->line, ") contradicts ", Shown(*other), " (line ",
                                 other->line, "): Megatron-LM takes one activation (argument_utils.py:320-325)");
      }
    }
    if (!Given(m, "normalization")) {
      m.normalization = "LayerNorm";
      Default(&m, "normalization", "LayerNorm", "--normalization defaults to LayerNorm");
    }
    if (!Given(m, "position_embedding_type")) {
      m.position_embedding_type = "learned_absolute";
      Default(&m, "position_embedding_type", "learned_absolute",
              "--position-embedding-type defaults to learned_absolute (arguments.py:2395)");
    }
    if (!Given(m, "add_bias_linear")) {
      m.add_bias_linear = true;
      Default(&m, "add_bias_linear", "true",
              "no --disable-bias-linear: biases on (transformer_config.py:212 add_bias_linear=True)");
    }
    if (!Given(m, "share_embeddings_and_output_weights")) {
      m.share_embeddings_and_output_weights = true;
      Default(&m, "share_embeddings_and_output_weights", "true",
              "no --untie-embeddings-and-output-weights: the output layer shares the embedding");
    }
    if (m.hidden_size > 0 && !Given(m, "ffn_hidden_size")) {
      m.ffn_hidden_size = m.gated_linear_unit && m.activation_func == "silu" ? (4 * m.hidden_size * 2 / 3) / 64 * 64
                                                                             : 4 * m.hidden_size;
      Default(&m, "ffn_hidden_size", absl::StrCat(m.ffn_hidden_size),
              m.activation_func == "silu" ? "with --swiglu: int(4h x 2/3 / 64) x 64 (arguments.py:1321-1327)"
                                          : "4 x hidden_size (arguments.py:1329)");
    }
    // Query groups: only with --group-query-attention (argument_utils.py:330-333).
    const MegatronArgument* gqa = combined_.Get("--group-query-attention");
    const bool gqa_on = gqa != nullptr && SwitchState(*gqa).value_or(false);
    if (Given(m, "num_query_groups") && !gqa_on && source_ == MegatronSource::kArgsBlock) {
      m.field_sources.erase("num_query_groups");
      m.num_query_groups = 0;
    } else if (Given(m, "num_query_groups") && !gqa_on) {
      out_->warnings.push_back(absl::StrCat(
          "--num-query-groups ", m.num_query_groups,
          " without --group-query-attention: Megatron-LM ignores it (argument_utils.py:330-333); every head has its "
          "own K/V"));
      m.field_sources.erase("num_query_groups");
      m.num_query_groups = 0;
    }
    if (gqa_on && !Given(m, "num_query_groups")) {
      m.num_query_groups = 1;
      Default(&m, "num_query_groups", "1", "--group-query-attention without --num-query-groups: the parser's 1");
    }
    if (m.num_attention_heads > 0 && m.num_query_groups == 0) {
      m.num_query_groups = m.num_attention_heads;
      Default(&m, "num_query_groups", absl::StrCat(m.num_query_groups), "no --group-query-attention: one per head");
    }
    if (m.hidden_size > 0 && m.num_attention_heads > 0 && !Given(m, "kv_channels")) {
      m.kv_channels = m.hidden_size / m.num_attention_heads;
      m.kv_channels_defaulted = true;
      Default(&m, "kv_channels", absl::StrCat(m.kv_channels), "hidden_size / num_attention_heads (arguments.py:1333)");
    }
    if (!Given(m, "seq_length") && out_->config.seq_length > 0) {
      m.seq_length = out_->config.seq_length;
      Default(&m, "seq_length", absl::StrCat(m.seq_length),
              "no --max-position-embeddings: taken as --seq-length (Megatron-LM requires it >= seq_length)");
    }
    if (m.seq_length > 0 && out_->config.seq_length > m.seq_length) {
      out_->warnings.push_back(absl::StrCat("--seq-length ", out_->config.seq_length, " > --max-position-embeddings ",
                                            m.seq_length, ": Megatron-LM refuses it (arguments.py:1353-1356)"));
    }
    // --no-position-embedding: refused unless RoPE (arguments.py:1633-1634).
    const MegatronArgument* nope = combined_.Get("--no-position-embedding");
    if (nope != nullptr) {
      const bool on = source_ == MegatronSource::kArgsBlock ? !SwitchState(*nope).value_or(true)
                                                            : SwitchState(*nope).value_or(false);
      if (on && m.position_embedding_type != "rope") {
        conflict_ = absl::StrCat(Shown(*nope), " (line ", nope->line, ") contradicts --position-embedding-type ",
                                 m.position_embedding_type,
                                 ": Megatron-LM refuses --no-position-embedding unless the type is rope "
                                 "(arguments.py:1633-1634)");
      }
    }
    if (m.multi_latent_attention) {
      if (gqa_on) {
        conflict_ =
            absl::StrCat("--group-query-attention (line ", gqa->line,
                         ") contradicts --multi-latent-attention: Megatron-LM refuses both (arguments.py:1974)");
      }
      if (!Given(m, "kv_lora_rank")) {
        m.kv_lora_rank = 32;
        Default(&m, "kv_lora_rank", "32", "--kv-lora-rank's default");
      }
      if (!Given(m, "qk_head_dim")) {
        m.qk_head_dim = 128;
        Default(&m, "qk_head_dim", "128", "--qk-head-dim's default");
      }
      if (!Given(m, "qk_pos_emb_head_dim")) {
        m.qk_pos_emb_head_dim = 64;
        Default(&m, "qk_pos_emb_head_dim", "64", "--qk-pos-emb-head-dim's default");
      }
      if (!Given(m, "v_head_dim")) {
        m.v_head_dim = 128;
        Default(&m, "v_head_dim", "128", "--v-head-dim's default");
      }
      if (!Given(m, "q_lora_rank")) {
        Default(&m, "q_lora_rank", "none", "--q-lora-rank's default None: no query down-projection");
      }
      if (m.rope_scaling_factor > 1 && m.rope_scaling_type.empty()) {
        m.rope_scaling_type = "yarn";
        Default(&m, "rope_scaling_type", "yarn", "MLA with --rotary-scaling-factor: YaRN");
      }
    }
    if (m.num_moe_experts > 0) {
      if (!Given(m, "moe_router_topk")) {
        m.moe_router_topk = 2;
        Default(&m, "moe_router_topk", "2", "--moe-router-topk's default (transformer_config.py:760)");
      }
      if (!Given(m, "moe_ffn_hidden_size") && m.ffn_hidden_size > 0) {
        m.moe_ffn_hidden_size = m.ffn_hidden_size;
        m.moe_ffn_defaulted = true;
        Default(&m, "moe_ffn_hidden_size", absl::StrCat(m.moe_ffn_hidden_size),
                "no --moe-ffn-hidden-size: Megatron-LM takes ffn_hidden_size (arguments.py:1650-1652)");
      }
    }
    if (hybrid) {
      if (!Given(m, "mamba_state_dim")) {
        m.mamba_state_dim = 128;
        Default(&m, "mamba_state_dim", "128", "Megatron-Core's default (transformer_config.py:1259)");
      }
      if (!Given(m, "mamba_head_dim")) {
        m.mamba_head_dim = 64;
        Default(&m, "mamba_head_dim", "64", "Megatron-Core's default (transformer_config.py:1262)");
      }
      if (!Given(m, "mamba_num_groups")) {
        m.mamba_num_groups = 8;
        Default(&m, "mamba_num_groups", "8", "Megatron-Core's default (transformer_config.py:1265)");
      }
      if (!Given(m, "mamba_num_heads") && m.hidden_size > 0 && m.mamba_head_dim > 0) {
        m.mamba_num_heads = 2 * m.hidden_size / m.mamba_head_dim;
        Default(&m, "mamba_num_heads", absl::StrCat(m.mamba_num_heads),
                "2 x hidden_size / mamba_head_dim (the Mamba mixer's expand of 2)");
      }
    }
    if (out_->config.mtp_num_layers.has_value()) m.mtp_num_layers = *out_->config.mtp_num_layers;
    // Vocabulary: stated, or the tokenizer's.
    if (!Given(m, "vocab_size")) {
      const MegatronArgument* tok = Seen("--tokenizer-type");
      const MegatronArgument* model_file = Seen("--tokenizer-model");
      if (model_file == nullptr) model_file = Seen("--vocab-file");
      std::vector<std::string> from;
      if (tok != nullptr) from.push_back(Shown(*tok));
      if (model_file != nullptr) from.push_back(Shown(*model_file));
      out_->warnings.push_back(absl::StrCat(
          "no --vocab-size: Megatron-LM takes the vocabulary from the tokenizer",
          from.empty() ? "" : absl::StrCat(" (", absl::StrJoin(from, ", "), ")"),
          "; parplan cannot read the tokenizer file, so the vocabulary size must be given (model.vocab_size)"));
    }
    m.kind = hybrid ? (m.num_moe_experts > 0 ? "hybrid_mamba_moe" : "hybrid_mamba")
                    : (m.num_moe_experts > 0 ? (m.multi_latent_attention ? "mla_moe" : "moe") : "dense");
    m.missing_fields.clear();
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, int64_t>>{{"num_layers", m.num_layers},
                                                      {"hidden_size", m.hidden_size},
                                                      {"num_attention_heads", m.num_attention_heads},
                                                      {"vocab_size", m.vocab_size}}) {
      if (value <= 0) m.missing_fields.push_back(name);
    }
    std::vector<std::string> defaulted;
    for (const auto& [f, src] : m.field_sources) {
      if (absl::StartsWith(src, "megatron_lm_default")) defaulted.push_back(f);
    }
    if (!defaulted.empty()) {
      m.notes.push_back(absl::StrCat("Megatron-LM defaults (arguments not given): ", absl::StrJoin(defaulted, ", ")));
    }
  }

 public:
  std::string conflict_;

 private:
  MegatronSource source_;
  std::string field_;
  ImportedConfig* out_;
  Combined combined_;
  std::map<std::string, const MegatronArgument*> seen_;
};

// Flags without an effect on a plan: where things are read and written,
// logging, data, tokenizer, checkpointing and the run's length.
bool NoEffect(const std::string& f) {
  static const char* const kExact[] = {"--save",
                                       "--load",
                                       "--data-path",
                                       "--split",
                                       "--vocab-file",
                                       "--merge-file",
                                       "--tokenizer-type",
                                       "--tokenizer-model",
                                       "--tiktoken-pattern",
                                       "--mock-data",
                                       "--num-workers",
                                       "--data-cache-path",
                                       "--train-iters",
                                       "--train-samples",
                                       "--eval-iters",
                                       "--eval-interval",
                                       "--save-interval",
                                       "--log-interval",
                                       "--tensorboard-dir",
                                       "--wandb-project",
                                       "--wandb-exp-name",
                                       "--wandb-save-dir",
                                       "--distributed-timeout-minutes",
                                       "--no-load-optim",
                                       "--no-load-rng",
                                       "--ckpt-format",
                                       "--auto-detect-ckpt-format",
                                       "--dist-ckpt-strictness",
                                       "--use-mcore-models",
                                       "--seed",
                                       "--exit-duration-in-mins",
                                       "--exit-interval",
                                       "--exit-signal-handler",
                                       "--no-mmap-bin-files",
                                       "--no-create-attention-mask-in-dataloader",
                                       "--distributed-backend",
                                       "--logging-level",
                                       "--profile",
                                       "--profile-step-start",
                                       "--profile-step-end",
                                       "--profile-ranks",
                                       "--record-memory-history",
                                       "--memory-snapshot-path",
                                       "--timing-log-level",
                                       "--timing-log-option",
                                       "--pretrained-checkpoint",
                                       "--finetune",
                                       "--use-checkpoint-args",
                                       "--train-data-path",
                                       "--valid-data-path",
                                       "--test-data-path",
                                       "--data-args-path",
                                       "--per-split-data-args-path",
                                       "--reset-position-ids",
                                       "--reset-attention-mask",
                                       "--eod-mask-loss",
                                       "--enable-one-logger",
                                       "--one-logger-project",
                                       "--one-logger-run-name",
                                       "--check-for-nan-in-loss-and-grad",
                                       "--no-check-for-nan-in-loss-and-grad",
                                       "--tokenizer-metadata",
                                       "--legacy-tokenizer",
                                       "--hf-tokenizer-library"};
  for (const char* e : kExact) {
    if (f == e) return true;
  }
  static const char* const kPrefixes[] = {
      "--log-",  "--save-",      "--load-",           "--tensorboard-", "--wandb-",
      "--ckpt-", "--eval-",      "--one-logger",      "--straggler",    "--data-",
      "--exit-", "--async-save", "--non-persistent-", "--dist-ckpt",    "--profile"};
  for (const char* p : kPrefixes) {
    if (absl::StartsWith(f, p)) return true;
  }
  return false;
}

}  // namespace

ArgumentStatus ClassifyUnmappedMegatronFlag(std::string_view flag, std::string* note) {
  const std::string f(flag);
  if (NoEffect(f)) {
    *note = "paths, data, tokenizer, logging, checkpointing or run length: no effect on the plan";
    return ArgumentStatus::kNoEffect;
  }
  struct Why {
    const char* prefix;
    const char* why;
  };
  static const Why kWhy[] = {
      {"--lr", "learning-rate schedule: changes training, not memory or step time"},
      {"--min-lr", "learning-rate schedule: changes training, not memory or step time"},
      {"--decoupled-", "learning-rate schedule: changes training, not memory or step time"},
      {"--weight-decay", "optimizer hyper-parameter: changes training, not memory or step time"},
      {"--adam-", "optimizer hyper-parameter: changes training, not memory or step time"},
      {"--clip-grad", "gradient clipping: changes training; its norm all-reduce is not modelled"},
      {"--init-method", "initialization: changes training, not memory or step time"},
      {"--attention-dropout", "dropout: changes training; its masks are not modelled"},
      {"--hidden-dropout", "dropout: changes training; its masks are not modelled"},
      {"--rotary-", "RoPE settings: change the numerics, not the model's size or speed"},
      {"--rope-", "RoPE settings: change the numerics, not the model's size or speed"},
      {"--norm-epsilon", "normalization epsilon: numerics only"},
      {"--apply-layernorm-1p", "zero-centred norm weights: numerics only"},
      {"--qk-layernorm", "QK normalization: adds 2 x head-dim weights per layer and a small kernel, not modelled"},
      {"--moe-router-", "router settings: change routing; parplan assumes balanced routing"},
      {"--moe-aux-loss", "router auxiliary loss: changes training, not memory or step time"},
      {"--moe-z-loss", "router z-loss: changes training, not memory or step time"},
      {"--moe-grouped-gemm", "grouped expert GEMM kernels: a speed choice parplan does not model"},
      {"--moe-per-layer-logging", "MoE logging"},
      {"--mtp-loss-scaling-factor", "MTP loss weight: changes training only"},
      {"--fp8-amax-", "delayed-scaling history / algorithm: numerics only"},
      {"--fp8-margin", "FP8 scaling margin: numerics only"},
      {"--overlap-param-gather", "parameter all-gather overlap: a speed choice parplan does not model"},
      {"--use-flash-attn", "deprecated: Megatron-Core picks attention through --attention-backend"},
      {"--transformer-impl", "parplan assumes Transformer Engine layers"},
      {"--no-masked-softmax-fusion", "kernel fusion choice: speed not modelled"},
      {"--no-bias-", "kernel fusion choice: speed not modelled"},
      {"--no-rope-fusion", "kernel fusion choice: speed not modelled"},
      {"--no-gradient-accumulation-fusion", "kernel fusion choice: speed not modelled"},
      {"--cross-entropy-loss-fusion", "kernel fusion choice: speed not modelled"},
      {"--attention-softmax-in-fp32", "softmax dtype: numerics only"},
      {"--disable-bf16-reduced-precision-matmul", "matmul accumulation: numerics only"},
      {"--calculate-per-token-loss", "loss normalization: changes training only"},
      {"--manual-gc", "Python garbage collection timing: speed not modelled"},
      {"--empty-unused-memory-level", "allocator cache emptying: speed and fragmentation not modelled"},
      {"--megatron-fsdp-", "Megatron FSDP buffer dtypes and pools: not modelled"},
      {"--fsdp-", "Megatron FSDP buffers and registration: not modelled"},
      {"--use-nccl-ub", "NCCL user buffers: speed not modelled"},
      {"--init-model-with-meta-device", "initialization on the meta device: no effect on the trained step"},
      {"--num-distributed-optimizer-instances", "hierarchical distributed optimizer: not modelled"},
      {"--outer-dp-sharding-strategy", "hierarchical FSDP: not modelled"},
      {"--step-batch-size-schedule", "batch-size ramp-up: parplan plans the final --global-batch-size"},
      {"--rampup-batch-size", "batch-size ramp-up: parplan plans the final --global-batch-size"},
      {"--spec", "a custom layer spec: parplan plans the standard layers"},
      {"--enable-experimental", "experimental Megatron features: not modelled"},
      {"--enable-gpt-oss", "GPT-OSS details beyond its architecture fields: not modelled"},
      {"--glu-linear-offset", "GPT-OSS activation detail: numerics only"},
      {"--activation-func-clamp-value", "activation clamp: numerics only"},
      {"--export-force-local-attention", "export-time attention choice: no effect on training"},
      {"--mscale", "YaRN attention scale: numerics only"},
      {"--use-distributed-optimizer", ""},
  };
  for (const auto& w : kWhy) {
    if (absl::StartsWith(f, w.prefix) && w.why[0] != '\0') {
      *note = w.why;
      return ArgumentStatus::kNotModelled;
    }
  }
  *note = "not modelled by parplan";
  return ArgumentStatus::kNotModelled;
}

absl::Status ApplyMegatronArguments(const std::vector<MegatronArgument>& args, MegatronSource source,
                                    const std::string& field, ImportedConfig* out) {
  Applier applier(source, field, out);
  if (absl::Status s = applier.Run(args); !s.ok()) return s;
  if (!applier.conflict_.empty()) return FieldError(field, applier.conflict_);
  return absl::OkStatus();
}

}  // namespace parplan
