// One self-attention call under context parallelism, as Transformer Engine
// runs each of Megatron-Core's cp_comm_type values
// (transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py):
//  - p2p (AttnFuncWithCPAndKVP2P): every rank holds two load-balanced chunks
//    of the sequence; K and V go around the ring of CP ranks in CP - 1
//    steps, each transfer hidden behind the attention block of the step
//    before; the backward sends K, V and the dK, dV accumulators.
//  - all_gather (AttnFuncWithCPAndKVAllGather): K and V gathered from every
//    CP rank before attention (not overlapped), the two local query chunks
//    then attend causally to their prefixes; the backward gathers again and
//    reduce-scatters dK, dV.
//  - a2a (AttnFuncWithCPAndQKVOA2A, Ulysses): Q, K, V exchanged by
//    all-to-all so each rank holds the whole sequence for heads / CP, the
//    attention runs unsplit (windows and chunks as the model defines them),
//    and the output goes back the same way; the backward mirrors it.
//  - a2a+p2p: a2a inside the first hierarchical group, the p2p ring across
//    the rest (hierarchical_context_parallel_sizes).
#ifndef PARPLAN_CORE_PERF_CONTEXT_PARALLEL_H_
#define PARPLAN_CORE_PERF_CONTEXT_PARALLEL_H_

#include <cstdint>
#include <string>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/perf/kernel_time.h"
#include "core/system/links.h"
#include "core/system/system_spec.h"

namespace parplan {

struct PerfParams;

// How the CP ranks of one group split the work: `a2a` ranks share the heads
// (the a2a group), `ring` ranks pass K/V around (the p2p ring), `gather`
// ranks all-gather K/V. With CP = 1 all are 1 and `type` is empty.
struct CpShape {
  std::string type;
  int64_t a2a = 1;
  int64_t ring = 1;
  int64_t gather = 1;
};

// The shape of `c`'s CP (a2a+p2p: the first hierarchical size is the a2a
// group, the product of the rest the ring; without sizes, taken as a2a over
// all of CP, which the rules reject).
CpShape CpShapeOf(const ResolvedConfig& c);

// One attention call of one microbatch on one TP rank, before any CP split.
struct AttentionShape {
  double batch = 1;        // sequences of the microbatch
  double seq = 0;          // tokens of each whole sequence
  double heads = 0;        // query heads on this TP rank
  double qk_dim = 128;     // per head
  double v_dim = 128;      // per head
  double kv_elements = 0;  // K and V elements per token on this TP rank (GQA groups, or MLA's per-head K and V)
  double window = 0;       // keys a query sees in a sliding window (itself included); 0 = causal over the prefix
  double chunk = 0;        // chunked local attention: tokens per chunk; 0 = none
};

// The attention of decoder layer `index` (0-based) of `m` under `c`: one
// microbatch's sequences on one TP rank (heads / TP; GQA's K/V groups / TP,
// at least one; MLA's per-head K and V), the sliding window or chunk when
// the layer attends locally (core/model IsLocalAttentionLayer). Shared by the
// time (core/perf/layer_time.cc) and the memory (core/memory/memory_steps.cc)
// models. Precondition: the layer has attention.
AttentionShape AttentionShapeOf(const ModelSpec& m, const ResolvedConfig& c, int64_t index);

// What one call costs one rank: its kernels and what its CP communication
// moves. Bytes are bf16 activations one rank sends.
struct CpAttentionWork {
  PassSeconds compute;       // every attention kernel of the call
  PassSeconds ring_step;     // the kernels one ring transfer hides behind (p2p, a2a+p2p)
  double ring_steps = 0;     // ring transfers of the forward (the backward has as many)
  double ring_bytes = 0;     // K and V one rank sends per forward step (the backward adds dK, dV: twice)
  double a2a_in_bytes = 0;   // one rank's Q, K, V before the all-to-all (forward; dQ, dK, dV backward)
  double a2a_out_bytes = 0;  // its output O before the all-to-all back (forward; dO backward)
  double gather_bytes = 0;   // the gathered K/V buffer (forward: all-gather; backward: all-gather + reduce-scatter)
  double working_bytes = 0;  // transient HBM during the call: ring buffers, gathered K/V, a2a copies
};

// The call's work under `cp` on `device` (kernel rates: core/perf/kernel_time.h).
CpAttentionWork AttentionUnderCp(const AttentionShape& a, const CpShape& cp, const Device& device);

// The byte fields of AttentionUnderCp alone (ring, a2a and gather bytes, ring
// steps, working_bytes; no kernel times), for callers without a device: the
// memory model. AttentionUnderCp fills the same values.
CpAttentionWork CpAttentionBytes(const AttentionShape& a, const CpShape& cp);

// Where the CP sub-groups sit: the a2a group, the ring and the gather group
// (each the CP group itself except under a2a+p2p).
struct CpLinks {
  GroupSpread a2a, ring, gather;
};

// The spreads of `c`'s CP sub-groups over `world` ranks on `s`, from the
// rank layout (Megatron's order tp-cp-ep-dp-pp: CP ranks TP apart; the a2a
// group of a2a+p2p takes the first `a2a` of them, the ring every `a2a`-th).
// `cp_group` is the whole CP group's spread (core/perf/group_links.h).
CpLinks CpLinksOf(const ResolvedConfig& c, const CpShape& cp, const GroupSpread& cp_group, int64_t world,
                  const SystemSpec& s);

// Seconds of one call's CP communication, forward and backward: all of it
// (`total`) and what the compute beside it leaves exposed (`exposed`: the
// ring's transfers beyond the step they hide behind; all-to-alls, gathers and
// reduce-scatters stand on the attention's critical path).
struct CpCommSeconds {
  PassSeconds total;
  PassSeconds exposed;
};
CpCommSeconds CpCommOf(const CpAttentionWork& w, const CpShape& cp, const CpLinks& links, const SystemSpec& s,
                       const PerfParams& params);

// "a2a over 4 ranks inside one NVLink domain", "p2p ring of 8 over the
// network", ...: where each part of `cp` runs, for the answer.
std::string DescribeCp(const CpShape& cp, const CpLinks& links, const SystemSpec& s);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_CONTEXT_PARALLEL_H_
