// Per-layer activation bytes, each checked against arithmetic written here.
#include "core/memory/activation_model.h"

#include "gtest/gtest.h"
#include "tests/core/test_util.h"

namespace parplan {
namespace {

using testing_util::CatalogModel;

ResolvedConfig Tp(int64_t tp, bool sp) {
  ResolvedConfig c;
  c.tp = tp;
  c.etp = 1;
  c.sp = sp;
  return c;
}

// Llama 3 8B (h 4096, 32 heads, 8 groups, d 128, SwiGLU 14336) at TP=1, bf16:
// two norms 2 x (2h + 2h) = 32768; attention Q,K,V,O 2(4096 + 2*1024 + 4096) = 20480;
// MLP fc1 output 2*2*14336 + activation output 2*14336 = 86016. Total 139264 B/token.
TEST(ActivationModelTest, DenseGqaLayerNoRecompute) {
  const ModelSpec m = CatalogModel("llama3_8b");
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kDenseTransformer, Tp(1, false)), 139264.0);
  // TP=2 with SP: everything /2, KV heads (8) still split: 69632.
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kDenseTransformer, Tp(2, true)), 69632.0);
  // TP=2 without SP: norm regions stay whole (32768), the rest /2 (10240 + 43008).
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kDenseTransformer, Tp(2, false)), 86016.0);
}

TEST(ActivationModelTest, SelectiveAndFullRecompute) {
  const ModelSpec m = CatalogModel("llama3_8b");
  ResolvedConfig c = Tp(1, false);
  c.recompute = RecomputeGranularity::kSelective;
  c.recompute_modules = {"mlp", "layernorm"};
  // MLP internals are rebuilt; Transformer Engine fuses both norms into the
  // next GEMM (core/model/norm_modules.h), so "layernorm" frees nothing:
  // 2 x 4h + attention 20480 = 53248.
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kDenseTransformer, c), 53248.0);
  c.recompute_modules = {"core_attn"};  // fused attention keeps no s^2 tensors: no change
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kDenseTransformer, c), 139264.0);
  // Full recompute keeps the layer input: 2h = 8192.
  EXPECT_DOUBLE_EQ(LayerInputBytesPerToken(m, c), 8192.0);
}

TEST(ActivationModelTest, Fp8SavesQuantizedGemmInputs) {
  const ModelSpec m = CatalogModel("llama3_8b");
  ResolvedConfig c = Tp(1, false);
  c.precision = Precision::kFp8Cs;
  // Norm outputs 1 B (2 x 4096 saved), attention output copy +4096, activation output 1 B (-14336):
  // 139264 - 8192 + 4096 - 14336 = 120832.
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kDenseTransformer, c), 120832.0);
}

// DeepSeek-V3 MLA at TP=1, bf16: norm 2h + 2h = 28672; down projections
// q 2*1536 + 1536*2 = 6144, kv 2*(512+64) + 2*512 = 2176; O 2*128*128 = 32768;
// Q and K after RoPE and V, saved by fused attention: 2*128*(192+192+128) = 131072.
TEST(ActivationModelTest, MlaAttention) {
  const ModelSpec m = CatalogModel("deepseek_v3");
  const ResolvedConfig c = Tp(1, false);
  // The up projections' own outputs are views and temporaries nobody saves.
  const double attention = 28672 + 6144 + 2176 + 32768 + 131072;
  // Dense layer = attention + MLP norm (28672) + MLP internals (2*2*18432 + 2*18432 = 110592).
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kDenseTransformer, c), attention + 28672 + 110592);
  ResolvedConfig up = c;
  up.recompute = RecomputeGranularity::kSelective;
  up.recompute_modules = {"mla_up_proj"};
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kDenseTransformer, up),
                   28672 + 6144 + 2176 + 32768 + 28672 + 110592);
}

// Qwen3-30B-A3B MoE layer, TP=2 with SP, ETP=1: pairs per local token = 8*1/2 = 4;
// per pair: fc1 input 2*2048 + fc1 output 2*2*768 + activation 2*768 = 8704;
// router 2*4*128/2 = 512; norm 2*2048/2 + 2*2048/2 = 4096.
TEST(ActivationModelTest, MoeLayerWithEpEtpUnlikeTp) {
  const ModelSpec m = CatalogModel("qwen3_30b_a3b");
  ResolvedConfig c = Tp(2, true);
  c.ep = 4;
  const double moe = 4096 + 512 + 4 * 8704;
  // Attention: norm 4096; Q,K,V,O 2*(4096 + 2*512 + 4096)/2 = 9216.
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kMoeTransformer, c), 4096 + 9216 + moe);
  c.recompute = RecomputeGranularity::kSelective;
  c.recompute_modules = {"moe_act"};
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kMoeTransformer, c), 4096 + 9216 + moe - 4 * 1536);
}

// Nemotron-H 8B Mamba layer at TP=1, bf16: norm 2*4096 + 2*4096 = 16384;
// d_inner 8192, B/C 2*8*128 = 2048, 128 heads: in_proj out 2*(2*8192 + 2048 + 128) = 37120;
// conv 2*(8192 + 2048) = 20480; scan states 4*128*64*128/256 = 16384; y and out_proj input 2*8192*2 = 32768.
TEST(ActivationModelTest, MambaLayer) {
  const ModelSpec m = CatalogModel("nemotronh_8b");
  EXPECT_EQ(KindOfLayer(m, 0), LayerKind::kMamba);
  EXPECT_EQ(KindOfLayer(m, 1), LayerKind::kMlpOnly);
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kMamba, Tp(1, false)),
                   16384 + 37120 + 20480 + 16384 + 32768);
}

TEST(ActivationModelTest, OffloadedModulesLeaveTheGpu) {
  const ModelSpec m = CatalogModel("llama3_8b");
  ResolvedConfig c = Tp(1, false);
  c.offload_modules = {"core_attn", "attn_proj"};
  EXPECT_DOUBLE_EQ(LayerActivationBytesPerToken(m, LayerKind::kDenseTransformer, c), 139264.0 - 20480);
}

}  // namespace
}  // namespace parplan
