// Validation: at least fifteen distinct bad configs, each naming its rule.
#include "core/rules/validate.h"

#include <tuple>

#include "core/model/model_checks.h"
#include "core/diagnostics/rule_catalog.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using ::testing::Contains;
using testing_util::ErrorRules;
using testing_util::HasRule;
using testing_util::ValidateConfig;
using testing_util::ValidateConfigFor;

ParallelConfig Cfg(int64_t tp, int64_t pp = 1, int64_t cp = 1, int64_t ep = 0) {
  ParallelConfig c;
  c.tp = tp;
  c.pp = pp;
  c.cp = cp;
  c.ep = ep;
  return c;
}

struct BadCase {
  const char* name;
  const char* model;
  ParallelConfig config;
  const char* system;
  int64_t gpus;
  const char* rule;
};

template <typename F>
ParallelConfig With(ParallelConfig c, F f) {
  f(c);
  return c;
}

// Distinct bad configs, each with the rule it must name.
std::vector<BadCase> BadCases() {
  return {
      {"heads", "llama32_3b", Cfg(16), "", 0, "tp.heads_divisible"},               // 24 heads
      {"query_groups", "llama32_3b", Cfg(6), "", 0, "tp.query_groups_divisible"},  // 8 groups vs 6
      {"ffn", "llama32_3b", Cfg(3), "", 0, "tp.ffn_divisible"},                    // 8192 % 3
      {"experts", "mixtral_8x7b", With(Cfg(1, 1, 1, 16), [](auto& c) { c.etp = 1; }), "", 0, "ep.experts_divisible"},
      {"ep_dense", "llama3_8b", Cfg(1, 1, 1, 8), "", 0, "ep.requires_moe"},
      {"moe_ffn_etp", "qwen3_30b_a3b", With(Cfg(1, 1, 1, 8), [](auto& c) { c.etp = 5; }), "", 0,
       "etp.moe_ffn_divisible"},  // 768 % 5
      {"moe_needs_sp", "qwen3_30b_a3b",
       With(Cfg(2, 1, 1, 8),
            [](auto& c) {
              c.etp = 1;
              c.sp = false;
            }),
       "", 0, "sp.required_for_moe"},
      {"cp_seq", "llama3_8b", With(Cfg(1, 1, 4), [](auto& c) { c.seq_length = 8196; }), "", 0, "cp.seq_divisible"},
      {"pp_layers", "llama3_70b", Cfg(1, 3), "", 0, "pp.layers_divisible"},
      {"vpp_layers", "llama3_70b", With(Cfg(1, 4), [](auto& c) { c.vpp = 3; }), "", 0, "vpp.layers_divisible"},
      {"vpp_no_pp", "llama3_8b", With(Cfg(1, 1), [](auto& c) { c.vpp = 2; }), "", 0, "vpp.requires_pp"},
      {"world_dense", "llama3_70b", Cfg(8, 4), "h100-sxm", 48, "mesh.world_dense_divisible"},
      {"world_expert", "deepseek_v3", With(Cfg(2, 8, 1, 64), [](auto& c) { c.etp = 1; }), "h100-sxm", 64,
       "mesh.world_expert_divisible"},
      {"gbs", "llama3_8b", With(Cfg(1), [](auto& c) { c.gbs = 100; }), "h100-sxm", 64, "batch.gbs_divisible"},
      {"vpp_few_microbatches", "llama3_70b",
       With(Cfg(1, 4),
            [](auto& c) {
              c.vpp = 5;
              c.gbs = 6;
            }),
       "h100-sxm", 8, "vpp.microbatches_below_pp"},  // DP=2 -> 3 microbatches < PP=4
      {"vpp_microbatch_groups", "llama3_70b",
       With(Cfg(1, 4),
            [](auto& c) {
              c.vpp = 5;
              c.gbs = 12;
            }),
       "h100-sxm", 8, "vpp.microbatches_divisible"},  // 6 % 4
      {"uneven", "deepseek_v3",
       With(Cfg(1, 8, 1, 8),
            [](auto& c) {
              c.etp = 1;
              c.first_stage_layers = 4;
              c.last_stage_layers = 4;
            }),
       "", 0, "pp.uneven_middle_divisible"},  // 53 layers over 6 stages
      {"layout_vpp_conflict", "deepseek_v3",
       With(Cfg(1, 4, 1, 8),
            [](auto& c) {
              c.etp = 1;
              c.vpp = 2;
              c.pipeline_layout = "Et*4|(tttt|)*14tmL";
            }),
       "", 0, "layout.vpp_conflict"},
      {"layout_stages", "deepseek_v3",
       With(Cfg(1, 3, 1, 8),
            [](auto& c) {
              c.etp = 1;
              c.pipeline_layout = "Et*4|(t*4|)*14tmL";
            }),
       "", 0, "layout.stages_divisible"},
      {"layout_syntax", "llama3_8b", With(Cfg(1, 2), [](auto& c) { c.pipeline_layout = "Et*16|t*16Q"; }), "", 0,
       "layout.syntax"},
      {"layout_with_uneven", "llama3_8b",
       With(Cfg(1, 2),
            [](auto& c) {
              c.pipeline_layout = "Et*16|t*16L";
              c.first_stage_layers = 16;
            }),
       "", 0, "layout.conflicts_uneven"},
      {"layout_no_mtp", "deepseek_v3",
       With(Cfg(1, 2, 1, 8),
            [](auto& c) {
              c.etp = 1;
              c.pipeline_layout = "Et*30|t*31L";
            }),
       "", 0, "layout.mtp_count"},  // DeepSeek-V3 runs with 1 MTP layer
      {"fp8_on_a100", "llama3_8b", With(Cfg(1), [](auto& c) { c.precision = "fp8-cs"; }), "a100-80gb", 8,
       "precision.fp8_unsupported"},
      {"mxfp8_on_hopper", "llama3_8b", With(Cfg(1), [](auto& c) { c.precision = "fp8-mx"; }), "h100-sxm", 8,
       "precision.needs_blackwell"},
      {"mamba_heads", "nemotronh_4b", Cfg(32), "", 0, "tp.mamba_heads_divisible"},  // 112 % 32
      // Megatron's own checks (core/rules/MEGATRON_CHECKS.md).
      {"cpu_offload_pp", "llama3_8b", With(Cfg(1, 2), [](auto& c) { c.cpu_offloading_num_layers = 4; }), "", 0,
       "offload.cpu_with_pp"},
      {"cpu_offload_recompute", "llama3_8b",
       With(Cfg(1),
            [](auto& c) {
              c.cpu_offloading_num_layers = 4;
              c.recompute_granularity = "full";
            }),
       "", 0, "offload.cpu_with_recompute"},
      {"moe_tp_without_sp_ep1", "qwen3_30b_a3b",
       With(Cfg(2, 1, 1, 1),
            [](auto& c) {
              c.etp = 1;
              c.sp = false;
            }),
       "", 0, "sp.required_for_moe"},
      {"moe_bias_etp", "gpt_oss_20b",
       With(Cfg(2, 1, 1, 8),
            [](auto& c) {
              c.sp = true;
              c.etp = 2;
            }),
       "", 0, "etp.moe_bias_needs_etp1"},  // GPT-OSS has expert biases
      {"fp8_no_dist_opt", "llama3_8b",
       With(Cfg(1),
            [](auto& c) {
              c.precision = "fp8-cs";
              c.use_distributed_optimizer = false;
              c.front_end = "megatron-lm";  // arguments.py:1096, a Megatron-LM check
              c.fp8_param_gather = true;
            }),
       "", 0, "precision.param_gather_needs_dist_opt"},
      {"bf16_moments_no_dist_opt", "llama3_8b",
       With(Cfg(1),
            [](auto& c) {
              c.optimizer_state_dtype = "bf16";
              c.use_distributed_optimizer = false;
            }),
       "", 0, "optimizer.bf16_moments_need_dist_opt"},
      {"fsdp_pp", "llama3_8b", With(Cfg(1, 2), [](auto& c) { c.use_megatron_fsdp = true; }), "", 0,
       "fsdp.pp_unsupported"},
      {"hybrid_vpp_flag", "nemotronh_8b", With(Cfg(1, 2), [](auto& c) { c.vpp = 2; }), "", 0,
       "hybrid.vpp_flag_rejected"},
      {"mtp_uniform_layers", "deepseek_v3",
       With(Cfg(1, 1, 1, 8),
            [](auto& c) {
              c.etp = 1;
              c.recompute_granularity = "full";
              c.recompute_method = "uniform";
              c.recompute_num_layers = 2;
            }),
       "", 0, "recompute.mtp_uniform_needs_one"},
      {"fp8_delayed_layernorm", "qwen3_30b_a3b",
       With(Cfg(1, 1, 1, 8),
            [](auto& c) {
              c.precision = "fp8-ds";
              c.recompute_granularity = "selective";
              c.recompute_modules = {"moe_act"};
            }),
       "h100-sxm", 8, "recompute.fp8_delayed_act_norm"},
      {"offload_in_recomputed_moe", "qwen3_30b_a3b",
       With(Cfg(1, 1, 1, 8),
            [](auto& c) {
              c.recompute_granularity = "selective";
              c.recompute_modules = {"moe"};
              c.offload_modules = {"expert_fc1"};
            }),
       "", 0, "offload.inside_recomputed_moe"},
      {"fused_group_mlp_with_fc1", "qwen3_30b_a3b",
       With(Cfg(1, 1, 1, 8),
            [](auto& c) {
              c.offload_modules = {"fused_group_mlp", "expert_fc1"};
            }),
       "", 0, "offload.fused_group_mlp_exclusive"},
      {"sp_seq", "llama3_8b",
       With(Cfg(4),
            [](auto& c) {
              c.sp = true;
              c.seq_length = 8190;
            }),
       "", 0, "sp.seq_divisible"},  // 8190 % 4
  };
}

TEST(ValidateTest, NamesTheExactRuleForEachBadConfig) {
  const auto cases = BadCases();
  ASSERT_GE(cases.size(), 15u);
  for (const auto& c : cases) {
    const ValidationResult r = ValidateConfig(c.model, c.config, c.system, c.gpus);
    EXPECT_FALSE(r.valid) << c.name;
    EXPECT_THAT(ErrorRules(r), Contains(std::string(c.rule))) << c.name;
  }
}

TEST(ValidateTest, EveryEmittedRuleIsCatalogued) {
  for (const auto& c : BadCases()) {
    const ValidationResult r = ValidateConfig(c.model, c.config, c.system, c.gpus);
    for (const auto& v : r.violations) {
      EXPECT_NE(FindRule(v.rule), nullptr) << v.rule;
      EXPECT_FALSE(v.message.empty()) << v.rule;
    }
  }
}

// A sequence longer than the model's positions is allowed (Megatron runs it)
// but warned about: it needs RoPE scaling or a long-context variant.
TEST(ValidateTest, SequenceBeyondTheNativeContextIsAWarning) {
  ParallelConfig c = Cfg(1, 1, 8);
  c.seq_length = 131072;
  const ValidationResult r = ValidateConfig("llama3_8b", c, "h100-sxm", 8);
  EXPECT_TRUE(r.valid) << (ErrorRules(r).empty() ? "" : ErrorRules(r)[0]);
  ASSERT_TRUE(HasRule(r, "seq.beyond_native_context"));
  for (const auto& v : r.violations) {
    if (v.rule != "seq.beyond_native_context") continue;
    EXPECT_EQ(v.severity, Severity::kWarning);
    EXPECT_NE(v.message.find("native context of 8,192 tokens:"), std::string::npos) << v.message;
    EXPECT_NE(v.fix.find("seq_length <= 8192"), std::string::npos) << v.fix;
  }
  c.seq_length = 8192;
  EXPECT_FALSE(HasRule(ValidateConfig("llama3_8b", c, "h100-sxm", 8), "seq.beyond_native_context"));
}

// DeepSeek-V3's config scales RoPE with YaRN (factor 40 on 4,096) to 163,840
// positions: 128K is within its native context, 256K is beyond it and the
// warning names the scaling.
TEST(ValidateTest, NativeContextIsTheRopeScaledOne) {
  ParallelConfig c = Cfg(1, 1, 8);
  c.ep = 8;
  c.seq_length = 131072;
  EXPECT_FALSE(HasRule(ValidateConfig("deepseek_v3", c, "h100-sxm", 8), "seq.beyond_native_context"));
  c.seq_length = 163840;
  EXPECT_FALSE(HasRule(ValidateConfig("deepseek_v3", c, "h100-sxm", 8), "seq.beyond_native_context"));
  c.seq_length = 262144;
  const ValidationResult r = ValidateConfig("deepseek_v3", c, "h100-sxm", 8);
  ASSERT_TRUE(HasRule(r, "seq.beyond_native_context"));
  for (const auto& v : r.violations) {
    if (v.rule != "seq.beyond_native_context") continue;
    EXPECT_EQ(v.severity, Severity::kWarning);
    EXPECT_NE(v.message.find("seq_length 262,144 exceeds deepseek_v3's native context of 163,840 tokens "
                             "(YaRN factor 40 on 4,096)"),
              std::string::npos)
        << v.message;
    EXPECT_NE(v.message.find("needs further RoPE scaling"), std::string::npos) << v.message;
    EXPECT_NE(v.fix.find("seq_length <= 163840"), std::string::npos) << v.fix;
  }
  // Llama 3.1's llama3 scaling states the scaled length (131,072) itself.
  c = Cfg(1, 1, 8);
  c.seq_length = 262144;
  const ValidationResult llama = ValidateConfig("llama31_8b", c, "h100-sxm", 8);
  ASSERT_TRUE(HasRule(llama, "seq.beyond_native_context"));
  for (const auto& v : llama.violations) {
    if (v.rule != "seq.beyond_native_context") continue;
    EXPECT_NE(v.message.find("native context of 131,072 tokens (llama3 factor 8 on 8,192)"), std::string::npos)
        << v.message;
  }
  c.seq_length = 131072;
  EXPECT_FALSE(HasRule(ValidateConfig("llama31_8b", c, "h100-sxm", 8), "seq.beyond_native_context"));
}

TEST(ValidateTest, GoodConfigIsValidWithReasons) {
  ParallelConfig c = Cfg(8, 4);
  c.vpp = 5;
  c.gbs = 256;
  c.seq_length = 8192;
  const ValidationResult r = ValidateConfig("llama3_70b", c, "h100-sxm", 64);
  EXPECT_TRUE(r.valid) << (ErrorRules(r).empty() ? "" : ErrorRules(r)[0]);
  ASSERT_TRUE(r.world.has_value());
  EXPECT_EQ(r.world->dp, 2);
  EXPECT_EQ(r.world->microbatches, 128);
  EXPECT_EQ(r.min_gpus.min_gpus, 32);
  EXPECT_TRUE(HasRule(r, "advice.profile_first_iterations"));
  EXPECT_FALSE(HasRule(r, "topology.tp_crosses_nvlink"));
}

TEST(ValidateTest, TpAcrossNodesWarnsWithCost) {
  const ValidationResult r = ValidateConfig("llama3_70b", Cfg(16), "h100-sxm", 64);
  EXPECT_TRUE(r.valid);
  ASSERT_TRUE(HasRule(r, "topology.tp_crosses_nvlink"));
  for (const auto& v : r.violations) {
    if (v.rule == "topology.tp_crosses_nvlink") {
      EXPECT_EQ(v.severity, Severity::kWarning);
      EXPECT_NE(v.message.find("4 of 4 TP groups"), std::string::npos) << v.message;
      EXPECT_NE(v.message.find("9x slower"), std::string::npos) << v.message;
    }
  }
}

TEST(ValidateTest, Nvl72TpStraddlingTheRack) {
  // TP=16 on NVL72: 72 % 16 != 0, so the group [64, 80) straddles two racks.
  const ValidationResult r = ValidateConfig("llama31_405b", Cfg(16, 1), "gb200-nvl72", 144);
  EXPECT_TRUE(HasRule(r, "topology.tp_crosses_nvlink"));
  // TP=8 stays inside the 72-GPU domain though it spans 4-GPU trays.
  const ValidationResult ok = ValidateConfig("llama31_405b", Cfg(8, 1), "gb200-nvl72", 144);
  EXPECT_FALSE(HasRule(ok, "topology.tp_crosses_nvlink"));
  EXPECT_TRUE(HasRule(ok, "topology.tp_crosses_node"));
}

TEST(ValidateTest, KvHeadsReplicatedIsInfo) {
  const ValidationResult r = ValidateConfig("llama3_8b", Cfg(16), "", 0);  // 8 groups, 32 heads
  EXPECT_TRUE(HasRule(r, "tp.kv_heads_replicated"));
  EXPECT_THAT(ErrorRules(r), ::testing::Not(Contains(std::string("tp.query_groups_divisible"))));
}

TEST(ValidateTest, EtpDefaultsLikeMegatronBridge) {
  // Qwen3-30B-A3B at TP=2, EP=8 without etp: Bridge's ETP=1 -> min GPUs = lcm(2, 8) = 8.
  ParallelConfig c = Cfg(2, 1, 1, 8);
  const ValidationResult r = ValidateConfig("qwen3_30b_a3b", c, "", 0);
  EXPECT_EQ(r.min_gpus.min_gpus, 8);
  // Megatron-LM's ETP = TP, asked for explicitly: lcm(2, 16) = 16.
  c.etp = 2;
  EXPECT_EQ(ValidateConfig("qwen3_30b_a3b", c, "", 0).min_gpus.min_gpus, 16);
  // EP = 1: Bridge keeps Megatron-Core's ETP = TP.
  c = Cfg(2);
  auto resolved = ResolveConfig(c, nullptr, "config");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->etp, 2);
}

// The runs NVIDIA publishes leave ETP unset: Qwen3-235B-A22B on 256 H100 as
// Bridge's recipe writes it (qwen3_235b_a22b_pretrain_256gpu_h100_bf16_config:
// TP=2 PP=8 VP=4 EP=32, embedding and loss counted in the split) is valid
// under Bridge's default and says whose it is.
TEST(ValidateTest, PublishedQwen3RunIsValidWithBridgesEtp) {
  ParallelConfig c = Cfg(2, 8, 1, 32);
  c.vpp = 4;
  c.account_for_embedding = true;
  c.account_for_loss = true;
  c.seq_length = 4096;
  c.gbs = 8192;
  const ValidationResult r = ValidateConfig("qwen3_235b_a22b", c, "h100-sxm", 256);
  EXPECT_TRUE(r.valid) << (r.violations.empty() ? "" : r.violations[0].message);
  bool said = false;
  for (const auto& n : r.reasons) said = said || n.find("ETP=1 (Megatron Bridge 0.6.0 default") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ValidateTest, IncompleteModelSkipsWhatItCannotCheck) {
  // Every catalog model is complete, so blank the attention and expert widths
  // of one (DeepSeek-V4-Flash, as a spec without them would arrive).
  ModelSpec m = testing_util::CatalogModel("deepseek_v4_flash");
  m.num_attention_heads = 0;
  m.num_query_groups = 0;
  m.moe_ffn_hidden_size = 0;
  m.missing_fields = MissingFields(m);
  ASSERT_FALSE(m.complete());
  ParallelConfig c = Cfg(1, 1, 1, 64);
  c.etp = 1;
  const ValidationResult r = ValidateConfigFor(m, c, "gb200-nvl72", 128);
  EXPECT_TRUE(r.valid);
  EXPECT_TRUE(HasRule(r, "model.incomplete"));
  // Known fields still count: 256 experts % 64 == 0, but EP=96 fails.
  c.ep = 96;
  EXPECT_THAT(ErrorRules(ValidateConfigFor(m, c, "", 0)), Contains(std::string("ep.experts_divisible")));
}

TEST(ValidateTest, WithoutModelChecksTheMesh) {
  const ValidationResult r = ValidateConfig("", Cfg(8, 2), "h100-sxm", 24);
  EXPECT_TRUE(HasRule(r, "model.none"));
  EXPECT_THAT(ErrorRules(r), Contains(std::string("mesh.world_dense_divisible")));
}

TEST(ValidateTest, ProductSizingIsExplained) {
  ParallelConfig c = Cfg(2, 1, 1, 8);
  c.etp = 1;
  const ValidationResult r = ValidateConfig("qwen3_30b_a3b", c, "h100-sxm", 16);
  EXPECT_TRUE(r.valid);
  EXPECT_TRUE(HasRule(r, "mesh.product_sizing"));
}

}  // namespace
}  // namespace parplan

namespace parplan {
namespace {

using testing_util::ErrorRules;
using testing_util::ValidateConfig;

// NVIDIA's Megatron Bridge perf recipes as their base recipes set them
// (perf_recipes/llama/b200/llama31.py llama31_405b_pretrain_128gpu_b200_bf16_config
// on recipes/llama llama31_405b_pretrain_config; perf_recipes/qwen/b200/qwen3_moe.py
// qwen3_235b_a22b_pretrain_64gpu_b200_bf16_config on recipes/qwen/h100/qwen3_moe.py):
// both set account_for_embedding/loss_in_pipeline_split.
ParallelConfig Llama405bB200(bool accounting) {
  ParallelConfig c;
  c.tp = 4;
  c.pp = 16;
  c.vpp = 8;
  c.cp = 1;
  c.sp = true;
  c.gbs = 768;
  c.mbs = 1;
  c.seq_length = 8192;
  c.account_for_embedding = accounting;
  c.account_for_loss = accounting;
  return c;
}

ParallelConfig Qwen235bB200(bool accounting) {
  ParallelConfig c;
  c.tp = 1;
  c.pp = 8;
  c.vpp = 4;
  c.ep = 8;
  c.etp = 1;
  c.gbs = 2048;
  c.mbs = 1;
  c.seq_length = 4096;
  c.account_for_embedding = accounting;
  c.account_for_loss = accounting;
  return c;
}

TEST(ValidateAccountingTest, NvidiaRecipesAsWrittenAreValid) {
  const ValidationResult llama = ValidateConfig("llama31_405b", Llama405bB200(true), "b200", 128);
  EXPECT_TRUE(llama.valid) << (ErrorRules(llama).empty() ? "" : ErrorRules(llama)[0]);
  bool explained = false;
  for (const auto& r : llama.reasons) {
    explained |= r.find("126 + 2 = 128 units over PP 16 x VPP 8 = 1 per stage") != std::string::npos;
  }
  EXPECT_TRUE(explained);
  const ValidationResult qwen = ValidateConfig("qwen3_235b_a22b", Qwen235bB200(true), "b200", 64);
  EXPECT_TRUE(qwen.valid) << (ErrorRules(qwen).empty() ? "" : ErrorRules(qwen)[0]);
}

TEST(ValidateAccountingTest, WithoutTheSwitchesTheFixNamesThem) {
  for (const auto& [model, config, gpus] : {std::tuple{"llama31_405b", Llama405bB200(false), 128},
                                            std::tuple{"qwen3_235b_a22b", Qwen235bB200(false), 64}}) {
    const ValidationResult r = ValidateConfig(model, config, "b200", gpus);
    EXPECT_FALSE(r.valid) << model;
    bool named = false;
    for (const auto& v : r.violations) {
      if (v.rule != "pp.layers_divisible") continue;
      named = v.fix.find("--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split") !=
              std::string::npos;
    }
    EXPECT_TRUE(named) << model;
  }
}

// The neighbours Megatron accepts: the same configs one knob away pass.
// The dispatcher / overlap / CUDA-graph errors name the field, the value
// given and what Megatron allows.
TEST(ValidateTest, DispatchAndGraphErrorsNameFieldValueAndAllowed) {
  auto message = [](const ValidationResult& r, const std::string& rule) {
    for (const auto& v : r.violations) {
      if (v.rule == rule) return v.message;
    }
    return std::string();
  };
  ParallelConfig ncclep = Cfg(1, 1, 1, 8);
  ncclep.moe_flex_dispatcher_backend = "ncclep";
  const std::string ncclep_message = message(ValidateConfig("qwen3_30b_a3b", ncclep), "moe.ncclep_needs_flex");
  EXPECT_THAT(ncclep_message, ::testing::HasSubstr("moe_flex_dispatcher_backend = ncclep"));
  EXPECT_THAT(ncclep_message, ::testing::HasSubstr("moe_token_dispatcher_type = alltoall"));
  EXPECT_THAT(ncclep_message, ::testing::HasSubstr("only with the flex dispatcher"));

  ParallelConfig overlap = Cfg(1, 1, 1, 8);
  overlap.overlap_moe_expert_parallel_comm = true;
  overlap.moe_token_dispatcher_type = "allgather";
  const std::string a2a = message(ValidateConfig("qwen3_30b_a3b", overlap), "ep_overlap.needs_a2a_dispatcher");
  EXPECT_THAT(a2a, ::testing::HasSubstr("moe_token_dispatcher_type = allgather"));
  EXPECT_THAT(a2a, ::testing::HasSubstr("only alltoall and flex"));

  ParallelConfig graphs = Cfg(1);
  graphs.cuda_graph_impl = "transformer_engine";
  graphs.recompute_granularity = "full";
  const std::string full =
      message(ValidateConfig("llama3_8b", graphs), "cuda_graph.full_recompute_needs_full_iteration");
  EXPECT_THAT(full, ::testing::HasSubstr("cuda_graph_impl = transformer_engine"));
  EXPECT_THAT(full, ::testing::HasSubstr("only supported with the full-iteration graph"));

  ParallelConfig deepep = Cfg(1, 1, 1, 8);
  deepep.moe_token_dispatcher_type = "flex";
  deepep.moe_flex_dispatcher_backend = "deepep";
  const std::string gpu =
      message(ValidateConfig("qwen3_30b_a3b", deepep, "gb300-nvl72", 8), "moe.deepep_unsupported_gpu");
  EXPECT_THAT(gpu, ::testing::HasSubstr("gb300-nvl72"));
  EXPECT_THAT(gpu, ::testing::HasSubstr("Ampere, Hopper, B200 and B300"));
  // DeepEP on Hopper and B200/B300 and HybridEP on GB200 are what NVIDIA's
  // recipes run.
  for (const char* system : {"h100-sxm", "b200", "b300"}) {
    EXPECT_FALSE(HasRule(ValidateConfig("qwen3_30b_a3b", deepep, system, 8), "moe.deepep_unsupported_gpu")) << system;
  }
  ParallelConfig hybridep = deepep;
  hybridep.moe_flex_dispatcher_backend = "hybridep";
  EXPECT_TRUE(ValidateConfig("qwen3_30b_a3b", hybridep, "gb200-nvl72", 8).valid);
}

// moe_act recompute: Bridge turns grouped GEMM on for MoE models and for the
// Nemotron-H hybrids, so only dense GPT models are refused; the dense hybrid
// keeps the "changes nothing" warning.
TEST(ValidateTest, MoeActRecomputeFollowsGroupedGemm) {
  ParallelConfig c = Cfg(1);
  c.recompute_granularity = "selective";
  c.recompute_modules = {"moe_act"};
  const ValidationResult dense = ValidateConfig("llama3_8b", c);
  EXPECT_THAT(ErrorRules(dense), Contains(std::string("recompute.moe_act_needs_grouped_gemm")));
  EXPECT_FALSE(HasRule(dense, "recompute.moe_module_on_dense"));
  const ValidationResult hybrid = ValidateConfig("nemotronh_8b", c);
  EXPECT_TRUE(hybrid.valid);
  EXPECT_TRUE(HasRule(hybrid, "recompute.moe_module_on_dense"));
  ParallelConfig moe = c;
  moe.ep = 8;
  EXPECT_TRUE(ValidateConfig("qwen3_30b_a3b", moe).valid);
}

TEST(ValidateTest, NeighboursOfMegatronChecksPass) {
  ParallelConfig sp_tp1 = Cfg(1);
  sp_tp1.sp = true;  // Megatron turns SP off at TP=1: a warning, not a rejection
  EXPECT_TRUE(ValidateConfig("llama3_8b", sp_tp1).valid);
  ParallelConfig oss = Cfg(2, 1, 1, 8);
  oss.sp = true;
  oss.etp = 1;
  EXPECT_TRUE(ValidateConfig("gpt_oss_20b", oss).valid);
  ParallelConfig fp8 = Cfg(1);
  fp8.precision = "fp8-cs";
  EXPECT_TRUE(ValidateConfig("llama3_8b", fp8).valid);  // distributed optimizer on by default
  ParallelConfig fsdp = Cfg(2);
  fsdp.use_megatron_fsdp = true;
  EXPECT_TRUE(ValidateConfig("llama3_8b", fsdp).valid);
  ParallelConfig hybrid = Cfg(1, 4);
  EXPECT_TRUE(ValidateConfig("nemotronh_8b", hybrid).valid);
  ParallelConfig mtp = Cfg(1, 1, 1, 8);
  mtp.etp = 1;
  mtp.recompute_granularity = "full";
  mtp.recompute_method = "uniform";
  mtp.recompute_num_layers = 1;
  EXPECT_TRUE(ValidateConfig("deepseek_v3", mtp).valid);
  ParallelConfig cs = Cfg(1, 1, 1, 8);
  cs.precision = "fp8-cs";
  cs.recompute_granularity = "selective";
  cs.recompute_modules = {"moe_act"};
  EXPECT_TRUE(ValidateConfig("qwen3_30b_a3b", cs, "h100-sxm", 8).valid);
  ParallelConfig moe_offload = Cfg(1, 1, 1, 8);
  moe_offload.recompute_granularity = "selective";
  moe_offload.recompute_modules = {"moe"};
  moe_offload.offload_modules = {"core_attn", "attn_proj"};
  EXPECT_TRUE(ValidateConfig("qwen3_30b_a3b", moe_offload).valid);
  ParallelConfig offload = Cfg(1);
  offload.cpu_offloading_num_layers = 4;
  EXPECT_TRUE(ValidateConfig("llama3_8b", offload).valid);  // PP 1, no recompute
  ParallelConfig moe = Cfg(2, 1, 1, 1);
  moe.etp = 1;
  moe.sp = true;
  EXPECT_TRUE(ValidateConfig("qwen3_30b_a3b", moe).valid);
  ParallelConfig moe_tp1 = Cfg(1, 1, 1, 8);
  moe_tp1.sp = false;
  EXPECT_TRUE(ValidateConfig("qwen3_30b_a3b", moe_tp1).valid);
  ParallelConfig seq = Cfg(4);
  seq.sp = true;
  seq.seq_length = 8192;
  EXPECT_TRUE(ValidateConfig("llama3_8b", seq).valid);
  ParallelConfig seq_no_sp = Cfg(4);
  seq_no_sp.sp = false;
  seq_no_sp.seq_length = 8190;
  EXPECT_TRUE(ValidateConfig("llama3_8b", seq_no_sp).valid);
  // With CP the split is of seq / CP: 8192 / 2 = 4096 over TP 8 divides.
  ParallelConfig seq_cp = Cfg(8, 1, 2);
  seq_cp.sp = true;
  seq_cp.seq_length = 8192;
  EXPECT_TRUE(ValidateConfig("llama3_8b", seq_cp).valid);
}

}  // namespace
}  // namespace parplan

namespace parplan {
namespace {

// Known issues of a named NeMo container (Megatron Bridge
// docs/releases/known-issues.md at 067f987df0): only a container tag in
// bridge_version turns them on.
TEST(ValidateTest, NamedContainerKnownIssues) {
  auto message = [](const ValidationResult& r, const std::string& rule) {
    for (const auto& v : r.violations) {
      if (v.rule == rule) return v.message;
    }
    return std::string();
  };
  ParallelConfig deepep = Cfg(1, 1, 1, 8);
  deepep.moe_token_dispatcher_type = "flex";
  deepep.moe_flex_dispatcher_backend = "deepep";
  deepep.bridge_version = "26.02";
  const ValidationResult in_2602 = ValidateConfig("qwen3_30b_a3b", deepep, "h100-sxm", 8);
  EXPECT_FALSE(in_2602.valid);
  EXPECT_THAT(message(in_2602, "container.deepep_unavailable"), ::testing::HasSubstr("nvcr.io/nvidia/nemo:26.02"));
  deepep.bridge_version = "0.3.0";  // the same release, no container named
  EXPECT_FALSE(HasRule(ValidateConfig("qwen3_30b_a3b", deepep, "h100-sxm", 8), "container.deepep_unavailable"));
  deepep.bridge_version = "26.02.01";
  EXPECT_FALSE(HasRule(ValidateConfig("qwen3_30b_a3b", deepep, "h100-sxm", 8), "container.deepep_unavailable"));

  deepep.bridge_version = "25.11";
  const ValidationResult in_2511 = ValidateConfig("deepseek_v3", deepep, "h100-sxm", 8);
  EXPECT_THAT(message(in_2511, "container.deepep_hopper_timeout"), ::testing::HasSubstr("timeout (dispatch CPU)"));
  EXPECT_FALSE(HasRule(ValidateConfig("deepseek_v3", deepep, "b200", 8), "container.deepep_hopper_timeout"));

  ParallelConfig tp2 = Cfg(2, 1, 1, 8);
  tp2.bridge_version = "26.06";
  EXPECT_THAT(message(ValidateConfig("nemotron_3_nano", tp2, "h100-sxm", 16), "container.tp_slowdown_pytorch_image"),
              ::testing::HasSubstr("TP=2 for nemotron_3_nano in the NeMo 26.06 container"));
  tp2.bridge_version = "26.04";
  EXPECT_FALSE(HasRule(ValidateConfig("nemotron_3_nano", tp2, "h100-sxm", 16), "container.tp_slowdown_pytorch_image"));
  tp2.bridge_version = "26.06.01";
  EXPECT_FALSE(HasRule(ValidateConfig("qwen3_30b_a3b", tp2, "h100-sxm", 16), "container.tp_slowdown_pytorch_image"));
}

}  // namespace
}  // namespace parplan
