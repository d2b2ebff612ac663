#include "core/import/bridge_settings.h"

#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/config/parallel_config.h"
#include "core/import/bridge_paths.h"
#include "core/import/field_map.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

struct Preset {
  const char* name;
  const char* precision;  // "" = not modelled
  const char* note;
};
// src/megatron/bridge/training/mixed_precision.py at 067f987df0.
constexpr Preset kPresets[] = {
    {"bf16_mixed", "bf16", ""},
    {"bf16_with_fp8_delayed_scaling_mixed", "fp8-ds", ""},
    {"bf16_with_mxfp8_mixed", "fp8-mx", ""},
    {"bf16_with_fp8_current_scaling_mixed", "fp8-cs", ""},
    {"nemotron_h_bf16_with_fp8_current_scaling_mixed", "fp8-cs",
     "the Nemotron-H preset also keeps the first and last layers in BF16 (first_last_layers_bf16; not modelled)"},
    {"nanov2_bf16_with_fp8_current_scaling_mixed", "fp8-sc",
     "the Nemotron Nano v2 preset uses blockwise FP8 scaling (mixed_precision.py:342)"},
    {"bf16_with_fp8_subchannel_scaling_mixed", "fp8-sc", ""},
    {"bf16_with_nvfp4_mixed", "nvfp4", ""},
    {"nemotron_3_super_bf16_with_nvfp4_mixed", "nvfp4",
     "the Nemotron 3 Super preset keeps some layers in BF16 (not modelled)"},
};

std::string Where(const BridgeValue& s) { return s.line > 0 ? absl::StrCat("line ", s.line, ": ") : ""; }

absl::Status UnknownPath(const std::string& field, int64_t line, const std::string& path) {
  return FieldError(field, absl::StrCat(line > 0 ? absl::StrCat("line ", line, ": ") : "", "\"", path,
                                        "\" is not a Megatron Bridge ConfigContainer path parplan knows; nearest: ",
                                        absl::StrJoin(NearestBridgePaths(path), ", ")));
}

const FieldEntry* EntryFor(std::string_view path) {
  if (const FieldEntry* e = FindBridgePath(path)) return e;
  // The adapter class names the PEFT method (LoRA, DoRA): common.py:258.
  if (path == "peft._target_") return FindBridgePath("peft");
  // MixedPrecisionConfig.setup copies each of its fields onto the model,
  // optimizer and DDP configs that have one (mixed_precision.py:113-163), so
  // mixed_precision.grad_reduce_in_fp32 sets ddp.grad_reduce_in_fp32.
  if (path.substr(0, 16) == "mixed_precision.") {
    const std::string rest(path.substr(16));
    for (const char* section : {"ddp.", "optimizer.", "model."})
      if (const FieldEntry* e = FindBridgePath(absl::StrCat(section, rest))) return e;
  }
  return nullptr;
}

std::string Get(const std::vector<BridgeValue>& settings, const std::string& path) {
  for (const auto& s : settings)
    if (s.path == path && !s.deleted) return s.value;
  return "";
}

// The preset a MixedPrecisionConfig's fields spell (mixed_precision.py at
// 067f987df0: fp8 "hybrid" / "e4m3" with fp8_recipe delayed :227, mxfp8
// :263, tensorwise :298, blockwise :383; fp4 "e2m1" :413; fp16 :201).
std::string PresetOfFields(const std::vector<BridgeValue>& settings) {
  auto get = [&](const char* f) {
    const std::string v = Get(settings, absl::StrCat("mixed_precision.", f));
    return v.empty() ? std::string("null") : v;
  };
  const std::string prefix = get("fp16") == "true" ? "fp16" : "bf16";
  if (get("fp4") != "null") return absl::StrCat(prefix, "_with_nvfp4_mixed");
  if (get("fp8") != "null") {
    const std::string r = get("fp8_recipe");
    if (r == "delayed") return absl::StrCat(prefix, "_with_fp8_delayed_scaling_mixed");
    if (r == "mxfp8") return absl::StrCat(prefix, "_with_mxfp8_mixed");
    if (r == "tensorwise") return absl::StrCat(prefix, "_with_fp8_current_scaling_mixed");
    if (r == "blockwise") return absl::StrCat(prefix, "_with_fp8_subchannel_scaling_mixed");
    return absl::StrCat(prefix, "_with_fp8_", r, "_mixed");
  }
  return absl::StrCat(prefix, "_mixed");
}

// The settings in the order Bridge applies them: the mixed-precision preset
// and its fields last (MixedPrecisionConfig.setup overwrites the model,
// optimizer and DDP fields it shares), a preset derived from a
// MixedPrecisionConfig's fields when the source sets the object, not a name.
std::vector<BridgeValue> InApplyOrder(const std::vector<BridgeValue>& settings) {
  std::vector<BridgeValue> rest, mixed;
  bool preset = false, object = false;
  const BridgeValue* target = nullptr;
  for (const auto& s : settings) {
    if (s.path == "mixed_precision") preset = true;
    if (s.path == "mixed_precision._target_") {
      object = true;
      target = &s;
    }
    (absl::StartsWith(s.path, "mixed_precision") ? mixed : rest).push_back(s);
  }
  if (object && !preset && target != nullptr && !target->deleted) {
    BridgeValue derived = *target;
    derived.path = "mixed_precision";
    derived.value = PresetOfFields(settings);
    derived.note = "the preset the MixedPrecisionConfig's fields spell (fp8, fp8_recipe, fp4, fp16)";
    rest.push_back(derived);
  }
  for (auto& m : mixed) rest.push_back(std::move(m));
  return rest;
}

bool Known(std::string_view path) { return EntryFor(path) != nullptr || ClassifyBridgePath(path).has_value(); }

// Fields whose null means a value rather than "unset".
bool NullIsAValue(const FieldEntry& e) { return e.field == "config.peft" || e.field == "config.recompute_granularity"; }

// Removes the settings of the fields of object `path` ("comm_overlap.*").
void DropFieldsOf(const std::string& path, std::vector<BridgeValue>* settings) {
  const std::string prefix = path + ".";
  std::vector<BridgeValue> kept;
  for (auto& s : *settings)
    if (!absl::StartsWith(s.path, prefix)) kept.push_back(std::move(s));
  *settings = std::move(kept);
}

}  // namespace

std::string PrecisionOfBridgePreset(std::string_view preset, std::string* note) {
  for (const auto& p : kPresets) {
    if (preset == p.name) {
      if (note != nullptr) *note = p.note;
      return p.precision;
    }
  }
  return "";
}

absl::StatusOr<std::string> BridgeLayoutToString(const std::string& value, const std::string& argument) {
  if (value.empty() || value.front() != '[') return value;
  std::vector<std::string> stages;
  for (const auto& stage : BridgeListItems(value)) {
    std::string text;
    std::vector<std::string> layers = BridgeListItems(stage);
    if (layers.size() == 1 && layers[0].empty()) layers.clear();
    for (size_t i = 0; i < layers.size();) {
      char sym = 0;
      if (layers[i] == "embedding") sym = 'E';
      if (layers[i] == "decoder") sym = 't';
      if (layers[i] == "mtp") sym = 'm';
      if (layers[i] == "loss") sym = 'L';
      if (sym == 0)
        return FieldError(argument, absl::StrCat("layer \"", layers[i].substr(0, 40),
                                                 "\" in the pipeline layout; allowed: embedding, decoder, mtp, loss"));
      size_t j = i;
      while (j < layers.size() && layers[j] == layers[i]) ++j;
      absl::StrAppend(&text, std::string(1, sym), j - i > 1 ? absl::StrCat("*", j - i) : "");
      i = j;
    }
    stages.push_back(text);
  }
  return absl::StrJoin(stages, "|");
}

absl::Status ApplyBridgeOverrides(const std::vector<BridgeOverride>& overrides, const std::string& field,
                                  std::vector<BridgeValue>* settings) {
  auto find = [&](const std::string& path) -> BridgeValue* {
    for (auto& s : *settings)
      if (s.path == path) return &s;
    return nullptr;
  };
  for (const auto& o : overrides) {
    const std::string at = o.line > 0 ? absl::StrCat("line ", o.line, ": ") : "";
    BridgeValue* cur = find(o.path);
    if (!Known(o.path) && cur == nullptr) return UnknownPath(field, o.line, o.path);
    BridgeValue next{o.path, o.value, "override", o.line, o.note, false};
    switch (o.op) {
      case OverrideOp::kAdd:
        if (cur != nullptr && !cur->deleted)
          return FieldError(
              field, absl::StrCat(at, "\"+", o.path, "\": the config already has ", o.path, " = ", cur->value,
                                  " (Hydra's + adds a new key); write ", o.path, "=VALUE or ++", o.path, "=VALUE"));
        [[fallthrough]];
      case OverrideOp::kSet:
      case OverrideOp::kForceAdd:
        if (cur != nullptr) {
          *cur = next;
        } else {
          settings->push_back(next);
        }
        // A whole object set to None takes its fields with it
        // (comm_overlap=null drops comm_overlap.tp_comm_overlap).
        if (o.value == "null") DropFieldsOf(o.path, settings);
        break;
      case OverrideOp::kDelete:
        if (cur != nullptr && !o.value.empty() && cur->value != o.value)
          return FieldError(field, absl::StrCat(at, "\"~", o.path, "=", o.value, "\": the value of ", o.path, " is ",
                                                cur->value, ", not ", o.value));
        next.value = "";
        next.deleted = true;
        if (cur != nullptr) {
          *cur = next;
        } else {
          settings->push_back(next);
        }
        DropFieldsOf(o.path, settings);  // ~comm_overlap takes comm_overlap.* with it
        break;
    }
  }
  return absl::OkStatus();
}

absl::Status ApplyBridgeSettings(const std::vector<BridgeValue>& given, const std::string& field,
                                 const ModelSpec* catalog_model, ImportedConfig* out) {
  std::map<const FieldEntry*, std::pair<std::string, std::string>> seen;  // entry -> (path, value)
  const std::vector<BridgeValue> settings = InApplyOrder(given);
  bool preset_applied = false;
  for (const auto& s : settings) {
    ImportedArgument arg;
    arg.name = s.path;
    arg.value = s.value;
    arg.origin = s.origin;
    arg.line = s.line;
    arg.note = s.note;
    auto add_note = [&](const std::string& n) {
      if (!n.empty()) arg.note = arg.note.empty() ? n : absl::StrCat(arg.note, "; ", n);
    };
    const FieldEntry* e = EntryFor(s.path);
    if (e == nullptr) {
      auto cls = ClassifyBridgePath(s.path);
      if (!cls.has_value() && s.lenient) {
        cls = BridgePathClass{ArgumentStatus::kNotModelled, "not among the Bridge fields parplan lists"};
        out->warnings.push_back(absl::StrCat(Where(s), s.path, " = ", s.value.substr(0, 80),
                                             " is not among the Megatron Bridge fields parplan lists (Bridge ",
                                             "067f987df0); listed as not modelled"));
      }
      if (!cls.has_value()) return UnknownPath(field, s.line, s.path);
      arg.status = cls->status;
      add_note(cls->note);
      if (s.deleted) add_note("deleted (~): Bridge's default applies");
      out->arguments.push_back(std::move(arg));
      continue;
    }
    arg.status = ArgumentStatus::kMapped;
    arg.maps_to = e->field;
    if (s.deleted) {
      add_note("deleted (~): Bridge's default applies");
      out->arguments.push_back(std::move(arg));
      continue;
    }
    if (absl::StartsWith(s.value, "${")) {
      add_note(
          absl::StrCat("Bridge computes it at run time (", s.value.substr(2, s.value.size() - 3), "); not applied"));
      out->arguments.push_back(std::move(arg));
      continue;
    }
    std::string value = s.value;
    if (value == "null" && !NullIsAValue(*e)) {
      add_note("None: unset, the default applies");
      out->arguments.push_back(std::move(arg));
      continue;
    }
    if (e->field == "config.precision") {
      std::string preset_note;
      const std::string p = PrecisionOfBridgePreset(value, &preset_note);
      if (p.empty()) {
        std::vector<std::string> names;
        for (const auto& pr : kPresets) names.push_back(pr.name);
        return FieldError(field, absl::StrCat(Where(s), s.path, " = \"", value.substr(0, 80),
                                              "\" is not a mixed-precision preset parplan models; allowed: ",
                                              absl::StrJoin(names, ", ")));
      }
      add_note(preset_note);
      value = p;
      preset_applied = true;
    } else if (e->field == "config.pipeline_layout") {
      auto layout = BridgeLayoutToString(value, s.path);
      if (!layout.ok()) return FieldError(field, absl::StrCat(Where(s), layout.status().message()));
      value = *layout;
    } else if (e->field == "config.cuda_graph_modules") {
      // Megatron-Core still accepts the deprecated scopes "full_iteration"
      // (it sets cuda_graph_impl = "full_iteration") and
      // "full_iteration_inference" (inference only) and migrates them
      // (megatron/core/transformer/cuda_graph_config.py:11-12,
      // transformer_config.py:2741-2773 at d98e8a64).
      std::vector<std::string> keep;
      bool full_iteration = false, migrated = false;
      for (const auto& item : BridgeListItems(value)) {
        if (item == "full_iteration") {
          full_iteration = migrated = true;
        } else if (item == "full_iteration_inference") {
          migrated = true;
        } else if (!item.empty()) {
          keep.push_back(absl::StrCat("\"", item, "\""));
        }
      }
      if (migrated) {
        value = absl::StrCat("[", absl::StrJoin(keep, ","), "]");
        if (full_iteration) {
          const FieldEntry* impl = FindField("config.cuda_graph_impl");
          if (impl == nullptr || impl->set == nullptr)
            return FieldError(field, "no cuda_graph_impl field to migrate to");
          if (absl::Status st = impl->set(out, "full_iteration", s.path); !st.ok())
            return FieldError(field, absl::StrCat(Where(s), st.message()));
        }
        add_note(full_iteration
                     ? "the deprecated scope full_iteration sets cuda_graph_impl = full_iteration "
                       "(Megatron-Core cuda_graph_config.py:11)"
                     : "full_iteration_inference only graphs inference (Megatron-Core cuda_graph_config.py:12)");
      }
    } else if (e->field == "config.peft" && s.path == "peft._target_") {
      value = absl::AsciiStrToLower(value);  // LoRA -> lora; DoRA fails the setter, naming what is allowed
    }
    // Two paths of one field must agree (e.g. model.seq_length and
    // dataset.seq_length: Bridge asserts it, training/config.py:1644). The
    // precision preset's fp8_param_gather overwrites ddp.fp8_param_gather
    // (mixed_precision.py:138 update_config_with_precision_overrides).
    if (auto it = seen.find(e); it != seen.end() && it->second.second != value) {
      const bool must_agree = e->field == "config.seq_length" || e->field == "config.optimizer_state_dtype";
      if (must_agree)
        return FieldError(
            field, absl::StrCat(Where(s), s.path, " = ", value.substr(0, 80), " contradicts ", it->second.first, " = ",
                                it->second.second.substr(0, 80), " (both set ", e->field, "); make them equal"));
      const bool preset_wins = absl::StartsWith(s.path, "mixed_precision.");
      // Bridge turns the distributed optimizer on for both configs when
      // either asks for it (training/config.py:2101
      // _validate_and_sync_distributed_optimizer_settings).
      const bool either_enables = e->field == "config.use_distributed_optimizer";
      if (either_enables) {
        value = (value == "true" || it->second.second == "true") ? "true" : "false";
        out->warnings.push_back(absl::StrCat(Where(s), s.path, " = ", s.value, " and ", it->second.first, " = ",
                                             it->second.second,
                                             " are not in sync; Bridge enables the distributed optimizer for both "
                                             "(training/config.py:2101)"));
      } else if (!preset_wins)
        out->warnings.push_back(absl::StrCat(Where(s), s.path, " = ", value.substr(0, 80), " and ", it->second.first,
                                             " = ", it->second.second.substr(0, 80), " both set ", e->field,
                                             "; the later (", s.path, ") is used"));
      add_note(absl::StrCat("overwrites ", it->second.first, " = ", it->second.second.substr(0, 80)));
    }
    seen[e] = {s.path, value};
    if (e->set == nullptr) {
      add_note("read only (no setter)");
      out->arguments.push_back(std::move(arg));
      continue;
    }
    if (catalog_model != nullptr && absl::StartsWith(e->field, "model.") && e->get != nullptr) {
      ImportedConfig scratch;
      if (absl::Status st = e->set(&scratch, value, s.path); !st.ok())
        return FieldError(field, absl::StrCat(Where(s), st.message()));
      const ResolvedConfig none;
      const auto got = scratch.model.has_value() ? e->get(none, &*scratch.model) : std::nullopt;
      const auto want = e->get(none, catalog_model);
      if (got == want) {
        add_note("equals the catalog model's");
        out->arguments.push_back(std::move(arg));
        continue;
      }
      if (!out->model.has_value()) {
        out->model = *catalog_model;
        out->model->origin = "import";
        out->model->notes.push_back(
            absl::StrCat("the catalog model ", catalog_model->id, " with the source's changes"));
      }
      add_note(absl::StrCat("differs from the catalog model's (", want.value_or("unset"), ")"));
    }
    if (absl::Status st = e->set(out, value, s.path); !st.ok())
      return FieldError(field, absl::StrCat(Where(s), st.message()));
    out->arguments.push_back(std::move(arg));
  }
  // Every preset parplan models keeps MixedPrecisionConfig's default
  // grad_reduce_in_fp32 = True (mixed_precision.py:47, :196) and setup
  // (called by training/config.py:2016) copies it onto the DDP config
  // (mixed_precision.py:138), whatever ddp.grad_reduce_in_fp32 said.
  if (preset_applied && Get(settings, "mixed_precision.grad_reduce_in_fp32").empty() &&
      out->config.grad_reduce_in_fp32.has_value() && !*out->config.grad_reduce_in_fp32) {
    out->config.grad_reduce_in_fp32 = true;
    out->warnings.push_back(
        "ddp.grad_reduce_in_fp32 = false is overwritten by the mixed-precision preset's grad_reduce_in_fp32 = True "
        "(Bridge training/mixed_precision.py:138 update_config_with_precision_overrides); gradients reduce in FP32");
  }
  return absl::OkStatus();
}

}  // namespace parplan
