#include "core/perf/perf_model.h"

#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/perf/perf_steps.h"

namespace parplan {

std::array<StepPart, kStepParts> StepParts(const PerfBreakdown& b) {
  return {{{"GEMMs", b.gemm_s, true},
           {"attention", b.attention_s, true},
           {"MoE routing and expert GEMMs", b.moe_s, true},
           {"element-wise kernels", b.elementwise_s, true},
           {"recompute", b.recompute_s, true},
           {"output layer (logits)", b.logits_s, true},
           {"host launch and MoE sync overhead", b.overhead_s, true},
           {"pipeline bubble", b.bubble_s, false},
           {"exposed TP communication", b.tp_comm_s, false},
           {"exposed CP communication", b.cp_comm_s, false},
           {"exposed EP all-to-all", b.ep_comm_s, false},
           {"exposed DP communication", b.dp_comm_s, false},
           {"exposed PP communication", b.pp_comm_s, false},
           {"exposed FSDP gathers and reduce-scatters", b.fsdp_comm_s, false},
           {"optimizer step", b.optimizer_s, false}}};
}

double PeakTflops(const SystemSpec& s, Precision p) {
  if (IsFp4(p) && s.fp4_dense_tflops > 0) return s.fp4_dense_tflops;
  if ((IsFp4(p) || IsFp8(p)) && s.fp8_dense_tflops > 0) return s.fp8_dense_tflops;
  return s.bf16_dense_tflops;
}

namespace {

bool Scaled(const PerfParams& P) { return P.compute_scale != 1.0 || P.network_scale != 1.0; }

// A cluster calibration (core/calibrate/calibration.h): what runs on the
// GPU (the compute kinds, the bubble -- idle time the compute sets -- and the
// optimizer step) times compute_scale, the exposed communication times
// network_scale. Only called when a factor differs from 1, so uncalibrated
// answers keep their exact bits.
void ScaleStep(const PerfParams& P, PerfBreakdown* b, std::vector<LayerCompute>* layers) {
  for (double* t : {&b->gemm_s, &b->attention_s, &b->moe_s, &b->elementwise_s, &b->recompute_s, &b->logits_s,
                    &b->overhead_s, &b->compute_s, &b->bubble_s, &b->optimizer_s}) {
    *t *= P.compute_scale;
  }
  for (double* t : {&b->tp_comm_s, &b->cp_comm_s, &b->ep_comm_s, &b->dp_comm_s, &b->pp_comm_s, &b->fsdp_comm_s}) {
    *t *= P.network_scale;
  }
  for (LayerCompute& l : *layers) {
    for (double* t : {&l.forward_s, &l.backward_s, &l.host_s, &l.gemm_s, &l.attention_s, &l.moe_s, &l.elementwise_s}) {
      *t *= P.compute_scale;
    }
  }
}

}  // namespace

PerfEstimate EstimatePerformance(const ModelSpec& m, const ResolvedConfig& c, const StagePlan& plan, int64_t world,
                                 const SystemSpec& sys, const PerfParams& P) {
  const StepInputs in = PrepareStep(m, c, plan, world, sys, P);
  LayerShareCache cache;
  PerfEstimate e;
  e.microbatches = in.microbatches;
  e.peak_tflops = PeakTflops(sys, c.precision);
  e.flops = ModelFlopsPerToken(m, c.seq_length, c.tp, c.mtp_num_layers);

  // The slowest stage sets the pace: its microbatches, then the pipeline
  // terms, data-parallel communication and the optimizer step.
  const SlowestStage slowest = FindSlowestStage(in, &cache);
  e.slowest_stage = slowest.stage;
  const StageTime& st = slowest.time;
  const double mb = static_cast<double>(in.microbatches);
  PerfBreakdown& b = e.breakdown;
  b.gemm_s = st.gemm * mb;
  b.attention_s = st.attention * mb;
  b.moe_s = st.moe * mb;
  b.elementwise_s = st.elementwise * mb;
  b.recompute_s = st.recompute * mb;
  b.logits_s = st.logits * mb;
  b.overhead_s = st.overhead * mb;
  b.compute_s = st.Compute() * mb;
  b.tp_comm_s = st.tp_s * mb;
  b.cp_comm_s = st.cp_s * mb;
  b.ep_comm_s = st.ep_s * mb;
  b.fsdp_comm_s = st.fsdp_s * mb;
  const PipelineTerms pipe = PipelineSeconds(in, slowest);
  b.bubble_s = pipe.bubble_s;
  b.pp_comm_s = pipe.p2p_s;
  b.dp_comm_s = DataParallelSeconds(in, st.backward * mb);
  b.optimizer_s = OptimizerSeconds(in);
  e.layers = LayerComputes(in, e.slowest_stage, &cache);
  if (Scaled(P)) ScaleStep(P, &b, &e.layers);
  e.step_time_s = b.compute_s + b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.dp_comm_s + b.pp_comm_s + b.fsdp_comm_s +
                  b.bubble_s + b.optimizer_s;

  const double tokens_per_step = static_cast<double>(c.gbs) * c.seq_length;
  e.tokens_per_s_per_gpu = tokens_per_step / e.step_time_s / world;
  e.model_tflops_per_gpu = e.tokens_per_s_per_gpu * e.flops.total / 1e12;
  e.mfu = e.model_tflops_per_gpu / e.peak_tflops;
  // Achieved rate of the dense GEMMs on the slowest stage: its layers'
  // average dense-GEMM FLOPs over their time.
  int64_t layers = 0;
  for (int64_t v = 0; v < plan.vpp; ++v) layers += plan.decoder_layers[e.slowest_stage][v];
  const double gemm_flops = e.flops.dense_gemm / m.num_layers * layers * in.tokens / c.tp;
  const double dense_gemm_s = Scaled(P) ? st.dense_gemm_s * P.compute_scale : st.dense_gemm_s;
  e.gemm_efficiency = dense_gemm_s > 0 ? std::min(1.0, gemm_flops / (dense_gemm_s * in.device.peak_flops)) : 0;
  e.assumptions = PerfAssumptions(in, e);
  if (Scaled(P)) {
    e.assumptions.push_back(absl::StrFormat(
        "Calibrated for this cluster (core/calibrate): compute, pipeline bubble and optimizer step x%.3f, exposed "
        "communication x%.3f, as the cluster's own runs measured them.",
        P.compute_scale, P.network_scale));
  }
  const bool sinks = !m.softmax_type.empty() && m.softmax_type != "vanilla";
  if (sinks && !c.unfused_attention) {
    // Transformer Engine runs sinks only in cuDNN fused attention from cuDNN
    // 9.13.1 (dot_product_attention/utils.py:1027-1060, backends.py's cuDNN
    // check); an older container falls back to its unfused attention without
    // CP and has no backend under CP.
    std::string fallback = "under CP there is no fallback: Transformer Engine stops at start-up";
    if (c.cp == 1) {
      ResolvedConfig unfused = c;
      unfused.unfused_attention = true;
      const PerfEstimate slow = EstimatePerformance(m, unfused, plan, world, sys, P);
      fallback = absl::StrFormat(
          "with an older container Transformer Engine falls back to unfused attention (the s x s scores in HBM): "
          "step %.2f s instead of %.2f s (%+.0f%%)",
          slow.step_time_s, e.step_time_s, 100 * (slow.step_time_s / e.step_time_s - 1));
    }
    e.assumptions.push_back(absl::StrCat(
        "Attention sinks (softmax_type ", m.softmax_type,
        ") run in cuDNN fused attention, which supports them from cuDNN 9.13.1 on Ampere, Hopper and Blackwell "
        "(flash attention never does); ",
        fallback, "."));
  }
  return e;
}

}  // namespace parplan
