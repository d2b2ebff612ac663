#include "core/memory/memory_model.h"

#include <utility>

#include "core/memory/memory_steps.h"

namespace parplan {

MemoryEstimate EstimateMemory(const ModelSpec& m, const ResolvedConfig& c, const StagePlan& plan, int64_t world,
                              const SystemSpec* system, const MemoryOptions& options) {
  const MemoryInputs in = PrepareMemory(m, c, plan, world, system);
  MemoryEstimate e;
  e.dp = in.dp;
  e.edp = in.edp;
  e.microbatches = in.microbatches;
  e.microbatches_assumed = in.microbatches_assumed;
  for (int64_t r = 0; r < plan.pp; ++r) {
    StageMemory st;
    st.pp_rank = r;
    st.decoder_layers = plan.decoder_layers[r];
    AddActivations(in, r, &st);
    AddRuntimeBuffers(in, r, &st);
    AddAttentionWorking(in, r, &st);
    AddModelState(in, CountStageParams(in, r), &st);
    AddOverhead(options, c, &st);
    e.stages.push_back(std::move(st));
  }
  FindPeak(system, &e);
  e.assumptions = MemoryAssumptions(in, options);
  for (auto& line : RuntimeBufferNotes(in, e)) e.assumptions.push_back(std::move(line));
  for (auto& line : AttentionAndOffloadNotes(in, e)) e.assumptions.push_back(std::move(line));
  return e;
}

}  // namespace parplan
