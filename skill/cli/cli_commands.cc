#include "skill/cli/cli_commands.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "core/config/parallel_config.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"
#include "parplan/v1/planner.pb.h"
#include "server/api/api_methods.h"
#include "server/api/convert.h"
#include "server/api/json_codec.h"
#include "server/api/plan_plot.h"
#include "server/api/tool_schemas.h"
#include "skill/cli/cli_import.h"
#include "skill/cli/cli_table.h"
#include "skill/cli/remote_call.h"

namespace parplan {
namespace cli {
namespace {

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kOutOfRange:
      return 2;
    default:
      return 1;
  }
}

std::string DescribeError(const absl::Status& status) {
  std::string out = absl::StrCat("parplan: ", absl::StatusCodeToString(status.code()), ": ");
  const auto violations = FieldViolationsOf(status);
  if (violations.empty()) return absl::StrCat(out, status.message(), "\n");
  absl::StrAppend(&out, "bad input\n");
  for (const auto& v : violations) absl::StrAppend(&out, "  ", v.field, ": ", v.description, "\n");
  return out;
}

// --tls-ca FILE [--tls-server-name NAME] and the token (--token-file FILE or
// PARPLAN_AUTH_TOKEN) for --server.
absl::Status FillRemoteSecurity(const Flags& flags, RemoteRequest* call) {
  // A CA bundle or a token file: non-empty, at most 1 MiB.
  auto read = [&flags](const std::string& name, std::string* out) {
    auto text = ReadFileFlag(flags, name, 1 << 20);
    if (!text.ok()) return text.status();
    if (text->empty()) return FieldError(absl::StrCat("--", name), "the file is empty");
    *out = *std::move(text);
    return absl::OkStatus();
  };
  if (flags.Has("tls-ca")) {
    if (absl::Status s = read("tls-ca", &call->tls_ca_pem); !s.ok()) return s;
    call->tls_server_name = flags.Get("tls-server-name");
  }
  if (flags.Has("token-file")) {
    if (absl::Status s = read("token-file", &call->token); !s.ok()) return s;
    call->token = call->token.substr(0, call->token.find_first_of("\r\n"));
  } else if (const char* env = std::getenv("PARPLAN_AUTH_TOKEN"); env != nullptr) {
    call->token = env;
  }
  return absl::OkStatus();
}

// Answers `request` in-process (the method table's call) or, with
// --server, through the server's method of the same name (the gRPC client
// is loaded only then), and prints the response with the row's formatter.
int Invoke(const Flags& flags, const google::protobuf::Message& request, const char* rpc, std::string* out,
           std::string* err, std::unique_ptr<google::protobuf::Message>* kept = nullptr) {
  const api::ApiMethod* method = api::FindApiMethod(rpc);
  std::unique_ptr<google::protobuf::Message> response(method->response->New());
  absl::Status status;
  if (flags.Has("server")) {
    long long timeout_ms = 30000;
    if (absl::Status s = IntFlag(flags, "timeout-ms", 1, kMaxClientTimeoutMs, &timeout_ms); !s.ok()) {
      *err = DescribeError(s);
      return 2;
    }
    RemoteRequest call;
    call.address = flags.Get("server");
    call.method = absl::StrCat("/parplan.v1.Planner/", rpc);
    call.request = request.SerializeAsString();
    call.timeout_ms = timeout_ms;
    if (absl::Status s = FillRemoteSecurity(flags, &call); !s.ok()) {
      *err = DescribeError(s);
      return 2;
    }
    std::string bytes;
    status = CallRemote(call, &bytes);
    if (status.ok() && !response->ParseFromString(bytes)) {
      status = absl::DataLossError(absl::StrCat("the server's ", rpc, " answer is not a valid response"));
    }
  } else {
    status = api::RunMethod(*method, request, response.get(), absl::InfiniteFuture());
  }
  if (!status.ok()) {
    *err = DescribeError(status);
    return ExitCodeFor(status);
  }
  *out = flags.Has("json") ? api::MessageToJson(*response, /*pretty=*/true) : FormatAnswer(rpc, *response);
  if (kept != nullptr) *kept = std::move(response);
  return 0;
}

// The search flags of `recommend` beyond the config, model and placement.
absl::Status FillRecommendFlags(const Flags& flags, v1::RecommendRequest* req) {
  FieldErrors errors;
  auto collect = [&](const absl::Status& s) {
    for (const auto& v : FieldViolationsOf(s)) errors.Add(v.field, v.description);
    return s.ok();
  };
  req->set_find_min_gpus(flags.Has("min-gpus"));
  if (flags.Has("gpus-range")) {
    const std::string text = flags.Get("gpus-range");
    const std::vector<std::string> parts = absl::StrSplit(text, '-');
    long long lo = 0, hi = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &lo) || !absl::SimpleAtoi(parts[1], &hi) || lo < 1 ||
        hi < lo || hi > kMaxGpus) {
      errors.Add("--gpus-range",
                 absl::StrCat("--gpus-range = \"", text, "\"; expected LO-HI with 1 <= LO <= HI <= ", kMaxGpus));
    } else {
      req->set_min_gpus(lo);
      req->set_max_gpus(hi);
    }
  }
  req->set_objective(flags.Get("objective"));
  long long v = 0;
  if (flags.Has("top") && collect(IntFlag(flags, "top", 1, kMaxTopK, &v))) req->set_top_k(static_cast<int32_t>(v));
  if (flags.Has("max-pp") && collect(IntFlag(flags, "max-pp", 1, kMaxSearchPp, &v))) {
    req->mutable_constraints()->set_max_pp(static_cast<int32_t>(v));
  }
  if (flags.Has("max-candidates") && collect(IntFlag(flags, "max-candidates", 1, kMaxCandidates, &v))) {
    req->set_max_candidates(v);
  }
  req->mutable_constraints()->set_no_cp(flags.Has("no-cp"));
  req->mutable_constraints()->set_no_recompute(flags.Has("no-recompute"));
  req->mutable_constraints()->set_nvlink_only(flags.Has("nvlink-only"));
  std::optional<double> reserve;
  if (collect(MemoryReserveFlag(flags, &reserve)) && reserve.has_value()) req->set_memory_reserve(*reserve);
  return errors.ToStatus();
}

int Fail(const absl::Status& status, std::string* err) {
  *err = DescribeError(status);
  return ExitCodeFor(status);
}

// Model (optional), config and placement flags of a config-shaped request,
// on top of --from's import when given. With `imported` non-null the
// import's config is handed back there instead of under the flags (recommend:
// the user's current plan, while the flags pin the search).
template <typename Req>
absl::Status FillPlanFlags(const Flags& flags, Req* req, bool model_required = false,
                           v1::ParallelConfig* imported = nullptr) {
  auto from = ImportFromFlag(flags);
  if (!from.ok()) return from.status();
  const bool model_flag = flags.Has("model") || flags.Has("size") || flags.Has("model-file");
  const bool model_from_import = from->has_value() && HasModel((*from)->model);
  if (absl::Status s = FillModel(flags, req->mutable_model(), model_required && !model_from_import); !s.ok()) return s;
  if (absl::Status s = FillConfig(flags, req->mutable_config()); !s.ok()) return s;
  if (absl::Status s = FillPlacement(flags, req->mutable_placement()); !s.ok()) return s;
  if (!from->has_value()) return absl::OkStatus();
  if (imported != nullptr) {
    // The current plan is the import with the flags on top; the flags alone pin the search.
    v1::ParallelConfig pins = *req->mutable_config();
    ApplyImport(**from, model_flag, req->mutable_model(), req->mutable_config(), req->mutable_placement());
    *imported = *req->mutable_config();
    *req->mutable_config() = std::move(pins);
    return absl::OkStatus();
  }
  ApplyImport(**from, model_flag, req->mutable_model(), req->mutable_config(), req->mutable_placement());
  return absl::OkStatus();
}

absl::Status BuildListModels(const Flags& flags, v1::ListModelsRequest* req) {
  req->set_filter(flags.Get("filter"));
  return absl::OkStatus();
}

absl::Status BuildGetModel(const Flags& flags, v1::GetModelRequest* req) {
  return FillModel(flags, req->mutable_model(), true);
}

absl::Status BuildListSystems(const Flags&, v1::ListSystemsRequest*) { return absl::OkStatus(); }

absl::Status BuildGetSystem(const Flags& flags, v1::GetSystemRequest* req) {
  v1::Placement placement;
  if (absl::Status s = FillPlacement(flags, &placement); !s.ok()) return s;
  req->set_system(placement.system());
  *req->mutable_system_spec() = placement.system_spec();
  return absl::OkStatus();
}

absl::Status BuildMinGpus(const Flags& flags, v1::MinGpusRequest* req) {
  if (absl::Status s = FillPlanFlags(flags, req); !s.ok()) return s;
  long long next = 0;
  if (absl::Status s = IntFlag(flags, "next", 1, kMaxNextWorldSizes, &next); !s.ok()) return s;
  req->set_num_next_world_sizes(static_cast<int32_t>(next));
  return absl::OkStatus();
}

absl::Status BuildValidate(const Flags& flags, v1::ValidateRequest* req) { return FillPlanFlags(flags, req); }

absl::Status BuildExplainLayout(const Flags& flags, v1::ExplainLayoutRequest* req) {
  if (absl::Status s = FillPlanFlags(flags, req); !s.ok()) return s;
  long long v = 0;
  if (absl::Status s = IntFlag(flags, "max-ranks", 0, kMaxRanksListed, &v); !s.ok()) return s;
  req->set_max_ranks(static_cast<int32_t>(v));
  v = 0;
  if (absl::Status s = IntFlag(flags, "max-groups", 0, kMaxGroupsListed, &v); !s.ok()) return s;
  req->set_max_groups(static_cast<int32_t>(v));
  if (flags.Has("rank")) {
    if (absl::Status s = IntFlag(flags, "rank", 0, kMaxGpus - 1, &v); !s.ok()) return s;
    req->set_rank(v);
  }
  return absl::OkStatus();
}

absl::Status BuildRenderConfig(const Flags& flags, v1::RenderConfigRequest* req) { return FillPlanFlags(flags, req); }

absl::Status BuildEstimateMemory(const Flags& flags, v1::EstimateMemoryRequest* req) {
  if (absl::Status s = FillPlanFlags(flags, req, /*model_required=*/true); !s.ok()) return s;
  if (flags.Has("overhead-gib")) {
    double v = 0;
    if (absl::Status s = DoubleFlag(flags, "overhead-gib", &v); !s.ok()) return s;
    if (!(v >= 0 && v <= kMaxOverheadGib)) {
      return FieldError("--overhead-gib", absl::StrCat("must be a number of GiB in 0..", kMaxOverheadGib));
    }
    req->set_overhead_gib(v);
  }
  long long v = 0;
  if (absl::Status s = IntFlag(flags, "max-suggestions", 0, kMaxSuggestions, &v); !s.ok()) return s;
  req->set_max_suggestions(static_cast<int32_t>(v));
  std::optional<double> reserve;
  if (absl::Status s = MemoryReserveFlag(flags, &reserve); !s.ok()) return s;
  if (reserve.has_value()) req->set_memory_reserve(*reserve);
  return absl::OkStatus();
}

absl::Status BuildEstimatePerformance(const Flags& flags, v1::EstimatePerformanceRequest* req) {
  if (absl::Status s = FillPlanFlags(flags, req, /*model_required=*/true); !s.ok()) return s;
  return FillCalibrationFlag(flags, req->mutable_calibration());
}

absl::Status BuildRecommend(const Flags& flags, v1::RecommendRequest* req) {
  v1::ParallelConfig current;
  if (absl::Status s = FillPlanFlags(flags, req, true, &current); !s.ok()) return s;
  if (flags.Has("from")) {
    *req->mutable_current() = current;
    // A range or fewest-GPU search keeps the script's GPU count as the current plan's.
    if (flags.Has("gpus-range") || flags.Has("min-gpus")) {
      if (!flags.Has("gpus")) {
        req->set_current_gpus(req->placement().gpus());
        req->mutable_placement()->clear_gpus();
      }
    }
  }
  if (absl::Status s = FillCalibrationFlag(flags, req->mutable_calibration()); !s.ok()) return s;
  return FillRecommendFlags(flags, req);
}

template <typename Req, absl::Status (*F)(const Flags&, Req*)>
absl::Status BuildAs(const Flags& flags, google::protobuf::Message* request) {
  return F(flags, static_cast<Req*>(request));
}

}  // namespace

const std::vector<CliCommand>& CliCommands() {
#define PARPLAN_CLI_ROW(command, Name) \
  { command, #Name, &BuildAs<v1::Name##Request, &Build##Name> }
  static const auto* commands = new std::vector<CliCommand>{
      PARPLAN_CLI_ROW("models", ListModels),     PARPLAN_CLI_ROW("model", GetModel),
      PARPLAN_CLI_ROW("systems", ListSystems),   PARPLAN_CLI_ROW("system", GetSystem),
      PARPLAN_CLI_ROW("min-gpus", MinGpus),      PARPLAN_CLI_ROW("validate", Validate),
      PARPLAN_CLI_ROW("layout", ExplainLayout),  PARPLAN_CLI_ROW("render", RenderConfig),
      PARPLAN_CLI_ROW("memory", EstimateMemory), PARPLAN_CLI_ROW("perf", EstimatePerformance),
      PARPLAN_CLI_ROW("recommend", Recommend),   PARPLAN_CLI_ROW("import", ImportConfig),
      PARPLAN_CLI_ROW("compare", CompareRun),    PARPLAN_CLI_ROW("calibrate", Calibrate)};
#undef PARPLAN_CLI_ROW
  return *commands;
}

namespace {

// `plot`: the plan's pictures (server/api/plan_plot.h) as one SVG, written to
// --out (with a one-line summary on stdout) or to stdout. In-process only.
int Plot(const Flags& flags, std::string* out, std::string* err) {
  if (flags.Has("server")) {
    return Fail(FieldError("--server", "plot draws in-process; the server draws at POST /plot.svg"), err);
  }
  v1::RenderConfigRequest request;
  if (absl::Status s = FillPlanFlags(flags, &request, /*model_required=*/true); !s.ok()) return Fail(s, err);
  auto plot = api::PlotPlan(request, flags.Get("groups"), "--groups");
  if (!plot.ok()) return Fail(plot.status(), err);
  auto svg = api::PlanPlotSvg(*plot, flags.Has("figure") ? flags.Get("figure") : "all", "--figure");
  if (!svg.ok()) return Fail(svg.status(), err);
  if (!flags.Has("out")) {
    *out = *std::move(svg);
    return 0;
  }
  const std::string path = flags.Get("out");
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << *svg;
  file.close();
  if (!file) return Fail(absl::UnavailableError(absl::StrCat("--out: cannot write '", path, "'")), err);
  *out = absl::StrCat("wrote ", path, " (", svg->size(), " bytes): ", plot->figure.title, "\n");
  for (const std::string& reason : plot->reasons) absl::StrAppend(out, "  ", reason, "\n");
  return 0;
}

// `calibrate --out FILE`: the calibration's file form, for --calibration.
int WriteCalibration(const Flags& flags, const google::protobuf::Message& response, std::string* out,
                     std::string* err) {
  const auto& answer = static_cast<const v1::CalibrateResponse&>(response);
  const std::string path = flags.Get("out");
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << answer.calibration_json();
  file.close();
  if (!file) return Fail(absl::UnavailableError(absl::StrCat("--out: cannot write '", path, "'")), err);
  absl::StrAppend(out, "wrote ", path, " (use it with --calibration ", path, ")\n");
  return 0;
}

}  // namespace

std::string Usage() {
  return R"(parplan: parallelism planner for Megatron Bridge / Megatron-Core

usage: parplan COMMAND [flags]

commands:
  models     [--filter TEXT]                      catalog models (complete or not)
  model      --model ID | --size TEXT | --model-file PATH   one model in full
  systems                                         catalog systems
  system     --system ID [system figures]         one system in full, each figure's source
  min-gpus   --tp --pp --cp --ep --etp [--gpus N] [--model ..] [--next K]
                                                  minimum GPUs, DP/EDP, valid world sizes
  validate   --model .. [--system ..] [--gpus N] [config flags]
                                                  every Megatron rule the config breaks
  layout     --gpus N [--system ..] [config flags] [--rank R] [--max-ranks K]
                                                  rank coordinates and process groups
  render     [--model ..] [--system ..] [--gpus N] [config flags]
                                                  Megatron Bridge / Megatron-LM / Slurm text
  memory     --model .. [--system ..] [--gpus N] [config flags] [--overhead-gib X] [--memory-reserve F]
                                                  per-GPU memory per pipeline stage; fits or what to change
  perf       --model .. --system .. [--gpus N] [config flags]
                                                  step time, tokens/s/GPU, model TFLOP/s, MFU, breakdown
  recommend  --model .. --system .. (--gpus N | --min-gpus | --gpus-range LO-HI) [--seq] [--gbs]
             [--precision] [--objective throughput|fewest-gpus|headroom] [--top K]
             [--tp/--pp/--vpp/--cp/--ep/--etp/--mbs/--recompute pin a dimension]
             [--max-pp N] [--no-cp] [--no-recompute] [--nvlink-only] [--max-candidates N]
             [--memory-reserve F (share of HBM kept free; less is "tight") [0.05]]
                                                  the best plans, the rule-of-thumb start, what was rejected
  import     FILE | - | recipe:NAME [--overrides "a.b=1 c.d=2"] [--from-format F] [--system ..] [--gpus N]
                                                  a Megatron-LM script / args block / MODEL_ARGS YAML, a Bridge
                                                  recipe + overrides or YAML, an HF config.json: every argument
                                                  mapped or listed, the resolved plan, its validation
  compare    --log FILE [--from CONFIG] [--system ..] [--baseline-log FILE [--baseline-from CONFIG]]
             [--min-steady N] [--calibration FILE]
                                                  a training log: steady window, measured vs predicted, gap by
                                                  term, gate, A/B verdict, failures mapped to rules
  calibrate  --runs LOG:CONFIG[,LOG:CONFIG...] --system .. [--out calibration.json] [--require-network]
                                                  compute / network factors of your cluster, leave-one-out
  plot       --model .. --system .. [--gpus N] [config flags] [--figure all|ranks|memory|time] [--groups tp|cp|ep|dp|pp] [--out F.svg]
                                                  the plan as SVG: rank map, memory per stage, step time
  tools      [--format mcp|openai|json-schema]      every command as a tool schema (from the proto)
  mcp                                             MCP server on stdin/stdout (JSON-RPC, one message a line)

model:   --model ID (catalog id, alias, HF id, or a size like "70B dense")
         --size "235B total, 22B active MoE"   --model-file config.json|spec.json
config:  --tp --pp --vpp --cp --ep --etp (1..4096)  --sp | --no-sp  --mbs --gbs --seq
         --precision bf16|fp8-cs|fp8-mx|fp8-sc|fp8-ds|nvfp4  --pp-layout LAYOUT
         --first-stage-layers N --last-stage-layers N --mtp-layers N
         --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split
         --recompute none|selective|full --recompute-modules core_attn,mlp,moe,moe_act,layernorm,...
         --recompute-method uniform|block --recompute-layers N  --dist-opt (default) | --no-dist-opt  --fsdp
         --grad-dtype fp32|bf16 --optimizer-dtype fp32|bf16 --peft none|lora
         --cpu-offload-layers N --offload-modules core_attn,attn_proj,expert_fc1,...
         --tp-comm-overlap --overlap-grad-reduce[=false] --overlap-moe-expert-parallel-comm
         --cuda-graph-impl none|local|transformer_engine|full_iteration --cuda-graph-modules attn,mlp,moe_router,...
         --moe-token-dispatcher-type alltoall|allgather|flex --moe-flex-dispatcher-backend deepep|hybridep|ncclep
         --moe-permute-fusion[=false] --moe-router-force-load-balancing --apply-rope-fusion[=false]
         --use-transformer-engine-op-fuser[=false] --fine-grained-offloading-max-inflight-offloads N (0..1024)
         --cp-comm-type p2p|all_gather|a2a|a2a+p2p --hierarchical-context-parallel-sizes 2,2 (product = CP)
         --optimizer-cpu-offload[=false] --optimizer-offload-fraction X (0..1; Megatron-Core's default 0.0)
         --attention-backend auto|flash|fused|unfused|local
         --fp8-param-gather[=false] (default: the precision preset's, as Megatron Bridge sets it)
         --expandable-segments[=false] (PyTorch's allocator setting; default on, as Bridge's recipes set it)
versions: --front-end bridge|megatron-lm (whose defaults and checks apply; default bridge)
         --bridge-version 0.6.0 (the Megatron Bridge release; default the newest parplan knows, e.g. 0.5.1
         keeps ETP = TP) | 26.04 (a NeMo container 25.11..26.08: the release it ships, its libraries named,
         its published known issues checked)
where:   --system ID (parplan systems: h100-sxm, h800-sxm, a100-40gb, rtx-pro-6000, gb200-nvl72, ...)
         --gpus N  --gpus-per-node N  --gpus-per-domain N (GPUs used of each NVLink domain, e.g. 64 of 72)
system figures (override --system's, or describe your own with --gpu-arch):
         --system-file spec.json (SystemSpec JSON)  --gpu-arch ampere|hopper|blackwell
         --hbm-gib X  --hbm-tbps X  --bf16-tflops X  --fp8-tflops X  --fp4-tflops X (dense, per GPU)
         --nvlink-gbps X (GB/s per GPU, both directions as marketed; 0 = none)  --nvlink-domain N
         --scaleout-gbps X (Gb/s per GPU) | --nics-per-node N --nic-gbps X   --pcie-gbps X (GB/s per direction)
from:    --from FILE | - | recipe:NAME (any method: the model, config and placement of a launch script,
         recipe or YAML, with the command's flags on top; recommend keeps it as the current plan and
         changes the least)  --overrides "a.b=1 ..."  --from-format megatron-lm-script|megatron-lm-args|
         megatron-lm-yaml|bridge-recipe|bridge-overrides|bridge-yaml|hf-config
         --calibration FILE (from `parplan calibrate --out`; perf, recommend and compare use it)
output:  --json (proto3 JSON, snake_case)   --server HOST:PORT [--timeout-ms MS]
         [--tls-ca PEM [--tls-server-name NAME]] [--token-file FILE | env PARPLAN_AUTH_TOKEN]

Without --server the answer is computed in-process; with it the service answers.
Exit 0 on an answer (also "invalid config"), 2 on bad input, 1 on other failures.
)";
}

int RunCommand(const Flags& flags, std::string* out, std::string* err) {
  const std::string& cmd = flags.command;
  if (cmd.empty() || cmd == "help" || flags.Has("help")) {
    *out = Usage();
    return cmd.empty() && !flags.Has("help") ? 2 : 0;
  }
  for (const CliCommand& command : CliCommands()) {
    if (cmd != command.name) continue;
    std::unique_ptr<google::protobuf::Message> request(api::FindApiMethod(command.rpc)->request->New());
    if (absl::Status s = command.build(flags, request.get()); !s.ok()) return Fail(s, err);
    // A calibration changes step times only; other methods check the file and say so.
    const bool uses_calibration = cmd == "perf" || cmd == "recommend" || cmd == "compare";
    std::string calibration_note;
    if (flags.Has("calibration") && !uses_calibration) {
      v1::Calibration unused;
      if (absl::Status s = FillCalibrationFlag(flags, &unused); !s.ok()) return Fail(s, err);
      calibration_note = absl::StrCat("calibration: not used by `", cmd,
                                      "` (a calibration changes step times: perf, recommend, compare)\n");
    }
    std::unique_ptr<google::protobuf::Message> response;
    const int code = Invoke(flags, *request, command.rpc, out, err, &response);
    if (code == 0 && !flags.Has("json")) *out += calibration_note;
    if (code == 0 && cmd == "calibrate" && flags.Has("out")) return WriteCalibration(flags, *response, out, err);
    return code;
  }
  if (cmd == "plot") return Plot(flags, out, err);
  if (cmd == "tools") {
    auto format = api::ParseToolFormat(flags.Has("format") ? flags.Get("format") : "mcp", "--format");
    if (!format.ok()) return Fail(format.status(), err);
    *out = api::ExportTools(api::PlannerToolSchemas(), *format).dump(2) + "\n";
    return 0;
  }
  *err = absl::StrCat("parplan: unknown command '", cmd.substr(0, 64),
                      "'; commands: models model systems system min-gpus validate layout render memory perf "
                      "recommend import compare calibrate plot tools mcp\n");
  return 2;
}

}  // namespace cli
}  // namespace parplan
