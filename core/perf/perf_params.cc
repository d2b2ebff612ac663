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
    p.gemm_ceiling[1][0] = 0.7616;
    p.gemm_ceiling[1][1] = 0.8160;
    p.gemm_ceiling[1][2] = 0.6800;
    p.gemm_ceiling[2][0] = 0.6014;
    p.gemm_ceiling[2][1] = 0.5934;
    p.gemm_ceiling[2][2] = 0.3832;
    p.attention_ceiling[0] = 0.6500;
    p.attention_ceiling[1] = 0.4460;
    p.attention_ceiling[2] = 0.8000;
    p.kernel_overhead_us = 6.83;
    p.grouped_gemm_share = 1.0000;
    p.mamba_scan_efficiency = 0.2000;
    p.hbm_efficiency = 0.4624;
    p.expert_launch_us = 12.76;
    p.host_module_us = 300.00;
    p.host_moe_us = 600.00;
    p.moe_sync_us = 500.00;
    p.tp_exposed = 0.5109;
    p.tp_exposed_overlap = 0.2586;
    p.cp_exposed = 0.3000;
    p.ep_exposed = 0.3000;
    p.ep_exposed_overlap = 0.0638;
    p.dp_exposed = 0.0221;
    p.pp_exposed = 0.3058;
    return p;
  }();
  return params;
}

}  // namespace parplan
