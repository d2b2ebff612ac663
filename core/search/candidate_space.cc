#include "core/search/candidate_space.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/memory/memory_model.h"
#include "core/model/layer_kind.h"
#include "core/model/param_count.h"
#include "core/perf/context_parallel.h"
#include "core/perf/flops.h"
#include "core/perf/group_links.h"
#include "core/perf/layer_time.h"
#include "core/perf/perf_model.h"
#include "core/pipeline/layout_builder.h"
#include "core/rules/validate.h"

namespace parplan {
namespace {

constexpr int64_t kMinTokensPerCpRank = 1024;
constexpr int64_t kMaxVpp = 8;        // even splits
constexpr int64_t kMaxLayoutVpp = 8;  // balanced layouts (layers do not divide): 1, 2, 4 or 8 chunks per rank
constexpr int64_t kMaxTp = 16;
constexpr int64_t kCpProbeLayers = 6;         // layers whose attention compares CP types (local/global patterns)
constexpr double kLeanerVariantShare = 0.02;  // of HBM: a leaner CP type is searched beside the fastest
// Another type displaces the first allowed one (Megatron's default p2p where
// the checks allow it) only when it saves this share of the probed
// attention time: smaller differences are inside the model's error, and
// the default is what users and recipes already run.
constexpr double kCpTypeMargin = 0.05;

std::vector<int64_t> Divisors(int64_t n, int64_t limit) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= std::min(n, limit); ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

bool Allowed(int64_t value, int64_t pin) { return pin == 0 || value == pin; }

std::vector<int64_t> PowersOfTwo(int64_t limit) {
  std::vector<int64_t> out;
  for (int64_t v = 1; v <= limit; v *= 2) out.push_back(v);
  return out;
}

}  // namespace

bool SameRecompute(const ResolvedConfig& a, const ResolvedConfig& b) {
  if (a.recompute != b.recompute) return false;
  if (a.recompute == RecomputeGranularity::kSelective) return a.recompute_modules == b.recompute_modules;
  if (a.recompute == RecomputeGranularity::kFull) {
    return a.recompute_method == b.recompute_method && a.recompute_num_layers == b.recompute_num_layers;
  }
  return true;
}

int64_t SearchGlobalBatch(int64_t seq_length, int64_t world) {
  const double sequences =
      static_cast<double>(kDefaultTokensPerStep) / static_cast<double>(std::max<int64_t>(1, seq_length));
  if (static_cast<double>(world) > sequences) return 0;  // per candidate (DefaultGlobalBatch)
  return std::max<int64_t>(1, std::llround(sequences / static_cast<double>(world))) * world;
}

std::vector<ResolvedConfig> RecomputeVariants(const ModelSpec& m, const ResolvedConfig& c) {
  std::vector<ResolvedConfig> out;
  ResolvedConfig none = c;
  none.recompute = RecomputeGranularity::kNone;
  none.recompute_modules.clear();
  out.push_back(none);
  ResolvedConfig selective = none;
  selective.recompute = RecomputeGranularity::kSelective;
  if (m.is_moe()) {
    selective.recompute_modules = {"moe_act", "layernorm"};
    if (m.multi_latent_attention) selective.recompute_modules.push_back("mla_up_proj");
  } else {
    selective.recompute_modules = {"mlp"};
  }
  out.push_back(selective);
  if (m.is_moe() && c.seq_length >= kLongContextTokens) {
    // Long context in MoE models: Megatron Bridge's long-context recipes
    // recompute the whole MoE block, the dense MLPs, norms and MLA's
    // up-projections (skills/nemo-mbridge-perf-moe-long-context, card.yaml),
    // trading the MoE forward again for its dispatched-token activations.
    ResolvedConfig heavy = selective;
    heavy.recompute_modules = {"layernorm", "moe", "mlp"};
    if (m.multi_latent_attention) heavy.recompute_modules.push_back("mla_up_proj");
    out.push_back(heavy);
  }
  ResolvedConfig full = none;
  full.recompute = RecomputeGranularity::kFull;
  full.recompute_method = RecomputeMethod::kUniform;
  full.recompute_num_layers = 1;
  out.push_back(full);
  return out;
}

std::vector<ResolvedConfig> SearchedRecompute(const ModelSpec& m, const ResolvedConfig& base,
                                              const SearchConstraints& k, bool memory_probe) {
  std::vector<ResolvedConfig> out = RecomputeVariants(m, base);
  if (k.recompute_pinned) {
    out = {base};
  } else if (!k.allow_recompute) {
    out.resize(1);
  } else if (k.keep_base_recompute &&
             std::none_of(out.begin(), out.end(), [&](const ResolvedConfig& v) { return SameRecompute(v, base); })) {
    // The user's own setting (recommend --from), before the strongest
    // variant, which stays last for the memory probe.
    out.insert(out.end() - 1, base);
  }
  if (memory_probe) out.erase(out.begin(), out.end() - 1);
  return out;
}

std::string CpVariantName(const CpVariant& v) {
  if (v.sizes.empty()) return v.type;
  return absl::StrCat(v.type, " [", absl::StrJoin(v.sizes, ", "), "]");
}

ResolvedConfig WithCpVariant(const ResolvedConfig& c, const CpVariant& v) {
  ResolvedConfig out = c;
  out.cp_comm_type = v.type;
  out.cp_comm_type_given = true;
  out.hierarchical_cp_sizes = v.sizes;
  return out;
}

std::vector<CpVariant> AllowedCpVariants(const ModelSpec& m, const ResolvedConfig& c) {
  if (c.cp <= 1) return {};
  if (c.cp_comm_type_given) return {{c.cp_comm_type, c.hierarchical_cp_sizes}};
  std::vector<CpVariant> all = {{"p2p", {}}, {"all_gather", {}}, {"a2a", {}}};
  for (int64_t inner = 2; inner <= c.cp / 2; inner *= 2) {
    if (c.cp % inner == 0) all.push_back({"a2a+p2p", {inner, c.cp / inner}});
  }
  // Megatron's and Transformer Engine's checks on the type (core/rules/
  // context_parallel_rules.cc), run by the validator: a type is allowed when
  // none of the "cp." rules reports an error for it.
  std::vector<CpVariant> out;
  for (const CpVariant& v : all) {
    ValidationInput in;
    in.model = &m;
    in.config = WithCpVariant(c, v);
    const ValidationResult r = Validate(in);
    const bool refused = std::any_of(r.violations.begin(), r.violations.end(), [](const Violation& x) {
      return x.severity == Severity::kError && absl::StartsWith(x.rule, "cp.");
    });
    if (!refused) out.push_back(v);
  }
  return out;
}

namespace {

// Attention of the first layers of `c` (one microbatch, one GPU): compute
// plus exposed CP communication, forward and backward, and the most
// transient memory one call holds.
struct CpCost {
  double seconds = 0;
  double working_bytes = 0;
};

CpCost AttentionCost(const ModelSpec& m, const ResolvedConfig& c, int64_t world, const SystemSpec& sys,
                     const PerfParams& params) {
  const Device device = MakeDevice(sys, c.precision);
  const CpShape shape = CpShapeOf(c);
  const CpLinks links = CpLinksOf(c, shape, LinksOfGroups(MeshOf(c), world, sys).cp.spread, world, sys);
  CpCost cost;
  for (int64_t i = 0; i < std::min<int64_t>(m.num_layers, kCpProbeLayers); ++i) {
    const LayerTime t = TimeLayer(m, c, KindOfLayer(m, i), i, false, false, device, params);
    const CpCommSeconds comm = CpCommOf(t.cp, shape, links, sys, params);
    cost.seconds += t.cp.compute.forward + t.cp.compute.backward + comm.exposed.forward + comm.exposed.backward;
    cost.working_bytes = std::max(cost.working_bytes, t.cp.working_bytes);
  }
  return cost;
}

}  // namespace

std::vector<CpVariant> SearchedCpVariants(const ModelSpec& m, const ResolvedConfig& c, int64_t world,
                                          const SystemSpec& sys, const PerfParams& params) {
  std::vector<CpVariant> allowed = AllowedCpVariants(m, c);
  if (allowed.size() <= 1 || world % (c.tp * c.cp) != 0) return allowed;
  ResolvedConfig probe = c;
  probe.pp = 1;
  probe.vpp = 1;
  probe.ep = 1;
  probe.etp = 1;
  size_t fastest = 0, leanest = 0;
  std::vector<CpCost> costs;
  for (size_t i = 0; i < allowed.size(); ++i) {
    costs.push_back(AttentionCost(m, WithCpVariant(probe, allowed[i]), world, sys, params));
    if (costs[i].seconds < costs[fastest].seconds) fastest = i;
    if (costs[i].working_bytes < costs[leanest].working_bytes) leanest = i;
  }
  if (costs[fastest].seconds > (1 - kCpTypeMargin) * costs[0].seconds) fastest = 0;
  std::vector<CpVariant> out = {allowed[fastest]};
  if (leanest != fastest &&
      costs[fastest].working_bytes - costs[leanest].working_bytes >= kLeanerVariantShare * sys.hbm_gb * kGiB) {
    out.push_back(allowed[leanest]);
  }
  return out;
}

int DimensionsInUse(const ResolvedConfig& c) {
  return (c.tp > 1) + (c.pp > 1) + (c.vpp > 1) + (c.cp > 1) + (c.ep > 1) + (c.etp > 1 && !c.etp_defaulted);
}

bool ExtendsMesh(const ResolvedConfig& a, const ResolvedConfig& b) {
  const int64_t da[] = {a.tp, a.pp, std::max<int64_t>(1, a.vpp), a.cp, a.ep, a.etp};
  const int64_t db[] = {b.tp, b.pp, std::max<int64_t>(1, b.vpp), b.cp, b.ep, b.etp};
  bool larger = false;
  for (int i = 0; i < 6; ++i) {
    if (da[i] < db[i]) return false;
    larger |= da[i] > db[i];
  }
  return larger;
}

namespace {

// One way to split the layers over PP*VPP stages.
struct Split {
  int64_t vpp;
  std::string layout;
  int64_t accounted = 0;  // 0 none, 1 loss, 2 embedding + loss
};

// Pipeline splits for `pp`: even chunks of PP*VPP; the embedding and/or loss
// counted as layers (Megatron's account_for_*_in_pipeline_split, how NVIDIA's
// recipes split 126 or 94 layers); the same even split with the loss counted
// as a layer by a layout (the last stage carries the logits); or a balanced
// layout when neither divides.
std::vector<Split> PipelineSplits(const ModelSpec& m, int64_t pp, int64_t mtp, int64_t end_units,
                                  const SearchConstraints& k) {
  if (pp == 1) return {{1, ""}};
  const bool hybrid = m.is_hybrid();
  std::vector<Split> splits;
  for (int64_t v = 1; v <= kMaxVpp; ++v) {
    if (!Allowed(v, k.vpp)) continue;
    const int64_t stages = pp * v;
    bool accounted = false;
    for (int64_t ends : {int64_t{2}, int64_t{1}}) {
      if (!hybrid && (m.num_layers + ends) % stages == 0) {
        splits.push_back({v, "", ends});
        accounted = true;
      }
    }
    if (m.num_layers % stages == 0) {
      splits.push_back({v, ""});
      if (!hybrid && stages > 1) splits.push_back({v, LossBalancedLayout(m.num_layers, mtp, stages)});
    } else if (!hybrid && !accounted && m.num_layers % pp != 0 && v <= kMaxLayoutVpp && (v & (v - 1)) == 0 &&
               m.num_layers + 2 >= stages) {
      // Layouts only where PP itself does not divide the layers (DeepSeek's 61 over PP 4).
      splits.push_back({v, BalancedLayout(m.num_layers, mtp, stages, end_units)});
    }
  }
  return splits;
}

// (EP, ETP) pairs for a stage of `per_stage` GPUs: EP dividing the experts
// and the stage, ETP 1 or TP (or the pinned one); (1, TP) for dense models.
std::vector<std::pair<int64_t, int64_t>> ExpertMeshes(const ModelSpec& m, int64_t tp, int64_t per_stage, int64_t domain,
                                                      const SearchConstraints& k) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (m.num_moe_experts == 0) {
    if (Allowed(1, k.ep)) out.push_back({1, tp});
    return out;
  }
  for (int64_t ep : Divisors(m.num_moe_experts, per_stage)) {
    if (!Allowed(ep, k.ep)) continue;
    std::vector<int64_t> etps = {1};
    if (tp > 1) etps.push_back(tp);
    if (k.etp > 0) etps = {k.etp};
    for (int64_t etp : etps) {
      if (per_stage % (ep * etp) != 0) continue;
      if (k.nvlink_only && ep * etp > domain) continue;
      out.push_back({ep, etp});
    }
  }
  return out;
}

// True when the search tries TP: a power of two dividing the attention heads
// and, without MLA, the KV groups. Megatron also accepts TP above the group
// count when it is a multiple of it (KV heads replicated, validate allows
// it); the search leaves those out: each TP rank then recomputes the
// replicated KV projections and holds their activations, so such a TP is
// never faster than the next smaller one in the model (and NVIDIA's tuned
// configs do not use it).
bool SearchedTp(const ModelSpec& m, int64_t tp, const SearchConstraints& k) {
  if (!Allowed(tp, k.tp) || m.num_attention_heads % tp != 0) return false;
  return m.multi_latent_attention || m.num_query_groups <= 0 || m.num_query_groups % tp == 0;
}

bool SearchedCp(const ResolvedConfig& base, int64_t cp, const SearchConstraints& k) {
  if (!Allowed(cp, k.cp) || (cp > 1 && !k.allow_cp)) return false;
  return cp == 1 || (base.seq_length % (2 * cp) == 0 && base.seq_length / cp >= kMinTokensPerCpRank);
}

// What every candidate of one search shares.
struct Space {
  const ModelSpec& m;
  const ResolvedConfig& base;
  int64_t world;
  const SearchConstraints& k;
  std::vector<ResolvedConfig> recompute;  // variants tried
  std::vector<int64_t> mbs_options;
  double dense_params, expert_params, capacity;
  bool prune;
};

// The configs of one mesh: every split x MBS x recompute variant, in that
// order (or a count of them in `pruned` when weights and gradients alone,
// >= 3 bytes per local parameter, exceed memory).
void AppendMesh(const Space& s, int64_t tp, int64_t cp, int64_t pp, int64_t ep, int64_t etp,
                const std::vector<Split>& splits, const std::vector<CpVariant>& cp_variants,
                std::vector<ResolvedConfig>* out, int64_t* pruned) {
  const double local = s.dense_params / (tp * pp) + s.expert_params / (pp * ep * etp);
  const size_t variants = std::max<size_t>(1, cp_variants.size());
  if (s.prune && 3.0 * local > s.capacity) {
    if (pruned != nullptr) {
      *pruned += static_cast<int64_t>(variants * splits.size() * s.mbs_options.size() * s.recompute.size());
    }
    return;
  }
  const int64_t dp = SizeWorld(MeshDims{tp, pp, cp, ep, etp}, s.world, 0, 0, 0).dp;
  for (size_t v = 0; v < variants; ++v) {
    for (const Split& split : splits) {
      for (int64_t mbs : s.mbs_options) {
        if (!Allowed(mbs, s.k.mbs) || (s.base.gbs > 0 && s.base.gbs % (mbs * dp) != 0)) continue;
        for (const ResolvedConfig& r : s.recompute) {
          ResolvedConfig c = r;
          c.tp = tp;
          c.cp = cp;
          c.pp = pp;
          c.ep = ep;
          c.etp = etp;
          c.etp_defaulted = s.m.num_moe_experts == 0;
          c.sp = tp > 1;
          c.sp_defaulted = false;
          c.mbs = mbs;
          if (s.base.gbs <= 0) c.gbs = DefaultGlobalBatch(c, dp);  // past one sequence per GPU: per DP
          c.vpp = split.layout.empty() ? split.vpp : 0;            // a layout sets VPP itself
          c.vpp_given = split.vpp > 1 && split.layout.empty();
          c.pipeline_layout = split.layout;
          c.first_stage_layers = 0;
          c.last_stage_layers = 0;
          c.account_for_embedding = split.accounted == 2;
          c.account_for_loss = split.accounted >= 1;
          if (!cp_variants.empty() && !cp_variants[v].type.empty()) c = WithCpVariant(c, cp_variants[v]);
          out->push_back(std::move(c));
        }
      }
    }
  }
}

}  // namespace

std::vector<ResolvedConfig> EnumerateCandidates(const ModelSpec& m, const ResolvedConfig& base, int64_t world,
                                                const SystemSpec& sys, const SearchConstraints& k, bool memory_probe,
                                                const PerfParams& perf_params, int64_t* pruned) {
  const ParamCounts params = CountParams(m);
  Space s{m,
          base,
          world,
          k,
          SearchedRecompute(m, base, k, memory_probe),
          {1, 2, 4, 8},
          static_cast<double>(params.total - params.routed_experts),
          static_cast<double>(params.routed_experts),
          sys.hbm_gb * kGiB,
          false};
  // Weights (>= 1 B in FP8) + gradients (>= 2 B) per local parameter: a floor
  // under any config's memory, unless FSDP or LoRA change what is stored.
  s.prune = s.capacity > 0 && !base.fsdp && !base.lora;
  if (memory_probe) s.mbs_options = {1};
  const int64_t domain = std::max(1, sys.nvlink_domain_size);
  // TP inside the NVLink domain, and one step across it (never for long
  // sequences: CP splits them, over links TP's per-layer collectives would
  // saturate); never above 16, where per-GPU GEMMs are too thin to pay for
  // the collectives.
  const bool long_context = base.seq_length >= kLongContextTokens;
  const int64_t max_tp = std::min<int64_t>(kMaxTp, k.nvlink_only || long_context ? domain : 2 * domain);
  // The last stage's MTP depths and loss in decoder layers' worth of FLOPs
  // (for balanced layouts).
  const int64_t end_units = LastStageEndUnits(m, base.seq_length, 1, base.mtp_num_layers);
  std::vector<ResolvedConfig> out;
  for (int64_t tp : PowersOfTwo(std::min(world, max_tp))) {
    if (!SearchedTp(m, tp, k)) continue;
    for (int64_t cp : PowersOfTwo(world / tp)) {
      if (!SearchedCp(base, cp, k)) continue;
      // The CP communication types for this TP and CP (none at CP = 1).
      // Below long context CP is a small split whose type barely matters:
      // Megatron's default (p2p, left as the config has it) where the rules
      // allow it, else the first type they allow.
      std::vector<CpVariant> cp_variants;
      if (cp > 1) {
        ResolvedConfig probe = base;
        probe.tp = tp;
        probe.cp = cp;
        probe.sp = tp > 1;
        probe.mbs = 1;
        if (long_context) {
          cp_variants = SearchedCpVariants(m, probe, world, sys, perf_params);
        } else {
          cp_variants = AllowedCpVariants(m, probe);
          if (!cp_variants.empty() && !base.cp_comm_type_given && cp_variants.front().type == "p2p") {
            cp_variants = {{}};  // the config's own (default) type
          } else if (!cp_variants.empty()) {
            cp_variants.resize(1);
          }
        }
        if (cp_variants.empty()) continue;
      }
      for (int64_t pp : Divisors(world / (tp * cp), m.num_layers)) {
        if (world % (tp * cp * pp) != 0 || !Allowed(pp, k.pp) || (k.max_pp > 0 && pp > k.max_pp)) continue;
        const std::vector<Split> splits = PipelineSplits(m, pp, base.mtp_num_layers, end_units, k);
        for (const auto& [ep, etp] : ExpertMeshes(m, tp, world / pp, domain, k)) {
          AppendMesh(s, tp, cp, pp, ep, etp, splits, cp_variants, &out, pruned);
        }
      }
    }
  }
  return out;
}

}  // namespace parplan
