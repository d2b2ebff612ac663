// Calibrated performance parameters. Regenerate with
//   build/bench/perf_accuracy_bench --fit
// which fits them on tests/data/benchmarks_calibration.csv (per GPU
// generation and precision for the GEMM efficiency; shared otherwise) and
// prints this initializer.
#include "core/perf/perf_model.h"

namespace parplan {

const PerfParams& CalibratedPerfParams() {
  static const PerfParams params = [] {
    PerfParams p;
    p.gemm_efficiency[0][0] = 0.6200;
    p.gemm_efficiency[0][1] = 0.6916;
    p.gemm_efficiency[0][2] = 0.5000;
    p.gemm_efficiency[1][0] = 0.9500;
    p.gemm_efficiency[1][1] = 0.6332;
    p.gemm_efficiency[1][2] = 0.4081;
    p.gemm_half_gflop = 75.0547;
    p.attention_efficiency = 0.7500;
    p.expert_half_tokens = 7.25;
    p.elementwise_passes = 28.1809;
    p.tp_exposed = 0.4500;
    p.cp_exposed = 0.3000;
    p.ep_exposed = 0.1807;
    p.dp_exposed = 0.1000;
    p.pp_exposed = 0.3000;
    p.layer_latency_us = 100.00;
    p.moe_latency_us = 282.67;
    p.moe_permute_passes = 8.3531;
    return p;
  }();
  return params;
}

}  // namespace parplan
