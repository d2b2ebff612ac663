// One decoder layer's time on one GPU for one microbatch, from the shapes of
// the kernels it runs (core/perf/kernel_time.h): every GEMM with its
// (M, N, K) under the run's TP/ETP/EP/CP split, fused attention by head
// dimension and keys per query, the Mamba scan, routing and token
// permutation, norms and other element-wise kernels by the bytes they move.
// Split into named parts so recompute can repeat exactly the forward of the
// modules Megatron recomputes, and the answer can say what dominates. Also
// the bytes the layer's TP collectives, EP all-to-alls and CP ring move.
#ifndef PARPLAN_CORE_PERF_LAYER_TIME_H_
#define PARPLAN_CORE_PERF_LAYER_TIME_H_

#include <array>
#include <cstdint>
#include <string>

#include "core/config/parallel_config.h"
#include "core/model/layer_kind.h"
#include "core/model/model_spec.h"
#include "core/perf/context_parallel.h"
#include "core/perf/kernel_time.h"

namespace parplan {

struct PerfParams;

enum class LayerPart {
  kAttentionProjections,  // QKV (or MLA down / Q) and output projections
  kMlaUpProjections,      // MLA q_up and kv_up (Megatron's mla_up_proj recompute module)
  kCoreAttention,         // fused attention (core_attn)
  kMlp,                   // dense MLP fc1 + fc2
  kMlpActivation,         // its SwiGLU / GeLU
  kSharedExperts,         // shared-expert MLP and its activation
  kMoeRouting,            // router GEMM and scores, token permutation and unpermutation
  kExpertGemms,           // grouped expert fc1 + fc2 (and latent projections)
  kMoeActivation,         // the experts' activation
  kNorms,                 // RMSNorm / LayerNorm
  kOtherElementwise,      // residual adds, rotary embedding, conv1d
  kMambaProjections,      // Mamba in_proj and out_proj
  kMambaScan,             // the chunked SSD scan
  kCount,
};
inline constexpr int kLayerParts = static_cast<int>(LayerPart::kCount);

// How the step-time breakdown groups the parts.
enum class ComputeKind { kGemm, kAttention, kMoe, kElementwise };
ComputeKind KindOfPart(LayerPart part);

// True when Megatron's selective recompute module `module` repeats `part`'s
// forward (transformer_config.py recompute_modules).
bool RecomputedBy(LayerPart part, const std::string& module);

struct LayerTime {
  std::array<double, kLayerParts> forward{};  // seconds
  std::array<double, kLayerParts> backward{};
  double host_s = 0;  // host time to issue the layer's kernels, forward + backward (not graphed)
  double sync_s = 0;  // GPU idle after the MoE token-count synchronisation, forward + backward
  // Selective recompute (the config's modules; full recompute repeats the
  // whole forward instead): the forward of the norms "layernorm" repeats
  // (separate TENorms only, core/model/norm_modules.h), the host time of the
  // recomputed modules' launches and the time of their checkpoints and
  // Transformer Engine module calls (0 where graphed, core/perf/recompute_host.h), and the GPU idle after the
  // token-count sync that whole-"moe" recompute repeats.
  double norm_recompute_forward_s = 0;
  double recompute_host_s = 0;
  double recompute_moe_host_s = 0;  // of recompute_host_s, a whole-MoE replay's launches
  double recompute_checkpoint_s = 0;
  bool moe = false;
  // Communication of the forward pass (the backward repeats it; CP twice).
  int tp_collectives = 0;      // all-gathers + reduce-scatters (SP) or all-reduces (no SP)
  double tp_buffer_bytes = 0;  // the whole [tokens x hidden] activation one collective assembles
  int ep_all_to_alls = 0;      // dispatch + combine
  double ep_bytes = 0;         // bytes one GPU sends in one all-to-all (all destinations)
  CpAttentionWork cp;          // the fused attention's CP work (compute already in kCoreAttention)
  double Forward() const;
  double Backward() const;
};

// Time of layer `index` of kind `kind` (MTP depth when `mtp`) for one
// microbatch of `config` on `device`; `tp_overlap` when TP communication
// overlap (userbuffers) runs beside the TP GEMMs. Precondition: complete
// model, resolved config.
LayerTime TimeLayer(const ModelSpec& model, const ResolvedConfig& config, LayerKind kind, int64_t index, bool mtp,
                    bool tp_overlap, const Device& device, const PerfParams& params);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_LAYER_TIME_H_
