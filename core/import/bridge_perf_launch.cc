#include "core/import/bridge_perf_launch.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"

namespace parplan {
namespace {

// Options that set a ConfigContainer field as they are
// (scripts/performance/utils/overrides.py:474-515 at 067f987df0). -sl sets
// model.seq_length; the launcher builds the dataset from it (:515-527).
struct Direct {
  const char* short_name;
  const char* long_name;
  const char* path;
};
constexpr Direct kDirect[] = {
    {"-ms", "--max_steps", "train.train_iters"},
    {"-tp", "--tensor_model_parallel_size", "model.tensor_model_parallel_size"},
    {"-pp", "--pipeline_model_parallel_size", "model.pipeline_model_parallel_size"},
    {"-cp", "--context_parallel_size", "model.context_parallel_size"},
    {"-vp", "--virtual_pipeline_model_parallel_size", "model.virtual_pipeline_model_parallel_size"},
    {"-ep", "--expert_model_parallel_size", "model.expert_model_parallel_size"},
    {"-et", "--expert_tensor_parallel_size", "model.expert_tensor_parallel_size"},
    {"-gb", "--global_batch_size", "train.global_batch_size"},
    {"-mb", "--micro_batch_size", "train.micro_batch_size"},
    {"-sl", "--seq_length", "model.seq_length"},
};

// Options without effect on the plan: the cluster job, container, logging
// and tokenizer (argument_parser.py).
struct NoEffect {
  const char* short_name;
  const char* long_name;
  bool takes_value;
};
constexpr NoEffect kNoEffect[] = {
    {"-m", "--model_family_name", true},
    {"-a", "--account", true},
    {"-p", "--partition", true},
    {"-t", "--time_limit", true},
    {"-i", "--container_image", true},
    {"-cm", "--custom_mounts", true},
    {"-nh", "--nemo_home", true},
    {"-hf", "--hf_token", true},
    {"-l", "--log_dir", true},
    {"-wdk", "--wandb_key", true},
    {"-wdp", "--wandb_project_name", true},
    {"-wde", "--wandb_entity_name", true},
    {"-wdj", "--wandb_experiment_name", true},
    {"-wds", "--wandb_save_dir", true},
    {nullptr, "--tokenizer_type", true},
    {nullptr, "--tokenizer_model", true},
    {"-d", "--dryrun", false},
    {nullptr, "--detach", true},
    {nullptr, "--max_retries", true},
};

// utils/utils.py:55 _PRECISION_NAME_MAP.
std::string PrecisionName(const std::string& dtype) {
  const std::string d = absl::AsciiStrToLower(dtype);
  if (d == "fp8_cs") return "fp8cs";
  if (d == "fp8_ds") return "fp8ds";
  if (d == "fp8_mx") return "fp8mx";
  if (d == "fp8_sc") return "fp8sc";
  std::string out;
  for (char c : d)
    if (c != '_') out += c;
  return out;
}

bool Is(const std::string& name, const char* short_name, const char* long_name) {
  return name == long_name || (short_name != nullptr && name == short_name);
}

}  // namespace

bool IsPerformanceLauncher(const std::string& script) {
  return absl::StrContains(script, "performance/") &&
         (absl::EndsWith(script, "run_script.py") || absl::EndsWith(script, "setup_experiment.py"));
}

absl::Status ReadPerformanceLaunch(const std::vector<LaunchToken>& tokens, const std::string& field,
                                   BridgeOverrideList* out) {
  std::string recipe, task = "pretrain", gpu, dtype = "bf16", variant;
  int64_t num_gpus = 0, per_node = 0, recipe_line = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i].text;
    const int64_t line = tokens[i].line;
    if (!absl::StartsWith(tok, "-")) {
      // Trailing KEY=VALUE overrides (overrides.py:404 set_cli_overrides).
      const size_t eq = tok.find('=');
      if (eq == std::string::npos)
        return FieldError(field, absl::StrCat("line ", line, ": \"", tok.substr(0, 80),
                                              "\" is neither an option nor a KEY=VALUE override"));
      out->overrides.push_back({OverrideOp::kSet, tok.substr(0, eq), NormalizeBridgeValue(tok.substr(eq + 1)), tok,
                                line, "performance launcher override"});
      continue;
    }
    const size_t eq = tok.find('=');
    const std::string name = tok.substr(0, eq);
    auto value = [&](std::string* v) -> absl::Status {
      if (eq != std::string::npos) {
        *v = tok.substr(eq + 1);
        return absl::OkStatus();
      }
      if (i + 1 >= tokens.size()) return FieldError(field, absl::StrCat("line ", line, ": ", name, " needs a value"));
      *v = tokens[++i].text;
      return absl::OkStatus();
    };
    auto count = [&](int64_t* n) -> absl::Status {
      std::string v;
      if (auto s = value(&v); !s.ok()) return s;
      if (!absl::SimpleAtoi(v, n) || *n < 1 || *n > kMaxGpus)
        return FieldError(field, absl::StrCat("line ", line, ": ", name, " \"", v.substr(0, 40),
                                              "\" is not a GPU count in 1..", kMaxGpus));
      return absl::OkStatus();
    };
    std::string v;
    if (Is(name, "-mr", "--model_recipe_name")) {
      if (auto s = value(&recipe); !s.ok()) return s;
      recipe = absl::AsciiStrToLower(recipe);
      recipe_line = line;
    } else if (name == "--task") {
      if (auto s = value(&task); !s.ok()) return s;
    } else if (Is(name, "-ng", "--num_gpus")) {
      if (auto s = count(&num_gpus); !s.ok()) return s;
    } else if (Is(name, "-gn", "--gpus_per_node")) {
      if (auto s = count(&per_node); !s.ok()) return s;
    } else if (Is(name, "-g", "--gpu")) {
      if (auto s = value(&gpu); !s.ok()) return s;
      gpu = absl::AsciiStrToLower(gpu);
    } else if (Is(name, "-c", "--compute_dtype")) {
      if (auto s = value(&dtype); !s.ok()) return s;
    } else if (Is(name, "-cv", "--config_variant")) {
      if (auto s = value(&variant); !s.ok()) return s;
    } else if (name == "--use_recipes") {
      return FieldError(field, absl::StrCat("line ", line,
                                            ": --use_recipes runs a library recipe through the performance "
                                            "launcher's helpers, which parplan does not follow; name the recipe "
                                            "with recipe:NAME and give its overrides"));
    } else {
      bool handled = false;
      for (const auto& d : kDirect) {
        if (!Is(name, d.short_name, d.long_name)) continue;
        if (auto s = value(&v); !s.ok()) return s;
        out->overrides.push_back({OverrideOp::kSet, d.path, NormalizeBridgeValue(v), absl::StrCat(name, " ", v), line,
                                  absl::StrCat("from performance launcher ", name)});
        handled = true;
        break;
      }
      for (const auto& n : kNoEffect) {
        if (handled || !Is(name, n.short_name, n.long_name)) continue;
        v = "true";
        if (n.takes_value) {
          if (auto s = value(&v); !s.ok()) return s;
        }
        out->launcher_flags.push_back({name, v, "performance launcher option: no effect on the plan", false, line});
        handled = true;
      }
      if (!handled)
        return FieldError(field, absl::StrCat("line ", line, ": performance launcher option \"", name,
                                              "\" is not read by parplan (it changes the recipe through the "
                                              "launcher's helpers); set the ConfigContainer fields it changes as "
                                              "KEY=VALUE overrides instead"));
    }
  }
  if (recipe.empty() || num_gpus == 0 || gpu.empty())
    return FieldError(field, "the performance launcher needs -mr (model recipe name), -ng (GPUs) and -g (GPU type)");
  out->recipe = absl::StrCat(recipe, "_", task, "_", num_gpus, "gpu_", gpu, "_", PrecisionName(dtype),
                             variant.empty() ? "" : absl::StrCat("_", absl::AsciiStrToLower(variant)), "_config");
  out->recipe_line = recipe_line;
  out->gpus = num_gpus;
  out->gpus_per_node = per_node;
  out->notes.push_back(
      absl::StrCat("performance launcher: the flat recipe ", out->recipe, " (scripts/performance/utils/utils.py:446)"));
  return absl::OkStatus();
}

}  // namespace parplan
