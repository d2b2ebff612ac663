#include "bench/tuned_config_rows.h"

#include <algorithm>

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/core/csv_reader.h"

namespace parplan {
namespace {

bool Given(const std::string& v) { return !v.empty() && v != "None"; }

}  // namespace

const std::map<std::string, std::string>& CatalogSystemIds() {
  static const auto* const systems = new std::map<std::string, std::string>{{"DGX-H100", "h100-sxm"},
                                                                            {"DGX-B200", "b200"},
                                                                            {"DGX-B300", "b300"},
                                                                            {"DGX-GB200", "gb200-nvl72"},
                                                                            {"DGX-GB300", "gb300-nvl72"}};
  return *systems;
}

bool PerfRecipeFusesRope(const std::string& model_key) {
  return model_key.rfind("gpt_oss", 0) != 0 && model_key.rfind("qwen3_vl", 0) != 0;
}

std::vector<TunedRow> LoadTunedRows(const std::string& csv_path) {
  const auto& systems = CatalogSystemIds();
  std::vector<TunedRow> rows;
  for (const auto& r : ReadCsv(csv_path)) {
    auto sys = systems.find(r.at("system"));
    if (sys == systems.end()) continue;
    TunedRow t;
    t.recipe = r.at("recipe_function");
    t.model = r.at("model_key");
    t.system = sys->second;
    v1::ParallelConfig& c = t.config;
    c.set_tp(std::stoi(r.at("tp")));
    c.set_pp(std::stoi(r.at("pp")));
    c.set_cp(std::stoi(r.at("cp")));
    // The GPT-OSS perf recipes start from Bridge's library recipes, which set
    // cp_comm_type a2a for the sliding windows and sinks
    // (recipes/gpt_oss/h100/gpt_oss.py:70); the table has no column for it.
    if (t.model.rfind("gpt_oss", 0) == 0) c.set_cp_comm_type("a2a");
    if (Given(r.at("vp"))) c.set_vpp(std::stoi(r.at("vp")));
    if (Given(r.at("ep"))) c.set_ep(std::stoi(r.at("ep")));
    if (Given(r.at("etp"))) c.set_etp(std::stoi(r.at("etp")));
    c.set_sp(r.at("sequence_parallel") == "True");
    c.set_mbs(std::stoi(r.at("mbs")));
    c.set_gbs(std::stoll(r.at("gbs")));
    c.set_seq_length(std::stoi(r.at("seq_length")));
    if (Given(r.at("pipeline_model_parallel_layout"))) c.set_pipeline_layout(r.at("pipeline_model_parallel_layout"));
    if (Given(r.at("num_layers_in_first_pipeline_stage"))) {
      c.set_num_layers_in_first_pipeline_stage(std::stoi(r.at("num_layers_in_first_pipeline_stage")));
    }
    if (Given(r.at("num_layers_in_last_pipeline_stage"))) {
      c.set_num_layers_in_last_pipeline_stage(std::stoi(r.at("num_layers_in_last_pipeline_stage")));
    }
    if (Given(r.at("mtp_num_layers"))) c.set_mtp_num_layers(std::stoi(r.at("mtp_num_layers")));
    c.set_precision(r.at("precision").substr(0, r.at("precision").find(' ')));
    const std::string g = r.at("recompute_granularity");
    if (Given(g)) {
      c.set_recompute_granularity(g);
      if (Given(r.at("recompute_method"))) c.set_recompute_method(r.at("recompute_method"));
      if (Given(r.at("recompute_num_layers"))) c.set_recompute_num_layers(std::stoi(r.at("recompute_num_layers")));
      std::string modules = r.at("recompute_modules");
      if (g == "selective" && Given(modules)) {
        for (absl::string_view m : absl::StrSplit(modules, absl::ByAnyChar("[]\", "), absl::SkipEmpty())) {
          c.add_recompute_modules(std::string(m));
        }
      }
    }
    c.set_use_distributed_optimizer(r.at("use_distributed_optimizer") != "False");
    c.set_use_megatron_fsdp(r.at("use_megatron_fsdp") == "True");
    if (Given(r.at("tp_comm_overlap"))) c.set_tp_comm_overlap(r.at("tp_comm_overlap") == "True");
    if (Given(r.at("overlap_grad_reduce"))) c.set_overlap_grad_reduce(r.at("overlap_grad_reduce") == "True");
    // CUDA graphs: "local" with the deprecated scope "full_iteration" (or no
    // scope: the GPT-OSS recipes set it through cuda_graph_modules, which the
    // CSV does not carry) is Megatron's full-iteration graph
    // (cuda_graph_config.py:10, transformer_config.py:2769); "None" is no scope.
    const std::string impl = r.at("cuda_graph_impl");
    std::vector<std::string> scope;
    for (absl::string_view m : absl::StrSplit(r.at("cuda_graph_scope"), absl::ByAnyChar("[]\", "), absl::SkipEmpty())) {
      if (m != "None") scope.emplace_back(m);
    }
    const bool full_iteration = std::find(scope.begin(), scope.end(), "full_iteration") != scope.end();
    if (impl == "local" && (full_iteration || scope.empty())) {
      c.set_cuda_graph_impl("full_iteration");
    } else if (Given(impl)) {
      c.set_cuda_graph_impl(impl);
      if (impl != "none") {
        for (const std::string& m : scope) c.add_cuda_graph_modules(m);
      }
    }
    // The dispatcher as the recipe sets it; the backend column holds the
    // recipe's value even where the dispatcher is not flex (unused there).
    if (Given(r.at("moe_token_dispatcher_type"))) c.set_moe_token_dispatcher_type(r.at("moe_token_dispatcher_type"));
    if (r.at("moe_token_dispatcher_type") == "flex" && Given(r.at("moe_flex_dispatcher_backend"))) {
      c.set_moe_flex_dispatcher_backend(r.at("moe_flex_dispatcher_backend"));
    }
    if (Given(r.at("moe_router_force_load_balancing"))) {
      c.set_moe_router_force_load_balancing(r.at("moe_router_force_load_balancing") == "True");
    }
    if (Given(r.at("overlap_moe_expert_parallel_comm"))) {
      c.set_overlap_moe_expert_parallel_comm(r.at("overlap_moe_expert_parallel_comm") == "True");
    }
    // Settings the CSV does not carry, read from the recipes (Megatron-Bridge 067f987df0):
    //  * every perf recipe calls _benchmark_common / _perf_precision (perf_recipes/_common.py),
    //    which set grad_reduce_in_fp32 = False: bf16 gradient buffers;
    //  * DeepSeek recipes derive from recipes/deepseek/h100/deepseek_v3.py, which enables the
    //    precision-aware optimizer with bf16 Adam moments;
    //  * PEFT recipes train LoRA adapters; cpu_offloading offloads activations;
    //  * RoPE fusion as the perf recipes set it (PerfRecipeFusesRope).
    c.set_grad_reduce_in_fp32(false);
    c.set_apply_rope_fusion(PerfRecipeFusesRope(t.model));
    if (t.model.rfind("deepseek_v3", 0) == 0) c.set_optimizer_state_dtype("bf16");
    if (r.at("task") == "lora") c.set_peft("lora");
    //  * Llama-3 70B FSDP recipes offload activations of N layers (cpu_offloading_num_layers in
    //    perf_recipes/llama/{b200,gb200,gb300}/llama3.py; the 32-GPU recipes reuse the 64-GPU ones).
    if (r.at("cpu_offloading") == "True") {
      const std::map<std::string, int> offload_layers = {{"DGX-B200/fp8_cs", 5},
                                                         {"DGX-GB200/bf16", 20},
                                                         {"DGX-GB200/fp8_cs", 40},
                                                         {"DGX-GB300/bf16", 30},
                                                         {"DGX-GB300/fp8_cs", 20}};
      auto it = offload_layers.find(r.at("system") + "/" + r.at("precision"));
      if (it != offload_layers.end()) c.set_cpu_offloading_num_layers(it->second);
    }
    //  * the 64-GPU GB300 DeepSeek-V3 FSDP recipes offload core_attn and attn_proj
    //    (perf_recipes/deepseek/common.py, _apply_deepseek_v3_64gpu_gb300_fsdp_configs).
    if (t.recipe.find("deepseek_v3_pretrain_64gpu_gb300") == 0) {
      c.add_offload_modules("core_attn");
      c.add_offload_modules("attn_proj");
    }
    t.placement.set_system(t.system);
    t.placement.set_gpus(std::stoll(r.at("num_gpus")));
    if (r.at("cpu_offloading") == "True") t.notes += "cpu-offload ";
    if (Given(r.at("cuda_graph_impl")) && r.at("cuda_graph_impl") != "none") {
      t.notes += absl::StrCat("cuda-graph:", r.at("cuda_graph_impl"), " ");
    }
    rows.push_back(std::move(t));
  }
  return rows;
}

}  // namespace parplan
