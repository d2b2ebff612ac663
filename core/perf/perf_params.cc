// Calibrated performance parameters. Regenerate with
//   build/bench/perf_accuracy_bench --fit
// which fits them on tests/data/benchmarks_calibration.csv inside the
// physical ranges of core/perf/README.md and prints this initializer.
#include "core/perf/perf_model.h"

namespace parplan {

const PerfParams& CalibratedPerfParams() {
  static const PerfParams params = [] {
    PerfParams p;
    p.gemm_ceiling[0][0] = 0.8000;
    p.gemm_ceiling[0][1] = 0.8000;
    p.gemm_ceiling[0][2] = 0.8000;
    p.gemm_ceiling[1][0] = 0.6687;
    p.gemm_ceiling[1][1] = 0.8160;
    p.gemm_ceiling[1][2] = 0.6800;
    p.gemm_ceiling[2][0] = 0.5937;
    p.gemm_ceiling[2][1] = 0.6009;
    p.gemm_ceiling[2][2] = 0.3906;
    p.attention_ceiling[0] = 0.6500;
    p.attention_ceiling[1] = 0.5427;
    p.attention_ceiling[2] = 0.8000;
    p.grouped_gemm_share = 1.0000;
    p.mamba_scan_efficiency = 0.2000;
    p.hbm_efficiency = 0.4354;
    p.expert_launch_us = 17.90;
    p.host_module_us = 300.00;
    p.host_moe_us = 600.00;
    p.moe_sync_us = 476.70;
    p.tp_exposed = 0.6372;
    p.tp_exposed_overlap = 0.6000;
    p.cp_exposed = 0.3000;
    p.ep_exposed = 0.3000;
    p.ep_exposed_overlap = 0.1536;
    p.dp_exposed = 0.0398;
    p.pp_exposed = 0.2407;
    return p;
  }();
  return params;
}

}  // namespace parplan
