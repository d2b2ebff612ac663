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
    p.gemm_efficiency[0][1] = 0.7192;
    p.gemm_efficiency[0][2] = 0.5000;
    p.gemm_efficiency[1][0] = 0.9500;
    p.gemm_efficiency[1][1] = 0.6584;
    p.gemm_efficiency[1][2] = 0.4286;
    p.gemm_half_gflop = 78.0348;
    p.attention_efficiency = 0.7500;
    p.expert_half_tokens = 7.54;
    p.elementwise_passes = 29.8888;
    p.tp_exposed = 0.4500;
    p.cp_exposed = 0.3000;
    p.ep_exposed = 0.2020;
    p.dp_exposed = 0.1000;
    p.pp_exposed = 0.3112;
    p.layer_latency_us = 100.00;
    p.moe_latency_us = 291.18;
    return p;
  }();
  return params;
}

}  // namespace parplan
