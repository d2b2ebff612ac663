#include "core/memory/memory_planner.h"

#include "absl/strings/str_cat.h"

namespace parplan {

MemoryAnswer AnswerMemory(const ModelSpec& model, const ResolvedConfig& config, const ResolvedPlacement& placement,
                          const MemoryOptions& options) {
  MemoryAnswer a;
  ValidationInput in;
  in.model = &model;
  in.config = config;
  in.placement = placement;
  a.validation = Validate(in);
  a.world = placement.gpus;
  if (a.world == 0) {
    a.world = a.validation.min_gpus.min_gpus;
    a.world_assumed = true;
  }
  if (!a.validation.stages.has_value()) {
    a.unavailable_reason = "the pipeline split is invalid (see violations)";
    return a;
  }
  if (a.world > kMaxGpus || !SizeWorld(MeshOf(config), a.world, 0, 0, 0).valid) {
    a.unavailable_reason = absl::StrCat(a.world, " GPUs is not a valid world size for this mesh (see violations)");
    return a;
  }
  ResolvedConfig effective = config;
  effective.vpp = a.validation.stages->vpp;
  a.estimate = EstimateMemory(model, effective, *a.validation.stages, a.world,
                              placement.system.has_value() ? &*placement.system : nullptr, options);
  return a;
}

}  // namespace parplan
