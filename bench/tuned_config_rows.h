// NVIDIA's tuned configs (tests/data/tuned_configs_calibration.csv) as
// planner requests, for the benchmarks.
#ifndef PARPLAN_BENCH_TUNED_CONFIG_ROWS_H_
#define PARPLAN_BENCH_TUNED_CONFIG_ROWS_H_

#include <map>
#include <string>
#include <vector>

#include "parplan/v1/planner.pb.h"

namespace parplan {

struct TunedRow {
  std::string recipe;
  std::string model;
  std::string system;  // catalog id
  std::string notes;   // offloading, CUDA graphs: what the model does not see
  v1::ParallelConfig config;
  v1::Placement placement;
};

// Rows whose system is in the catalog.
std::vector<TunedRow> LoadTunedRows(const std::string& csv_path);

// Whether NVIDIA's performance recipe for `model_key` fuses RoPE:
// _benchmark_common sets apply_rope_fusion = True (Megatron Bridge
// perf_recipes/_common.py:69); GPT-OSS's and Qwen3-VL's recipes clear it
// again (gpt_oss/common.py:83, qwen_vl/common.py:103).
bool PerfRecipeFusesRope(const std::string& model_key);

// The data files' system names ("DGX-H100") -> catalog system ids ("h100-sxm").
const std::map<std::string, std::string>& CatalogSystemIds();

}  // namespace parplan

#endif  // PARPLAN_BENCH_TUNED_CONFIG_ROWS_H_
