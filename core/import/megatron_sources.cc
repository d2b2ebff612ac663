#include "core/import/megatron_sources.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/import/imported_config.h"
#include "core/import/shell_script.h"
#include "core/util/field_error.h"
#include "yaml-cpp/yaml.h"

namespace parplan {
namespace {

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool IsEntryPoint(const std::string& word) {
  const std::string base = Basename(word);
  for (const auto& e : MegatronEntryPoints()) {
    if (base == e) return true;
  }
  return absl::StartsWith(base, "pretrain_") && absl::EndsWith(base, ".py");
}

// "-1", "-0.5": a value, not a flag.
bool IsFlag(const std::string& w) {
  if (w.size() < 2 || w[0] != '-') return false;
  if (std::isdigit(static_cast<unsigned char>(w[1])) || w[1] == '.') return false;
  return true;
}

// The argument list after the entry point: "--flag v1 v2", "--flag=v".
std::vector<MegatronArgument> ParseArgv(const std::vector<ShellWord>& words, size_t start) {
  std::vector<MegatronArgument> out;
  for (size_t i = start; i < words.size();) {
    const ShellWord& w = words[i];
    if (!IsFlag(w.text)) {
      ++i;  // a stray positional word (Megatron-LM takes none): skipped
      continue;
    }
    MegatronArgument a;
    a.line = w.line;
    a.expanded = w.expanded;
    a.note = w.note;
    size_t eq = w.text.find('=');
    if (absl::StartsWith(w.text, "--") && eq != std::string::npos) {
      a.name = w.text.substr(0, eq);
      a.value = w.text.substr(eq + 1);
      a.has_value = true;
      ++i;
    } else {
      a.name = w.text;
      ++i;
      std::vector<std::string> values;
      while (i < words.size() && !IsFlag(words[i].text)) {
        values.push_back(words[i].text);
        if (!words[i].expanded) {
          a.expanded = false;
          a.note = words[i].note;
        } else if (a.note.empty() && !words[i].note.empty()) {
          a.note = words[i].note;
        }
        ++i;
      }
      a.has_value = !values.empty();
      a.value = absl::StrJoin(values, " ");
    }
    // Megatron-LM flags are dashed; argparse also takes the underscore form.
    std::replace(a.name.begin(), a.name.end(), '_', '-');
    if (!a.expanded && a.note.empty()) a.note = "a variable the script does not set";
    out.push_back(std::move(a));
  }
  return out;
}

int64_t ToInt(const ShellWord& w) {
  int64_t v = 0;
  if (!w.expanded || !absl::SimpleAtoi(w.text, &v) || v < 1 || v > (int64_t{1} << 30)) return 0;
  return v;
}

// A launcher option's value: "--nproc_per_node 8", "--nproc-per-node=8", "-N 2".
int64_t LauncherValue(const std::vector<ShellWord>& words, size_t end, std::initializer_list<const char*> names,
                      bool* seen) {
  for (size_t i = 0; i < end; ++i) {
    const std::string& t = words[i].text;
    for (const char* n : names) {
      if (t == n && i + 1 < end) {
        *seen = true;
        return ToInt(words[i + 1]);
      }
      const std::string prefix = absl::StrCat(n, "=");
      if (absl::StartsWith(t, prefix)) {
        *seen = true;
        ShellWord v = words[i];
        v.text = t.substr(prefix.size());
        return ToInt(v);
      }
    }
  }
  return 0;
}

// PyTorch's allocator settings, "key:value" pairs separated by commas
// (PyTorch "CUDA semantics", PYTORCH_CUDA_ALLOC_CONF; PYTORCH_ALLOC_CONF is
// its newer name): expandable_segments when the script sets it.
void ReadAllocatorConf(const ShellScript& script, MegatronLaunch* out) {
  for (const char* name : {"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"}) {
    auto it = script.variables.find(name);
    if (it == script.variables.end()) continue;
    for (absl::string_view item : absl::StrSplit(it->second, ',')) {
      std::vector<absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits(':', 1));
      if (kv.size() != 2 || absl::StripAsciiWhitespace(kv[0]) != "expandable_segments") continue;
      const std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(kv[1]));
      if (v != "true" && v != "false") continue;
      out->expandable_segments = v == "true";
      out->notes.push_back(absl::StrCat(name, " sets expandable_segments:", kv[1],
                                        " (the allocator's fragmentation "
                                        "allowance follows it)"));
      return;
    }
  }
}

void ReadLauncher(const std::vector<ShellWord>& words, size_t entry, const ShellScript& script, MegatronLaunch* out) {
  ReadAllocatorConf(script, out);
  bool torchrun = false, srun = false;
  for (size_t i = 0; i < entry; ++i) {
    const std::string b = Basename(words[i].text);
    torchrun = torchrun || b == "torchrun" || b == "torch.distributed.run" || b == "torch.distributed.launch";
    srun = srun || b == "srun";
  }
  auto var = [&](const char* name) -> int64_t {
    auto it = script.variables.find(name);
    if (it == script.variables.end()) return 0;
    int64_t v = 0;
    return absl::SimpleAtoi(it->second, &v) && v > 0 ? v : 0;
  };
  if (torchrun) {
    bool seen_nproc = false, seen_nodes = false;
    const int64_t nproc = LauncherValue(words, entry, {"--nproc_per_node", "--nproc-per-node"}, &seen_nproc);
    const int64_t nodes = LauncherValue(words, entry, {"--nnodes"}, &seen_nodes);
    out->gpus_per_node = nproc;
    if (nproc > 0 && (nodes > 0 || !seen_nodes)) {
      out->gpus = nproc * (nodes > 0 ? nodes : 1);
      out->notes.push_back(absl::StrCat("torchrun: ", nproc, " GPU(s) per node x ", nodes > 0 ? nodes : 1,
                                        " node(s) = ", out->gpus, " GPUs"));
    } else {
      out->notes.push_back("torchrun's --nproc_per_node / --nnodes are not known from the script; GPUs unknown");
    }
    return;
  }
  if (srun) {
    bool a = false, b = false, c = false;
    const int64_t per_node = LauncherValue(words, entry, {"--ntasks-per-node"}, &a);
    const int64_t nodes = LauncherValue(words, entry, {"--nodes", "-N"}, &b);
    const int64_t tasks = LauncherValue(words, entry, {"--ntasks", "-n"}, &c);
    out->gpus_per_node = per_node;
    out->gpus = tasks > 0 ? tasks : (per_node > 0 && nodes > 0 ? per_node * nodes : 0);
    out->notes.push_back(out->gpus > 0 ? absl::StrCat("srun: ", out->gpus, " task(s), one GPU each")
                                       : "srun's task count is not known from the script; GPUs unknown");
    return;
  }
  // Megatron-LM's examples' environment conventions.
  const int64_t per_node = var("GPUS_PER_NODE");
  int64_t nodes = var("NUM_NODES");
  if (nodes == 0) nodes = var("NNODES");
  if (per_node > 0) {
    out->gpus_per_node = per_node;
    if (nodes > 0) out->gpus = per_node * nodes;
    out->notes.push_back(absl::StrCat("GPUS_PER_NODE = ", per_node,
                                      nodes > 0 ? absl::StrCat(", NUM_NODES = ", nodes) : std::string(),
                                      " (the launcher itself is not read)"));
  } else {
    out->notes.push_back("no torchrun / srun launcher with known sizes: GPUs unknown");
  }
}

}  // namespace

const std::vector<std::string>& MegatronEntryPoints() {
  static const auto* v =
      new std::vector<std::string>{"pretrain_gpt.py", "pretrain_mamba.py", "pretrain_hybrid.py", "pretrain_vlm.py"};
  return *v;
}

absl::StatusOr<MegatronLaunch> ReadMegatronLaunch(std::string_view text, const std::string& field) {
  auto script = ReadShellScript(text, field);
  if (!script.ok()) return script.status();
  MegatronLaunch out;
  out.notes = script->notes;
  auto take = [&](const ShellCommand& cmd, size_t entry) {
    out.entry_point = Basename(cmd.words[entry].text);
    out.arguments = ParseArgv(cmd.words, entry + 1);
    ReadLauncher(cmd.words, entry, *script, &out);
    out.notes.push_back(absl::StrCat("line ", cmd.line, ": the ", out.entry_point, " invocation is read"));
  };
  for (const auto& cmd : script->commands) {
    for (size_t i = 0; i < cmd.words.size(); ++i) {
      if (IsEntryPoint(cmd.words[i].text)) {
        take(cmd, i);
        return out;
      }
    }
  }
  // Another training script of the command (examples' finetune_gpt.py ...).
  for (const auto& cmd : script->commands) {
    for (size_t i = 0; i < cmd.words.size(); ++i) {
      const std::string& w = cmd.words[i].text;
      if (w.size() > 3 && w.compare(w.size() - 3, 3, ".py") == 0 && !IsFlag(w)) {
        take(cmd, i);
        out.notes.push_back(absl::StrCat(out.entry_point, " is not one of Megatron-LM's pretrain scripts (",
                                         absl::StrJoin(MegatronEntryPoints(), ", "),
                                         "); its arguments are read as Megatron-LM's"));
        return out;
      }
    }
  }
  // A variable holding the command (a Slurm wrapper's TRAINING_CMD).
  for (const auto& [name, value] : script->variables) {
    if (!absl::StrContains(value, "pretrain_")) continue;
    auto at = script->variable_lines.find(name);
    for (auto& cmd : SplitCommandString(value, at == script->variable_lines.end() ? 0 : at->second)) {
      for (auto& w : cmd.words) {
        if (absl::StrContains(w.text, "$")) {
          w.expanded = false;
          w.note = absl::StrCat(w.text, ": not expanded in the script");
        }
      }
      for (size_t i = 0; i < cmd.words.size(); ++i) {
        if (IsEntryPoint(cmd.words[i].text)) {
          take(cmd, i);
          out.notes.push_back(absl::StrCat("the command is the value of ", name,
                                           " (run by another program); its arguments carry that assignment's line"));
          return out;
        }
      }
    }
  }
  // A pasted argument list: the command with the most flags.
  const ShellCommand* best = nullptr;
  size_t best_flags = 0;
  for (const auto& cmd : script->commands) {
    size_t flags = 0;
    for (const auto& w : cmd.words) flags += absl::StartsWith(w.text, "--");
    if (flags > best_flags) {
      best = &cmd;
      best_flags = flags;
    }
  }
  if (best == nullptr) {
    return FieldError(field,
                      absl::StrCat("no Megatron-LM launch found: no ", absl::StrJoin(MegatronEntryPoints(), " / "),
                                   " invocation and no --flag arguments"));
  }
  out.arguments = ParseArgv(best->words, absl::StartsWith(best->words[0].text, "--") ? 0 : 1);
  ReadLauncher(best->words, 0, *script, &out);
  out.notes.push_back(absl::StrCat("no pretrain_*.py invocation: the ", best_flags, " flags of the command at line ",
                                   best->line, " are read"));
  return out;
}

absl::StatusOr<std::vector<MegatronArgument>> ReadMegatronArgsBlock(std::string_view text, const std::string& field) {
  if (text.size() > kMaxImportBytes) {
    return FieldError(field, absl::StrCat("the text is ", text.size(), " bytes; at most ", kMaxImportBytes));
  }
  // Megatron-LM's print_args (megatron/training/arguments.py): a title line
  // of dashes around "arguments", "  name ..... value" lines, then
  // "-------- end of arguments --------".
  static const std::map<std::string, std::string> kRenames = {
      {"fp8", "--fp8-format"},
      {"fp4", "--fp4-format"},
      {"add_position_embedding", "--no-position-embedding"},
      {"virtual_pipeline_model_parallel_size", "--num-virtual-stages-per-pipeline-rank"},
      {"num_virtual_stages_per_pipeline_rank", "--num-virtual-stages-per-pipeline-rank-given"},
      {"num_experts", "--num-experts"},
      {"world_size", "--world-size"},
  };
  std::vector<MegatronArgument> out;
  bool inside = false, found = false;
  int64_t line_no = 0;
  std::string padded_vocab;
  int64_t padded_line = 0;
  bool vocab_given = false;
  for (absl::string_view line : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++line_no;
    if (absl::StrContains(line, "end of arguments")) {
      inside = false;
      continue;
    }
    if (absl::StrContains(line, "--- arguments ---") || absl::StrContains(line, "-- arguments --")) {
      inside = true;
      found = true;
      continue;
    }
    if (!inside) continue;
    // "<prefix>  name ........ value"
    size_t dots = line.find(" ..");
    if (dots == absl::string_view::npos) continue;
    absl::string_view head = absl::StripTrailingAsciiWhitespace(line.substr(0, dots));
    size_t space = head.find_last_of(" \t]:");
    const std::string name(space == absl::string_view::npos ? head : head.substr(space + 1));
    size_t after = dots + 1;
    while (after < line.size() && line[after] == '.') ++after;
    const std::string value(absl::StripAsciiWhitespace(line.substr(after)));
    if (name.empty()) continue;
    if (name == "padded_vocab_size") {
      padded_vocab = value;
      padded_line = line_no;
      continue;
    }
    MegatronArgument a;
    auto it = kRenames.find(name);
    a.name = it != kRenames.end() ? it->second : absl::StrCat("--", name);
    std::replace(a.name.begin(), a.name.end(), '_', '-');
    a.written = name;
    a.value = value;
    a.has_value = true;
    a.line = line_no;
    if (name == "vocab_size" && value != "None") vocab_given = true;
    out.push_back(std::move(a));
    if (out.size() > 100000) return FieldError(field, "the argument block has more than 100000 lines");
  }
  if (!found) return FieldError(field, "no \"-------- arguments --------\" block found");
  if (!vocab_given && !padded_vocab.empty()) {
    out.push_back(MegatronArgument{"--vocab-size", "padded_vocab_size", padded_vocab, true, padded_line, true,
                                   "the tokenizer's vocabulary as Megatron-LM padded it (vocab_size is None)"});
  }
  return out;
}

absl::StatusOr<std::vector<MegatronArgument>> ReadMegatronModelArgsYaml(std::string_view text,
                                                                        const std::string& field) {
  if (text.size() > kMaxImportBytes) {
    return FieldError(field, absl::StrCat("the text is ", text.size(), " bytes; at most ", kMaxImportBytes));
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return FieldError(field, absl::StrCat("not YAML: line ", e.mark.line + 1, ": ", e.msg));
  }
  if (!root.IsMap() || !root["MODEL_ARGS"] || !root["MODEL_ARGS"].IsMap()) {
    return FieldError(field, "a functional-test model_config.yaml needs a MODEL_ARGS mapping of \"--flag: value\"");
  }
  std::vector<MegatronArgument> out;
  for (const auto& kv : root["MODEL_ARGS"]) {
    MegatronArgument a;
    try {
      a.name = kv.first.as<std::string>();
    } catch (const YAML::Exception&) {
      return FieldError(field, absl::StrCat("line ", kv.first.Mark().line + 1, ": a MODEL_ARGS key is not a name"));
    }
    a.line = kv.first.Mark().line + 1;
    a.written = a.name;
    std::replace(a.name.begin(), a.name.end(), '_', '-');
    if (!absl::StartsWith(a.name, "--")) a.name = absl::StrCat("--", absl::StripPrefix(a.name, "-"));
    const YAML::Node& v = kv.second;
    if (v.IsNull()) {
      a.has_value = false;
    } else if (v.IsScalar()) {
      a.value = v.Scalar();
      a.has_value = true;
    } else if (v.IsSequence()) {
      std::vector<std::string> items;
      for (const auto& item : v) {
        if (item.IsScalar()) items.push_back(item.Scalar());
      }
      a.value = absl::StrJoin(items, " ");
      a.has_value = true;
    } else {
      return FieldError(field, absl::StrCat("line ", a.line, ": ", a.written, ": a mapping is not a flag value"));
    }
    if (a.has_value && absl::StrContains(a.value, "${")) {
      a.expanded = false;
      a.note = absl::StrCat(a.value, ": the test harness's variable, not known here");
    }
    out.push_back(std::move(a));
    if (out.size() > 100000) return FieldError(field, "MODEL_ARGS has more than 100000 entries");
  }
  return out;
}

}  // namespace parplan
