// Rules on the MoE token dispatcher, the expert-parallel communication
// overlap and CUDA graphs: Megatron-Core's TransformerConfig.__post_init__
// and MoEFlexTokenDispatcher, Megatron-LM's validate_args, Megatron FSDP's
// adapter and Megatron Bridge's flex-dispatcher, comm-overlap and CUDA-graph
// checks. Each cites the file and line at Megatron-LM d98e8a64dd and Megatron
// Bridge 067f987df0 (core/rules/MEGATRON_CHECKS.md lists every check).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/pipeline/layout_parser.h"
#include "core/rules/rule_context.h"

namespace parplan {
namespace {

bool Contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::string Listed(const std::vector<std::string>& list) { return absl::StrCat("[", absl::StrJoin(list, ", "), "]"); }

// What Megatron Bridge's flex-dispatcher check reads from
// torch.cuda.get_device_properties(0) (training/flex_dispatcher_backend.py:
// 95-109): the compute capability's major number and whether the product name
// starts with "NVIDIA B200" / "NVIDIA B300". Known from the catalog system id
// (Hopper / Ampere from the architecture alone); `known` is false for a
// Blackwell system parplan cannot name, where both checks are skipped.
struct BridgeDevice {
  bool known = false;
  int major = 0;
  bool b200_or_b300 = false;
};

BridgeDevice DeviceOf(const SystemSpec& s) {
  if (s.gpu_arch == "ampere") return {true, 8, false};
  if (s.gpu_arch == "hopper") return {true, 9, false};
  if (s.gpu_arch != "blackwell") return {};
  // HGX/DGX B200 and B300 boards (b200, b200-400g, b200-800g, b300): sm_100 /
  // sm_103, named "NVIDIA B200" / "NVIDIA B300 ...".
  if (absl::StartsWith(s.id, "b200") || absl::StartsWith(s.id, "b300")) return {true, 10, true};
  // Grace Blackwell (gb200-nvl72, gb200-nvl36, gb300-nvl72): sm_100 / sm_103,
  // named "NVIDIA GB200" / "NVIDIA GB300".
  if (absl::StartsWith(s.id, "gb200") || absl::StartsWith(s.id, "gb300")) return {true, 10, false};
  // RTX PRO 6000 Blackwell Server Edition: sm_120.
  if (absl::StartsWith(s.id, "rtx-pro-6000")) return {true, 12, false};
  return {};
}

// Whether Megatron has virtual_pipeline_model_parallel_size set (not None):
// given, derived from a pipeline layout (transformer_config.py:2286, only
// when above 1) or from a hybrid pattern's '|' segments.
bool VppSet(const ResolvedConfig& c, const ModelSpec* m) {
  if (c.vpp_given || c.vpp > 1) return true;
  if (!c.pipeline_layout.empty()) {
    auto stages = ParseLayoutStages(c.pipeline_layout, "pipeline_layout");
    return stages.ok() && c.pp > 0 && static_cast<int64_t>(stages->size()) > c.pp;
  }
  if (m != nullptr && !m->hybrid_layer_pattern.empty()) {
    const std::string main = MainHybridPattern(m->hybrid_layer_pattern);
    const int64_t segments = std::count(main.begin(), main.end(), '|') + 1;
    return segments > c.pp;
  }
  return false;
}

// The token dispatcher and its flex backends.
void CheckDispatcher(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  const ModelSpec* m = ctx.in.model;
  const bool flex = c.moe_token_dispatcher_type == "flex";
  const std::string& backend = c.moe_flex_dispatcher_backend;
  // transformer_config.py:1764: ncclep is refused unless the dispatcher is flex.
  if (c.flex_backend_given && backend == "ncclep" && !flex) {
    ctx.Add("moe.ncclep_needs_flex", {"moe_flex_dispatcher_backend", "moe_token_dispatcher_type"},
            absl::StrCat("moe_flex_dispatcher_backend = ncclep with moe_token_dispatcher_type = ",
                         c.moe_token_dispatcher_type, c.dispatcher_defaulted ? " (not given: Bridge's default)" : "",
                         ": Megatron-Core accepts ncclep only with the flex dispatcher"),
            "set moe_token_dispatcher_type = flex, or drop moe_flex_dispatcher_backend");
  } else if (c.flex_backend_given && !flex) {
    // Only MoEFlexTokenDispatcher reads the backend (token_dispatcher.py:1835);
    // Megatron-Core and Bridge say nothing about it otherwise.
    ctx.Add("moe.flex_backend_without_flex", {"moe_flex_dispatcher_backend", "moe_token_dispatcher_type"},
            absl::StrCat("moe_flex_dispatcher_backend = ", backend, " has no effect with moe_token_dispatcher_type = ",
                         c.moe_token_dispatcher_type, c.dispatcher_defaulted ? " (not given: Bridge's default)" : "",
                         ": only the flex dispatcher uses a backend"),
            absl::StrCat("set moe_token_dispatcher_type = flex to use ", backend, ", or drop the backend"));
  }
  if (!flex) return;
  // token_dispatcher.py:1836 (deepep) / :1854 (ncclep): the flex dispatcher
  // runs over the TP x EP group of the experts (ETP x EP), which must hold
  // more than one rank. Only MoE layers build a dispatcher.
  if (m != nullptr && m->num_moe_experts > 0 && (backend == "deepep" || backend == "ncclep") && c.ep * c.etp == 1) {
    ctx.Add("ep.flex_needs_ep_x_etp", {"moe_token_dispatcher_type", "moe_flex_dispatcher_backend", "ep", "etp"},
            absl::StrCat("the flex dispatcher with backend ", backend, " needs ETP x EP > 1; ETP=", c.etp,
                         " x EP=", c.ep, " = 1"),
            "use EP > 1 (or ETP > 1), the hybridep backend, or the alltoall dispatcher");
  }
  // Megatron Bridge training/flex_dispatcher_backend.py:96-109
  // (ConfigContainer.validate, config.py:1652): the GPU must suit the backend.
  if (!ctx.in.placement.system.has_value()) return;
  const SystemSpec& s = *ctx.in.placement.system;
  const BridgeDevice d = DeviceOf(s);
  if (!d.known) return;
  if (backend == "deepep" && !(d.major == 8 || d.major == 9 || d.b200_or_b300)) {
    ctx.Add("moe.deepep_unsupported_gpu", {"moe_flex_dispatcher_backend", "system"},
            absl::StrCat("flex dispatcher backend deepep on ", s.id,
                         ": Megatron Bridge accepts DeepEP only on Ampere, Hopper, B200 and B300 GPUs (not GB200, "
                         "GB300 or sm_120)"),
            "use moe_flex_dispatcher_backend = hybridep (GB200/GB300 NVL72), or the alltoall dispatcher");
  }
  if (backend == "hybridep" && !(d.major == 8 || d.major == 9 || d.major == 10)) {
    ctx.Add("moe.hybridep_unsupported_gpu", {"moe_flex_dispatcher_backend", "system"},
            absl::StrCat("flex dispatcher backend hybridep on ", s.id, " (compute capability ", d.major,
                         ".x): Megatron Bridge accepts HybridEP only on compute capability 8, 9 and 10 (Ampere, "
                         "Hopper, B200/B300, GB200/GB300)"),
            "use the alltoall dispatcher on this GPU");
  }
}

// overlap_moe_expert_parallel_comm: transformer_config.py:3002-3072, mirrored
// by Megatron Bridge training/comm_overlap.py:478-517; Megatron FSDP's adapter
// (distributed/fsdp/mcore_fsdp_adapter.py:182); Megatron-LM arguments.py:1466.
void CheckEpOverlap(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  if (!c.overlap_moe_expert_parallel_comm) return;
  const ModelSpec* m = ctx.in.model;
  const std::string fix_off = "or set overlap_moe_expert_parallel_comm = false";
  if (c.ep <= 1) {  // :3013, comm_overlap.py:479
    ctx.Add("ep_overlap.needs_ep", {"overlap_moe_expert_parallel_comm", "ep"},
            absl::StrCat("overlap_moe_expert_parallel_comm with EP=", c.ep,
                         ": the expert all-to-all overlap needs expert parallelism (EP > 1)"),
            absl::StrCat("use EP > 1 on a MoE model, ", fix_off));
  }
  const std::string& dispatcher = c.moe_token_dispatcher_type;
  if (dispatcher != "alltoall" && dispatcher != "flex") {  // :3016, comm_overlap.py:486
    ctx.Add("ep_overlap.needs_a2a_dispatcher", {"overlap_moe_expert_parallel_comm", "moe_token_dispatcher_type"},
            absl::StrCat("overlap_moe_expert_parallel_comm with moe_token_dispatcher_type = ", dispatcher,
                         ": only alltoall and flex are supported"),
            absl::StrCat("set moe_token_dispatcher_type = alltoall or flex, ", fix_off));
  }
  if (c.pp > 1 && !VppSet(c, m)) {  // :3008, comm_overlap.py:495
    ctx.Add("ep_overlap.needs_vpp", {"overlap_moe_expert_parallel_comm", "pp", "vpp"},
            absl::StrCat("overlap_moe_expert_parallel_comm with PP=", c.pp,
                         " and no virtual pipeline: the overlap schedule needs VPP set when PP > 1"),
            absl::StrCat("set vpp (e.g. 2) or a pipeline layout with more stages than PP, ", fix_off));
  }
  // :3021 / :3024 / :3027 (comm_overlap.py:499 / :502 / :505): no full
  // recompute, recompute_method or recompute_num_layers.
  std::vector<std::string> recompute;
  std::vector<std::string> fields = {"overlap_moe_expert_parallel_comm"};
  if (c.recompute == RecomputeGranularity::kFull) {
    recompute.push_back("recompute_granularity = full");
    fields.push_back("recompute_granularity");
  }
  if (c.recompute_method_given) {
    recompute.push_back(absl::StrCat("recompute_method = ", RecomputeMethodName(c.recompute_method)));
    fields.push_back("recompute_method");
  }
  if (c.recompute_num_layers_given) {
    recompute.push_back(absl::StrCat("recompute_num_layers = ", c.recompute_num_layers));
    fields.push_back("recompute_num_layers");
  }
  if (!recompute.empty()) {
    ctx.Add("ep_overlap.full_recompute", fields,
            absl::StrCat("overlap_moe_expert_parallel_comm with ", absl::StrJoin(recompute, ", "),
                         ": the overlap allows no full recompute and needs recompute_method and "
                         "recompute_num_layers unset"),
            absl::StrCat("use selective recompute (without moe) and leave method / num_layers unset, ", fix_off));
  }
  // :3030 (comm_overlap.py:510): checked on the list whatever the granularity.
  if (Contains(c.recompute_modules, "moe")) {
    ctx.Add("ep_overlap.moe_recompute", {"overlap_moe_expert_parallel_comm", "recompute_modules"},
            absl::StrCat("overlap_moe_expert_parallel_comm with recompute_modules = ", Listed(c.recompute_modules),
                         ": moe must not be recomputed"),
            absl::StrCat("recompute moe_act / layernorm instead of moe, ", fix_off));
  }
  if (c.mtp_num_layers > 1) {  // :3042, comm_overlap.py:516
    ctx.Add("ep_overlap.mtp_layers", {"overlap_moe_expert_parallel_comm", "mtp_num_layers"},
            absl::StrCat("overlap_moe_expert_parallel_comm with mtp_num_layers = ", c.mtp_num_layers,
                         ": at most 1 MTP layer is supported"),
            absl::StrCat("set mtp_num_layers to 0 or 1, ", fix_off));
  }
  // :3054: the ncclep overlap frees expert FC1's input that expert_fc1 offload keeps.
  if (dispatcher == "flex" && c.moe_flex_dispatcher_backend == "ncclep" && c.Offloads("expert_fc1")) {
    ctx.Add("ep_overlap.ncclep_expert_fc1_offload",
            {"overlap_moe_expert_parallel_comm", "moe_flex_dispatcher_backend", "offload_modules"},
            "overlap_moe_expert_parallel_comm with the ncclep backend cannot offload expert_fc1 (offload_modules)",
            absl::StrCat("drop expert_fc1 from offload_modules, use the deepep or hybridep backend, ", fix_off));
  }
  // :3065: per-layer Transformer Engine graphs may not capture moe or mlp.
  if (c.cuda_graph_impl == "transformer_engine") {
    std::vector<std::string> captured;
    for (const char* name : {"moe", "mlp"}) {
      if (Contains(c.cuda_graph_modules, name)) captured.push_back(name);
    }
    if (!captured.empty()) {
      ctx.Add("ep_overlap.te_graph_moe_mlp", {"overlap_moe_expert_parallel_comm", "cuda_graph_modules"},
              absl::StrCat("overlap_moe_expert_parallel_comm with transformer_engine CUDA graphs of ",
                           absl::StrJoin(captured, ", "), ": graphs on moe and mlp are not supported with the overlap"),
              absl::StrCat("capture attn, moe_router, moe_preprocess instead, ", fix_off));
    }
  }
  // mcore_fsdp_adapter.py:182: under Megatron FSDP only none / full_iteration graphs.
  if (c.fsdp && (c.cuda_graph_impl == "local" || c.cuda_graph_impl == "transformer_engine")) {
    ctx.Add("ep_overlap.fsdp_per_layer_graphs",
            {"overlap_moe_expert_parallel_comm", "use_megatron_fsdp", "cuda_graph_impl"},
            absl::StrCat("overlap_moe_expert_parallel_comm under Megatron FSDP with cuda_graph_impl = ",
                         c.cuda_graph_impl, ": only none or full_iteration are supported"),
            absl::StrCat("use cuda_graph_impl = full_iteration or none, ", fix_off));
  }
  // arguments.py:1466 (warning; the FSDP case warns as fsdp.tp_cp_device_connections).
  const auto& p = ctx.in.placement;
  if (!c.fsdp && (c.tp > 1 || c.cp > 1) && p.system.has_value() &&
      (p.system->gpu_arch == "hopper" || p.system->gpu_arch == "ampere")) {
    ctx.Add("ep_overlap.device_connections", {"overlap_moe_expert_parallel_comm", "tp", "cp"},
            absl::StrCat("overlap_moe_expert_parallel_comm with TP=", c.tp, " CP=", c.cp, " on ", p.system->gpu_arch,
                         ": TP/CP want CUDA_DEVICE_MAX_CONNECTIONS=1, the overlap a larger value (Megatron-LM warns)"),
            "prefer TP=CP=1 with the overlap before Blackwell, or choose CUDA_DEVICE_MAX_CONNECTIONS for the one that "
            "matters more");
  }
}

// CUDA graphs: transformer_config.py:2741-2975, cuda_graph_config.py:40,
// Megatron-LM arguments.py:274/:1969, Megatron Bridge utils/cuda_graph.py:146.
void CheckCudaGraphs(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  const ModelSpec* m = ctx.in.model;
  const std::string& impl = c.cuda_graph_impl;
  // "full" is the deprecated name of the whole layer (an empty list);
  // normalize_cuda_graph_modules runs whatever the implementation.
  std::vector<std::string> modules;
  for (const auto& name : c.cuda_graph_modules) {
    if (name != "full") modules.push_back(name);
  }
  if (Contains(c.cuda_graph_modules, "full")) {
    if (!modules.empty()) {  // cuda_graph_config.py:40
      ctx.Add("cuda_graph.full_with_other_modules", {"cuda_graph_modules"},
              absl::StrCat("cuda_graph_modules = ", Listed(c.cuda_graph_modules),
                           ": full (the whole layer) cannot be combined with other modules"),
              "give either full alone (better: an empty list) or the modules to capture");
    } else {  // transformer_config.py:2748, arguments.py:274
      ctx.Add("cuda_graph.full_deprecated", {"cuda_graph_modules"},
              "cuda_graph_modules = [full] is deprecated in Megatron-Core: an empty list captures the whole layer",
              "leave cuda_graph_modules empty");
    }
  }
  if (impl == "none") return;
  const bool whole_layer = modules.empty();
  if (impl == "full_iteration" && !whole_layer) {  // transformer_config.py:2794, arguments.py:1969
    ctx.Add("cuda_graph.full_iteration_with_modules", {"cuda_graph_impl", "cuda_graph_modules"},
            absl::StrCat("cuda_graph_impl = full_iteration with cuda_graph_modules = ", Listed(modules),
                         ": the full-iteration graph takes no modules (the list must be empty)"),
            "leave cuda_graph_modules empty, or use cuda_graph_impl = transformer_engine for per-module graphs");
  }
  // Megatron Bridge utils/cuda_graph.py:146 (model provider and
  // ConfigContainer.validate): "local" only for full-iteration graphs, which
  // parplan writes as cuda_graph_impl = full_iteration.
  if (impl == "local") {
    ctx.Add("cuda_graph.local_needs_full_iteration", {"cuda_graph_impl", "cuda_graph_modules"},
            absl::StrCat("cuda_graph_impl = local with ",
                         whole_layer ? std::string("whole-layer graphs") : absl::StrCat("modules ", Listed(modules)),
                         ": Megatron Bridge accepts local graphs only for full-iteration capture (Megatron-LM "
                         "accepts per-layer local graphs)"),
            "use cuda_graph_impl = transformer_engine for per-layer graphs, or full_iteration");
  }
  if (c.cpu_offloading_num_layers > 0 && impl != "full_iteration") {  // transformer_config.py:2800
    ctx.Add("cuda_graph.cpu_offloading", {"cuda_graph_impl", "cpu_offloading_num_layers"},
            absl::StrCat("cuda_graph_impl = ", impl, " with cpu_offloading (", c.cpu_offloading_num_layers,
                         " layers): CUDA graphs are not supported with CPU offloading"),
            "use cuda_graph_impl = full_iteration or none, or drop cpu_offloading");
  }
  // Per-layer graphs (transformer_config.py:2803-2850). The local
  // implementation captures moe_router and moe_preprocess together (:2807).
  std::vector<std::string> captured = modules;
  if (impl == "local" && (Contains(captured, "moe_router") || Contains(captured, "moe_preprocess"))) {
    if (!Contains(captured, "moe_router")) captured.push_back("moe_router");
    if (!Contains(captured, "moe_preprocess")) captured.push_back("moe_preprocess");
  }
  const bool per_layer = impl == "local" || impl == "transformer_engine";
  if (per_layer) {
    if (Contains(captured, "moe") && Contains(captured, "moe_router")) {  // :2817
      ctx.Add("cuda_graph.moe_and_moe_router", {"cuda_graph_modules"},
              absl::StrCat("cuda_graph_modules = ", Listed(modules), ": moe and moe_router cannot both be captured"),
              "capture either moe (the whole MoE block) or moe_router (+ moe_preprocess)");
    }
    if (Contains(captured, "moe_preprocess") && !Contains(captured, "moe_router")) {  // :2822
      ctx.Add("cuda_graph.moe_preprocess_needs_router", {"cuda_graph_modules"},
              absl::StrCat("cuda_graph_modules = ", Listed(modules),
                           ": moe_preprocess is captured only together with moe_router"),
              "add moe_router to cuda_graph_modules");
    }
    if (m != nullptr && m->num_moe_experts <= 1 && !m->is_moe()) {  // :2826
      std::vector<std::string> moe_modules;
      for (const char* name : {"moe", "moe_router"}) {
        if (Contains(captured, name)) moe_modules.push_back(name);
      }
      if (!moe_modules.empty()) {
        ctx.Add("cuda_graph.moe_module_on_dense", {"cuda_graph_modules"},
                absl::StrCat("cuda_graph_modules ", absl::StrJoin(moe_modules, ", "), " on the dense model '", m->id,
                             "': MoE graphs are only for MoE models"),
                "capture attn and mlp (or the whole layer) on a dense model");
      }
    } else if (m != nullptr && m->num_moe_experts > 1) {
      // :2830: Megatron's moe_layer_freq is 1 (or a list without 0) when
      // every layer is MoE; parplan holds the list as first_k_dense_layers /
      // moe_layer_freq. Hybrid models keep Megatron's default of 1.
      if (m->moe_layer_freq == 1 && m->first_k_dense_layers == 0 && Contains(captured, "mlp")) {
        ctx.Add("cuda_graph.mlp_all_moe", {"cuda_graph_modules"},
                absl::StrCat("cuda_graph_modules mlp on '", m->id,
                             "', whose layers are all MoE (moe_layer_freq 1): mlp graphs are only for dense layers"),
                "capture moe_router / moe_preprocess (or attn) instead of mlp");
      }
      // :2838: moe graphs need token-drop with padding
      // (moe_expert_capacity_factor and moe_pad_expert_input_to_capacity),
      // which parplan does not take: Megatron's defaults (None / False) are
      // dropless.
      if (Contains(captured, "moe")) {
        ctx.Add("cuda_graph.moe_needs_drop_pad", {"cuda_graph_modules"},
                "cuda_graph_modules moe: the MoE block is captured only with drop-and-pad routing "
                "(moe_expert_capacity_factor with moe_pad_expert_input_to_capacity), and parplan plans dropless MoE "
                "(Megatron's default)",
                "capture moe_router and moe_preprocess instead of moe");
      }
    }
  }
  // Megatron-LM docs/user-guide/features/cuda_graph.md, "MoE Model
  // Training" (d98e8a64): dropless expert dispatch has dynamic shapes and
  // cannot be captured; the full-iteration graph captures MoE layers only
  // with static dispatch shapes: the hybridep backend with paged stash
  // (moe_paged_stash, moe_expert_rank_capacity_factor), as NVIDIA's
  // DeepSeek-V3 and Qwen3 MoE Blackwell performance recipes set them
  // (Bridge perf_recipes/deepseek/b300/deepseek_v3.py). No config check
  // refuses it: the capture fails. parplan does not take paged stash, so
  // with hybridep it warns, otherwise it refuses.
  if (m != nullptr && m->is_moe() && impl == "full_iteration") {
    const bool hybridep = c.moe_token_dispatcher_type == "flex" && c.moe_flex_dispatcher_backend == "hybridep";
    ctx.Add(hybridep ? "cuda_graph.moe_full_iteration_paged_stash" : "cuda_graph.moe_full_iteration_dynamic",
            {"cuda_graph_impl", "moe_flex_dispatcher_backend"},
            absl::StrCat("full_iteration graph of the MoE model '", m->id, "' with dispatcher ",
                         c.moe_token_dispatcher_type == "flex" ? absl::StrCat("flex/", c.moe_flex_dispatcher_backend)
                                                               : c.moe_token_dispatcher_type,
                         hybridep ? ": needs moe_paged_stash and moe_expert_rank_capacity_factor (not modelled)"
                                  : ": dropless dispatch shapes are dynamic and cannot be captured (only hybridep "
                                    "with paged stash makes them static)"),
            hybridep ? "set moe_paged_stash = true and moe_expert_rank_capacity_factor (NVIDIA's recipes: 1.5)"
                     : "use cuda_graph_impl = transformer_engine with cuda_graph_modules [attn, moe_router, "
                       "moe_preprocess], or the hybridep backend with paged stash");
  }
  // :2856: full recompute only under the full-iteration graph.
  if (c.recompute == RecomputeGranularity::kFull && impl != "full_iteration") {
    ctx.Add("cuda_graph.full_recompute_needs_full_iteration", {"recompute_granularity", "cuda_graph_impl"},
            absl::StrCat("full recompute with cuda_graph_impl = ", impl,
                         ": full recompute is only supported with the full-iteration graph"),
            "use cuda_graph_impl = full_iteration, selective recompute, or no CUDA graphs");
  }
  // :2866: a recomputed moe must not cover a graphed moe_router (TE graphs).
  if (impl == "transformer_engine" && c.Recomputes("moe") && Contains(captured, "moe_router")) {
    ctx.Add("cuda_graph.moe_recompute_with_router_graph", {"recompute_modules", "cuda_graph_modules"},
            "moe recompute with a transformer_engine graph of moe_router: the recomputed module would cover the graph",
            "drop moe from recompute_modules (recompute moe_act instead), or moe_router from cuda_graph_modules");
  }
  // Fine-grained activation offloading with graphs (:2929-2975).
  if (c.offload_modules.empty()) return;
  if (impl == "local") {
    std::vector<std::string> unsupported;
    for (const auto& name : c.offload_modules) {
      if (name != "expert_fc1" && name != "moe_act" && name != "fused_group_mlp") unsupported.push_back(name);
    }
    if (!unsupported.empty()) {  // :2934
      ctx.Add("cuda_graph.local_offload_modules", {"offload_modules", "cuda_graph_impl"},
              absl::StrCat("offload_modules ", Listed(unsupported),
                           " with cuda_graph_impl = local: local graphs allow only expert_fc1, moe_act and "
                           "fused_group_mlp offload"),
              "offload only expert_fc1 / moe_act / fused_group_mlp, or use transformer_engine graphs");
    }
    if (whole_layer) {  // :2940
      ctx.Add("cuda_graph.local_offload_whole_layer", {"offload_modules", "cuda_graph_impl", "cuda_graph_modules"},
              "activation offloading with local graphs of the whole layer (cuda_graph_modules empty) is not supported",
              "capture named modules (e.g. attn, moe_router, moe_preprocess), or use transformer_engine graphs");
    }
  }
  // :2960 (and :2950 for local graphs capturing moe).
  if (Contains(captured, "moe")) {
    ctx.Add("cuda_graph.offload_with_moe_graph", {"offload_modules", "cuda_graph_modules"},
            absl::StrCat("offload_modules ", Listed(c.offload_modules),
                         " with a graph of the moe module (cuda_graph_modules ", Listed(modules),
                         "): token-drop MoE graphs are not supported with activation offloading"),
            "drop moe from cuda_graph_modules, or drop offload_modules");
  }
  // :2969: with the full-iteration graph, offloading needs
  // fine_grained_offloading_max_inflight_offloads >= 0; Megatron-Core's and
  // Bridge's default is None (transformer_config.py:1382). The bound check
  // already refuses a negative value.
  if (impl == "full_iteration" && !c.fine_grained_offloading_max_inflight_offloads.has_value()) {
    ctx.Add("cuda_graph.full_iteration_offload_inflight",
            {"offload_modules", "cuda_graph_impl", "fine_grained_offloading_max_inflight_offloads"},
            absl::StrCat("offload_modules ", Listed(c.offload_modules),
                         " with cuda_graph_impl = full_iteration and fine_grained_offloading_max_inflight_offloads "
                         "unset (Megatron's None): the full-iteration graph needs it >= 0"),
            "set fine_grained_offloading_max_inflight_offloads (0..1024; NVIDIA sets 1 in its Nemotron 3 Ultra GB200 "
            "recipe, 2 in its DeepSeek-V4 GB300 full-iteration recipe), or use transformer_engine graphs");
  }
}

}  // namespace

void CheckDispatchGraphRules(const RuleContext& ctx) {
  CheckDispatcher(ctx);
  CheckEpOverlap(ctx);
  CheckCudaGraphs(ctx);
}

}  // namespace parplan
