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
    p.gemm_ceiling[1][0] = 0.7200;
    p.gemm_ceiling[1][1] = 0.8160;
    p.gemm_ceiling[1][2] = 0.6800;
    p.gemm_ceiling[2][0] = 0.5818;
    p.gemm_ceiling[2][1] = 0.5817;
    p.gemm_ceiling[2][2] = 0.3720;
    p.attention_ceiling[0] = 0.6500;
    p.attention_ceiling[1] = 0.5184;
    p.attention_ceiling[2] = 0.8000;
    p.grouped_gemm_share = 1.0000;
    p.mamba_scan_efficiency = 0.2000;
    p.hbm_efficiency = 0.4208;
    p.expert_launch_us = 16.72;
    p.host_module_us = 300.00;
    p.host_moe_us = 600.00;
    p.moe_sync_us = 500.00;
    p.tp_exposed = 0.8158;
    p.tp_exposed_overlap = 0.2844;
    p.cp_exposed = 0.3000;
    p.ep_exposed = 0.3000;
    p.ep_exposed_overlap = 0.1672;
    p.dp_exposed = 0.0200;
    p.pp_exposed = 0.7797;
    return p;
  }();
  return params;
}

}  // namespace parplan
