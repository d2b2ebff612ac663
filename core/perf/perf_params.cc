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
    p.gemm_efficiency[0][1] = 0.7099;
    p.gemm_efficiency[0][2] = 0.5000;
    p.gemm_efficiency[1][0] = 0.9337;
    p.gemm_efficiency[1][1] = 0.6328;
    p.gemm_efficiency[1][2] = 0.4119;
    p.gemm_half_gflop = 82.7478;
    p.attention_efficiency = 0.7500;
    p.expert_half_tokens = 7.25;
    p.elementwise_passes = 28.1621;
    p.tp_exposed = 0.4500;
    p.cp_exposed = 0.3000;
    p.ep_exposed = 0.2111;
    p.dp_exposed = 0.1000;
    p.pp_exposed = 0.3700;
    p.layer_latency_us = 100.00;
    p.moe_latency_us = 174.57;
    return p;
  }();
  return params;
}

}  // namespace parplan
