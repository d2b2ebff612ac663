// The rule-of-thumb starting point of reference §3 (the upstream skill's
// tables): dense models by total parameters, MoE models by the published
// table or by active parameters for TP and experts for EP, CP by sequence
// length, then shrunk until the mesh divides the world. A heuristic to
// compare the search against, not an optimum.
#ifndef PARPLAN_CORE_SEARCH_STARTING_POINT_H_
#define PARPLAN_CORE_SEARCH_STARTING_POINT_H_

#include <cstdint>
#include <string>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/system/system_spec.h"

namespace parplan {

struct StartingPoint {
  ResolvedConfig config;
  std::string rule;  // which row of the tables, in words
};

// Precondition: model complete, world >= 1, base.seq_length > 0.
StartingPoint RuleOfThumbConfig(const ModelSpec& model, const ResolvedConfig& base, int64_t world,
                                const SystemSpec& system);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_STARTING_POINT_H_
