#include "core/search/candidate_space.h"

#include <algorithm>
#include <cmath>

#include "core/memory/memory_model.h"
#include "core/model/param_count.h"
#include "core/perf/flops.h"
#include "core/pipeline/layout_builder.h"

namespace parplan {
namespace {

constexpr double kTokensPerStep = 4194304.0;
constexpr int64_t kMinTokensPerCpRank = 1024;
constexpr int64_t kMaxVpp = 8;         // even splits
constexpr int64_t kMaxLayoutVpp = 8;   // balanced layouts (layers do not divide): 1, 2, 4 or 8 chunks per rank
constexpr int64_t kMaxTp = 16;

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

int64_t SearchGlobalBatch(int64_t seq_length, int64_t world) {
  const double sequences = kTokensPerStep / static_cast<double>(std::max<int64_t>(1, seq_length));
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
  ResolvedConfig full = none;
  full.recompute = RecomputeGranularity::kFull;
  full.recompute_method = RecomputeMethod::kUniform;
  full.recompute_num_layers = 1;
  out.push_back(full);
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

std::vector<ResolvedConfig> EnumerateCandidates(const ModelSpec& m, const ResolvedConfig& base, int64_t world,
                                                const SystemSpec& sys, const SearchConstraints& k,
                                                bool memory_probe, int64_t* pruned) {
  std::vector<ResolvedConfig> out;
  // Weights (>= 1 B in FP8) + gradients (>= 2 B) per local parameter: a floor
  // under any config's memory, unless FSDP or LoRA change what is stored.
  const ParamCounts params = CountParams(m);
  const double dense_params = static_cast<double>(params.total - params.routed_experts);
  const double expert_params = static_cast<double>(params.routed_experts);
  const double capacity = sys.hbm_gb * kGiB;
  const bool prune = capacity > 0 && !base.fsdp && !base.lora;
  const int64_t domain = std::max(1, sys.nvlink_domain_size);
  // TP inside the NVLink domain, and one step across it; never above 16,
  // where per-GPU GEMMs are too thin to pay for the collectives.
  const int64_t max_tp = std::min<int64_t>(kMaxTp, k.nvlink_only ? domain : 2 * domain);
  const bool hybrid = m.is_hybrid();
  const int64_t mtp = base.mtp_num_layers;
  // The last stage's MTP depths and loss in decoder layers' worth of FLOPs
  // (for balanced layouts).
  const int64_t end_units = LastStageEndUnits(m, base.seq_length, 1, mtp);
  std::vector<ResolvedConfig> recompute = RecomputeVariants(m, base);
  if (k.recompute_pinned) {
    recompute = {base};
  } else if (!k.allow_recompute) {
    recompute.resize(1);
  }
  if (memory_probe) recompute.erase(recompute.begin(), recompute.end() - 1);
  const std::vector<int64_t> mbs_options = memory_probe ? std::vector<int64_t>{1} : std::vector<int64_t>{1, 2, 4, 8};

  for (int64_t tp : PowersOfTwo(std::min(world, max_tp))) {
    if (!Allowed(tp, k.tp) || m.num_attention_heads % tp != 0) continue;
    if (!m.multi_latent_attention && m.num_query_groups > 0 && m.num_query_groups % tp != 0) continue;
    for (int64_t cp : PowersOfTwo(world / tp)) {
      if (!Allowed(cp, k.cp) || (cp > 1 && !k.allow_cp)) continue;
      if (cp > 1 && (base.seq_length % (2 * cp) != 0 || base.seq_length / cp < kMinTokensPerCpRank)) continue;
      for (int64_t pp : Divisors(world / (tp * cp), m.num_layers)) {
        if (world % (tp * cp * pp) != 0 || !Allowed(pp, k.pp) || (k.max_pp > 0 && pp > k.max_pp)) continue;
        const int64_t dp = world / (tp * cp * pp);
        // Pipeline splits: even chunks of PP*VPP; the embedding and/or loss
        // counted as layers (Megatron's account_for_*_in_pipeline_split, how
        // NVIDIA's recipes split 126 or 94 layers); or a balanced layout when
        // neither divides.
        struct Split {
          int64_t vpp;
          std::string layout;
          int64_t accounted = 0;  // 0 none, 1 loss, 2 embedding + loss
        };
        std::vector<Split> splits;
        if (pp == 1) {
          splits.push_back({1, ""});
        } else {
          for (int64_t v = 1; v <= kMaxVpp; ++v) {
            if (!Allowed(v, k.vpp)) continue;
            const int64_t stages = pp * v;
            bool accounted = false;
            if (!hybrid) {
              for (int64_t ends : {int64_t{2}, int64_t{1}}) {
                if ((m.num_layers + ends) % stages == 0) {
                  splits.push_back({v, "", ends});
                  accounted = true;
                }
              }
            }
            if (m.num_layers % stages == 0) {
              splits.push_back({v, ""});
              // The same split with the loss counted as a layer (the last stage carries the logits).
              if (!hybrid && stages > 1) splits.push_back({v, LossBalancedLayout(m.num_layers, mtp, stages)});
            } else if (!hybrid && !accounted && m.num_layers % pp != 0 && v <= kMaxLayoutVpp &&
                       (v & (v - 1)) == 0 && m.num_layers + 2 >= stages) {
              // Layouts only where PP itself does not divide the layers (DeepSeek's 61 over PP 4).
              splits.push_back({v, BalancedLayout(m.num_layers, mtp, stages, end_units)});
            }
          }
        }
        const int64_t per_stage = world / pp;
        std::vector<std::pair<int64_t, int64_t>> expert_meshes;  // (ep, etp)
        if (m.num_moe_experts > 0) {
          for (int64_t ep : Divisors(m.num_moe_experts, per_stage)) {
            if (!Allowed(ep, k.ep)) continue;
            std::vector<int64_t> etps = {1};
            if (tp > 1) etps.push_back(tp);
            if (k.etp > 0) etps = {k.etp};
            for (int64_t etp : etps) {
              if (per_stage % (ep * etp) != 0) continue;
              if (k.nvlink_only && ep * etp > domain) continue;
              expert_meshes.push_back({ep, etp});
            }
          }
        } else if (Allowed(1, k.ep)) {
          expert_meshes.push_back({1, tp});
        }
        for (const auto& [ep, etp] : expert_meshes) {
          const double local = dense_params / (tp * pp) + expert_params / (pp * ep * etp);
          if (prune && 3.0 * local > capacity) {
            if (pruned != nullptr) {
              *pruned += static_cast<int64_t>(splits.size() * mbs_options.size() * recompute.size());
            }
            continue;
          }
          for (const Split& split : splits) {
            for (int64_t mbs : mbs_options) {
              if (!Allowed(mbs, k.mbs) || base.gbs % (mbs * dp) != 0) continue;
              for (const ResolvedConfig& r : recompute) {
                ResolvedConfig c = r;
                c.tp = tp;
                c.cp = cp;
                c.pp = pp;
                c.ep = ep;
                c.etp = etp;
                c.etp_defaulted = m.num_moe_experts == 0;
                c.sp = tp > 1;
                c.sp_defaulted = false;
                c.mbs = mbs;
                c.vpp = split.layout.empty() ? split.vpp : 0;  // a layout sets VPP itself
                c.vpp_given = split.vpp > 1 && split.layout.empty();
                c.pipeline_layout = split.layout;
                c.first_stage_layers = 0;
                c.last_stage_layers = 0;
                c.account_for_embedding = split.accounted == 2;
                c.account_for_loss = split.accounted >= 1;
                out.push_back(std::move(c));
              }
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace parplan
