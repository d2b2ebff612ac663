// Published Megatron Bridge runs (tests/data/benchmarks_calibration.csv) as
// planner inputs, joined with the tuned recipe settings
// (tuned_configs_calibration.csv) for what the run table does not list
// (recompute, offloading, optimizer dtypes).
#ifndef PARPLAN_BENCH_CALIBRATION_ROWS_H_
#define PARPLAN_BENCH_CALIBRATION_ROWS_H_

#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/pipeline/stage_plan.h"
#include "core/system/system_spec.h"

namespace parplan {

struct CalibrationRow {
  std::string label;  // model/system/gpus/precision/container
  std::string model_id;
  bool moe = false;
  ModelSpec model;
  // The system as parplan places the run when asked as NVIDIA's tables
  // list it (no GPUs per NVLink domain given: ResolvePlacement's default),
  // and as the published run placed it (GB200/GB300 NVL72 jobs fill racks
  // evenly, 64 of 72 GPUs on 128..1,024-GPU runs).
  SystemSpec system;
  SystemSpec system_as_run;
  ResolvedConfig config;
  StagePlan plan;
  int64_t gpus = 0;
  double published_tokens_per_s_per_gpu = 0;
  std::string container;  // NeMo container release, e.g. 26.06.01
  // The newest container's row of its model, system, GPU count and
  // precision: today's software stack, which the planner predicts.
  bool newest = false;
};

// Primary pretraining rows with a complete model, a catalog system and a
// valid config. `skipped` receives one line per row left out and why.
std::vector<CalibrationRow> LoadCalibrationRows(const std::string& data_dir, std::vector<std::string>* skipped);

}  // namespace parplan

#endif  // PARPLAN_BENCH_CALIBRATION_ROWS_H_
