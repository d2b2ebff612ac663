// The named steps EstimatePerformance composes, each readable and testable on
// its own: the inputs every step shares, one layer's share of a stage, one
// stage's microbatch, the slowest stage, the pipeline terms, data-parallel
// communication, the optimizer step, the per-layer compute report, and the
// assumptions the answer states.
#ifndef PARPLAN_CORE_PERF_PERF_STEPS_H_
#define PARPLAN_CORE_PERF_PERF_STEPS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/layer_kind.h"
#include "core/model/model_spec.h"
#include "core/perf/context_parallel.h"
#include "core/perf/group_links.h"
#include "core/perf/kernel_time.h"
#include "core/perf/layer_time.h"
#include "core/perf/perf_model.h"
#include "core/pipeline/stage_plan.h"
#include "core/system/system_spec.h"

namespace parplan {

// What every step reads: the request and what follows from it once.
struct StepInputs {
  const ModelSpec* model = nullptr;
  const ResolvedConfig* config = nullptr;
  const StagePlan* plan = nullptr;
  const SystemSpec* system = nullptr;
  const PerfParams* params = nullptr;
  int64_t world = 0;
  int64_t dp = 0, edp = 0;
  int64_t microbatches = 0;
  double tokens = 0;                               // tokens of one microbatch on one CP rank
  bool tp_overlap = false;                         // userbuffers TP overlap active (TP > 1, SP, TP group on NVLink)
  GroupLinks links;                                // where each group's members sit (rank layout over the used domains)
  CpShape cp;                                      // how attention splits over CP (cp_comm_type)
  CpLinks cp_links;                                // where its a2a, ring and gather groups sit
  Device device;                                   // GEMMs at the run's precision
  Device logits_device;                            // the output layer (bf16)
  std::array<bool, kLayerParts> selected{};        // parts selective recompute repeats
  std::vector<std::vector<int64_t>> first_layers;  // first decoder layer of each (stage, virtual stage)
};

// Preconditions as EstimatePerformance. The pointers must outlive the result.
StepInputs PrepareStep(const ModelSpec& model, const ResolvedConfig& config, const StagePlan& plan, int64_t world,
                       const SystemSpec& system, const PerfParams& params);

// Compute seconds of one microbatch on one stage, by kind, and the
// communication beside it (exposed, once the stage is timed).
struct StageTime {
  double gemm = 0, attention = 0, moe = 0, elementwise = 0, recompute = 0, logits = 0, overhead = 0;
  double backward = 0;  // of the above, the backward passes (what DP gradient reduction hides behind)
  double tp_s = 0, cp_s = 0, ep_s = 0, fsdp_s = 0, first_gather_s = 0;
  double dense_gemm_s = 0;
  double Compute() const { return gemm + attention + moe + elementwise + recompute + logits + overhead; }
  double Total() const { return Compute() + tp_s + cp_s + ep_s + fsdp_s; }
  // Adds another share's compute (by kind), backward and dense-GEMM time, and FSDP traffic.
  void Add(const StageTime& other);
};

// What one layer adds to its stage for one microbatch: its compute, and its
// communication as counts of one collective's time.
struct LayerShare {
  StageTime time;
  LayerTime layer;  // the layer's own kernels (for the per-layer report)
  double tp_count = 0, ep_count = 0, ep_one_s = 0, gather_s = 0;
  double cp_s = 0;         // exposed CP communication of the layer's attention (forward, backward, recomputed forward)
  double ep_sm_share = 0;  // SMs the dispatch kernels take from the compute they overlap (DeepEP, HybridEP)
};

// Layer `index` of kind `kind` (MTP depth when `mtp`), its forward repeated
// when `full_recompute`.
LayerShare ShareOfLayer(const StepInputs& in, LayerKind kind, int64_t index, bool mtp, bool full_recompute);

// Layers of one kind (and attention span, MTP, recompute choice) add the
// same: computed once per estimate.
class LayerShareCache {
 public:
  const LayerShare& Get(const StepInputs& in, LayerKind kind, int64_t index, bool mtp, bool full_recompute);

 private:
  std::array<std::optional<LayerShare>, 6 * 2 * 2 * 2> shares_;  // kind x local x MTP x recompute
};

// One microbatch of pipeline stage `stage`: its layers, the output layer and
// loss when it holds them, and its TP/CP/EP/FSDP communication, exposed by
// what the compute beside it cannot hide.
StageTime TimeStage(const StepInputs& in, int64_t stage, LayerShareCache* cache);

struct SlowestStage {
  int64_t stage = 0;
  StageTime time;
};
// The stage whose microbatch takes longest (the pipeline's pace).
SlowestStage FindSlowestStage(const StepInputs& in, LayerShareCache* cache);

// The pipeline bubble ((PP - 1) / VPP microbatches of the slowest stage) and
// the exposed p2p of the boundary activations, per step.
struct PipelineTerms {
  double bubble_s = 0;
  double p2p_s = 0;
};
PipelineTerms PipelineSeconds(const StepInputs& in, const SlowestStage& slowest);

// Gradient reduce-scatter + parameter all-gather once per step (dense over
// DP x CP, experts over expert-DP), exposed by what the step's backward
// passes cannot hide (all of it without overlap_grad_reduce; 0 under FSDP).
double DataParallelSeconds(const StepInputs& in, double backward_s);

// Parameters of this GPU's optimizer shard (its local parameters divided over
// DP x CP, experts over expert-DP, with the distributed optimizer or FSDP).
double OptimizerShardParams(const StepInputs& in);

// Fused Adam over the fp32 master weights, moments and gradients of this
// GPU's optimizer shard, then the bf16 weights written back; with optimizer
// CPU offload the offloaded share steps on the host instead
// (core/perf/optimizer_offload.h).
double OptimizerSeconds(const StepInputs& in);

// The compute of one microbatch of each layer kind on `stage` (no
// communication), as a single-GPU layer timing measures it.
std::vector<LayerCompute> LayerComputes(const StepInputs& in, int64_t stage, LayerShareCache* cache);

// The sentences the answer states about rates, overlap and links.
std::vector<std::string> PerfAssumptions(const StepInputs& in, const PerfEstimate& estimate);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_PERF_STEPS_H_
