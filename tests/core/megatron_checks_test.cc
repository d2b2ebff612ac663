// One case per Megatron check parplan implements that no other test names:
// a config Megatron refuses (or warns on) is flagged by its rule, and a
// neighbouring config Megatron accepts is not. A coverage test then requires
// every rule id that core/rules/MEGATRON_CHECKS.md names to be exercised by
// some test.
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "core/diagnostics/rule_catalog.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;
using testing_util::HasRule;
using testing_util::ValidateConfigFor;

struct Case {
  const char* rule;
  const char* model;                              // catalog id ("" = none)
  std::function<void(ModelSpec&)> edit_model;     // may be empty
  std::function<void(ParallelConfig&)> flagged;   // Megatron refuses or warns
  std::function<void(ParallelConfig&)> accepted;  // a neighbour Megatron accepts
  const char* system = "";
  int64_t gpus = 0;
};

// The Nemotron-H 8B pattern cut into `segments` '|' segments of equal length.
std::string Piped(const std::string& pattern, int segments) {
  std::string out;
  const size_t n = pattern.size() / segments;
  for (int i = 0; i < segments; ++i) {
    if (i > 0) out += "|";
    out += pattern.substr(i * n, i + 1 == segments ? std::string::npos : n);
  }
  return out;
}

std::vector<Case> Cases() {
  auto none = [](ParallelConfig&) {};
  return {
      {"cp.mamba_heads_divisible",
       "nemotronh_8b",
       {},
       [](ParallelConfig& c) {
         c.tp = 2;
         c.cp = 3;
         c.seq_length = 6144;
       },
       [](ParallelConfig& c) {
         c.tp = 2;
         c.cp = 2;
         c.seq_length = 6144;
       }},
      {"cp.mamba_groups_divisible", "nemotronh_8b",
       [](ModelSpec& m) {
         m.mamba_num_heads = 96;
         m.mamba_num_groups = 6;
       },
       [](ParallelConfig& c) {
         c.cp = 4;
         c.seq_length = 8192;
       },
       [](ParallelConfig& c) {
         c.cp = 2;
         c.seq_length = 8192;
       }},
      {"cp.seq_unknown",
       "",
       {},
       [](ParallelConfig& c) { c.cp = 2; },
       [](ParallelConfig& c) {
         c.cp = 2;
         c.seq_length = 8192;
       }},
      {"fsdp.forces_dist_opt",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.use_megatron_fsdp = true;
         c.use_distributed_optimizer = false;
       },
       [](ParallelConfig& c) { c.use_megatron_fsdp = true; }},
      {"fsdp.tp_cp_device_connections",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.use_megatron_fsdp = true;
         c.tp = 2;
       },
       [](ParallelConfig& c) { c.use_megatron_fsdp = true; },
       "h100-sxm",
       8},
      {"hybrid.attention_with_mla",
       "nemotronh_8b",
       [](ModelSpec& m) { m.hybrid_layer_pattern[m.hybrid_layer_pattern.find('*')] = '+'; },
       none,
       {}},
      {"hybrid.no_pipes_deprecated", "nemotronh_8b", {}, [](ParallelConfig& c) { c.pp = 2; }, none},
      {"hybrid.pipes_conflict_uneven", "nemotronh_8b",
       [](ModelSpec& m) { m.hybrid_layer_pattern = Piped(m.hybrid_layer_pattern, 2); },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.first_stage_layers = 26;
       },
       [](ParallelConfig& c) { c.pp = 2; }},
      {"hybrid.segments_divisible", "nemotronh_8b",
       [](ModelSpec& m) { m.hybrid_layer_pattern = Piped(m.hybrid_layer_pattern, 2); },
       [](ParallelConfig& c) { c.pp = 4; }, [](ParallelConfig& c) { c.pp = 2; }},
      {"hybrid.vpp_conflict", "nemotronh_8b",
       [](ModelSpec& m) { m.hybrid_layer_pattern = Piped(m.hybrid_layer_pattern, 4); },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.vpp = 4;
       },
       [](ParallelConfig& c) { c.pp = 2; }},
      {"layout.decoder_after_mtp",
       "deepseek_v3",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.ep = 8;
         c.etp = 1;
         c.pipeline_layout = "Et*30|mt*31L";
       },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.ep = 8;
         c.etp = 1;
         c.pipeline_layout = "Et*30|t*31mL";
       }},
      {"layout.embedding_count",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "EEt*16|t*16L";
       },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "Et*16|t*16L";
       }},
      {"layout.encoder_unsupported",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = R"([["embedding","encoder"],["decoder","decoder","loss"]])";
       },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "Et*16|t*16L";
       }},
      {"layout.first_not_embedding",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "tEt*15|t*16L";
       },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "Et*16|t*16L";
       }},
      {"layout.hybrid_unsupported",
       "nemotronh_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "Et*26|t*26L";
       },
       [](ParallelConfig& c) { c.pp = 2; }},
      {"layout.last_not_loss",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "Et*16|t*15Lt";
       },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "Et*16|t*16L";
       }},
      {"layout.loss_count",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "Et*16L|t*16L";
       },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.pipeline_layout = "Et*16|t*16L";
       }},
      {"layout.mtp_not_last_chunk",
       "deepseek_v3",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.ep = 8;
         c.etp = 1;
         c.pipeline_layout = "Et*15|t*15m|t*15|t*16L";
       },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.ep = 8;
         c.etp = 1;
         c.pipeline_layout = "Et*15|t*15|t*15|t*16mL";
       }},
      {"layout.mtp_split",
       "deepseek_v3",
       {},
       [](ParallelConfig& c) {
         c.pp = 3;
         c.ep = 8;
         c.etp = 1;
         c.mtp_num_layers = 2;
         c.pipeline_layout = "Et*30|t*31m|mL";
       },
       [](ParallelConfig& c) {
         c.pp = 3;
         c.ep = 8;
         c.etp = 1;
         c.mtp_num_layers = 2;
         c.pipeline_layout = "Et*30|t*31|mmL";
       }},
      {"model.mamba_heads_groups_divisible", "nemotronh_8b", [](ModelSpec& m) { m.mamba_num_groups = 6; }, none, {}},
      {"model.moe_ffn_ignored",
       "llama3_8b",
       [](ModelSpec& m) {
         m.moe_ffn_hidden_size = 1024;
         m.moe_layer_freq = 2;
       },
       none,
       {}},
      {"model.moe_ffn_without_experts", "llama3_8b", [](ModelSpec& m) { m.moe_ffn_hidden_size = 1024; }, none, {}},
      {"moe.latent_needs_moe", "llama3_8b", [](ModelSpec& m) { m.moe_latent_size = 512; }, none, {}},
      {"moe.shared_expert_bias",
       "qwen3_30b_a3b",
       [](ModelSpec& m) {
         m.add_bias_linear = true;
         m.moe_shared_expert_intermediate_size = 768;
       },
       [](ParallelConfig& c) { c.ep = 8; },
       {}},
      {"offload.attn_proj_needs_core_attn",
       "llama3_8b",
       {},
       [](ParallelConfig& c) { c.offload_modules = {"attn_proj"}; },
       [](ParallelConfig& c) {
         c.offload_modules = {"core_attn", "attn_proj"};
       }},
      {"offload.both_kinds",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.offload_modules = {"core_attn"};
         c.cpu_offloading_num_layers = 2;
       },
       [](ParallelConfig& c) { c.cpu_offloading_num_layers = 2; }},
      {"offload.too_many_layers",
       "llama3_8b",
       {},
       [](ParallelConfig& c) { c.cpu_offloading_num_layers = 32; },
       [](ParallelConfig& c) { c.cpu_offloading_num_layers = 31; }},
      {"pp.first_stage_vpp_divisible",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 4;
         c.vpp = 2;
         c.first_stage_layers = 3;
       },
       [](ParallelConfig& c) {
         c.pp = 4;
         c.vpp = 2;
         c.first_stage_layers = 2;
       }},
      {"pp.last_stage_vpp_divisible",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 4;
         c.vpp = 2;
         c.last_stage_layers = 3;
       },
       [](ParallelConfig& c) {
         c.pp = 4;
         c.vpp = 2;
         c.last_stage_layers = 2;
       }},
      {"pp.uneven_middle_mismatch",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.first_stage_layers = 16;
         c.last_stage_layers = 15;
       },
       [](ParallelConfig& c) {
         c.pp = 2;
         c.first_stage_layers = 16;
         c.last_stage_layers = 16;
       }},
      {"precision.fp8_mamba_in_proj_align16", "nemotronh_8b", [](ModelSpec& m) { m.mamba_num_heads = 120; },
       [](ParallelConfig& c) { c.precision = "fp8-cs"; }, [](ParallelConfig& c) { c.precision = "bf16"; }, "h100-sxm",
       8},
      {"precision.mxfp8_param_ag_memory",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.precision = "fp8-mx";
         c.use_megatron_fsdp = true;
       },
       [](ParallelConfig& c) { c.precision = "fp8-mx"; },
       "b200",
       8},
      {"recompute.core_attn_fused",
       "llama3_8b",
       {},
       [](ParallelConfig& c) { c.recompute_granularity = "selective"; },
       [](ParallelConfig& c) {
         c.recompute_granularity = "selective";
         c.recompute_modules = {"mlp"};
       }},
      {"recompute.mla_up_proj_needs_mla",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.recompute_granularity = "selective";
         c.recompute_modules = {"mla_up_proj"};
       },
       [](ParallelConfig& c) {
         c.recompute_granularity = "selective";
         c.recompute_modules = {"mlp"};
       }},
      {"recompute.mtp_block_not_recomputed",
       "deepseek_v3",
       {},
       [](ParallelConfig& c) {
         c.ep = 8;
         c.etp = 1;
         c.recompute_granularity = "full";
         c.recompute_method = "block";
       },
       [](ParallelConfig& c) {
         c.ep = 8;
         c.etp = 1;
         c.recompute_granularity = "full";
         c.recompute_method = "uniform";
       }},
      {"recompute.selective_with_method",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.recompute_granularity = "selective";
         c.recompute_modules = {"mlp"};
         c.recompute_method = "uniform";
       },
       [](ParallelConfig& c) {
         c.recompute_granularity = "selective";
         c.recompute_modules = {"mlp"};
       }},
      {"recompute.selective_with_num_layers",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.recompute_granularity = "selective";
         c.recompute_modules = {"mlp"};
         c.recompute_num_layers = 2;
       },
       [](ParallelConfig& c) {
         c.recompute_granularity = "full";
         c.recompute_num_layers = 2;
       }},
      {"recompute.gdn_norm_out_needs_gdn",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.recompute_granularity = "selective";
         c.recompute_modules = {"gdn_norm_out"};
       },
       [](ParallelConfig& c) {
         c.recompute_granularity = "selective";
         c.recompute_modules = {"mlp"};
       }},
      {"offload.gdp_qkv_with_recomputed_in_proj",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.recompute_granularity = "selective";
         c.recompute_modules = {"gdp_in_proj"};
         c.offload_modules = {"gdp_qkv"};
       },
       [](ParallelConfig& c) { c.offload_modules = {"gdp_qkv"}; }},
      {"sp.requires_tp",
       "llama3_8b",
       {},
       [](ParallelConfig& c) { c.sp = true; },
       [](ParallelConfig& c) {
         c.tp = 2;
         c.sp = true;
       }},
      {"tp.mamba_groups_divisible",
       "nemotronh_8b",
       {},
       [](ParallelConfig& c) { c.tp = 16; },
       [](ParallelConfig& c) { c.tp = 8; }},
      {"vpp.middle_layers_divisible",
       "llama3_70b",
       {},
       [](ParallelConfig& c) {
         c.pp = 4;
         c.vpp = 2;
         c.first_stage_layers = 6;
         c.last_stage_layers = 8;
       },
       [](ParallelConfig& c) {
         c.pp = 4;
         c.vpp = 2;
         c.first_stage_layers = 8;
         c.last_stage_layers = 8;
       }},
      {"hybrid.mtp_patterns_differ",
       "nemotronh_8b",
       [](ModelSpec& m) {
         m.hybrid_layer_pattern += "/*-/M-";
         m.mtp_num_layers = 2;
       },
       [](ParallelConfig& c) { c.mtp_num_layers = 2; },
       {}},
      {"hybrid.mtp_depth_mismatch", "nemotronh_8b",
       [](ModelSpec& m) {
         m.hybrid_layer_pattern += "/*-/*-";
         m.mtp_num_layers = 2;
       },
       [](ParallelConfig& c) { c.mtp_num_layers = 1; }, [](ParallelConfig& c) { c.mtp_num_layers = 2; }},
      {"hybrid.mtp_needs_pattern", "nemotronh_8b", {}, [](ParallelConfig& c) { c.mtp_num_layers = 1; }, none},
      {"model.mamba_inner_headdim_divisible",
       "nemotronh_8b",
       [](ModelSpec& m) {
         m.mamba_num_heads = 0;
         m.mamba_head_dim = 96;
       },
       none,
       {}},
      {"model.kv_channels_divisible",
       "llama3_8b",
       [](ModelSpec& m) {
         m.num_attention_heads = 24;
         m.num_query_groups = 8;
         m.kv_channels = 4096 / 24;
         m.kv_channels_defaulted = true;
       },
       none,
       {}},
      {"model.moe_ffn_defaulted",
       "qwen3_30b_a3b",
       [](ModelSpec& m) { m.moe_ffn_defaulted = true; },
       [](ParallelConfig& c) { c.ep = 8; },
       {}},
      {"vpp.pp2_needs_p2p_overlap",
       "llama3_8b",
       {},
       [](ParallelConfig& c) {
         c.pp = 2;
         c.vpp = 2;
       },
       [](ParallelConfig& c) {
         c.pp = 4;
         c.vpp = 2;
       }},
  };
}

// The dispatcher, the expert-parallel overlap and CUDA graphs
// (core/rules/dispatch_graph_rules.cc), and the recompute / offload switches
// decided on Megatron Bridge's defaults. Qwen3-30B-A3B (128 experts, every
// layer MoE) on EP 8 unless said otherwise.
using Edit = std::function<void(ParallelConfig&)>;

Edit Qwen(Edit more) {
  return [more](ParallelConfig& c) {
    c.ep = 8;
    more(c);
  };
}

// With Transformer Engine's op fuser on.
Edit OpFuser(Edit more) {
  return [more](ParallelConfig& c) {
    c.use_transformer_engine_op_fuser = true;
    more(c);
  };
}

Edit Overlap(Edit more) {
  return Qwen([more](ParallelConfig& c) {
    c.overlap_moe_expert_parallel_comm = true;
    more(c);
  });
}

Edit Graphs(
    const char* impl, std::vector<std::string> modules, Edit more = [](ParallelConfig&) {}) {
  return [impl, modules, more](ParallelConfig& c) {
    c.cuda_graph_impl = impl;
    c.cuda_graph_modules = modules;
    more(c);
  };
}

std::vector<Case> DispatchGraphCases() {
  const char* qwen = "qwen3_30b_a3b";
  const char* llama = "llama3_8b";
  auto selective = [](std::vector<std::string> modules) {
    return [modules](ParallelConfig& c) {
      c.recompute_granularity = "selective";
      c.recompute_modules = modules;
    };
  };
  auto offload = [](std::vector<std::string> modules) {
    return [modules](ParallelConfig& c) { c.offload_modules = modules; };
  };
  auto flex = [](const char* backend) {
    return [backend](ParallelConfig& c) {
      c.moe_token_dispatcher_type = "flex";
      c.moe_flex_dispatcher_backend = backend;
    };
  };
  return {
      {"recompute.moe_act_needs_grouped_gemm", llama, {}, selective({"moe_act"}), selective({"mlp"})},
      {"offload.fused_group_mlp_needs_op_fuser",
       qwen,
       {},
       Qwen(offload({"fused_group_mlp"})),
       Qwen(OpFuser(offload({"fused_group_mlp"})))},
      {"offload.fused_group_mlp_needs_op_fuser",
       qwen,
       {},
       Qwen([](ParallelConfig& c) {
         c.offload_modules = {"fused_group_mlp"};
         c.use_transformer_engine_op_fuser = false;
       }),
       Qwen(offload({"expert_fc1"}))},
      {"op_fuser.expert_tp",
       qwen,
       {},
       Qwen(OpFuser([](ParallelConfig& c) { c.etp = 2; })),
       Qwen(OpFuser([](ParallelConfig& c) { c.etp = 1; }))},
      {"op_fuser.expert_tp",  // ETP defaults to TP without EP
       qwen,
       {},
       OpFuser([](ParallelConfig& c) {
         c.tp = 2;
         c.sp = true;
       }),
       [](ParallelConfig& c) {
         c.tp = 2;
         c.sp = true;
       }},
      {"op_fuser.partial_expert_offload",
       qwen,
       {},
       Qwen(OpFuser(offload({"moe_act"}))),
       Qwen(OpFuser(offload({"fused_group_mlp"})))},
      {"op_fuser.partial_expert_offload",
       qwen,
       {},
       Qwen(OpFuser(offload({"expert_fc1"}))),
       Qwen(offload({"expert_fc1"}))},
      {"op_fuser.expert_activation",
       qwen,
       [](ModelSpec& m) { m.activation_func = "gelu"; },  // GeGLU experts
       Qwen(OpFuser([](ParallelConfig&) {})),
       {}},
      {"op_fuser.expert_activation",
       "nemotron_3_nano",
       [](ModelSpec& m) { m.activation_func = "relu"; },
       OpFuser([](ParallelConfig&) {}),
       {}},
      {"op_fuser.dense_activation",
       llama,
       [](ModelSpec& m) {
         m.gated_linear_unit = false;
         m.activation_func = "squared_relu";
       },
       OpFuser([](ParallelConfig&) {}),
       {}},
      {"op_fuser.dense_activation",
       "gpt3_175b",
       [](ModelSpec& m) { m.activation_func = "quick_gelu"; },
       OpFuser([](ParallelConfig& c) {
         c.tp = 8;
         c.sp = true;
       }),
       {}},
      {"moe.ncclep_needs_flex",
       qwen,
       {},
       Qwen([](ParallelConfig& c) { c.moe_flex_dispatcher_backend = "ncclep"; }),
       Qwen(flex("ncclep"))},
      {"moe.flex_backend_without_flex",
       qwen,
       {},
       Qwen([](ParallelConfig& c) { c.moe_flex_dispatcher_backend = "hybridep"; }),
       Qwen(flex("hybridep"))},
      {"ep.flex_needs_ep_x_etp",
       qwen,
       {},
       [](ParallelConfig& c) {
         c.moe_token_dispatcher_type = "flex";
         c.moe_flex_dispatcher_backend = "deepep";
       },
       Qwen(flex("deepep"))},
      {"moe.deepep_unsupported_gpu", qwen, {}, Qwen(flex("deepep")), Qwen(flex("hybridep")), "gb200-nvl72", 8},
      {"moe.hybridep_unsupported_gpu",
       qwen,
       {},
       Qwen(flex("hybridep")),
       Qwen([](ParallelConfig&) {}),
       "rtx-pro-6000",
       8},
      {"ep_overlap.needs_ep",
       qwen,
       {},
       [](ParallelConfig& c) { c.overlap_moe_expert_parallel_comm = true; },
       Overlap([](ParallelConfig&) {})},
      {"ep_overlap.needs_a2a_dispatcher",
       qwen,
       {},
       Overlap([](ParallelConfig& c) { c.moe_token_dispatcher_type = "allgather"; }),
       Overlap(flex("hybridep"))},
      {"ep_overlap.needs_vpp", qwen, {}, Overlap([](ParallelConfig& c) { c.pp = 2; }), Overlap([](ParallelConfig& c) {
         c.pp = 2;
         c.vpp = 2;
       })},
      {"ep_overlap.full_recompute",
       qwen,
       {},
       Overlap([](ParallelConfig& c) { c.recompute_granularity = "full"; }),
       Overlap(selective({"moe_act"}))},
      {"ep_overlap.moe_recompute", qwen, {}, Overlap(selective({"moe"})), Overlap(selective({"moe_act"}))},
      {"ep_overlap.mtp_layers",
       "deepseek_v3",
       {},
       Overlap([](ParallelConfig& c) {
         c.etp = 1;
         c.mtp_num_layers = 2;
       }),
       Overlap([](ParallelConfig& c) { c.etp = 1; })},
      {"ep_overlap.ncclep_expert_fc1_offload",
       qwen,
       {},
       Overlap([](ParallelConfig& c) {
         c.moe_token_dispatcher_type = "flex";
         c.moe_flex_dispatcher_backend = "ncclep";
         c.offload_modules = {"expert_fc1"};
       }),
       Overlap([](ParallelConfig& c) {
         c.moe_token_dispatcher_type = "flex";
         c.moe_flex_dispatcher_backend = "ncclep";
         c.offload_modules = {"moe_act"};
       })},
      {"ep_overlap.te_graph_moe_mlp",
       qwen,
       {},
       Overlap(Graphs("transformer_engine", {"moe"})),
       Overlap(Graphs("transformer_engine", {"attn", "moe_router", "moe_preprocess"}))},
      {"ep_overlap.fsdp_per_layer_graphs",
       qwen,
       {},
       Overlap(Graphs("transformer_engine", {"attn"}, [](ParallelConfig& c) { c.use_megatron_fsdp = true; })),
       Overlap(Graphs("full_iteration", {},
                      [](ParallelConfig& c) {
                        c.use_megatron_fsdp = true;
                        c.moe_token_dispatcher_type = "flex";  // MoE full-iteration graphs: hybridep with paged stash
                        c.moe_flex_dispatcher_backend = "hybridep";
                      }))},
      {"ep_overlap.device_connections",
       qwen,
       {},
       Overlap([](ParallelConfig& c) {
         c.tp = 2;
         c.etp = 1;
         c.sp = true;
       }),
       Overlap([](ParallelConfig&) {}),
       "h100-sxm",
       16},
      {"cuda_graph.full_with_other_modules",
       llama,
       {},
       Graphs("transformer_engine", {"full", "attn"}),
       Graphs("transformer_engine", {"attn"})},
      {"cuda_graph.full_deprecated",
       llama,
       {},
       Graphs("transformer_engine", {"full"}),
       Graphs("transformer_engine", {})},
      {"cuda_graph.full_iteration_with_modules",
       llama,
       {},
       Graphs("full_iteration", {"attn"}),
       Graphs("full_iteration", {})},
      {"cuda_graph.local_needs_full_iteration",
       llama,
       {},
       Graphs("local", {"attn"}),
       Graphs("transformer_engine", {"attn"})},
      {"cuda_graph.cpu_offloading",
       llama,
       {},
       Graphs("transformer_engine", {"attn"}, [](ParallelConfig& c) { c.cpu_offloading_num_layers = 4; }),
       Graphs("full_iteration", {}, [](ParallelConfig& c) { c.cpu_offloading_num_layers = 4; })},
      {"cuda_graph.moe_and_moe_router",
       qwen,
       {},
       Qwen(Graphs("transformer_engine", {"moe", "moe_router"})),
       Qwen(Graphs("transformer_engine", {"moe_router"}))},
      {"cuda_graph.moe_preprocess_needs_router",
       qwen,
       {},
       Qwen(Graphs("transformer_engine", {"moe_preprocess"})),
       Qwen(Graphs("transformer_engine", {"moe_router", "moe_preprocess"}))},
      {"cuda_graph.moe_module_on_dense",
       llama,
       {},
       Graphs("transformer_engine", {"moe_router"}),
       Graphs("transformer_engine", {"mlp"})},
      {"cuda_graph.mlp_all_moe",
       qwen,
       {},
       Qwen(Graphs("transformer_engine", {"mlp"})),
       Qwen(Graphs("transformer_engine", {"attn"}))},
      {"cuda_graph.moe_needs_drop_pad",
       qwen,
       {},
       Qwen(Graphs("transformer_engine", {"moe"})),
       Qwen(Graphs("transformer_engine", {"moe_router"}))},
      {"cuda_graph.moe_full_iteration_dynamic",
       qwen,
       {},
       Qwen(Graphs("full_iteration", {})),
       Qwen(Graphs("full_iteration", {},
                   [](ParallelConfig& c) {
                     c.moe_token_dispatcher_type = "flex";
                     c.moe_flex_dispatcher_backend = "hybridep";
                   }))},
      {"cuda_graph.moe_full_iteration_paged_stash",
       qwen,
       {},
       Qwen(Graphs("full_iteration", {},
                   [](ParallelConfig& c) {
                     c.moe_token_dispatcher_type = "flex";
                     c.moe_flex_dispatcher_backend = "hybridep";
                   })),
       Qwen(Graphs("transformer_engine", {"attn", "moe_router", "moe_preprocess"}))},
      {"cuda_graph.full_recompute_needs_full_iteration",
       llama,
       {},
       Graphs("transformer_engine", {}, [](ParallelConfig& c) { c.recompute_granularity = "full"; }),
       Graphs("full_iteration", {}, [](ParallelConfig& c) { c.recompute_granularity = "full"; })},
      {"cuda_graph.moe_recompute_with_router_graph",
       qwen,
       {},
       Qwen(Graphs("transformer_engine", {"moe_router"}, selective({"moe"}))),
       Qwen(Graphs("transformer_engine", {"moe_router"}, selective({"moe_act"})))},
      {"cuda_graph.local_offload_modules",
       qwen,
       {},
       Qwen(Graphs("local", {"moe_router"}, offload({"core_attn"}))),
       Qwen(Graphs("transformer_engine", {"moe_router"}, offload({"core_attn"})))},
      {"cuda_graph.local_offload_whole_layer",
       qwen,
       {},
       Qwen(Graphs("local", {}, offload({"expert_fc1"}))),
       Qwen(Graphs("transformer_engine", {}, offload({"expert_fc1"})))},
      {"cuda_graph.offload_with_moe_graph",
       qwen,
       {},
       Qwen(Graphs("transformer_engine", {"moe"}, offload({"moe_act"}))),
       Qwen(Graphs("transformer_engine", {"moe_router"}, offload({"moe_act"})))},
      {"cuda_graph.full_iteration_offload_inflight",
       qwen,
       {},
       Qwen(Graphs("full_iteration", {}, offload({"moe_act"}))),
       Qwen(Graphs("transformer_engine", {}, offload({"moe_act"})))},
      {"cuda_graph.full_iteration_offload_inflight",
       qwen,
       {},
       Qwen(Graphs("full_iteration", {}, offload({"moe_act"}))),
       Qwen(Graphs("full_iteration", {},
                   [](ParallelConfig& c) {
                     c.offload_modules = {"moe_act"};
                     c.fine_grained_offloading_max_inflight_offloads = 0;  // join after every offload
                     c.moe_token_dispatcher_type = "flex";                 // MoE full-iteration graphs: hybridep
                     c.moe_flex_dispatcher_backend = "hybridep";
                   }))},
  };
}

// Context parallelism (cp_comm_type, hierarchical sizes, attention under CP)
// and the optimizer CPU offload: core/rules/context_parallel_rules.cc.
Edit Cp(
    int64_t cp, const std::string& type, std::vector<int64_t> sizes = {}, Edit more = [](ParallelConfig&) {}) {
  return [=](ParallelConfig& c) {
    c.cp = cp;
    c.cp_comm_type = type;
    c.hierarchical_context_parallel_sizes = sizes;
    more(c);
  };
}

Edit Offload(
    std::optional<bool> on, std::optional<double> fraction, Edit more = [](ParallelConfig&) {}) {
  return [=](ParallelConfig& c) {
    c.optimizer_cpu_offload = on;
    c.optimizer_offload_fraction = fraction;
    more(c);
  };
}

// Optimizer offload (fraction 1.0) under a Megatron-LM launch (distributed
// optimizer on) at `precision`, with fp8_param_gather as given.
Edit OffloadUnderLm(const char* precision, bool gather) {
  return Offload(true, 1.0, [=](ParallelConfig& c) {
    c.precision = precision;
    c.front_end = "megatron-lm";
    c.use_distributed_optimizer = true;
    c.fp8_param_gather = gather;
  });
}

std::vector<Case> ContextParallelCases() {
  const char* llama = "llama3_8b";  // 32 heads, 8 query groups
  const char* oss = "gpt_oss_20b";  // 64 heads, 8 groups, 128-token window on every other layer, learnable sinks
  auto window = [](ModelSpec& m) {  // Mistral-style: every layer a 4,096-token window, no sinks
    m.window_size = 4095;
    m.window_attn_skip_freq = 0;
  };
  auto chunked = [](ModelSpec& m) {  // Llama 4-style: chunks of 8,192 on three layers of four
    m.attention_chunk_size = 8192;
    m.window_attn_skip_freq = 4;
  };
  auto backend = [](const std::string& b) { return [b](ParallelConfig& c) { c.attention_backend = b; }; };
  auto seq = [](int64_t s) { return [s](ParallelConfig& c) { c.seq_length = s; }; };
  auto tp = [](int64_t t) {
    return [t](ParallelConfig& c) {
      c.tp = t;
      c.sp = true;
    };
  };
  return {
      {"cp.hierarchical_product", llama, {}, Cp(4, "a2a+p2p", {2, 4}), Cp(4, "a2a+p2p", {2, 2})},
      {"cp.hierarchical_product", llama, {}, Cp(4, "p2p", {3}), Cp(4, "p2p")},
      {"cp.a2a_p2p_needs_hierarchical_sizes", llama, {}, Cp(4, "a2a+p2p"), Cp(4, "a2a+p2p", {2, 2})},
      {"cp.a2a_p2p_two_levels", llama, {}, Cp(8, "a2a+p2p", {2, 2, 2}), Cp(8, "a2a+p2p", {4, 2})},
      {"cp.hierarchical_sizes_unused", llama, {}, Cp(4, "p2p", {2, 2}), Cp(4, "a2a+p2p", {2, 2})},
      {"cp.backend_local", llama, {}, Cp(2, "p2p", {}, backend("local")), Cp(2, "p2p", {}, backend("auto"))},
      {"cp.backend_local",
       llama,
       {},
       Cp(2, "p2p", {}, backend("local")),
       [](ParallelConfig& c) { c.attention_backend = "local"; }},
      {"cp.backend_unfused", llama, {}, Cp(2, "a2a", {}, backend("unfused")), Cp(2, "a2a", {}, backend("fused"))},
      // GPT-OSS with Megatron's default type (p2p), and the a2a its Bridge recipes set.
      {"cp.sliding_window_comm_type", oss, {}, Cp(2, ""), Cp(2, "a2a")},
      {"cp.sliding_window_comm_type", llama, window, Cp(2, "p2p"), Cp(2, "all_gather")},
      // a2a+p2p runs its ring over the outer level: a sliding window fails
      // unless that level has one rank (then TE runs plain a2a).
      {"cp.sliding_window_comm_type", llama, window, Cp(4, "a2a+p2p", {2, 2}), Cp(4, "a2a+p2p", {4, 1})},
      {"cp.sinks_need_a2a", oss, [](ModelSpec& m) { m.window_size = 0; }, Cp(2, "all_gather"), Cp(2, "a2a")},
      {"cp.sinks_need_fused", oss, {}, Cp(2, "a2a", {}, backend("flash")), Cp(2, "a2a", {}, backend("fused"))},
      {"attention.sinks_flash_no_backend", oss, {}, backend("flash"), backend("auto")},
      {"cp.a2a_heads_divisible", llama, {}, Cp(4, "a2a", {}, tp(4)), Cp(2, "a2a", {}, tp(4))},  // 2 groups per rank
      {"cp.a2a_heads_divisible", llama, {}, Cp(8, "a2a+p2p", {4, 2}, tp(4)), Cp(8, "a2a+p2p", {2, 4}, tp(4))},
      {"cp.sinks_a2a_even_heads", oss,
       [](ModelSpec& m) {
         m.num_attention_heads = 48;
         m.num_query_groups = 6;
       },
       Cp(3, "a2a", {},
          [](ParallelConfig& c) {  // 24 heads, 3 groups per rank
            c.tp = 2;
            c.sp = true;
            c.seq_length = 6144;
          }),
       Cp(3, "a2a", {}, seq(6144))},  // 48 heads, 6 groups per rank
      {"cp.chunked_attention_divisible", llama, chunked, Cp(2, "p2p", {}, seq(32768)), Cp(2, "p2p", {}, seq(65536))},
      {"optimizer.offload_needs_dist_opt",
       llama,
       {},
       Offload(true, 1.0, [](ParallelConfig& c) { c.use_distributed_optimizer = false; }),
       Offload(true, 1.0)},
      // Megatron-LM's check (arguments.py:1889), keyed on fp8_param_gather:
      // refused under a Megatron-LM launch with the gather on, accepted with
      // it off or under delayed scaling; Bridge launches: resolved_settings_test.
      {"optimizer.offload_fp8_param_gather",
       llama,
       {},
       OffloadUnderLm("fp8-cs", true),
       OffloadUnderLm("fp8-cs", false)},
      {"optimizer.offload_fp8_param_gather", llama, {}, OffloadUnderLm("fp8-cs", true), OffloadUnderLm("fp8-ds", true)},
      {"optimizer.offload_fraction_zero", llama, {}, Offload(true, std::nullopt), Offload(true, 0.5)},
      {"optimizer.offload_fraction_zero", llama, {}, Offload(true, 0.0), Offload(true, 1.0)},
      {"optimizer.offload_fraction_ignored", llama, {}, Offload(std::nullopt, 0.5), Offload(true, 0.5)},
  };
}

std::optional<ModelSpec> ModelOf(const Case& c) {
  if (std::string(c.model).empty()) return std::nullopt;
  ModelSpec m = CatalogModel(c.model);
  if (c.edit_model) c.edit_model(m);
  return m;
}

TEST(MegatronChecksTest, EachCheckFlagsItsCaseAndPassesItsNeighbour) {
  std::vector<Case> cases = Cases();
  for (Case& c : DispatchGraphCases()) cases.push_back(std::move(c));
  for (Case& c : ContextParallelCases()) cases.push_back(std::move(c));
  for (const Case& c : cases) {
    ASSERT_NE(FindRule(c.rule), nullptr) << c.rule;
    ParallelConfig flagged;
    c.flagged(flagged);
    const std::optional<ModelSpec> model = ModelOf(c);
    const ValidationResult bad = ValidateConfigFor(model, flagged, c.system, c.gpus);
    EXPECT_TRUE(HasRule(bad, c.rule)) << c.rule << " not flagged";
    if (FindRule(c.rule)->severity == Severity::kError) {
      EXPECT_FALSE(bad.valid) << c.rule;
    }
    // The neighbour: one knob away (config, or the model unedited).
    ParallelConfig accepted;
    std::optional<ModelSpec> neighbour_model = model;
    if (c.accepted) {
      c.accepted(accepted);
    } else {
      accepted = flagged;
      if (!std::string(c.model).empty()) neighbour_model = CatalogModel(c.model);
    }
    const ValidationResult good = ValidateConfigFor(neighbour_model, accepted, c.system, c.gpus);
    EXPECT_FALSE(HasRule(good, c.rule)) << c.rule << " flags its accepted neighbour";
    EXPECT_TRUE(good.valid) << c.rule << " neighbour: "
                            << (testing_util::ErrorRules(good).empty() ? "" : testing_util::ErrorRules(good)[0]);
  }
}

// NVIDIA's Nemotron 3 Ultra GB200 perf recipe (Megatron Bridge
// perf_recipes/nemotronh/gb200/nemotronh.py:224 at 067f987df0, with
// nemotronh/common.py:94-146): TP 2 + SP, EP 64, ETP 1, HybridEP flex
// dispatch, Megatron FSDP, MXFP8, fused_group_mlp offloaded with the op
// fuser and one in-flight offload, moe_act recomputed, no CUDA graphs.
ParallelConfig UltraGb200Recipe() {
  ParallelConfig c;
  c.tp = 2;
  c.sp = true;
  c.pp = 1;
  c.cp = 1;
  c.ep = 64;
  c.etp = 1;
  c.mbs = 1;
  c.gbs = 256;
  c.seq_length = 8192;
  c.precision = "fp8-mx";
  c.use_megatron_fsdp = true;
  c.grad_reduce_in_fp32 = false;
  c.moe_token_dispatcher_type = "flex";
  c.moe_flex_dispatcher_backend = "hybridep";
  c.moe_permute_fusion = true;
  c.moe_router_force_load_balancing = true;
  c.attention_backend = "fused";
  c.cuda_graph_impl = "none";
  c.use_transformer_engine_op_fuser = true;
  c.offload_modules = {"fused_group_mlp"};
  c.fine_grained_offloading_max_inflight_offloads = 1;
  c.recompute_granularity = "selective";
  c.recompute_modules = {"moe_act"};
  return c;
}

const Violation* Find(const ValidationResult& r, const std::string& rule) {
  for (const auto& v : r.violations) {
    if (v.rule == rule) return &v;
  }
  return nullptr;
}

TEST(MegatronChecksTest, NemotronUltraRecipesWithTheOpFuserValidate) {
  const std::optional<ModelSpec> ultra = CatalogModel("nemotron_3_ultra");
  // As published (GB200), and its GB300 sibling (TP 1, no SP, no in-flight
  // cap: perf_recipes/nemotronh/gb300/nemotronh.py:230-279).
  ValidationResult r = ValidateConfigFor(ultra, UltraGb200Recipe(), "gb200-nvl72", 256);
  EXPECT_TRUE(r.valid) << testing::PrintToString(testing_util::ErrorRules(r));
  ParallelConfig gb300 = UltraGb200Recipe();
  gb300.tp = 1;
  gb300.sp = false;
  gb300.fine_grained_offloading_max_inflight_offloads.reset();
  r = ValidateConfigFor(ultra, gb300, "gb200-nvl72", 256);
  EXPECT_TRUE(r.valid) << testing::PrintToString(testing_util::ErrorRules(r));
  // With the full-iteration graph: the in-flight cap makes it valid.
  ParallelConfig graphed = UltraGb200Recipe();
  graphed.cuda_graph_impl = "full_iteration";
  r = ValidateConfigFor(ultra, graphed, "gb200-nvl72", 256);
  EXPECT_TRUE(r.valid) << testing::PrintToString(testing_util::ErrorRules(r));
  EXPECT_FALSE(HasRule(r, "cuda_graph.full_iteration_offload_inflight"));
  // ... and without it, the error names the field and how to set it.
  graphed.fine_grained_offloading_max_inflight_offloads.reset();
  r = ValidateConfigFor(ultra, graphed, "gb200-nvl72", 256);
  EXPECT_FALSE(r.valid);
  const Violation* inflight = Find(r, "cuda_graph.full_iteration_offload_inflight");
  ASSERT_NE(inflight, nullptr);
  EXPECT_NE(inflight->message.find("fine_grained_offloading_max_inflight_offloads unset"), std::string::npos)
      << inflight->message;
  EXPECT_NE(inflight->fix.find("set fine_grained_offloading_max_inflight_offloads"), std::string::npos);
  // Without the op fuser (not given, or false) the offload is the error.
  for (const std::optional<bool> fuser : {std::optional<bool>(), std::optional<bool>(false)}) {
    ParallelConfig unfused = UltraGb200Recipe();
    unfused.use_transformer_engine_op_fuser = fuser;
    r = ValidateConfigFor(ultra, unfused, "gb200-nvl72", 256);
    EXPECT_FALSE(r.valid);
    EXPECT_EQ(testing_util::ErrorRules(r), std::vector<std::string>{"offload.fused_group_mlp_needs_op_fuser"});
    const Violation* v = Find(r, "offload.fused_group_mlp_needs_op_fuser");
    ASSERT_NE(v, nullptr);
    EXPECT_NE(v->message.find("use_transformer_engine_op_fuser = false"), std::string::npos) << v->message;
    EXPECT_EQ(v->message.find("not given") != std::string::npos, !fuser.has_value()) << v->message;
    EXPECT_NE(v->fix.find("use_transformer_engine_op_fuser=true"), std::string::npos) << v->fix;
  }
}

// Every rule id the audit names is exercised by a test (this file or another).
// Issue 24's cases. A GPT-OSS model (a 128-token window on every other
// layer, learnable attention sinks) with CP = 2 and Megatron's default p2p:
// Transformer Engine asserts at start-up (context_parallel.py:4766, :4774).
TEST(MegatronChecksTest, GptOssUnderContextParallelismNeedsA2a) {
  const std::optional<ModelSpec> oss = CatalogModel("gpt_oss_120b");
  ParallelConfig c;
  c.cp = 2;
  ValidationResult r = ValidateConfigFor(oss, c, "h100-sxm", 16);
  EXPECT_FALSE(r.valid);
  const Violation* window = Find(r, "cp.sliding_window_comm_type");
  ASSERT_NE(window, nullptr);
  EXPECT_NE(window->message.find("cp_comm_type = p2p (not given: Megatron's default)"), std::string::npos)
      << window->message;
  // The fix names the types that run sliding windows, and says which of them
  // also runs the sinks.
  EXPECT_NE(window->fix.find("cp_comm_type a2a"), std::string::npos) << window->fix;
  EXPECT_NE(window->fix.find("all_gather"), std::string::npos) << window->fix;
  EXPECT_TRUE(HasRule(r, "cp.sinks_need_a2a"));
  EXPECT_EQ(testing_util::ErrorRules(r),
            (std::vector<std::string>{"cp.sliding_window_comm_type", "cp.sinks_need_a2a"}));
  // p2p given explicitly: the same errors, without "not given".
  c.cp_comm_type = "p2p";
  r = ValidateConfigFor(oss, c, "h100-sxm", 16);
  ASSERT_NE(Find(r, "cp.sliding_window_comm_type"), nullptr);
  EXPECT_EQ(Find(r, "cp.sliding_window_comm_type")->message.find("not given"), std::string::npos);
  // all_gather runs the window but not the sinks.
  c.cp_comm_type = "all_gather";
  r = ValidateConfigFor(oss, c, "h100-sxm", 16);
  EXPECT_EQ(testing_util::ErrorRules(r), std::vector<std::string>{"cp.sinks_need_a2a"});
  // a2a, as Bridge's GPT-OSS recipes set it (recipes/gpt_oss/h100/gpt_oss.py:70): valid.
  c.cp_comm_type = "a2a";
  r = ValidateConfigFor(oss, c, "h100-sxm", 16);
  EXPECT_TRUE(r.valid) << testing::PrintToString(testing_util::ErrorRules(r));
}

// a2a+p2p needs the hierarchical sizes, and they multiply to CP; CP = 4 with
// [2, 2] is valid.
TEST(MegatronChecksTest, HierarchicalContextParallelSizes) {
  const std::optional<ModelSpec> llama = CatalogModel("llama3_70b");  // 64 heads, 8 query groups
  ParallelConfig c;
  c.tp = 4;  // 16 heads, 2 groups per rank: the inner a2a group of 2 divides both
  c.sp = true;
  c.cp = 4;
  c.cp_comm_type = "a2a+p2p";
  ValidationResult r = ValidateConfigFor(llama, c, "h100-sxm", 32);
  EXPECT_EQ(testing_util::ErrorRules(r), std::vector<std::string>{"cp.a2a_p2p_needs_hierarchical_sizes"});
  const Violation* v = Find(r, "cp.a2a_p2p_needs_hierarchical_sizes");
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->fix.find("hierarchical_context_parallel_sizes [2, 2]"), std::string::npos) << v->fix;
  c.hierarchical_context_parallel_sizes = {2, 4};
  r = ValidateConfigFor(llama, c, "h100-sxm", 32);
  EXPECT_EQ(testing_util::ErrorRules(r), std::vector<std::string>{"cp.hierarchical_product"});
  v = Find(r, "cp.hierarchical_product");
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("[2, 4] multiply to 8, but CP = 4"), std::string::npos) << v->message;
  c.hierarchical_context_parallel_sizes = {2, 2};
  r = ValidateConfigFor(llama, c, "h100-sxm", 32);
  EXPECT_TRUE(r.valid) << testing::PrintToString(testing_util::ErrorRules(r));
  EXPECT_FALSE(HasRule(r, "cp.hierarchical_sizes_unused"));
}

TEST(MegatronChecksTest, EveryAuditedRuleIsTested) {
  std::ifstream audit(std::string(PARPLAN_SOURCE_DIR) + "/core/rules/MEGATRON_CHECKS.md");
  ASSERT_TRUE(audit.good());
  std::stringstream text;
  text << audit.rdbuf();
  std::set<std::string> named;
  const std::regex row(R"(^\| [A-Z]{2,4}-?\d+[a-z]? \|)");
  std::string line;
  while (std::getline(text, line)) {
    if (!std::regex_search(line, row)) continue;
    for (const auto& info : RuleCatalog()) {
      const std::string id = info.id;
      if (line.find(" " + id + " ") != std::string::npos || line.find(" " + id + ",") != std::string::npos) {
        named.insert(id);
      }
    }
  }
  ASSERT_GT(named.size(), 60u);
  std::string tests;
  for (const char* file :
       {"megatron_checks_test.cc", "validate_test.cc", "stage_plan_test.cc", "tuned_configs_test.cc"}) {
    std::ifstream f(std::string(PARPLAN_SOURCE_DIR) + "/tests/core/" + file);
    std::stringstream s;
    s << f.rdbuf();
    tests += s.str();
  }
  for (const auto& id : named) {
    EXPECT_NE(tests.find("\"" + id + "\""), std::string::npos) << id << " is in the audit but no test names it";
  }
}

}  // namespace
}  // namespace parplan
