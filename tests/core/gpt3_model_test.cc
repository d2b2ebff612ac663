// GPT-3 175B as MLPerf runs it, and the spec fields it needs
// (position_embedding_type, normalization, activation_func): the catalog
// entry, its parameters by hand, Megatron's model FLOPs formula for a plain
// (not gated) GeLU MLP, the learned position table on the first pipeline
// stage, and the Hugging Face GPT-2 / OPT / GPT-NeoX readers.
#include <string>

#include "core/config/parallel_config.h"
#include "core/memory/memory_model.h"
#include "core/model/hf_config.h"
#include "core/model/model_checks.h"
#include "core/model/param_count.h"
#include "core/perf/flops.h"
#include "core/pipeline/stage_plan.h"
#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

constexpr int64_t kH = 12288, kL = 96, kS = 2048, kPaddedVocab = 50304;  // 50,257 up to a multiple of 128

TEST(Gpt3ModelTest, CatalogEntryIsTheMlperfShape) {
  const ModelSpec m = CatalogModel("gpt3_175b");
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.kind, "dense");
  EXPECT_EQ(m.num_layers, kL);
  EXPECT_EQ(m.hidden_size, kH);
  EXPECT_EQ(m.ffn_hidden_size, 4 * kH);
  EXPECT_EQ(m.num_attention_heads, 96);
  EXPECT_EQ(m.num_query_groups, 96);  // MHA, not GQA
  EXPECT_EQ(m.vocab_size, 50257);
  EXPECT_EQ(m.DefaultSeqLength(), kS);
  EXPECT_FALSE(m.gated_linear_unit);
  EXPECT_EQ(m.ResolvedActivation(), "gelu");
  EXPECT_EQ(m.normalization, "LayerNorm");
  EXPECT_EQ(m.position_embedding_type, "learned_absolute");
  EXPECT_TRUE(m.add_bias_linear);
  EXPECT_TRUE(m.share_embeddings_and_output_weights);
  for (const char* alias : {"gpt3", "GPT-3", "mlperf-gpt3"}) {
    auto found = Catalog::Get().FindModel(alias);
    ASSERT_TRUE(found.ok()) << alias;
    EXPECT_EQ(found->id, "gpt3_175b");
  }
}

// Per layer: QKV 3h^2 + 3h bias, output h^2 + h, fc1 4h^2 + 4h, fc2 4h^2 + h,
// two LayerNorms 2 * 2h; embeddings: padded vocabulary x h (tied), positions
// 2048 x h; the final LayerNorm 2h.
TEST(Gpt3ModelTest, ParametersByHand) {
  const ModelSpec m = CatalogModel("gpt3_175b");
  const int64_t layer = 12 * kH * kH + 13 * kH;
  const int64_t expected = kL * layer + kPaddedVocab * kH + kS * kH + 2 * kH;
  const ParamCounts c = CountParams(m);
  EXPECT_EQ(c.total, expected);
  EXPECT_EQ(c.position_embedding, kS * kH);
  EXPECT_EQ(c.output_layer, 0);
  EXPECT_NEAR(static_cast<double>(c.total) / 1e9, 174.6, 0.1);  // "175B"
  // RMSNorm and RoPE would drop the norm biases and the position table.
  ModelSpec rope = m;
  rope.position_embedding_type = "rope";
  rope.normalization = "RMSNorm";
  EXPECT_EQ(CountParams(rope).total, expected - kS * kH - (2 * kL + 1) * kH);
}

// Megatron-LM num_floating_point_operations (megatron/training/training.py;
// Megatron Bridge training/utils/flop_utils.py): gated_linear_multiplier 1
// without SwiGLU, so per token 72 L h^2 (1 + ...) reads 6 * [L (4h^2 + 2*4h*4h
// ... )]: attention projections 24 L h^2, MLP 48 L h^2, causal attention
// 6 L s h, logits 6 h V. Position embeddings, LayerNorm and GeLU add none.
TEST(Gpt3ModelTest, MegatronFlopsForAPlainGeluMlp) {
  const ModelSpec m = CatalogModel("gpt3_175b");
  const double h = kH, l = kL, s = kS, v = kPaddedVocab;
  const FlopsPerToken f = ModelFlopsPerToken(m, kS, 1, 0);
  EXPECT_DOUBLE_EQ(f.total, 72 * l * h * h + 6 * l * s * h + 6 * h * v);
  ModelSpec swiglu = m;
  swiglu.gated_linear_unit = true;  // factor 3/2 on the MLP: 48 -> 72 L h^2
  EXPECT_DOUBLE_EQ(ModelFlopsPerToken(swiglu, kS, 1, 0).total - f.total, 24 * l * h * h);
}

// The learned table sits on the first stage, whole on every TP rank.
TEST(Gpt3ModelTest, PositionTableOnTheFirstStage) {
  const ModelSpec m = CatalogModel("gpt3_175b");
  ParallelConfig pc;
  pc.tp = 8;
  pc.pp = 8;
  pc.gbs = 1536;
  auto c = ResolveConfig(pc, &m, "config");
  ASSERT_TRUE(c.ok()) << c.status();
  const auto plan = PlanStages(m, *c);
  ASSERT_TRUE(plan.has_value());
  const MemoryEstimate with = EstimateMemory(m, *c, *plan, 512, nullptr, MemoryOptions{});
  ModelSpec rope = m;
  rope.position_embedding_type = "rope";
  const MemoryEstimate without = EstimateMemory(rope, *c, *plan, 512, nullptr, MemoryOptions{});
  EXPECT_DOUBLE_EQ(with.stages[0].dense_params - without.stages[0].dense_params, static_cast<double>(kS * kH));
  EXPECT_DOUBLE_EQ(with.stages[1].dense_params, without.stages[1].dense_params);
}

TEST(Gpt3ModelTest, UnknownSpecValuesAreNamed) {
  ModelSpec m = CatalogModel("gpt3_175b");
  m.normalization = "BatchNorm";
  m.activation_func = "tanh";
  m.position_embedding_type = "alibi";
  const absl::Status s = CheckArchitectureBounds(m, "model.spec");
  ASSERT_FALSE(s.ok());
  const std::string text(s.message());
  for (const char* field :
       {"model.spec.normalization", "model.spec.activation_func", "model.spec.position_embedding_type"}) {
    EXPECT_NE(text.find(field), std::string::npos) << field << ": " << text;
  }
}

// transformers' GPT-2 XL config.json (model_type gpt2): n_* keys, GeLU,
// LayerNorm, learned positions, tied embeddings by default.
TEST(Gpt3ModelTest, HfGpt2Config) {
  auto m = ParseHfConfig(R"({"model_type":"gpt2","n_layer":48,"n_embd":1600,"n_head":25,"n_positions":1024,
      "n_inner":null,"vocab_size":50257,"activation_function":"gelu_new","layer_norm_epsilon":1e-5})",
                         "model.hf_config_json");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->num_layers, 48);
  EXPECT_EQ(m->ffn_hidden_size, 4 * 1600);
  EXPECT_EQ(m->seq_length, 1024);
  EXPECT_FALSE(m->gated_linear_unit);
  EXPECT_EQ(m->ResolvedActivation(), "gelu");
  EXPECT_EQ(m->normalization, "LayerNorm");
  EXPECT_EQ(m->position_embedding_type, "learned_absolute");
  EXPECT_TRUE(m->add_bias_linear);
  EXPECT_TRUE(m->share_embeddings_and_output_weights);
  // GPT-2 XL has 1,557,611,200 parameters (1.5B; vocabulary unpadded there).
  ModelSpec unpadded = *m;
  unpadded.make_vocab_size_divisible_by = 1;
  EXPECT_EQ(CountParams(unpadded).total, 1557611200);
}

TEST(Gpt3ModelTest, HfOptAndNeoxConfigs) {
  auto opt = ParseHfConfig(R"({"model_type":"opt","num_hidden_layers":24,"hidden_size":2048,"ffn_dim":8192,
      "num_attention_heads":32,"max_position_embeddings":2048,"vocab_size":50272,"activation_function":"relu",
      "word_embed_proj_dim":2048,"do_layer_norm_before":true})",
                           "model.hf_config_json");
  ASSERT_TRUE(opt.ok()) << opt.status();
  EXPECT_EQ(opt->ffn_hidden_size, 8192);
  EXPECT_EQ(opt->ResolvedActivation(), "relu");
  EXPECT_EQ(opt->position_embedding_type, "learned_absolute");
  EXPECT_EQ(opt->normalization, "LayerNorm");
  EXPECT_FALSE(opt->gated_linear_unit);
  auto neox = ParseHfConfig(R"({"model_type":"gpt_neox","num_hidden_layers":44,"hidden_size":6144,
      "intermediate_size":24576,"num_attention_heads":64,"max_position_embeddings":2048,"vocab_size":50432,
      "hidden_act":"gelu","rotary_pct":0.25,"layer_norm_eps":1e-5,"use_parallel_residual":true,
      "tie_word_embeddings":false})",
                            "model.hf_config_json");
  ASSERT_TRUE(neox.ok()) << neox.status();
  EXPECT_EQ(neox->position_embedding_type, "rope");
  EXPECT_EQ(neox->normalization, "LayerNorm");
  EXPECT_EQ(neox->ResolvedActivation(), "gelu");
  EXPECT_FALSE(neox->share_embeddings_and_output_weights);
  // Llama-style configs keep RMSNorm, RoPE and SwiGLU.
  auto llama = ParseHfConfig(R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":256,
      "intermediate_size":512,"num_attention_heads":4,"vocab_size":1000,"hidden_act":"silu","rms_norm_eps":1e-5})",
                             "model.hf_config_json");
  ASSERT_TRUE(llama.ok()) << llama.status();
  EXPECT_EQ(llama->normalization, "RMSNorm");
  EXPECT_EQ(llama->position_embedding_type, "rope");
  EXPECT_EQ(llama->ResolvedActivation(), "silu");
  EXPECT_TRUE(llama->gated_linear_unit);
}

}  // namespace
}  // namespace parplan
