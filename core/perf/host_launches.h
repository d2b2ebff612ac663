// The kernels the host issues for one decoder layer and one microbatch,
// forward and backward, by the region a CUDA-graph scope captures
// (Megatron-Core cuda_graph_modules: attn, mlp, moe_router,
// moe_preprocess, moe, mamba; cuda_graph_impl full_iteration captures all).
// Counted from the source for Transformer Engine layers (Megatron-LM
// d98e8a64: attention.py, transformer_layer.py, moe/router.py,
// moe/token_dispatcher.py, moe/moe_utils.py, mlp.py; the counts and their
// sources are in core/perf/README.md, "Host launches"), +-2 per region. A
// captured region still costs the host its graph's replay: the launch, the
// static-input copies, Transformer Engine's returned-gradient clones and
// the distributed optimizer's eager main_grad adds for norm weights.
// The expert GEMMs issued after the token-count sync are not counted here:
// their launches are on the GPU's critical path and charged as such
// (PerfParams::expert_launch_us).
#ifndef PARPLAN_CORE_PERF_HOST_LAUNCHES_H_
#define PARPLAN_CORE_PERF_HOST_LAUNCHES_H_

#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/layer_kind.h"
#include "core/model/model_spec.h"

namespace parplan {

enum class HostRegion {
  kAttention,      // input norm, QKV (or MLA) projections, q/k norms, RoPE, core attention, output projection
  kDenseMlp,       // pre-MLP norm, fc1, activation, fc2
  kMamba,          // Mamba mixer without its SSD scan (whose Triton launches are measured: ssd_host_us)
  kMoeRouter,      // pre-MLP norm, gating GEMM, top-k, aux loss (and shared experts when not overlapped)
  kMoePreprocess,  // dispatch metadata and the local permutation
  kMoeDispatch,    // dispatch, chunk sort, combine and unpermutation: only the drop-and-pad 'moe' scope captures it
  kMtp,            // an MTP depth's norms and 2h -> h projection
};

struct RegionLaunches {
  HostRegion region = HostRegion::kAttention;
  std::string name;    // "attention", "moe_router", ...
  double forward = 0;  // launches the host issues when the region runs eagerly
  double backward = 0;
  bool captured = false;      // a CUDA graph of the config's scope replays it
  double replay_forward = 0;  // host operations of the replay when captured
  double replay_backward = 0;
  // Launches the host issues for the region, forward + backward.
  double Issued() const { return captured ? replay_forward + replay_backward : forward + backward; }
  // Launches a capture removes (0 when not captured).
  double Removed() const { return captured ? forward + backward - Issued() : 0; }
};

// The graph that replays a region under a config's CUDA-graph scope: the one
// decision of which regions a scope captures, read by the host launches here
// and by the graphs' runtime buffers (core/memory/runtime_buffers.cc), so the
// two cannot disagree.
enum class CapturingGraph {
  kNone,           // the region runs eagerly
  kFullIteration,  // cuda_graph_impl full_iteration: one graph of the whole step
  kLayer,          // an empty scope (or the deprecated "full"): the layer's one graph
  kAttn,           // attn: TransformerLayer._forward_attention
  kMlp,            // mlp: a dense layer's MLP
  kMamba,          // mamba: the Mamba layer
  kMoeRouter,      // moe_router (+ moe_preprocess): the MoE block up to the dispatch
  kMoe,            // moe: the whole drop-and-pad MoE block
};

// Which graph captures `region` under `c`: full_iteration captures
// everything; per-layer graphs (local or transformer_engine) capture their
// scope's regions (the local implementation captures moe_router and
// moe_preprocess together, transformer_config.py:2807-2815), and an empty
// scope the whole layer except the dropless MoE dispatch (only the
// drop-and-pad moe scope captures it, :2838-2844). An MTP depth's projection
// is graphed only with the whole layer.
CapturingGraph GraphOf(const ResolvedConfig& c, HostRegion region);

// True when `c`'s CUDA graphs capture `region`: GraphOf(c, region) != kNone.
bool GraphCaptures(const ResolvedConfig& c, HostRegion region);

// The host regions a layer of kind `kind` runs, in order (an MTP depth's
// projection last when `mtp`).
std::vector<HostRegion> LayerRegions(LayerKind kind, bool mtp);

// The regions of a layer of kind `kind` (an MTP depth when `mtp`), each with
// its launch counts for `m` under `c` (dispatcher, FP8's quantize kernels,
// forced load balancing, shared experts) and whether a graph captures it.
std::vector<RegionLaunches> LayerLaunches(const ModelSpec& m, const ResolvedConfig& c, LayerKind kind, bool mtp);

// Kernels of one GEMM input's quantization per pass under `precision`:
// current scaling 4, NVFP4 2, block-scaled and delayed scaling 1, bf16 0.
double QuantizeKernels(Precision precision);

// Launches of MLA's RoPE and the Q/K/V assembly after its up projections, one
// pass, under `c`'s apply_rope_fusion. Unfused (Bridge's DeepSeek V2/V3 bridges, which Moonlight
// and Kimi use, set apply_rope_fusion False: deepseek_v3_bridge.py:78):
// per apply_rotary_pos_emb call (Megatron-LM rope_utils.py
// _apply_rotary_pos_emb_bshd, mla_rotary_interleaved) the interleave copy,
// cos and sin scaled and cast (6), rotate-half (2), multiply-add (3) and the
// pass-through concatenation (1), for Q and K; then the query and key
// concatenations and value's contiguous copy (3). The backward runs one
// gradient kernel per op. With apply_rope_fusion (Bridge's performance
// recipes) Transformer Engine's fused_apply_mla_rope_for_q and _for_kv
// write the query, key and value in one kernel each (2), each way
// (multi_latent_attention.py qkv_up_proj_and_rope_apply).
double MlaRopeLaunches(const ResolvedConfig& c);

// Launches Transformer Engine's context-parallel attention adds to one
// attention call under `c`'s cp_comm_type, forward and backward (0 without CP).
struct CpLaunches {
  double forward = 0, backward = 0;
};
CpLaunches CpAttentionLaunches(const ResolvedConfig& c);

// Sum of Issued() over `regions`.
double IssuedLaunches(const std::vector<RegionLaunches>& regions);

// "attention 33 launches (captured: 15 replay operations), moe_router 24
// (eager), ...": one layer's regions for the answer.
std::string DescribeLaunches(const std::vector<RegionLaunches>& regions);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_HOST_LAUNCHES_H_
