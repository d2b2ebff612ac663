// The plan search: pins, fewest GPUs, infeasible requests, deadlines,
// determinism, the starting point and the rejected summary.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/perf/uncertainty.h"
#include "core/memory/memory_margin.h"
#include "core/search/recommender.h"

#include "core/pipeline/stage_plan.h"
#include "core/search/candidate_space.h"
#include "core/search/search_steps.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

struct Case {
  ModelSpec model;
  SearchRequest request;
};

Case Make(const char* model, const char* system, int64_t gpus, int64_t seq, Precision precision = Precision::kBf16) {
  Case c{CatalogModel(model), {}};
  c.request.system = *Catalog::Get().FindSystem(system);
  c.request.gpus = gpus;
  c.request.base.seq_length = seq;
  c.request.base.precision = precision;
  c.request.base.fp8_param_gather = Fp8ParamGatherDefault(precision);  // as Bridge's presets set it
  c.request.base.fp4_param_gather = IsFp4(precision);
  c.request.base.mtp_num_layers = c.model.mtp_num_layers;
  return c;
}

SearchResult Search(Case& c) {
  c.request.model = &c.model;
  auto r = Recommend(c.request);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : SearchResult{};
}

TEST(RecommenderTest, DenseOn64GpusRanksValidFittingDistinctPlans) {
  Case c = Make("llama3_70b", "h100-sxm", 64, 8192, Precision::kFp8Cs);
  const SearchResult r = Search(c);
  ASSERT_TRUE(r.feasible);
  ASSERT_EQ(r.plans.size(), 5u);
  for (size_t i = 0; i < r.plans.size(); ++i) {
    const PlanEval& p = r.plans[i];
    EXPECT_TRUE(p.valid);
    EXPECT_TRUE(p.memory.fits);
    EXPECT_EQ(p.world, 64);
    EXPECT_EQ(64 % (p.config.tp * p.config.pp * p.config.cp), 0);
    EXPECT_LE(p.config.tp, 8) << "TP across the NVLink domain should not rank in the top 5";
    EXPECT_GE(p.reasons.size(), 2u);
    EXPECT_LE(p.reasons.size(), 8u);  // with the tie with plan 1 and the tight-memory note
    // Distinct meshes.
    for (size_t j = 0; j < i; ++j) {
      const ResolvedConfig& q = r.plans[j].config;
      EXPECT_FALSE(p.config.tp == q.tp && p.config.pp == q.pp && p.config.vpp == q.vpp && p.config.cp == q.cp &&
                   p.config.ep == q.ep && p.config.etp == q.etp)
          << PlanLabel(p.config);
    }
    // Throughput order up to the 1% tie band, except that a tight plan
    // (under 5% of HBM free) follows a roomier one as fast within the
    // model's between-config error.
    if (i > 0) {
      const bool yielded = p.memory.headroom_bytes < 0.05 * p.memory.capacity_bytes &&
                           r.plans[i - 1].memory.headroom_bytes >= 0.05 * r.plans[i - 1].memory.capacity_bytes;
      const double band = yielded ? 1 + CalibratedUncertainty().between_configs.median : 1.0101;
      EXPECT_LE(p.perf.tokens_per_s_per_gpu, r.plans[i - 1].perf.tokens_per_s_per_gpu * band);
    }
  }
  // GBS defaulted to about 4M tokens, a multiple of the world: 512 x 8192.
  EXPECT_EQ(r.plans[0].config.gbs, 512);
  // Counts add up.
  EXPECT_EQ(r.rejected.invalid + r.rejected.does_not_fit + r.rejected.dominated + static_cast<int64_t>(r.plans.size()),
            r.evaluated + r.pruned_by_memory + r.pruned_by_bound);
  ASSERT_TRUE(r.rejected.best_not_fitting.has_value());
  EXPECT_FALSE(r.rejected.best_not_fitting->memory.fits);
  // The rule-of-thumb starting point: TP 8, PP 4 for a 70B dense model.
  ASSERT_TRUE(r.starting_point.has_value());
  EXPECT_EQ(r.starting_point->config.tp, 8);
  EXPECT_EQ(r.starting_point->config.pp, 4);
  EXPECT_NE(r.starting_point_comparison.find("Rule of thumb"), std::string::npos) << r.starting_point_comparison;
  EXPECT_FALSE(r.truncated);
}

TEST(RecommenderTest, RedundantVariantsOfASimplerPlanAreNotShown) {
  // At 8K tokens, CP=2 with twice the MBS predicts the same speed and memory
  // as CP=1: such variants must not crowd out different plans. A plan with
  // more dimensions stays when it is faster or leaves more headroom.
  Case c = Make("llama3_70b", "gb200-nvl72", 64, 8192, Precision::kFp8Mx);
  c.request.base.grad_fp32 = false;
  c.request.top_k = 10;
  const SearchResult r = Search(c);
  ASSERT_EQ(r.plans.size(), 10u);
  for (size_t j = 0; j < r.plans.size(); ++j) {
    const PlanEval& q = r.plans[j];
    for (size_t i = 0; i < j; ++i) {
      const PlanEval& p = r.plans[i];
      const bool no_gain = q.perf.tokens_per_s_per_gpu <= p.perf.tokens_per_s_per_gpu * 1.01 &&
                           q.memory.headroom_bytes <= p.memory.headroom_bytes + 0.01 * p.memory.capacity_bytes;
      EXPECT_FALSE(ExtendsMesh(q.config, p.config) && no_gain)
          << PlanLabel(q.config) << " only adds dimensions to " << PlanLabel(p.config);
    }
  }
}

TEST(RecommenderTest, PinnedDimensionsAreHonoured) {
  Case c = Make("qwen3_30b_a3b", "h100-sxm", 16, 4096, Precision::kFp8Cs);
  c.request.constraints.ep = 8;
  c.request.constraints.tp = 2;
  c.request.constraints.allow_recompute = false;
  c.request.top_k = 20;
  const SearchResult r = Search(c);
  ASSERT_TRUE(r.feasible);
  for (const PlanEval& p : r.plans) {
    EXPECT_EQ(p.config.ep, 8);
    EXPECT_EQ(p.config.tp, 2);
    EXPECT_EQ(p.config.recompute, RecomputeGranularity::kNone);
  }
  Case nvlink = Make("llama3_70b", "h100-sxm", 64, 8192);
  nvlink.request.constraints.nvlink_only = true;
  nvlink.request.constraints.allow_cp = false;
  nvlink.request.constraints.max_pp = 2;
  nvlink.request.top_k = 100;
  const SearchResult n = Search(nvlink);
  for (const PlanEval& p : n.plans) {
    EXPECT_LE(p.config.tp, 8);
    EXPECT_EQ(p.config.cp, 1);
    EXPECT_LE(p.config.pp, 2);
  }
}

TEST(RecommenderTest, FewestGpusFindsTheSmallestWorldThatFits) {
  Case c = Make("llama3_8b", "h100-sxm", 0, 8192);
  c.request.find_min_gpus = true;
  c.request.objective = Objective::kFewestGpus;
  const SearchResult r = Search(c);
  ASSERT_TRUE(r.feasible);
  const int64_t found = r.plans.front().world;
  // 8B on 80 GB: model states ~16 B/param = 128 GB, so 1 GPU cannot hold it.
  EXPECT_GT(found, 1);
  EXPECT_LE(found, 8);
  for (const PlanEval& p : r.plans) EXPECT_EQ(p.world, found);
  // Nothing smaller fits as is: on a smaller world the search either finds
  // nothing or turns on optimizer CPU offload (the fewest-GPUs search does
  // not), and says why.
  for (int64_t w = 1; w < found; w *= 2) {
    Case smaller = Make("llama3_8b", "h100-sxm", w, 8192);
    const SearchResult s = Search(smaller);
    if (!s.feasible) continue;
    for (const PlanEval& p : s.plans) {
      EXPECT_TRUE(p.config.optimizer_cpu_offload) << w;
      EXPECT_DOUBLE_EQ(p.config.optimizer_offload_fraction, 1.0) << w;
    }
    bool said = false;
    for (const std::string& reason : s.reasons) said |= reason.find("Nothing fits without optimizer CPU offload") == 0;
    EXPECT_TRUE(said) << w;
  }
}

// One H200 cannot hold llama3_8b's weights, gradients and Adam state (16 B
// per parameter) with activations; with the Adam moments of half the shard
// on the host it can, and the plan carries the offload and its host-side
// step time. One H100 cannot even then: the fp32 master shard stays in HBM
// (10 B per parameter remain), and the search says so.
TEST(RecommenderTest, OptimizerOffloadWhenNothingElseFits) {
  Case one = Make("llama3_8b", "h200-sxm", 1, 8192);
  const SearchResult r = Search(one);
  ASSERT_TRUE(r.feasible);
  const PlanEval& top = r.plans.front();
  EXPECT_TRUE(top.config.optimizer_cpu_offload);
  EXPECT_TRUE(top.memory.fits);
  EXPECT_GT(top.perf.breakdown.optimizer_s, 1.0);  // 4 B params' CPU AdamW and copies over PCIe
  Case h100_case = Make("llama3_8b", "h100-sxm", 1, 8192);
  const SearchResult h100 = Search(h100_case);
  EXPECT_FALSE(h100.feasible);
  EXPECT_NE(h100.infeasible_reason.find("model states alone"), std::string::npos) << h100.infeasible_reason;
}

TEST(RecommenderTest, ModelTooLargeIsInfeasibleWithAReason) {
  Case c = Make("llama31_405b", "h100-sxm", 8, 8192);
  const SearchResult r = Search(c);
  EXPECT_FALSE(r.feasible);
  EXPECT_TRUE(r.plans.empty());
  EXPECT_NE(r.infeasible_reason.find("No valid config fits on 8 GPUs"), std::string::npos) << r.infeasible_reason;
  EXPECT_NE(r.infeasible_reason.find("at least"), std::string::npos) << r.infeasible_reason;
  EXPECT_GT(r.rejected.does_not_fit, 0);
}

TEST(RecommenderTest, DeadlineAndCandidateBoundCutTheSearchAndSaySo) {
  Case c = Make("deepseek_v3", "gb200-nvl72", 1024, 4096, Precision::kFp8Mx);
  c.request.deadline = absl::Now();
  const SearchResult late = Search(c);
  EXPECT_TRUE(late.truncated);
  EXPECT_NE(late.truncated_reason.find("deadline"), std::string::npos) << late.truncated_reason;
  EXPECT_LT(late.evaluated, 100);
  Case bounded = Make("llama3_70b", "h100-sxm", 64, 8192);
  bounded.request.max_candidates = 100;
  const SearchResult b = Search(bounded);
  EXPECT_TRUE(b.truncated);
  // At most the bound: the split bound skips some of the 100 held.
  EXPECT_LE(b.evaluated, 100);
  EXPECT_GT(b.evaluated + b.pruned_by_bound, 0);
  EXPECT_NE(b.truncated_reason.find("candidate bound"), std::string::npos);
}

TEST(RecommenderTest, SameRequestSamePlans) {
  Case a = Make("qwen3_30b_a3b", "b200", 8, 4096, Precision::kFp8Mx);
  Case b = Make("qwen3_30b_a3b", "b200", 8, 4096, Precision::kFp8Mx);
  const SearchResult x = Search(a), y = Search(b);
  ASSERT_EQ(x.plans.size(), y.plans.size());
  for (size_t i = 0; i < x.plans.size(); ++i) {
    EXPECT_EQ(PlanLabel(x.plans[i].config), PlanLabel(y.plans[i].config));
    EXPECT_EQ(x.plans[i].perf.step_time_s, y.plans[i].perf.step_time_s);
  }
  EXPECT_EQ(x.evaluated, y.evaluated);
}

TEST(RecommenderTest, BadInputIsRejected) {
  Case c = Make("llama3_8b", "h100-sxm", 8, 0);
  c.request.model = &c.model;
  EXPECT_EQ(Recommend(c.request).status().code(), absl::StatusCode::kInvalidArgument);
  Case k = Make("llama3_8b", "h100-sxm", 8, 4096);
  k.request.top_k = 0;
  k.request.model = &k.model;
  EXPECT_EQ(Recommend(k.request).status().code(), absl::StatusCode::kInvalidArgument);
}

// Long context (issue 24): the CP communication type is searched, within
// what Megatron's and Transformer Engine's checks allow.
TEST(RecommenderTest, SlidingWindowWithSinksAtLongSequenceGetsOnlyA2aCp) {
  // GPT-OSS: sliding-window layers and attention sinks; under CP only a2a
  // runs both (Transformer Engine asserts otherwise).
  Case c = Make("gpt_oss_20b", "h100-sxm", 16, 65536);
  c.request.top_k = 10;
  const SearchResult r = Search(c);
  ASSERT_TRUE(r.feasible) << r.infeasible_reason;
  int cp_plans = 0;
  for (const PlanEval& p : r.plans) {
    EXPECT_TRUE(p.valid) << PlanLabel(p.config);
    if (p.config.cp <= 1) continue;
    ++cp_plans;
    EXPECT_EQ(p.config.cp_comm_type, "a2a") << PlanLabel(p.config);
    EXPECT_TRUE(p.config.hierarchical_cp_sizes.empty());
    const bool named = std::any_of(p.reasons.begin(), p.reasons.end(), [](const std::string& x) {
      return x.find("cp_comm_type a2a:") != std::string::npos &&
             x.find("Not allowed here by Megatron's / Transformer Engine's checks: p2p, all_gather, a2a+p2p") !=
                 std::string::npos;
    });
    EXPECT_TRUE(named) << PlanLabel(p.config);
  }
  EXPECT_GT(cp_plans, 0);
}

TEST(RecommenderTest, LongSequenceMlaPlansKeepTpInsideTheDomainAndNameTheirCpType) {
  // DeepSeek-V3 at 131,072 tokens on 256 H100s (issue 24's first case).
  Case c = Make("deepseek_v3", "h100-sxm", 256, 131072);
  const SearchResult r = Search(c);
  ASSERT_TRUE(r.feasible) << r.infeasible_reason;
  for (const PlanEval& p : r.plans) {
    EXPECT_TRUE(p.memory.fits);
    EXPECT_LE(p.config.tp, 8) << "TP across the 8-GPU NVLink domain: " << PlanLabel(p.config);
    for (const Violation& v : p.violations) EXPECT_NE(v.rule, "topology.tp_crosses_nvlink");
    ASSERT_GT(p.config.cp, 1) << PlanLabel(p.config);
    EXPECT_TRUE(p.config.cp_comm_type_given);
    if (p.config.optimizer_cpu_offload) {
      // Offload only costs time: a plan carries it only where without it the
      // plan does not fit, or fits only inside the memory reserve (tight).
      ResolvedConfig without = p.config;
      without.optimizer_cpu_offload = false;
      without.optimizer_offload_fraction = 0;
      const auto stages = PlanStages(c.model, without);
      ASSERT_TRUE(stages.has_value());
      const SystemSpec sys = SystemFor(c.request, p.world);
      const MemoryEstimate m = EstimateMemory(c.model, without, *stages, p.world, &sys, MemoryOptions{});
      EXPECT_TRUE(!m.fits || IsTight(m, c.request.memory_reserve))
          << PlanLabel(p.config) << " fits with room without optimizer offload";
    }
    const std::string type = CpVariantName({p.config.cp_comm_type, p.config.hierarchical_cp_sizes});
    const bool named = std::any_of(p.reasons.begin(), p.reasons.end(), [&](const std::string& x) {
      return x.find("cp_comm_type " + type + ":") != std::string::npos &&
             x.find("Other types on this mesh: ") != std::string::npos && x.find("s/step") != std::string::npos;
    });
    EXPECT_TRUE(named) << PlanLabel(p.config) << " " << type;
  }
}

TEST(CandidateSpaceTest, CpVariantsAreWhatTheRulesAllow) {
  const ModelSpec m = CatalogModel("qwen3_235b_a22b");  // 64 query heads, 4 KV heads
  ResolvedConfig c;
  c.seq_length = 131072;
  c.tp = 2;
  c.sp = true;
  c.cp = 8;
  std::vector<std::string> names;
  for (const CpVariant& v : AllowedCpVariants(m, c)) names.push_back(CpVariantName(v));
  // 2 KV heads per TP rank: a2a over 8 is refused, an a2a level of 2 is not.
  EXPECT_EQ(names, (std::vector<std::string>{"p2p", "all_gather", "a2a+p2p [2, 4]"}));
  c.cp = 1;
  EXPECT_TRUE(AllowedCpVariants(m, c).empty());
  // A type the caller gives is the only one searched.
  c.cp = 8;
  c.cp_comm_type = "all_gather";
  c.cp_comm_type_given = true;
  ASSERT_EQ(AllowedCpVariants(m, c).size(), 1u);
  EXPECT_EQ(AllowedCpVariants(m, c)[0].type, "all_gather");
  // The searched variants are among the allowed ones, the fastest first.
  c.cp_comm_type_given = false;
  const SystemSpec sys = *Catalog::Get().FindSystem("gb200-nvl72");
  const std::vector<CpVariant> searched = SearchedCpVariants(m, c, 128, sys);
  ASSERT_FALSE(searched.empty());
  EXPECT_NE(searched[0].type, "a2a");
}

TEST(RecommenderTest, OptimizerOffloadOnlyWhereTheRulesAllowIt) {
  Case c = Make("deepseek_v3", "h100-sxm", 256, 131072);
  c.request.model = &c.model;
  const std::optional<SearchRequest> bf16 = WithOptimizerOffload(c.request);
  ASSERT_TRUE(bf16.has_value());
  EXPECT_TRUE(bf16->base.optimizer_cpu_offload);
  EXPECT_EQ(bf16->base.optimizer_offload_fraction, 1.0);
  // FP8 current scaling gathers parameters in FP8 (Bridge's preset): a
  // Megatron-LM launch refuses offload with it (arguments.py:1889); a Bridge
  // launch does not check it (a warning); with the gather off both accept.
  Case fp8 = Make("deepseek_v3", "h100-sxm", 256, 131072, Precision::kFp8Cs);
  fp8.request.model = &fp8.model;
  EXPECT_TRUE(WithOptimizerOffload(fp8.request).has_value());
  fp8.request.base.front_end = FrontEnd::kMegatronLm;
  EXPECT_FALSE(WithOptimizerOffload(fp8.request).has_value());
  fp8.request.base.fp8_param_gather = false;
  EXPECT_TRUE(WithOptimizerOffload(fp8.request).has_value());
  // The offloaded optimizer runs under the distributed optimizer.
  c.request.base.distributed_optimizer = false;
  EXPECT_FALSE(WithOptimizerOffload(c.request).has_value());
}

TEST(CandidateSpaceTest, ExtendsMeshOnlyWhenEveryDegreeIsAtLeastAsLarge) {
  ResolvedConfig base;
  base.tp = 4;
  base.pp = 2;
  base.vpp = 8;
  ResolvedConfig cp2 = base;
  cp2.cp = 2;
  EXPECT_TRUE(ExtendsMesh(cp2, base));
  EXPECT_FALSE(ExtendsMesh(base, cp2));
  EXPECT_FALSE(ExtendsMesh(base, base));
  ResolvedConfig other;  // TP=2 PP=8 VPP=5: more PP, less TP and VPP: a different trade-off
  other.tp = 2;
  other.pp = 8;
  other.vpp = 5;
  EXPECT_FALSE(ExtendsMesh(other, base));
  EXPECT_FALSE(ExtendsMesh(base, other));
  ResolvedConfig unset_vpp = base;
  unset_vpp.vpp = 0;  // 0 = not set = 1
  EXPECT_TRUE(ExtendsMesh(base, unset_vpp));
}

// The default batch: the multiple of MBS*DP nearest 4M tokens, lowered to
// stay within 16M tokens when it can; DP alone above that stays (and says so).
TEST(CandidateSpaceTest, DefaultGlobalBatchTargetsFourMillionTokens) {
  ResolvedConfig c;
  c.seq_length = 8192;
  c.mbs = 1;
  EXPECT_EQ(DefaultGlobalBatch(c, 64), 512);       // 4,194,304 tokens
  EXPECT_EQ(DefaultGlobalBatch(c, 1500), 1500);    // one per DP rank: 12.3M tokens, within 16M
  EXPECT_EQ(DefaultGlobalBatch(c, 2048), 2048);    // exactly 16M
  EXPECT_EQ(DefaultGlobalBatch(c, 12500), 12500);  // DP alone: 102M tokens
  c.mbs = 4;
  EXPECT_EQ(DefaultGlobalBatch(c, 300), 1200);  // 4 x 300: nearest multiple of 1,200 to 512
  const std::string note = GlobalBatchNote(c, 12500, DefaultGlobalBatch(c, 12500));
  EXPECT_NE(note.find("409,600,000 tokens per step"), std::string::npos) << note;
  EXPECT_NE(note.find("DP at most 512"), std::string::npos) << note;
  c.mbs = 1;
  const std::string plain = GlobalBatchNote(c, 64, 512);
  EXPECT_NE(plain.find("4,194,304 tokens per step"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("above 16M"), std::string::npos) << plain;
  c.seq_length = 2048;
  EXPECT_EQ(DefaultGlobalBatch(c, 6000), 6000);  // 12.3M tokens at 2K: one round of DP
  EXPECT_EQ(DefaultGlobalBatch(c, 3000), 3000);  // 2,048 sequences nearest multiple: 3,000 (6.1M tokens)
}

TEST(CandidateSpaceTest, GlobalBatchAndDimensions) {
  EXPECT_EQ(SearchGlobalBatch(8192, 64), 512);
  EXPECT_EQ(SearchGlobalBatch(4096, 24), 1032);  // 1024 sequences rounded to a multiple of 24
  // Past one sequence per GPU at the 4M-token target, each candidate takes
  // its own DP's default (DefaultGlobalBatch): no shared batch.
  EXPECT_EQ(SearchGlobalBatch(1 << 24, 8), 0);
  EXPECT_EQ(SearchGlobalBatch(8192, 100000), 0);
  ResolvedConfig c;
  c.tp = 8;
  c.pp = 4;
  c.vpp = 5;
  c.etp = 8;
  c.etp_defaulted = true;
  EXPECT_EQ(DimensionsInUse(c), 3);
}

// A 94-layer MoE: only PP 1, 2, 47 and 94 divide 94; NVIDIA's recipes count
// the embedding and the loss as layers (94 + 2 = 96) to run PP 4, 8 or 16.
TEST(RecommenderTest, NinetyFourLayersUseThePipelineSplitAccounting) {
  for (int64_t gpus : {64, 256}) {
    Case c = Make("qwen3_235b_a22b", "b200", gpus, 4096);
    c.request.top_k = 5;
    const SearchResult r = Search(c);
    ASSERT_TRUE(r.feasible) << gpus;
    int accounted = 0;
    for (const PlanEval& p : r.plans) {
      if (!(p.config.account_for_embedding && p.config.account_for_loss)) continue;
      ++accounted;
      EXPECT_TRUE(p.config.pp == 4 || p.config.pp == 8 || p.config.pp == 16 || p.config.pp == 2) << p.config.pp;
      EXPECT_TRUE(p.valid);
      bool said = false;
      for (const auto& reason : p.reasons) {
        said |= reason.find("94 + 2 = 96 = PP ") != std::string::npos &&
                reason.find("account_for_embedding_in_pipeline_split") != std::string::npos;
      }
      EXPECT_TRUE(said) << PlanLabel(p.config);
    }
    EXPECT_GE(accounted, 2) << gpus;
    bool pp4or8 = false;
    for (const PlanEval& p : r.plans) {
      pp4or8 |= (p.config.pp == 4 || p.config.pp == 8) && p.config.account_for_loss;
    }
    EXPECT_TRUE(pp4or8) << gpus;
  }
}

// The hardware decides: on H100 nodes (400 Gb/s per GPU) an EP=16/32
// all-to-all over InfiniBand costs more than it saves, so the top plan keeps
// EP inside the node; with eight times the scale-out bandwidth (as fast as
// NVLink) spreading the experts wider pays.
TEST(RecommenderTest, ScaleoutBandwidthDecidesWhetherExpertsLeaveTheNode) {
  Case base = Make("qwen3_30b_a3b", "h100-sxm", 32, 4096);
  Case fast = Make("qwen3_30b_a3b", "h100-sxm", 32, 4096);
  fast.request.system.scaleout_gbps_per_gpu *= 8;
  const SearchResult a = Search(base);
  const SearchResult b = Search(fast);
  ASSERT_TRUE(a.feasible && b.feasible);
  EXPECT_LE(a.plans[0].config.ep, 8);
  EXPECT_GT(b.plans[0].config.ep, 8);
}

// One judgement of "inside the NVLink domain": a plan whose EP groups
// straddle the 72-GPU domains (EP=64 on 256 GB200s: 3 of 4 groups) says so
// in its reasons, as the topology warning does, never "stays inside".
TEST(RecommenderTest, TopologyReasonsAgreeWithTheWarnings) {
  Case c = Make("deepseek_v3", "gb200-nvl72", 256, 4096);
  c.request.system.nvlink_domain_used = 72;  // all of each rack, as asked (the default is 64)
  c.request.constraints.tp = 1;
  c.request.constraints.pp = 4;
  c.request.constraints.ep = 64;
  const SearchResult r = Search(c);
  ASSERT_TRUE(r.feasible);
  for (const PlanEval& p : r.plans) {
    bool warned = false, crossing = false, inside = false;
    for (const auto& v : p.violations) warned |= v.rule == "topology.ep_crosses_nvlink";
    for (const auto& reason : p.reasons) {
      crossing |= reason.find("3 of 4 EP groups") != std::string::npos;
      inside |= reason.find("inside the 72-GPU NVLink domain") != std::string::npos;
    }
    EXPECT_TRUE(warned) << PlanLabel(p.config);
    EXPECT_TRUE(crossing) << PlanLabel(p.config);
    EXPECT_FALSE(inside) << PlanLabel(p.config);
  }
}

// A plan inside the memory model's error (less than 5% of HBM free) is
// "tight": it says so, and never ranks above a plan with room that is as
// fast within the model's between-config error. Qwen3-30B-A3B on 32 H100s
// had a 77.2-of-80 GiB plan first, 1.4% ahead of one with 7 GiB free.
TEST(RecommenderTest, TightPlansYieldToPlansWithRoom) {
  Case c = Make("qwen3_30b_a3b", "h100-sxm", 32, 4096);
  c.request.top_k = 10;
  const SearchResult r = Search(c);
  ASSERT_TRUE(r.feasible);
  const double band = 1 + CalibratedUncertainty().between_configs.median;
  auto tight = [&](const PlanEval& p) {
    return p.memory.headroom_bytes < c.request.memory_reserve * p.memory.capacity_bytes;
  };
  for (size_t i = 0; i < r.plans.size(); ++i) {
    bool said = false;
    for (const auto& reason : r.plans[i].reasons) said |= reason.rfind("Tight:", 0) == 0;
    EXPECT_EQ(said, tight(r.plans[i])) << PlanLabel(r.plans[i].config);
    for (size_t j = i + 1; j < r.plans.size(); ++j) {
      if (tight(r.plans[i]) && !tight(r.plans[j])) {
        EXPECT_GT(r.plans[i].perf.tokens_per_s_per_gpu, r.plans[j].perf.tokens_per_s_per_gpu * band)
            << PlanLabel(r.plans[i].config) << " ranks above " << PlanLabel(r.plans[j].config);
      }
    }
  }
  EXPECT_FALSE(tight(r.plans[0]));
}

// PCIe-only cards: TP over PCIe does not pay (the top plans keep TP at 1),
// and a plan pinned to TP=2 says what it costs: the link it runs over.
TEST(RecommenderTest, TpOnPcieSaysWhatItCosts) {
  Case free = Make("llama3_8b", "rtx-pro-6000", 8, 8192);
  const SearchResult open = Search(free);
  ASSERT_TRUE(open.feasible);
  EXPECT_EQ(open.plans[0].config.tp, 1);
  Case c = Make("llama3_8b", "rtx-pro-6000", 8, 8192);
  c.request.constraints.tp = 2;
  const SearchResult r = Search(c);
  ASSERT_TRUE(r.feasible);
  for (const PlanEval& p : r.plans) {
    ASSERT_EQ(p.config.tp, 2);
    bool said = false;
    for (const auto& reason : p.reasons) said |= reason.find("over PCIe (64 GB/s per GPU)") != std::string::npos;
    EXPECT_TRUE(said) << PlanLabel(p.config);
  }
  // Slower than the best TP=1 plan.
  EXPECT_LT(r.plans[0].perf.tokens_per_s_per_gpu, open.plans[0].perf.tokens_per_s_per_gpu);
}

}  // namespace
}  // namespace parplan
