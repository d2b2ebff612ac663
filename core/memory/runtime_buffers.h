// Memory that training holds outside weights, optimizer state and
// activations: the MoE token dispatcher's communication buffers (DeepEP,
// HybridEP) and what CUDA graphs keep in their private memory pool. The
// derivation is in core/memory/README.md section 6.
#ifndef PARPLAN_CORE_MEMORY_RUNTIME_BUFFERS_H_
#define PARPLAN_CORE_MEMORY_RUNTIME_BUFFERS_H_

#include <cstdint>
#include <string>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/system/system_spec.h"

namespace parplan {

// DeepEP's normal-mode buffer sizes for one Buffer of `ranks` ranks moving
// rows of `hidden_bytes` bytes, as Megatron-Core asks for them
// (megatron/core/transformer/moe/fused_a2a.py:36 get_buffer: the larger
// get_nvl_buffer_size_hint / get_rdma_buffer_size_hint of DeepEP's dispatch
// and combine configs for that rank count, 20 SMs). `supported` is false when
// DeepEP has no config for `ranks` (it asserts then).
struct DeepEpSizes {
  bool supported = false;
  double nvl_bytes = 0;   // NVLink (IPC) buffer
  double rdma_bytes = 0;  // RDMA buffer in the NVSHMEM symmetric heap (ranks > 8)
};
DeepEpSizes DeepEpBufferSizes(int64_t hidden_bytes, int64_t ranks);

// The dispatcher's persistent buffers on one GPU of a stage holding MoE
// layers. Zero for alltoall / allgather (no persistent buffers) and for
// dense models.
struct DispatcherBuffers {
  double intra_bytes = 0;  // DeepEP NVLink buffer; HybridEP intra-domain buffers
  double inter_bytes = 0;  // DeepEP RDMA buffer; HybridEP inter-domain (RDMA) buffers
  double other_bytes = 0;  // DeepEP's 32 MiB workspace; HybridEP's routing-map all-gather
  std::string reason;      // one line with the numbers ("" when nothing to say)
  double total() const { return intra_bytes + inter_bytes + other_bytes; }
};

// `system` (may be null) gives the NVLink domain HybridEP splits its group
// by; without one the whole group is taken as one domain. `reason` is
// written only when `explain` (the answer's line; the search's estimates
// skip formatting it).
DispatcherBuffers DispatcherBufferBytes(const ModelSpec& model, const ResolvedConfig& config, const SystemSpec* system,
                                        bool explain = false);

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_RUNTIME_BUFFERS_H_
