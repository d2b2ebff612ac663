#include "skill/cli/cli_flags.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "core/catalog/catalog.h"
#include "core/memory/memory_margin.h"
#include "core/model/hf_config.h"
#include "core/model/size_model.h"
#include "core/util/field_error.h"
#include "nlohmann/json.hpp"
#include "server/api/convert.h"
#include "server/api/json_codec.h"
#include "core/util/limits.h"

namespace parplan {
namespace cli {

const std::vector<std::string>& KnownFlags() {
  static const auto* flags = new std::vector<std::string>{"model",
                                                          "from",
                                                          "from-format",
                                                          "overrides",
                                                          "calibration",
                                                          "log",
                                                          "baseline-log",
                                                          "baseline-from",
                                                          "min-steady",
                                                          "runs",
                                                          "require-network",
                                                          "size",
                                                          "model-file",
                                                          "system",
                                                          "gpus",
                                                          "gpus-per-node",
                                                          "gpus-per-domain",
                                                          "tp",
                                                          "pp",
                                                          "vpp",
                                                          "cp",
                                                          "ep",
                                                          "etp",
                                                          "sp",
                                                          "no-sp",
                                                          "mbs",
                                                          "gbs",
                                                          "seq",
                                                          "precision",
                                                          "pp-layout",
                                                          "first-stage-layers",
                                                          "last-stage-layers",
                                                          "mtp-layers",
                                                          "json",
                                                          "server",
                                                          "timeout-ms",
                                                          "rank",
                                                          "max-ranks",
                                                          "max-groups",
                                                          "next",
                                                          "filter",
                                                          "help",
                                                          "recompute",
                                                          "recompute-modules",
                                                          "recompute-layers",
                                                          "recompute-method",
                                                          "dist-opt",
                                                          "no-dist-opt",
                                                          "fsdp",
                                                          "overhead-gib",
                                                          "max-suggestions",
                                                          "memory-reserve",
                                                          "grad-dtype",
                                                          "optimizer-dtype",
                                                          "peft",
                                                          "cpu-offload-layers",
                                                          "offload-modules",
                                                          "min-gpus",
                                                          "gpus-range",
                                                          "objective",
                                                          "top",
                                                          "max-pp",
                                                          "no-cp",
                                                          "no-recompute",
                                                          "nvlink-only",
                                                          "max-candidates",
                                                          "format",
                                                          "tls-ca",
                                                          "tls-server-name",
                                                          "token-file",
                                                          "account-for-embedding-in-pipeline-split",
                                                          "account-for-loss-in-pipeline-split",
                                                          "system-file",
                                                          "gpu-arch",
                                                          "hbm-gib",
                                                          "hbm-tbps",
                                                          "bf16-tflops",
                                                          "fp8-tflops",
                                                          "fp4-tflops",
                                                          "nvlink-gbps",
                                                          "nvlink-domain",
                                                          "scaleout-gbps",
                                                          "nics-per-node",
                                                          "nic-gbps",
                                                          "pcie-gbps",
                                                          "tp-comm-overlap",
                                                          "overlap-grad-reduce",
                                                          "overlap-moe-expert-parallel-comm",
                                                          "cuda-graph-impl",
                                                          "cuda-graph-modules",
                                                          "attention-backend",
                                                          "moe-token-dispatcher-type",
                                                          "moe-flex-dispatcher-backend",
                                                          "moe-permute-fusion",
                                                          "moe-router-force-load-balancing",
                                                          "apply-rope-fusion",
                                                          "use-transformer-engine-op-fuser",
                                                          "fine-grained-offloading-max-inflight-offloads",
                                                          "cp-comm-type",
                                                          "hierarchical-context-parallel-sizes",
                                                          "optimizer-cpu-offload",
                                                          "optimizer-offload-fraction",
                                                          "fp8-param-gather",
                                                          "expandable-segments",
                                                          "bridge-version",
                                                          "front-end",
                                                          "out",
                                                          "figure",
                                                          "groups"};
  return *flags;
}

namespace {
const std::vector<std::string>& SwitchFlags() {
  static const auto* flags = new std::vector<std::string>{"json",
                                                          "require-network",
                                                          "no-sp",
                                                          "help",
                                                          "dist-opt",
                                                          "no-dist-opt",
                                                          "fsdp",
                                                          "min-gpus",
                                                          "no-cp",
                                                          "no-recompute",
                                                          "nvlink-only",
                                                          "account-for-embedding-in-pipeline-split",
                                                          "account-for-loss-in-pipeline-split",
                                                          "tp-comm-overlap",
                                                          "overlap-grad-reduce",
                                                          "overlap-moe-expert-parallel-comm",
                                                          "moe-permute-fusion",
                                                          "moe-router-force-load-balancing",
                                                          "apply-rope-fusion",
                                                          "use-transformer-engine-op-fuser",
                                                          "optimizer-cpu-offload",
                                                          "fp8-param-gather",
                                                          "expandable-segments"};
  return *flags;
}
}  // namespace

std::string Flags::Get(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? "" : it->second;
}

absl::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args) {
  Flags flags;
  size_t i = 0;
  if (!args.empty() && args[0].rfind("--", 0) != 0) flags.command = args[i++];
  const auto& known = KnownFlags();
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    // `parplan import FILE`: the one positional argument, the source.
    if (flags.command == "import" && arg.rfind("--", 0) != 0 && !flags.Has("from")) {
      flags.values["from"] = arg;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg.size() < 3) {
      return FieldError(arg, absl::StrCat("unexpected argument '", arg, "'; flags look like --tp 8"));
    }
    std::string name = arg.substr(2), value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return FieldError(absl::StrCat("--", name), absl::StrCat("unknown flag; known: --", absl::StrJoin(known, " --")));
    }
    const auto& switches = SwitchFlags();
    const bool is_switch = std::find(switches.begin(), switches.end(), name) != switches.end();
    if (!has_value) {
      if (is_switch) {
        value = "true";
      } else if (name == "sp" && (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)) {
        value = "true";  // bare --sp
      } else if (i + 1 >= args.size()) {
        return FieldError(absl::StrCat("--", name), "needs a value");
      } else {
        value = args[++i];
      }
    }
    flags.values[name] = value;
  }
  return flags;
}

absl::Status IntFlag(const Flags& flags, const std::string& name, long long lo, long long hi, long long* out) {
  if (!flags.Has(name)) return absl::OkStatus();
  const std::string text = flags.Get(name);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE) {
    return FieldError(absl::StrCat("--", name), absl::StrCat("'", text.substr(0, 64), "' is not an integer"));
  }
  if (v < lo || v > hi) {
    return FieldError(absl::StrCat("--", name), absl::StrCat(v, " is out of range; allowed ", lo, "..", hi));
  }
  *out = v;
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFileFlag(const Flags& flags, const std::string& name, size_t limit) {
  const std::string flag = absl::StrCat("--", name);
  const std::string path = flags.Get(name);
  std::ifstream in(path, std::ios::binary);
  if (!in) return FieldError(flag, absl::StrCat("cannot read '", path.substr(0, 256), "'"));
  std::string data;
  char buffer[65536];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    data.append(buffer, static_cast<size_t>(in.gcount()));
    if (data.size() > limit) {
      return FieldError(flag, absl::StrCat("'", path.substr(0, 256), "' is larger than ", limit, " bytes"));
    }
  }
  return data;
}

absl::Status FillModel(const Flags& flags, v1::ModelRef* model, bool required) {
  const int given = flags.Has("model") + flags.Has("size") + flags.Has("model-file");
  if (given > 1) return FieldError("--model", "give only one of --model, --size, --model-file");
  if (flags.Has("size")) {
    model->set_size(flags.Get("size"));
  } else if (flags.Has("model-file")) {
    auto text = ReadFileFlag(flags, "model-file", 1 << 20);
    if (!text.ok()) return text.status();
    if (HasHfConfigKeys(*text)) {
      model->set_hf_config_json(*text);
    } else {
      const absl::Status status = api::JsonToMessage(*text, "--model-file", model->mutable_spec());
      if (!status.ok()) {
        std::string why;
        for (const auto& v : FieldViolationsOf(status)) why = v.description;
        return FieldError("--model-file",
                          absl::StrCat("neither a Hugging Face config.json nor an inline spec with Megatron "
                                       "field names: ",
                                       why.substr(0, 200)));
      }
    }
  } else if (flags.Has("model")) {
    const std::string name = flags.Get("model");
    // A phrase like "70B dense" that is not a catalog name is a size.
    if (!Catalog::Get().FindModel(name).ok() && LooksLikeSizePhrase(name)) {
      model->set_size(name);
    } else {
      model->set_id(name);
    }
  } else if (required) {
    return FieldError("--model", "a model is required: --model ID, --size \"70B dense\" or --model-file PATH");
  }
  return absl::OkStatus();
}

absl::Status FillConfig(const Flags& flags, v1::ParallelConfig* c) {
  FieldErrors errors;
  auto dim = [&](const char* name, auto setter) {
    long long v = 0;
    if (absl::Status s = IntFlag(flags, name, 1, kMaxDim, &v); !s.ok()) {
      for (const auto& fv : FieldViolationsOf(s)) errors.Add(fv.field, fv.description);
    } else if (flags.Has(name)) {
      setter(static_cast<int32_t>(v));
    }
  };
  dim("tp", [c](int32_t v) { c->set_tp(v); });
  dim("pp", [c](int32_t v) { c->set_pp(v); });
  dim("vpp", [c](int32_t v) { c->set_vpp(v); });
  dim("cp", [c](int32_t v) { c->set_cp(v); });
  dim("ep", [c](int32_t v) { c->set_ep(v); });
  dim("etp", [c](int32_t v) { c->set_etp(v); });
  long long v = 0;
  auto collect = [&errors](const absl::Status& s) {
    for (const auto& fv : FieldViolationsOf(s)) errors.Add(fv.field, fv.description);
    return s.ok();
  };
  if (flags.Has("mbs") && collect(IntFlag(flags, "mbs", 1, kMaxMbs, &v))) c->set_mbs(static_cast<int32_t>(v));
  if (flags.Has("gbs") && collect(IntFlag(flags, "gbs", 1, kMaxGbs, &v))) c->set_gbs(v);
  if (flags.Has("seq") && collect(IntFlag(flags, "seq", 1, kMaxSeqLength, &v)))
    c->set_seq_length(static_cast<int32_t>(v));
  if (flags.Has("first-stage-layers") && collect(IntFlag(flags, "first-stage-layers", 1, kMaxStageLayers, &v))) {
    c->set_num_layers_in_first_pipeline_stage(static_cast<int32_t>(v));
  }
  if (flags.Has("last-stage-layers") && collect(IntFlag(flags, "last-stage-layers", 1, kMaxStageLayers, &v))) {
    c->set_num_layers_in_last_pipeline_stage(static_cast<int32_t>(v));
  }
  if (flags.Has("mtp-layers") && collect(IntFlag(flags, "mtp-layers", 0, kMaxMtpLayers, &v))) {
    c->set_mtp_num_layers(static_cast<int32_t>(v));
  }
  if (flags.Has("sp") && flags.Has("no-sp")) errors.Add("--sp", "give --sp or --no-sp, not both");
  // A boolean flag: bare (true), =true/1/on or =false/0/off.
  auto boolean = [&](const char* name, const char* usage, auto setter) {
    if (!flags.Has(name)) return;
    const std::string s = flags.Get(name);
    if (s == "true" || s == "1" || s == "on") {
      setter(true);
    } else if (s == "false" || s == "0" || s == "off") {
      setter(false);
    } else {
      errors.Add(absl::StrCat("--", name), absl::StrCat("'", s.substr(0, 32), "' is not a boolean; ", usage));
    }
  };
  boolean("sp", "use --sp, --sp=false or --no-sp", [c](bool b) { c->set_sp(b); });
  if (flags.Has("no-sp")) c->set_sp(false);
  if (flags.Has("precision")) c->set_precision(flags.Get("precision"));
  if (flags.Has("recompute")) c->set_recompute_granularity(flags.Get("recompute"));
  if (flags.Has("recompute-modules")) {
    for (absl::string_view m : absl::StrSplit(flags.Get("recompute-modules"), ',', absl::SkipWhitespace())) {
      c->add_recompute_modules(std::string(absl::StripAsciiWhitespace(m)));
    }
  }
  if (flags.Has("recompute-method")) c->set_recompute_method(flags.Get("recompute-method"));
  if (flags.Has("recompute-layers") && collect(IntFlag(flags, "recompute-layers", 1, kMaxStageLayers, &v))) {
    c->set_recompute_num_layers(static_cast<int32_t>(v));
  }
  if (flags.Has("dist-opt") && flags.Has("no-dist-opt"))
    errors.Add("--dist-opt", "give --dist-opt or --no-dist-opt, not both");
  if (flags.Has("dist-opt")) c->set_use_distributed_optimizer(true);
  if (flags.Has("no-dist-opt")) c->set_use_distributed_optimizer(false);
  if (flags.Has("fsdp")) c->set_use_megatron_fsdp(true);
  if (flags.Has("grad-dtype")) {
    const std::string g = flags.Get("grad-dtype");
    if (g == "fp32" || g == "bf16") {
      c->set_grad_reduce_in_fp32(g == "fp32");
    } else {
      errors.Add("--grad-dtype", absl::StrCat("'", g.substr(0, 32), "' is unknown; allowed fp32, bf16"));
    }
  }
  if (flags.Has("optimizer-dtype")) c->set_optimizer_state_dtype(flags.Get("optimizer-dtype"));
  if (flags.Has("peft")) c->set_peft(flags.Get("peft"));
  if (flags.Has("cpu-offload-layers") && collect(IntFlag(flags, "cpu-offload-layers", 0, kMaxStageLayers, &v))) {
    c->set_cpu_offloading_num_layers(static_cast<int32_t>(v));
  }
  if (flags.Has("offload-modules")) {
    for (absl::string_view m : absl::StrSplit(flags.Get("offload-modules"), ',', absl::SkipWhitespace())) {
      c->add_offload_modules(std::string(absl::StripAsciiWhitespace(m)));
    }
  }
  if (flags.Has("pp-layout")) c->set_pipeline_layout(flags.Get("pp-layout"));
  // Megatron-LM's own flag names.
  boolean("account-for-embedding-in-pipeline-split", "use the bare flag or =false",
          [c](bool b) { c->set_account_for_embedding_in_pipeline_split(b); });
  boolean("account-for-loss-in-pipeline-split", "use the bare flag or =false",
          [c](bool b) { c->set_account_for_loss_in_pipeline_split(b); });
  boolean("tp-comm-overlap", "use the bare flag or =false", [c](bool b) { c->set_tp_comm_overlap(b); });
  boolean("overlap-grad-reduce", "use the bare flag or =false", [c](bool b) { c->set_overlap_grad_reduce(b); });
  boolean("overlap-moe-expert-parallel-comm", "use the bare flag or =false",
          [c](bool b) { c->set_overlap_moe_expert_parallel_comm(b); });
  if (flags.Has("cuda-graph-impl")) c->set_cuda_graph_impl(flags.Get("cuda-graph-impl"));
  if (flags.Has("cuda-graph-modules")) {
    for (absl::string_view m : absl::StrSplit(flags.Get("cuda-graph-modules"), ',', absl::SkipWhitespace())) {
      c->add_cuda_graph_modules(std::string(absl::StripAsciiWhitespace(m)));
    }
  }
  if (flags.Has("attention-backend")) c->set_attention_backend(flags.Get("attention-backend"));
  // Megatron-LM's own flag names.
  if (flags.Has("moe-token-dispatcher-type")) c->set_moe_token_dispatcher_type(flags.Get("moe-token-dispatcher-type"));
  if (flags.Has("moe-flex-dispatcher-backend")) {
    c->set_moe_flex_dispatcher_backend(flags.Get("moe-flex-dispatcher-backend"));
  }
  boolean("moe-permute-fusion", "use the bare flag or =false", [c](bool b) { c->set_moe_permute_fusion(b); });
  boolean("moe-router-force-load-balancing", "use the bare flag or =false",
          [c](bool b) { c->set_moe_router_force_load_balancing(b); });
  boolean("apply-rope-fusion", "use the bare flag or =false", [c](bool b) { c->set_apply_rope_fusion(b); });
  boolean("use-transformer-engine-op-fuser", "use the bare flag or =false",
          [c](bool b) { c->set_use_transformer_engine_op_fuser(b); });
  if (flags.Has("fine-grained-offloading-max-inflight-offloads") &&
      collect(IntFlag(flags, "fine-grained-offloading-max-inflight-offloads", 0, kMaxInflightOffloads, &v))) {
    c->set_fine_grained_offloading_max_inflight_offloads(static_cast<int32_t>(v));
  }
  if (flags.Has("cp-comm-type")) c->set_cp_comm_type(flags.Get("cp-comm-type"));
  // A comma list (Megatron-LM takes the sizes space-separated: 2 2).
  if (flags.Has("hierarchical-context-parallel-sizes")) {
    for (absl::string_view item :
         absl::StrSplit(flags.Get("hierarchical-context-parallel-sizes"), ',', absl::SkipWhitespace())) {
      int64_t size = 0;
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(item), &size) || size < 1 || size > kMaxDim) {
        errors.Add("--hierarchical-context-parallel-sizes",
                   absl::StrCat("'", item.substr(0, 32), "' is not a size in 1..", kMaxDim,
                                "; give a comma list whose product is CP, e.g. 2,2"));
        break;
      }
      c->add_hierarchical_context_parallel_sizes(static_cast<int32_t>(size));
    }
  }
  boolean("optimizer-cpu-offload", "use the bare flag or =false", [c](bool b) { c->set_optimizer_cpu_offload(b); });
  boolean("fp8-param-gather", "use the bare flag or =false", [c](bool b) { c->set_fp8_param_gather(b); });
  boolean("expandable-segments", "use the bare flag or =false", [c](bool b) { c->set_expandable_segments(b); });
  if (flags.Has("bridge-version")) c->set_bridge_version(flags.Get("bridge-version"));
  if (flags.Has("front-end")) c->set_front_end(flags.Get("front-end"));
  if (flags.Has("optimizer-offload-fraction")) {
    double x = 0;
    if (collect(DoubleFlag(flags, "optimizer-offload-fraction", &x))) {
      if (x >= 0.0 && x <= 1.0) {
        c->set_optimizer_offload_fraction(x);
      } else {
        errors.Add("--optimizer-offload-fraction",
                   absl::StrCat(x, " is out of range; allowed 0..1 (the share of the optimizer state on the host)"));
      }
    }
  }
  return errors.ToStatus();
}

absl::Status DoubleFlag(const Flags& flags, const std::string& name, double* out) {
  const std::string text = flags.Get(name);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE) {
    return FieldError(absl::StrCat("--", name), absl::StrCat("'", text.substr(0, 64), "' is not a number"));
  }
  *out = v;
  return absl::OkStatus();
}

absl::Status MemoryReserveFlag(const Flags& flags, std::optional<double>* out) {
  if (!flags.Has("memory-reserve")) return absl::OkStatus();
  double v = 0;
  if (absl::Status s = DoubleFlag(flags, "memory-reserve", &v); !s.ok()) return s;
  if (absl::Status s = CheckMemoryReserve(v, "--memory-reserve"); !s.ok()) return s;
  *out = v;
  return absl::OkStatus();
}

absl::Status FillPlacement(const Flags& flags, v1::Placement* p) {
  long long v = 0;
  if (absl::Status s = IntFlag(flags, "gpus", 1, kMaxGpus, &v); !s.ok()) return s;
  if (flags.Has("gpus")) p->set_gpus(v);
  if (absl::Status s = IntFlag(flags, "gpus-per-node", 1, kMaxGpusPerNode, &v); !s.ok()) return s;
  if (flags.Has("gpus-per-node")) p->set_gpus_per_node(static_cast<int32_t>(v));
  if (absl::Status s = IntFlag(flags, "gpus-per-domain", 1, kMaxNvlinkDomain, &v); !s.ok()) return s;
  if (flags.Has("gpus-per-domain")) p->set_gpus_per_nvlink_domain(static_cast<int32_t>(v));
  if (flags.Has("system")) p->set_system(flags.Get("system"));
  // The system's figures: a spec file (proto3 JSON of SystemSpec, or what
  // `parplan system --json` prints: {"system": {...}} with SystemInfo's
  // names), then single-figure flags on top of it.
  v1::SystemSpec* spec = p->mutable_system_spec();
  if (flags.Has("system-file")) {
    auto text = ReadFileFlag(flags, "system-file", 1 << 16);
    if (!text.ok()) return text.status();
    std::string body = *std::move(text);
    if (api::JsonNestedWithin(body, kMaxJsonDepth)) {
      const auto parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
      if (parsed.is_object() && parsed.size() == 1 && parsed.contains("system") && parsed["system"].is_object()) {
        body = parsed["system"].dump();
      }
    }
    if (absl::Status s = api::JsonToMessage(body, "--system-file", spec); !s.ok()) return s;
    if (absl::Status s = CheckSystemSpecSpellings(*spec, "--system-file"); !s.ok()) return s;
    CanonicalizeSystemSpec(spec);
  }
  FieldErrors errors;
  auto real = [&](const char* name, auto setter) {
    if (!flags.Has(name)) return;
    double x = 0;
    if (absl::Status s = DoubleFlag(flags, name, &x); !s.ok()) {
      for (const auto& fv : FieldViolationsOf(s)) errors.Add(fv.field, fv.description);
      return;
    }
    setter(x);
  };
  auto count = [&](const char* name, long long hi, auto setter) {
    if (!flags.Has(name)) return;
    long long n = 0;
    if (absl::Status s = IntFlag(flags, name, 1, hi, &n); !s.ok()) {
      for (const auto& fv : FieldViolationsOf(s)) errors.Add(fv.field, fv.description);
      return;
    }
    setter(static_cast<int32_t>(n));
  };
  if (flags.Has("gpu-arch")) spec->set_gpu_arch(flags.Get("gpu-arch"));
  real("hbm-gib", [spec](double x) { spec->set_hbm_gib(x); });
  real("hbm-tbps", [spec](double x) { spec->set_hbm_tbps(x); });
  real("bf16-tflops", [spec](double x) { spec->set_bf16_tflops(x); });
  real("fp8-tflops", [spec](double x) { spec->set_fp8_tflops(x); });
  real("fp4-tflops", [spec](double x) { spec->set_fp4_tflops(x); });
  real("nvlink-gbps", [spec](double x) { spec->set_nvlink_gbps(x); });
  count("nvlink-domain", kMaxNvlinkDomain, [spec](int32_t n) { spec->set_nvlink_domain_size(n); });
  real("scaleout-gbps", [spec](double x) { spec->set_scaleout_gbps(x); });
  count("nics-per-node", kMaxNicsPerNode, [spec](int32_t n) { spec->set_nics_per_node(n); });
  real("nic-gbps", [spec](double x) { spec->set_nic_gbps(x); });
  real("pcie-gbps", [spec](double x) { spec->set_pcie_gbps(x); });
  return errors.ToStatus();
}

}  // namespace cli
}  // namespace parplan
