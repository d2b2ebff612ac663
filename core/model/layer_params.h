// Parameters of one decoder layer (and of one MTP depth), split into the
// TP-sharded dense part and the EP*ETP-sharded routed-expert part, before
// any sharding. Shared by the memory model (what a GPU stores) and the
// performance model (what Megatron FSDP gathers and reduces per layer).
#ifndef PARPLAN_CORE_MODEL_LAYER_PARAMS_H_
#define PARPLAN_CORE_MODEL_LAYER_PARAMS_H_

#include "core/model/layer_kind.h"
#include "core/model/model_spec.h"

namespace parplan {

struct LayerParams {
  double dense = 0;   // attention, dense MLP, shared experts, router, norms, Mamba mixer
  double expert = 0;  // all routed experts of the layer
};

// One decoder layer of `kind` (model complete).
LayerParams ParamsOfLayer(const ModelSpec& m, LayerKind kind);

// One MTP depth: a layer of the last layer's type plus the eh projection and
// its two norms.
LayerParams MtpParams(const ModelSpec& m);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_LAYER_PARAMS_H_
