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
    p.gemm_efficiency[0][1] = 0.6781;
    p.gemm_efficiency[0][2] = 0.5000;
    p.gemm_efficiency[1][0] = 0.9500;
    p.gemm_efficiency[1][1] = 0.6270;
    p.gemm_efficiency[1][2] = 0.4041;
    p.gemm_half_gflop = 74.2620;
    p.attention_efficiency = 0.7500;
    p.expert_half_tokens = 10.87;
    p.elementwise_passes = 27.3757;
    p.tp_exposed = 0.4500;
    p.cp_exposed = 0.3000;
    p.ep_exposed = 0.1230;
    p.dp_exposed = 0.1000;
    p.pp_exposed = 0.3380;
    p.layer_latency_us = 100.00;
    p.moe_latency_us = 269.08;
    p.moe_permute_passes = 15.5614;
    return p;
  }();
  return params;
}

}  // namespace parplan
