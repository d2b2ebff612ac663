// Failure tracebacks written for these tests around the messages the pinned
// upstream prints (Megatron-LM d98e8a64, Megatron Bridge 067f987df0; the
// file:line of each template is in core/runlog/failure_templates.cc). The
// sizes are made up.
#include <ostream>
#include <string>

#include "core/diagnostics/rule_catalog.h"
#include "core/runlog/failure_templates.h"
#include "core/runlog/run_log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

using ::testing::HasSubstr;

// A traceback as torchrun prints it on rank 0, ending in `exception_line`.
std::string Traceback(const std::string& frame_file, int frame_line, const std::string& function,
                      const std::string& exception_line) {
  return "[rank0]: Traceback (most recent call last):\n"
         "[rank0]:   File \"/opt/Megatron-LM/pretrain_gpt.py\", line 345, in <module>\n"
         "[rank0]:     pretrain(\n"
         "[rank0]:   File \"/opt/Megatron-LM/" +
         frame_file + "\", line " + std::to_string(frame_line) + ", in " + function +
         "\n"
         "[rank0]:     raise SomeError(\n"
         "[rank0]: " +
         exception_line + "\n";
}

LogFailure OnlyFailure(const std::string& text) {
  absl::StatusOr<ParsedLog> log = ParseRunLog(text, "log");
  EXPECT_TRUE(log.ok()) << log.status();
  if (!log.ok() || log->failures.size() != 1) {
    ADD_FAILURE() << "expected one failure in:\n" << text;
    return {};
  }
  return log->failures[0];
}

struct Case {
  const char* name;
  std::string text;
  const char* kind;
  const char* rule_id;
  const char* fix_part;  // sizes from the message in the fix
  const char* moment_part = "start-up";
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class FailureMappingTest : public ::testing::TestWithParam<Case> {};

TEST_P(FailureMappingTest, MapsToTheRuleWithSizes) {
  const Case& c = GetParam();
  const LogFailure f = OnlyFailure(c.text);
  EXPECT_EQ(f.kind, c.kind);
  EXPECT_EQ(f.rule_id, c.rule_id) << f.message;
  ASSERT_NE(FindRule(f.rule_id), nullptr) << f.rule_id;
  EXPECT_THAT(f.fix, HasSubstr(c.fix_part));
  EXPECT_FALSE(f.rule_source.empty());
  EXPECT_THAT(f.moment, HasSubstr(c.moment_part));
}

INSTANTIATE_TEST_SUITE_P(
    Templates, FailureMappingTest,
    ::testing::Values(
        Case{"dense_world",
             Traceback("megatron/core/parallel_state.py", 823, "initialize_model_parallel",
                       "RuntimeError: world_size (24) is not divisible by 16"),
             "error", "mesh.world_dense_divisible", "world size 24 is not divisible by TP*PP*CP = 16"},
        Case{"expert_world",
             Traceback("megatron/core/parallel_state.py", 882, "initialize_model_parallel",
                       "RuntimeError: world_size (48) is not divisible by expert_tensor_model_pipeline_parallel size "
                       "(32)"),
             "error", "mesh.world_expert_divisible", "the nearest are 32 and 64 GPUs"},
        Case{"args_world",
             Traceback("megatron/training/arguments.py", 432, "validate_args",
                       "AssertionError: world size (12) is not divisible by total_model_size "
                       "(total_model_size=8)"),
             "assertion", "mesh.world_dense_divisible", "TP*PP*CP = 8"},
        // Bridge's triple-quoted assert: the message starts on the next line.
        Case{"bridge_world",
             Traceback("src/megatron/bridge/training/config.py", 1024, "data_parallel_size",
                       "AssertionError: \n"
                       "[rank0]:         world size (24) is not divisible by total_model_size "
                       "(model_cfg.tensor_model_parallel_size=4 * model_cfg.pipeline_model_parallel_size=4 * "
                       "model_cfg.context_parallel_size=1)"),
             "assertion", "mesh.world_dense_divisible", "TP*PP*CP = 4*4*1 = 16"},
        Case{"heads",
             Traceback("megatron/core/transformer/transformer_config.py", 1447, "__post_init__",
                       "ValueError: num_attention_heads (40) must be a multiple of "
                       "tensor_model_parallel_size (16)."),
             "error", "tp.heads_divisible", "num_attention_heads 40 is not a multiple of TP = 16"},
        Case{"query_groups",
             Traceback("megatron/core/transformer/transformer_config.py", 1465, "__post_init__",
                       "ValueError: num_query_groups (8) must be a multiple or divisor of "
                       "tensor_model_parallel_size (3)."),
             "error", "tp.query_groups_divisible", "num_query_groups 8"},
        Case{"ep_dense",
             Traceback("megatron/core/transformer/transformer_config.py", 1596, "__post_init__",
                       "ValueError: num_moe_experts must be non None to use expert-parallel."),
             "error", "ep.requires_moe", "set EP = 1"},
        Case{"experts_ep",
             Traceback("megatron/training/arguments.py", 1657, "validate_args",
                       "AssertionError: Number of experts should be a multiple of expert model "
                       "parallel_size."),
             "assertion", "ep.experts_divisible", "EP that divides num_moe_experts"},
        Case{"layers_pp",
             Traceback("megatron/training/arguments.py", 997, "validate_args",
                       "AssertionError: Number of layers should be divisible by the "
                       "pipeline-model-parallel size"),
             "assertion", "pp.layers_divisible", "not divisible by PP"},
        Case{"layers_pp_accounted",
             Traceback("megatron/core/transformer/transformer_config.py", 2396, "__post_init__",
                       "ValueError: num_layers: 34 after enableaccount_for_embedding_in_pipeline_split or "
                       "account_for_loss_in_pipeline_split must be divisibleby pipeline_model_parallel_size 4"),
             "error", "pp.layers_divisible",
             "34 layers (with the accounted embedding/loss) are not divisible by "
             "PP = 4"},
        Case{"vpp_needs_pp",
             Traceback("megatron/core/parallel_state.py", 829, "initialize_model_parallel",
                       "RuntimeError: pipeline-model-parallel size should be greater than 1 with "
                       "interleaved schedule"),
             "error", "vpp.requires_pp", "needs PP > 1"},
        Case{"first_stage_vpp",
             Traceback("megatron/core/transformer/transformer_config.py", 2312, "__post_init__",
                       "ValueError: number of layers at first stage: 5must be divisible by virtual "
                       "pipelineparallel degree 2"),
             "error", "pp.first_stage_vpp_divisible", "first pipeline stage's 5 layers are not divisible by VPP = 2"},
        Case{"middle_mismatch",
             Traceback("megatron/core/transformer/transformer_config.py", 2342, "__post_init__",
                       "ValueError: Mismatch: 0 middle layers remaining but 2 middle PP stages available."),
             "error", "pp.uneven_middle_mismatch", "0 middle layers remain for 2 middle stages"},
        Case{"global_batch",
             Traceback("megatron/core/num_microbatches_calculator.py", 381, "__init__",
                       "AssertionError: global batch size (100) is not divisible by micro batch "
                       "size (2) times data parallel size (8)"),
             "assertion", "batch.gbs_divisible",
             "micro batch * DP = 2*8 = 16: use a global batch that is a "
             "multiple of 16 (e.g. 96 or 112)"},
        Case{"seq_cp",
             Traceback("megatron/training/arguments.py", 1336, "validate_args",
                       "AssertionError: seq-length should be a multiple of 2 * context-parallel-size if "
                       "context-parallel-size > 1."),
             "assertion", "cp.seq_divisible", "multiple of 2*CP"},
        Case{"bridge_seq_cp",
             Traceback("src/megatron/bridge/training/config.py", 1575, "validate",
                       "AssertionError: Sequence length must be divisible by 2 * context parallel size if context "
                       "parallel is used."),
             "assertion", "cp.seq_divisible", "multiple of 2*CP"},
        Case{"vpp_microbatches",
             Traceback("megatron/core/pipeline_parallel/schedules.py", 1168,
                       "forward_backward_pipelining_with_interleaving",
                       "ValueError: The number of contiguous micro-batches in a virtual pipeline stageshould range "
                       "in [PP=8 , M=4]"),
             "error", "vpp.microbatches_below_pp", "4 microbatches for PP = 8",
             "the first iteration (training had started"}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(LogFailuresTest, EveryTemplateNamesACatalogRule) {
  ASSERT_GE(FailureTemplates().size(), 12u);
  for (const FailureTemplate& t : FailureTemplates()) {
    EXPECT_NE(FindRule(t.rule_id), nullptr) << t.rule_id << " (" << t.pattern << ")";
    EXPECT_THAT(std::string(t.source), HasSubstr(".py:")) << t.pattern;
  }
}

TEST(LogFailuresTest, EveryTemplateMatchesItsOwnTextWithNumbers) {
  for (const FailureTemplate& t : FailureTemplates()) {
    std::string text = t.pattern;
    for (size_t hole = text.find("{}"); hole != std::string::npos; hole = text.find("{}")) {
      text.replace(hole, 2, "7");
    }
    const TemplateMatch m = MatchFailureTemplate("AssertionError: " + text);
    ASSERT_NE(m.entry, nullptr) << text;
    EXPECT_EQ(m.entry->rule_id, std::string(t.rule_id)) << text;
    EXPECT_FALSE(m.entry->fix(m.values).empty());
  }
}

TEST(LogFailuresTest, UnknownErrorIsKeptWithoutARule) {
  const LogFailure f = OnlyFailure(Traceback("megatron/training/checkpointing.py", 900, "load_checkpoint",
                                             "RuntimeError: Error(s) in loading state_dict for GPTModel:"));
  EXPECT_EQ(f.kind, "error");
  EXPECT_EQ(f.rule_id, "");
  EXPECT_EQ(f.fix, "");
  EXPECT_EQ(f.raised_at, "megatron/training/checkpointing.py:900 in load_checkpoint");
  EXPECT_EQ(f.message, "Error(s) in loading state_dict for GPTModel:");
}

TEST(LogFailuresTest, BareAssertionKeepsTheNextLineForTheReader) {
  absl::StatusOr<ParsedLog> log =
      ParseRunLog("AssertionError\n iteration       10/     100 | elapsed time per iteration (ms): 5000.0 |\n", "log");
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->failures.size(), 1u);
  EXPECT_EQ(log->failures[0].kind, "assertion");
  EXPECT_EQ(log->failures[0].message, "");
  ASSERT_EQ(log->iterations.size(), 1u);  // not swallowed as the message
}

TEST(LogFailuresTest, QuotedSourceLinesAreNotFailures) {
  absl::StatusOr<ParsedLog> log = ParseRunLog("    raise ValueError(\"num_attention_heads must\")\n", "log");
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(log->failures.empty());
}

TEST(LogFailuresTest, MomentFollowsTheStartUpMilestones) {
  const std::string error =
      "ValueError: num_attention_heads (40) must be a multiple of tensor_model_parallel_size (16).";
  EXPECT_EQ(OnlyFailure(error + "\n").moment, "start-up (before the first logged iteration)");
  EXPECT_EQ(OnlyFailure("> initializing torch distributed ...\n" + error + "\n").moment,
            "start-up: configuration and parallel-state initialisation (before the model was built)");
  EXPECT_EQ(OnlyFailure("building GPT model ...\n" + error + "\n").moment,
            "start-up: model build (before the first logged iteration)");
  EXPECT_EQ(OnlyFailure("[after model, optimizer, and learning rate scheduler are built] datetime: 2026-01-01\n" +
                        error + "\n")
                .moment,
            "start-up: after the model, optimizer and scheduler were built, before the first logged iteration");
}

}  // namespace
}  // namespace parplan
