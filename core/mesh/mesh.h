// Mesh arithmetic: minimum GPUs, valid world sizes, DP/EDP, nodes and
// microbatches.
//
// Megatron-Core folds the dense mesh (TP x CP) and the expert mesh (EP x ETP)
// onto the SAME GPUs of a pipeline stage ("MoE parallel folding";
// megatron/core/parallel_state.py builds a decoder RankGenerator over
// tp*cp*dp*pp and an expert RankGenerator over etp*ep*edp*pp on one world).
// A world size W is valid iff W % (TP*CP*PP) == 0 and W % (EP*ETP*PP) == 0,
// so the minimum is PP * lcm(TP*CP, EP*ETP) -- not the product of all five.
#ifndef PARPLAN_CORE_MESH_MESH_H_
#define PARPLAN_CORE_MESH_MESH_H_

#include <cstdint>
#include <string>
#include <vector>

namespace parplan {

struct MeshDims {
  int64_t tp = 1, pp = 1, cp = 1, ep = 1, etp = 1;
};

// True when the expert mesh (EP x ETP) is a folding of its own: EP > 1, or
// ETP other than TP. With EP = 1 and ETP = TP (a dense model, whose ETP
// defaults to TP: megatron/core/model_parallel_config.py:506-507) the expert
// layers, if any, are split exactly like the dense ones: EP, ETP and EDP add
// nothing to an answer and are not part of the product of its dimensions.
bool ExpertMeshInPlay(const MeshDims& dims);

struct MinGpusResult {
  int64_t min_gpus = 0;       // pp * lcm(tp*cp, ep*etp)
  int64_t naive_product = 0;  // tp*pp*cp*ep*etp; tp*pp*cp without an expert mesh in play
  int64_t dense_mesh = 0;     // tp*cp
  int64_t expert_mesh = 0;    // ep*etp; 0 when no expert mesh is in play (ExpertMeshInPlay)
  int64_t step = 0;           // valid world sizes are multiples of this (= min_gpus)
  std::vector<std::string> reasons;
};

// Precondition: every dimension in 1..4096.
MinGpusResult ComputeMinGpus(const MeshDims& dims);

struct WorldSizing {
  int64_t gpus = 0;
  bool valid = false;
  int64_t dp = 0;             // gpus / (tp*pp*cp), 0 when not divisible
  int64_t edp = 0;            // gpus / (pp*ep*etp), 0 when not divisible
  int64_t gpus_per_node = 0;  // 0 = unknown
  int64_t nodes = 0;          // ceil(gpus / gpus_per_node); 0 when unknown
  bool partial_node = false;
  int64_t microbatches = 0;  // gbs / (mbs*dp); 0 when gbs not given or not divisible
  std::vector<std::string> problems;
};

// Sizes a world of `gpus`; gbs = 0 skips batch checks; gpus_per_node = 0
// skips node counts.
WorldSizing SizeWorld(const MeshDims& dims, int64_t gpus, int64_t gpus_per_node, int64_t gbs, int64_t mbs);

// The first `count` valid world sizes that are >= `at_least`, also satisfying
// the batch (GBS % (MBS*DP) == 0) when gbs > 0. Scans at most 100,000
// multiples of the step, so it may return fewer.
std::vector<int64_t> NextValidWorldSizes(const MeshDims& dims, int64_t at_least, int count, int64_t gbs, int64_t mbs);

}  // namespace parplan

#endif  // PARPLAN_CORE_MESH_MESH_H_
