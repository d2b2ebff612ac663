// Step time of a training config: compute per pipeline stage from FLOPs and a
// shape-dependent achievable rate, exposed TP/CP/EP/DP/PP communication from
// bytes, group size and link (NVLink inside the domain, scale-out outside),
// the pipeline bubble, and the optimizer step. The few free parameters
// (PerfParams) are calibrated per GPU generation and precision on published
// runs (bench/perf_accuracy_bench --fit), never per model.
#ifndef PARPLAN_CORE_PERF_PERF_MODEL_H_
#define PARPLAN_CORE_PERF_PERF_MODEL_H_

#include <array>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/perf/flops.h"
#include "core/pipeline/stage_plan.h"
#include "core/system/system_spec.h"

namespace parplan {

// The parameters kernels cannot tell, fitted inside physical ranges: MoE
// synchronisation, link efficiency and what overlap leaves exposed per step
// on published runs (bench/perf_accuracy_bench --fit); the host's launch
// time and the recompute's host costs on matched recompute A/B pairs
// (bench/recompute_accuracy_bench --fit). Kernel rates are not here: they are measured
// (core/perf/kernel_rates.h). Ranges and sources: core/perf/README.md.
struct PerfParams {
  // The host side. Megatron issues every kernel from Python: a module's
  // forward + backward costs the host this long per microbatch unless CUDA
  // graphs replay it; the GPU waits when its own work is shorter (a layer
  // takes max(GPU, host)). MoE layers add their router and dispatcher, and
  // wait for the host to read the tokens per expert (a device-to-host sync
  // that drains the launch queue) unless the whole iteration is graphed.
  double host_launch_us = 18;  // host time per kernel launch of eager Megatron (Python, autograd, launch)
  double moe_sync_us = 100;    // GPU idle per MoE layer, fwd + bwd, after the token-count sync
  // After that sync the host must issue the grouped expert GEMMs expert by
  // expert (Transformer Engine GroupedLinear: a quantize and a GEMM launch
  // per expert and GEMM); the GPU waits for each launch.
  double expert_launch_us = 5;  // per expert and kernel
  // Host time of one selective-recompute checkpoint per microbatch, besides
  // the launches it replays (core/perf/recompute_host.h): the RNG states
  // saved in the forward and restored around the replay, the recompute hook
  // and contexts, the nested autograd call; and of one Transformer Engine
  // module call the recompute repeats, by implementation: a norm (TE's
  // RMSNorm / LayerNorm modules run through its operation fuser,
  // transformer_engine/pytorch/module/rmsnorm.py) and the fused attention
  // (DotProductAttention's backend selection and wrapper). Fitted on the
  // measured A/B pairs of tests/data/recompute_ab_runs.csv
  // (bench/recompute_accuracy_bench --fit, leave-one-out in its report),
  // not on the throughput table.
  double recompute_checkpoint_us = 310;
  double recompute_te_norm_us = 440;
  double recompute_te_attention_us = 440;
  double link_efficiency = 0.8;        // achieved bus bandwidth / line rate (nccl-tests)
  double nvlink_step_latency_us = 2;   // per ring step inside an NVLink domain
  double network_step_latency_us = 8;  // per ring step across hosts
  // Exposed fractions: what overlap cannot hide, with and without the
  // recipe's overlap switch, bounded by the compute running alongside.
  double tp_exposed = 0.8;           // TP all-gather/reduce-scatter, tp_comm_overlap off
  double tp_exposed_overlap = 0.25;  // tp_comm_overlap on (userbuffers, NVLink only)
  double ep_exposed = 0.8;           // EP all-to-all, overlap_moe_expert_parallel_comm off
  double ep_exposed_overlap = 0.3;   // on
  double dp_exposed = 0.1;           // gradient reduce / parameter gather, overlap_grad_reduce on
  double pp_exposed = 0.5;
  // Share of the overlapping compute that can hide communication: a
  // collective is exposed by max(fraction * time, time - window * compute).
  double overlap_window = 1.0;
  // A cluster calibration's factors (core/calibrate/calibration.h): the
  // compute terms (compute, bubble, optimizer) and the exposed
  // communication of the step are multiplied by them. 1 = uncalibrated.
  double compute_scale = 1.0;
  double network_scale = 1.0;
};

// The calibrated parameters (core/perf/perf_params.cc).
const PerfParams& CalibratedPerfParams();

struct PerfBreakdown {
  double compute_s = 0;      // all microbatches of the slowest stage: the sum of the next seven
  double gemm_s = 0;         // dense GEMMs: attention projections, MLP, shared experts, Mamba projections
  double attention_s = 0;    // fused attention and the Mamba scan
  double moe_s = 0;          // routing, token permutation, grouped expert GEMMs, expert activation
  double elementwise_s = 0;  // norms, activations, residuals, rotary embedding
  double recompute_s = 0;    // forward passes repeated by activation recompute
  double logits_s = 0;       // output layer (and MTP heads) on the loss stage
  double overhead_s = 0;     // fixed per-layer costs: kernel launches, host synchronisation
  double tp_comm_s = 0;      // exposed
  double cp_comm_s = 0;
  double ep_comm_s = 0;
  double dp_comm_s = 0;
  double pp_comm_s = 0;
  double fsdp_comm_s = 0;  // Megatron FSDP per-layer parameter all-gathers and gradient reduce-scatters, exposed
  double bubble_s = 0;
  double optimizer_s = 0;
};

// One named term of a step, as answers name it.
struct StepPart {
  const char* name;
  double seconds;
  bool compute;  // one of compute_s's kinds (else bubble, exposed communication or the optimizer)
};
inline constexpr int kStepParts = 15;

// The terms of `b` in a fixed order: the seven compute kinds, then the
// pipeline bubble, exposed TP/CP/EP/DP/PP/FSDP communication and the
// optimizer step. They add up to the step time.
std::array<StepPart, kStepParts> StepParts(const PerfBreakdown& b);

// One layer kind's compute for one microbatch on one GPU (no
// communication): what a single-GPU layer timing measures.
struct LayerCompute {
  std::string layer;  // "transformer (dense MLP)", "transformer (MoE)", "Mamba", "MTP depth", ...
  int64_t count = 0;  // layers of this kind on the slowest stage
  double forward_s = 0;
  double backward_s = 0;
  double host_s = 0;  // host time to issue its kernels, forward + backward (0 when CUDA graphs replay it)
  double gemm_s = 0, attention_s = 0, moe_s = 0, elementwise_s = 0;  // forward + backward by kind
};

struct PerfEstimate {
  double step_time_s = 0;
  PerfBreakdown breakdown;
  double tokens_per_s_per_gpu = 0;
  double model_tflops_per_gpu = 0;
  double mfu = 0;  // model TFLOP/s / dense peak at the run's precision
  double peak_tflops = 0;
  FlopsPerToken flops;
  int64_t slowest_stage = 0;
  int64_t microbatches = 0;
  double gemm_efficiency = 0;        // achieved fraction of peak over all dense GEMMs of the slowest stage
  std::vector<LayerCompute> layers;  // per layer kind on the slowest stage
  std::vector<std::string> assumptions;
};

// Preconditions as EstimateMemory: complete model, valid plan and world.
// `config.gbs` > 0 (the caller defaults it).
PerfEstimate EstimatePerformance(const ModelSpec& model, const ResolvedConfig& config, const StagePlan& plan,
                                 int64_t world, const SystemSpec& system, const PerfParams& params);

// Dense peak TFLOP/s of `system` at `precision` (FP4 falls back to FP8, FP8 to bf16 when absent).
double PeakTflops(const SystemSpec& system, Precision precision);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_PERF_MODEL_H_
