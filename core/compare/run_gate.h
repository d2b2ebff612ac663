// The gate of a comparison: whether a run is a valid measurement --
// optimizer initialised, enough steady records, no NaN or skipped
// iterations in the window, measured peak memory inside HBM with headroom,
// and (with a baseline config) no setting of benchmark or semantics effect
// changed.
#ifndef PARPLAN_CORE_COMPARE_RUN_GATE_H_
#define PARPLAN_CORE_COMPARE_RUN_GATE_H_

#include <string>
#include <vector>

#include "core/compare/compare_run.h"
#include "core/compare/measured_run.h"

namespace parplan {

struct GateInputs {
  const ParsedLog* log = nullptr;         // required
  const MeasuredRun* measured = nullptr;  // required
  int64_t min_steady_iterations = 5;
  double memory_headroom = 0.05;
  double capacity_bytes = 0;         // HBM per GPU; 0 = unknown (an OOM message's capacity is used then)
  const ModelSpec* model = nullptr;  // nullable
  const ResolvedConfig* config = nullptr;
  const ResolvedConfig* baseline_config = nullptr;
  const ResolvedPlacement* placement = nullptr;  // required with both configs
};

// The five checks, in the order of GateCheck's names.
std::vector<GateCheck> CheckRunGate(const GateInputs& in);

// Settings of benchmark or semantics effect whose values differ between
// `baseline` and `config`: "gbs 512 -> 1024 (semantics)".
std::vector<std::string> ChangedBenchmarkOrSemantics(const ResolvedConfig& baseline, const ResolvedConfig& config,
                                                     const ResolvedPlacement& placement, const ModelSpec* model);

}  // namespace parplan

#endif  // PARPLAN_CORE_COMPARE_RUN_GATE_H_
