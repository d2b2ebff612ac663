// What one MoE layer's token dispatch and combine cost on one GPU for one
// microbatch, by Megatron-Core dispatcher (moe_token_dispatcher_type) and
// flex backend, from what each moves and where it runs
// (megatron/core/transformer/moe/token_dispatcher.py, fused_a2a.py):
//  - alltoall: NCCL all-to-all of every routed (token, expert) copy over the
//    EP group, local permutation before and after, and a chunk sort when a
//    GPU holds more than one expert;
//  - allgather: every token of the expert-TP x EP group all-gathered (with
//    its routing map and probabilities), permuted locally, reduce-scattered
//    back;
//  - flex + deepep: one copy of a token per destination block (DeepEP's
//    "node": at most 8 NVLink peers), over RDMA between blocks and NVLink
//    inside, on 20 SMs taken from compute while it runs;
//  - flex + hybridep: the same de-duplication per NVLink domain (NVL72 racks
//    included), permutation fused into the transfer, 24 SMs inside one
//    domain, 8 across domains;
//  - flex + ncclep: Transformer Engine's NCCL EP, charged as the all-to-all
//    (its traffic is not documented beyond that).
// Every dropless path blocks the host on the received token counts once per
// layer (more for unfused permutation, and for Bridge's eager HybridEP padding).
#ifndef PARPLAN_CORE_PERF_TOKEN_DISPATCH_H_
#define PARPLAN_CORE_PERF_TOKEN_DISPATCH_H_

#include <string>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/perf/kernel_time.h"
#include "core/system/links.h"
#include "core/system/system_spec.h"

namespace parplan {

struct PerfParams;

enum class DispatchKind { kAllToAll, kAllGather, kDeepEp, kHybridEp, kNcclEp };

// The dispatcher `c` runs (flex's backend decides among the last three).
DispatchKind DispatchKindOf(const ResolvedConfig& c);
// "alltoall", "allgather", "flex/deepep", "flex/hybridep", "flex/ncclep".
const char* DispatchName(DispatchKind kind);

// Expected number of distinct blocks a token's `topk` experts fall in, the
// `experts` spread evenly over `blocks` blocks and routing uniform:
// blocks * (1 - C(E - E/blocks, k) / C(E, k)). Between 1 and min(k, blocks).
double ExpectedDistinctBlocks(double experts, double topk, double blocks);

struct DispatchCost {
  DispatchKind kind = DispatchKind::kAllToAll;
  double one_way_s = 0;         // one dispatch of the forward pass; the combine and each backward one cost the same
  double network_bytes = 0;     // bytes one GPU sends off its NVLink domain (or DeepEP block) per dispatch
  double nvlink_bytes = 0;      // bytes it moves over NVLink per dispatch
  double sm_share = 0;          // share of the GPU's SMs the dispatch kernels hold while they run (0: NCCL)
  int host_syncs = 1;           // blocking device-to-host syncs per MoE layer's forward
  double copies_per_token = 0;  // copies of one token that leave its NVLink domain (DeepEP: its block)
};

// Blocking device-to-host syncs on the token counts per MoE layer's forward.
int DispatchHostSyncs(const ModelSpec& m, const ResolvedConfig& c);

// The dispatch of one MoE layer with `local_tokens` tokens per GPU (after
// sequence parallelism) whose EP group is spread as `ep` on `s`. Zero cost
// when EP x ETP is 1. Precondition: MoE model, resolved config.
DispatchCost DispatchCostOf(const ModelSpec& m, const ResolvedConfig& c, double local_tokens, const GroupSpread& ep,
                            const SystemSpec& s, const PerfParams& params, int sm_count);

// Local permutation, unpermutation and chunk sort of one MoE layer on one
// GPU, forward and backward: Transformer Engine's fused kernels stream the
// bytes (moe_permute_fusion); unfused, the scatter-add of the unpermutation
// runs at the measured eager rate (KernelRates::scatter_efficiency) and the
// routing map is sorted once per layer (KernelRates::route_sort_us).
// HybridEP fuses the permutation into its transfer.
PassSeconds PermuteSeconds(const ModelSpec& m, const ResolvedConfig& c, double local_tokens, const Device& d);

// One sentence for the answer: the dispatcher, what it sends where, SMs
// taken and host syncs.
std::string DescribeDispatch(const DispatchCost& cost, const ResolvedConfig& c, int sm_count);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_TOKEN_DISPATCH_H_
