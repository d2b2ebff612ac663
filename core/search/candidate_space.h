// The configurations a plan search considers for one world size: every
// combination of TP (inside and up to twice the NVLink domain), CP, PP with
// even splits and, where the layers do not divide, a balanced pipeline layout,
// VPP, EP, ETP, MBS and recompute, restricted by the caller's pins and by the
// divisibility Megatron-Core requires of the mesh and the batch. Full rule
// checking (core/rules) happens later, on the plans that rank.
#ifndef PARPLAN_CORE_SEARCH_CANDIDATE_SPACE_H_
#define PARPLAN_CORE_SEARCH_CANDIDATE_SPACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "core/perf/perf_model.h"
#include "core/search/search_types.h"
#include "core/system/system_spec.h"

namespace parplan {

// Global batch the search uses on `world` GPUs when the caller gives none:
// about 4,194,304 tokens per step, rounded to a multiple of the world so that
// every DP size of the world divides it and every candidate runs the same
// batch. 0 when one sequence per GPU is already above that target: each
// candidate then takes DefaultGlobalBatch of its own DP (at most 16M tokens
// unless DP alone is larger; core/config/parallel_config.h).
int64_t SearchGlobalBatch(int64_t seq_length, int64_t world);

// The recompute settings tried, lightest first: none, selective (dense: mlp;
// MoE: moe_act + layernorm, + mla_up_proj with MLA; MoE at long context also
// layernorm + moe + mlp (+ mla_up_proj), as Bridge's long-context recipes),
// full (uniform, 1 layer).
std::vector<ResolvedConfig> RecomputeVariants(const ModelSpec& model, const ResolvedConfig& config);

// The recompute settings one search tries, in its order (lightest first,
// the strongest last): RecomputeVariants, narrowed by the constraints (only
// the base's when pinned, only none when recompute is off, the base's own
// before the strongest with keep_base_recompute), only the strongest for
// the memory probe.
std::vector<ResolvedConfig> SearchedRecompute(const ModelSpec& model, const ResolvedConfig& base,
                                              const SearchConstraints& k, bool memory_probe);

// True when `a` and `b` recompute the same way (granularity, selective
// modules, full's method and layer count).
bool SameRecompute(const ResolvedConfig& a, const ResolvedConfig& b);

// Preconditions: model complete, world >= 1, base.seq_length > 0; base.gbs
// 0 = each candidate's DefaultGlobalBatch. `params` prices the CP
// communication types compared at long context (SearchedCpVariants).
// With constraints.keep_base_recompute the base's own recompute setting is
// tried too when it is none of RecomputeVariants'.
// `memory_probe` keeps only MBS=1 with the strongest recompute allowed (the
// least memory each mesh can use) for feasibility scans. Meshes whose
// weights and gradients alone (>= 3 bytes per local parameter) exceed the
// GPU's memory are skipped; `pruned` (nullable) counts the configurations
// skipped that way. CP > 1 meshes run the CP communication types of
// SearchedCpVariants at long context (>= kLongContextTokens), else
// Megatron's default p2p where the rules allow it. Deterministic order.
std::vector<ResolvedConfig> EnumerateCandidates(const ModelSpec& model, const ResolvedConfig& base, int64_t world,
                                                const SystemSpec& system, const SearchConstraints& constraints,
                                                bool memory_probe, const PerfParams& params, int64_t* pruned = nullptr);

// Sequences from this length on are long context: the search keeps TP inside
// the NVLink domain (CP splits the sequence instead) and names each plan's
// CP communication type and what the other types cost.
inline constexpr int64_t kLongContextTokens = 16384;

// One way to run CP: Megatron-Core's cp_comm_type and, for a2a+p2p, the
// hierarchical_context_parallel_sizes [a2a group, p2p ring].
struct CpVariant {
  std::string type;
  std::vector<int64_t> sizes;
};

// "p2p", "a2a+p2p [8, 4]".
std::string CpVariantName(const CpVariant& variant);

// `config` running `variant` (cp_comm_type given, sizes set).
ResolvedConfig WithCpVariant(const ResolvedConfig& config, const CpVariant& variant);

// Every CP communication type Megatron's rules (core/rules, the validator)
// accept for `config`'s TP and CP on `model`: p2p, all_gather, a2a, and
// a2a+p2p with each split [a2a, ring] of CP into two powers of two > 1.
// A type the config gives (cp_comm_type_given) is the only one; CP = 1: none.
std::vector<CpVariant> AllowedCpVariants(const ModelSpec& model, const ResolvedConfig& config);

// The variants a search tries on a mesh with `config`'s TP and CP on `world`
// GPUs of `system`: of the allowed ones, the fastest attention (compute +
// exposed CP communication of the first layers, core/perf/context_parallel.h;
// the first allowed type, Megatron's default p2p where allowed, unless
// another saves >= 5% of that time) and, when it holds >= 2% of HBM less, the one with the least attention
// working memory, each priced with `params`. Empty when CP = 1.
std::vector<CpVariant> SearchedCpVariants(const ModelSpec& model, const ResolvedConfig& config, int64_t world,
                                          const SystemSpec& system, const PerfParams& params = CalibratedPerfParams());

// Number of dimensions above 1 among TP, PP, VPP, CP, EP, ETP (simpler first).
int DimensionsInUse(const ResolvedConfig& config);

// True when `a` only extends `b`: every parallel degree of `a` (TP, PP, VPP,
// CP, EP, ETP) is at least `b`'s and one is larger (e.g. b with CP=2 added).
bool ExtendsMesh(const ResolvedConfig& a, const ResolvedConfig& b);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_CANDIDATE_SPACE_H_
