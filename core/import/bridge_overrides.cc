#include "core/import/bridge_overrides.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/import/bridge_perf_launch.h"
#include "core/import/imported_config.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"

namespace parplan {
namespace {

constexpr int kMaxNesting = 32;  // brackets in one value (values are normalised recursively)

struct Token {
  std::string text;
  int64_t line = 0;
};

// Splits at whitespace outside quotes and brackets; "\\\n" is whitespace and
// '#' at a token's start comments out the rest of the line.
absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view text, const std::string& field) {
  std::vector<Token> out;
  std::string cur;
  int64_t line = 1, start_line = 1;
  char quote = 0;
  int depth = 0;
  auto flush = [&]() {
    if (!cur.empty()) out.push_back({cur, start_line});
    cur.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (quote) {
      cur += c;
      if (c == '\\' && i + 1 < text.size()) {
        cur += text[++i];
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      if (depth == 0) flush();
      continue;
    }
    if (cur.empty() && c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) && depth == 0) {
      flush();
      continue;
    }
    if (cur.empty()) start_line = line;
    if (c == '\'' || c == '"') quote = c;
    if (c == '[' || c == '{' || c == '(') {
      if (++depth > kMaxNesting)
        return FieldError(field, absl::StrCat("line ", line, ": brackets nested deeper than ", kMaxNesting));
    }
    if (c == ']' || c == '}' || c == ')') {
      if (--depth < 0)
        return FieldError(field, absl::StrCat("line ", line, ": unbalanced '", std::string(1, c), "' in \"",
                                              cur.substr(0, 80), "\""));
    }
    cur += c;
    if (cur.size() > kMaxOverrideValueChars)
      return FieldError(
          field, absl::StrCat("line ", start_line, ": a token longer than ", kMaxOverrideValueChars, " characters"));
  }
  if (quote)
    return FieldError(field, absl::StrCat("line ", start_line, ": unterminated ", std::string(1, quote), " quote in \"",
                                          cur.substr(0, 80), "\""));
  if (depth != 0)
    return FieldError(field, absl::StrCat("line ", start_line, ": unbalanced brackets in \"", cur.substr(0, 80), "\""));
  flush();
  return out;
}

std::string Unquote(absl::string_view s) {
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    std::string out;
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      if (s[i] == '\\' && i + 2 < s.size() && (s[i + 1] == s.front() || s[i + 1] == '\\')) ++i;
      out += s[i];
    }
    return out;
  }
  return std::string(s);
}

bool IsQuoted(absl::string_view s) {
  return s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front();
}

bool IsNumber(absl::string_view s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::string str(s);
  std::strtod(str.c_str(), &end);
  return end == str.c_str() + str.size();
}

// Items of "[a, 'b', [c]]" split at top-level commas (the text inside the brackets).
std::vector<std::string> SplitTopLevel(absl::string_view inner) {
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (char c : inner) {
    if (quote) {
      cur += c;
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(std::string(absl::StripAsciiWhitespace(cur)));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!absl::StripAsciiWhitespace(cur).empty() || !items.empty())
    items.push_back(std::string(absl::StripAsciiWhitespace(cur)));
  return items;
}

// "CUDA_VISIBLE_DEVICES=0,1" before the launcher: an environment variable.
bool IsEnvAssignment(absl::string_view token) {
  const size_t eq = token.find('=');
  if (eq == 0 || eq == absl::string_view::npos) return false;
  for (char c : token.substr(0, eq))
    if (!(std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

bool ValidPath(absl::string_view path) {
  if (path.empty() || path.size() > 256) return false;
  bool segment_start = true;
  for (char c : path) {
    if (c == '.') {
      if (segment_start) return false;
      segment_start = true;
      continue;
    }
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    segment_start = false;
  }
  return !segment_start;
}

// scripts/training/run_recipe.py COMMON_OVERRIDE_FIELDS (:135 at 067f987df0).
struct ConvenienceFlag {
  const char* short_name;
  const char* long_name;
  const char* path;
};
constexpr ConvenienceFlag kConvenienceFlags[] = {
    {"-ms", "--max_steps", "train.train_iters"},
    {"-gb", "--global_batch_size", "train.global_batch_size"},
    {"-mb", "--micro_batch_size", "train.micro_batch_size"},
    {"-sl", "--seq_length", "dataset.seq_length"},
    {"-tp", "--tensor_model_parallel_size", "model.tensor_model_parallel_size"},
    {"-pp", "--pipeline_model_parallel_size", "model.pipeline_model_parallel_size"},
    {"-cp", "--context_parallel_size", "model.context_parallel_size"},
    {"-vp", "--virtual_pipeline_model_parallel_size", "model.virtual_pipeline_model_parallel_size"},
    {"-ep", "--expert_model_parallel_size", "model.expert_model_parallel_size"},
    {"-etp", "--expert_tensor_parallel_size", "model.expert_tensor_parallel_size"},
    {nullptr, "--lr", "optimizer.lr"},
    {nullptr, "--min_lr", "optimizer.min_lr"},
    {nullptr, "--warmup_iters", "scheduler.lr_warmup_iters"},
    {nullptr, "--pretrained_checkpoint", "checkpoint.pretrained_checkpoint"},
    {nullptr, "--save_dir", "checkpoint.save"},
    {nullptr, "--load_dir", "checkpoint.load"},
    {nullptr, "--save_interval", "checkpoint.save_interval"},
};

// run_recipe.py's other options (:168-258): they pick the training loop,
// data and runner behaviour, not ConfigContainer fields.
struct OtherFlag {
  const char* name;
  bool takes_value;
  bool affects_training;
  const char* note;
};
constexpr OtherFlag kOtherFlags[] = {
    {"--mode", true, true, "training mode (pretrain | sft | lora | dora): the recipe's task decides the plan"},
    {"--dataset", true, false, "dataset preset: data only"},
    {"--step-func", true, false, "forward-step function name"},
    {"--step_func", true, false, "forward-step function name"},
    {"--dry-run", false, false, "prints the config without training"},
    {"--dry_run", false, false, "prints the config without training"},
    {"--deterministic", false, true, "deterministic kernels (apply_determinism_overrides): slower, not modelled"},
    {"--dump-env", false, false, "prints the environment"},
    {"--dump_env", false, false, "prints the environment"},
};

// scripts/training/setup_experiment.py's own options (:64-140 at
// 067f987df0; scripts/training/train.sh runs it), which it keeps; the rest
// go to run_recipe.py.
struct TrainingLauncherFlag {
  const char* name;
  bool takes_value;
};
constexpr TrainingLauncherFlag kTrainingLauncherFlags[] = {
    {"--nodes", true},
    {"--gpus-per-node", true},
    {"--gpus_per_node", true},
    {"--account", true},
    {"--partition", true},
    {"--time", true},
    {"--gres", true},
    {"--additional-slurm-params", true},
    {"--additional_slurm_params", true},
    {"--no-gpu-resource-request", false},
    {"--container-image", true},
    {"--mount", true},
    {"--env", true},
    {"--srun-arg", true},
    {"-lmc", true},
    {"--peak-mem-clk", true},
    {"--peak_mem_clk", true},
    {"--experiment-name", true},
    {"--submission-dry-run", false},
    {"--wait", false},
};

bool IsTrainingLauncher(absl::string_view script) {
  return !absl::StrContains(script, "performance/") &&
         (absl::EndsWith(script, "train.sh") || absl::EndsWith(script, "setup_experiment.py"));
}

std::string FlagNames() {
  std::vector<std::string> names;
  for (const auto& f : kConvenienceFlags) names.push_back(f.short_name ? f.short_name : f.long_name);
  for (const auto& f : kOtherFlags) names.push_back(f.name);
  return absl::StrJoin(names, " ");
}

}  // namespace

std::string NormalizeBridgeValue(std::string_view value) {
  absl::string_view v = absl::StripAsciiWhitespace(absl::string_view(value.data(), value.size()));
  if (IsQuoted(v)) return Unquote(v);
  if (v == "null" || v == "None" || v == "NULL" || v == "none_value") return "null";
  if (v == "true" || v == "True" || v == "TRUE") return "true";
  if (v == "false" || v == "False" || v == "FALSE") return "false";
  if (v.size() >= 2 && (v.front() == '[' || v.front() == '(') && (v.back() == ']' || v.back() == ')')) {
    std::vector<std::string> parts;
    for (const auto& item : SplitTopLevel(v.substr(1, v.size() - 2))) {
      std::string n = NormalizeBridgeValue(std::string(item));
      const bool bare = IsNumber(n) || n == "null" || n == "true" || n == "false" ||
                        (!n.empty() && n.front() == '[' && !IsQuoted(item));
      if (bare) {
        parts.push_back(n);
      } else {
        std::string q = "\"";
        for (char c : n) {
          if (c == '"' || c == '\\') q += '\\';
          q += c;
        }
        parts.push_back(q + "\"");
      }
    }
    return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
  }
  return std::string(v);
}

std::vector<std::string> BridgeListItems(std::string_view value) {
  absl::string_view v = absl::StripAsciiWhitespace(absl::string_view(value.data(), value.size()));
  if (v.size() < 2 || v.front() != '[' || v.back() != ']') return {std::string(v)};
  std::vector<std::string> out;
  for (const auto& item : SplitTopLevel(v.substr(1, v.size() - 2))) out.push_back(Unquote(item));
  return out;
}

absl::StatusOr<BridgeOverrideList> ParseBridgeOverrides(std::string_view text_in, const std::string& field) {
  const absl::string_view text(text_in.data(), text_in.size());
  if (text.size() > kMaxImportBytes)
    return FieldError(field, absl::StrCat("the overrides are ", text.size(), " bytes; at most ", kMaxImportBytes));
  auto tokens = Tokenize(text, field);
  if (!tokens.ok()) return tokens.status();
  BridgeOverrideList out;
  std::vector<Token>& t = *tokens;
  size_t i = 0;
  bool training_launcher = false;
  int64_t nodes = 1, gpus_per_node = 0;
  // A launcher line: words up to the script ("torchrun --nproc-per-node=8
  // scripts/training/run_recipe.py") are the launcher's, not Bridge's.
  for (size_t k = 0; k < t.size(); ++k) {
    if (absl::StrContains(t[k].text, "=") && !absl::StartsWith(t[k].text, "-") && !IsEnvAssignment(t[k].text)) break;
    if (absl::EndsWith(t[k].text, ".py") || IsTrainingLauncher(t[k].text)) {
      training_launcher = IsTrainingLauncher(t[k].text);
      for (size_t j = 0; j <= k; ++j)
        out.launcher_flags.push_back(
            {t[j].text, "", j == k ? "the Bridge entry script" : "launcher word before the script", false, t[j].line});
      i = k + 1;
      if (IsPerformanceLauncher(t[k].text)) {
        std::vector<LaunchToken> rest;
        for (size_t j = i; j < t.size(); ++j)
          rest.push_back({IsQuoted(t[j].text) ? Unquote(t[j].text) : t[j].text, t[j].line});
        if (auto s = ReadPerformanceLaunch(rest, field, &out); !s.ok()) return s;
        return out;
      }
      break;
    }
  }
  auto set_recipe = [&](const std::string& name, int64_t line) -> absl::Status {
    if (name.empty()) return FieldError(field, absl::StrCat("line ", line, ": the recipe name is empty"));
    if (!out.recipe.empty() && out.recipe != name)
      return FieldError(
          field, absl::StrCat("line ", line, ": two recipes named: \"", out.recipe, "\" and \"", name, "\"; name one"));
    out.recipe = name;
    out.recipe_line = line;
    return absl::OkStatus();
  };
  for (; i < t.size(); ++i) {
    const std::string tok = IsQuoted(t[i].text) ? Unquote(t[i].text) : t[i].text;
    const int64_t line = t[i].line;
    if (absl::StartsWith(tok, "recipe:")) {
      if (auto s = set_recipe(tok.substr(7), line); !s.ok()) return s;
      continue;
    }
    if (tok == "--recipe" || absl::StartsWith(tok, "--recipe=")) {
      std::string name;
      if (tok == "--recipe") {
        if (i + 1 >= t.size()) return FieldError(field, absl::StrCat("line ", line, ": --recipe without a name"));
        name = Unquote(t[++i].text);
      } else {
        name = Unquote(tok.substr(9));
      }
      if (auto s = set_recipe(name, line); !s.ok()) return s;
      continue;
    }
    if (tok == "--model" || absl::StartsWith(tok, "--model="))
      return FieldError(field, absl::StrCat("line ", line, ": \"", tok,
                                            "\" picks a recipe by model stem and mode; name the complete recipe "
                                            "function with --recipe NAME (or recipe:NAME)"));
    if (absl::StartsWith(tok, "-")) {
      const std::string name = tok.substr(0, tok.find('='));
      const bool inline_value = tok.find('=') != std::string::npos;
      bool handled = false;
      for (const auto& f : kConvenienceFlags) {
        if (name != f.long_name && !(f.short_name && name == f.short_name)) continue;
        std::string value;
        if (inline_value) {
          value = tok.substr(tok.find('=') + 1);
        } else {
          if (i + 1 >= t.size())
            return FieldError(field, absl::StrCat("line ", line, ": ", name, " needs a value (sets ", f.path, ")"));
          value = t[++i].text;
        }
        out.overrides.push_back({OverrideOp::kSet, f.path, NormalizeBridgeValue(value), absl::StrCat(name, " ", value),
                                 line, absl::StrCat("from run_recipe.py ", name)});
        handled = true;
        break;
      }
      for (const auto& f : kTrainingLauncherFlags) {
        if (handled || !training_launcher || name != f.name) continue;
        std::string value = "true";
        if (f.takes_value) {
          if (inline_value) {
            value = tok.substr(tok.find('=') + 1);
          } else {
            if (i + 1 >= t.size()) return FieldError(field, absl::StrCat("line ", line, ": ", name, " needs a value"));
            value = t[++i].text;
          }
        }
        LauncherFlag flag{name, Unquote(value), "Slurm launcher option (scripts/training/setup_experiment.py)", false,
                          line};
        if (name == "--nodes" || name == "--gpus-per-node" || name == "--gpus_per_node") {
          int64_t n = 0;
          if (!absl::SimpleAtoi(flag.value, &n) || n < 1 || n > kMaxGpus)
            return FieldError(field, absl::StrCat("line ", line, ": ", name, " \"", flag.value.substr(0, 40),
                                                  "\" is not a count in 1..", kMaxGpus));
          (name == "--nodes" ? nodes : gpus_per_node) = n;
          flag.maps_to = name == "--nodes" ? "placement.gpus" : "placement.gpus_per_node";
          flag.note = "Slurm launcher: the job's size (scripts/training/setup_experiment.py)";
        }
        out.launcher_flags.push_back(std::move(flag));
        handled = true;
      }
      for (const auto& f : kOtherFlags) {
        if (handled || name != f.name) continue;
        std::string value = "true";
        if (f.takes_value) {
          if (inline_value) {
            value = tok.substr(tok.find('=') + 1);
          } else {
            if (i + 1 >= t.size()) return FieldError(field, absl::StrCat("line ", line, ": ", name, " needs a value"));
            value = t[++i].text;
          }
        }
        out.launcher_flags.push_back({name, Unquote(value), f.note, f.affects_training, line});
        handled = true;
      }
      if (!handled)
        return FieldError(field, absl::StrCat("line ", line, ": unknown option \"", name,
                                              "\"; overrides are KEY=VALUE, and the run_recipe.py options parplan "
                                              "reads are --recipe ",
                                              FlagNames()));
      continue;
    }
    BridgeOverride o;
    o.raw = t[i].text;
    o.line = line;
    absl::string_view rest = tok;
    if (absl::StartsWith(rest, "++")) {
      o.op = OverrideOp::kForceAdd;
      rest.remove_prefix(2);
    } else if (absl::StartsWith(rest, "+")) {
      o.op = OverrideOp::kAdd;
      rest.remove_prefix(1);
    } else if (absl::StartsWith(rest, "~")) {
      o.op = OverrideOp::kDelete;
      rest.remove_prefix(1);
    }
    const size_t eq = rest.find('=');
    if (eq == absl::string_view::npos && o.op != OverrideOp::kDelete)
      return FieldError(field, absl::StrCat("line ", line, ": \"", t[i].text.substr(0, 120),
                                            "\" is not an override; expected KEY=VALUE (e.g. "
                                            "model.tensor_model_parallel_size=4), +KEY=VALUE, ~KEY or recipe:NAME"));
    o.path = std::string(absl::StripAsciiWhitespace(rest.substr(0, eq)));
    if (!ValidPath(o.path))
      return FieldError(field, absl::StrCat("line ", line, ": \"", o.path.substr(0, 120),
                                            "\" is not a config path (dotted names of letters, digits and '_')"));
    if (eq != absl::string_view::npos) o.value = NormalizeBridgeValue(std::string(rest.substr(eq + 1)));
    out.overrides.push_back(std::move(o));
    if (out.overrides.size() > kMaxOverrides)
      return FieldError(field, absl::StrCat("more than ", kMaxOverrides, " overrides"));
  }
  if (gpus_per_node > 0) {
    out.gpus_per_node = gpus_per_node;
    out.gpus = gpus_per_node * nodes;
  }
  return out;
}

}  // namespace parplan
