#include "core/search/memory_fixes.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/memory/memory_planner.h"
#include "core/search/split_repair.h"
#include "core/util/limits.h"
#include "core/util/text.h"

namespace parplan {

namespace {

// One way to pull one lever; levers of one family never combine.
struct Lever {
  std::string family;  // "mbs", "recompute", "offload", "distopt", "tp", "pp", "cp", "ep", "fsdp"
  std::string note;
  std::function<bool(ResolvedConfig*)> apply;  // false = does not apply to this config
};

// Selective recompute of `add` on top of what `c` recomputes selectively.
bool AddSelective(ResolvedConfig* c, const std::vector<std::string>& add) {
  if (c->recompute == RecomputeGranularity::kFull) return false;
  std::vector<std::string> modules =
      c->recompute == RecomputeGranularity::kSelective ? c->recompute_modules : std::vector<std::string>{};
  const size_t before = modules.size();
  for (const auto& name : add) {
    if (std::find(modules.begin(), modules.end(), name) == modules.end()) modules.push_back(name);
  }
  if (modules.size() == before && c->recompute == RecomputeGranularity::kSelective) return false;
  c->recompute = RecomputeGranularity::kSelective;
  c->recompute_modules = modules;
  return true;
}

std::vector<Lever> Levers(const ModelSpec& m, const ResolvedConfig& base, const ResolvedPlacement& p) {
  std::vector<Lever> out;
  // Smaller micro-batches: every smaller MBS that divides the GBS (Megatron
  // needs GBS % (MBS x DP) == 0; Validate checks it for the DP of each
  // change), the largest (cheapest) first, at most 8.
  int added = 0;
  for (int64_t v = base.mbs - 1; v >= 1 && added < 8; --v) {
    if (base.gbs > 0 && base.gbs % v != 0) continue;
    ++added;
    out.push_back({"mbs", "more microbatches per step: same GBS, smaller GEMMs", [v](ResolvedConfig* c) {
                     if (c->mbs <= v) return false;
                     c->mbs = v;
                     return true;
                   }});
  }
  // Recompute (megatron/core/transformer/transformer_config.py
  // recompute_granularity / recompute_modules / recompute_method).
  std::vector<std::string> cheap = {"layernorm"};
  if (m.num_moe_experts > 0) cheap.push_back("moe_act");
  if (m.multi_latent_attention) cheap.push_back("mla_up_proj");
  out.push_back({"recompute", "recomputes cheap element-wise/projection work (~2-5% step time)",
                 [cheap](ResolvedConfig* c) { return AddSelective(c, cheap); }});
  std::vector<std::string> mlp = {m.num_moe_experts > 0 ? "moe" : "mlp"};
  if (m.num_moe_experts > 0 && CountLayers(m).dense_mlp > 0) mlp.push_back("mlp");
  out.push_back({"recompute", "recomputes the MLP/MoE forward (~10-20% step time)",
                 [mlp](ResolvedConfig* c) { return AddSelective(c, mlp); }});
  const int64_t num_layers = m.num_layers;
  out.push_back({"recompute", "recomputes half of each stage's layers (block method)", [num_layers](ResolvedConfig* c) {
                   if (c->recompute == RecomputeGranularity::kFull) return false;
                   const int64_t per_chunk = num_layers / std::max<int64_t>(1, c->pp * std::max<int64_t>(1, c->vpp));
                   if (per_chunk < 2) return false;
                   c->recompute = RecomputeGranularity::kFull;
                   c->recompute_modules.clear();
                   c->recompute_method = RecomputeMethod::kBlock;
                   c->recompute_num_layers = per_chunk / 2;
                   return true;
                 }});
  out.push_back({"recompute", "recomputes every layer's forward (~30% step time)", [](ResolvedConfig* c) {
                   if (c->recompute == RecomputeGranularity::kFull) return false;
                   c->recompute = RecomputeGranularity::kFull;
                   c->recompute_modules.clear();
                   c->recompute_method = RecomputeMethod::kUniform;
                   c->recompute_num_layers = 1;
                   return true;
                 }});
  // Optimizer CPU offload (Megatron-Core HybridDeviceOptimizer,
  // megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py); it needs
  // the distributed optimizer (megatron/training/arguments.py).
  for (double f : {0.5, 1.0}) {
    out.push_back(
        {"offload", "Adam step of that share on the host: host memory and PCIe traffic", [f](ResolvedConfig* c) {
           if (c->fsdp || c->OffloadedOptimizerShare() >= f) return false;
           c->optimizer_cpu_offload = true;
           c->optimizer_offload_fraction = f;
           c->offload_fraction_given = true;
           c->distributed_optimizer = true;
           return true;
         }});
  }
  out.push_back({"distopt", "extra reduce-scatter/all-gather per step, usually overlapped", [](ResolvedConfig* c) {
                   if (c->distributed_optimizer || c->fsdp) return false;
                   c->distributed_optimizer = true;
                   return true;
                 }});
  const int64_t domain = p.gpus_per_nvlink_domain > 0 ? p.gpus_per_nvlink_domain
                         : p.nvlink_domain_size > 0   ? p.nvlink_domain_size
                                                      : 8;
  for (int64_t k : {2, 4}) {
    out.push_back({"tp", "more TP communication; smaller GEMMs", [k, domain](ResolvedConfig* c) {
                     if (c->tp * k > domain) return false;
                     c->tp *= k;
                     if (c->etp_defaulted) c->etp = c->tp;
                     c->sp = true;
                     return true;
                   }});
    out.push_back({"pp", "bigger pipeline bubble unless microbatches grow", [k](ResolvedConfig* c) {
                     if (!c->pipeline_layout.empty()) return false;  // a layout fixes the stages
                     c->pp *= k;
                     c->first_stage_layers = c->last_stage_layers = 0;
                     return true;
                   }});
    out.push_back({"cp", "KV exchange between CP ranks", [k](ResolvedConfig* c) {
                     if (c->seq_length <= 0 || c->seq_length % (2 * k * c->cp) != 0) return false;
                     c->cp *= k;
                     return true;
                   }});
    const int64_t experts = m.num_moe_experts;
    out.push_back({"ep", "more expert all-to-all partners; fewer experts per GPU", [k, experts](ResolvedConfig* c) {
                     if (experts <= 0 || c->ep * k > experts || experts % (c->ep * k) != 0) return false;
                     c->ep *= k;
                     return true;
                   }});
  }
  out.push_back({"fsdp", "weights gathered per layer: more DP traffic", [](ResolvedConfig* c) {
                   if (c->fsdp) return false;
                   c->fsdp = true;
                   c->optimizer_cpu_offload = false;
                   return true;
                 }});
  return out;
}

struct Evaluated {
  ResolvedConfig config;
  std::vector<int> levers;
  double peak_bytes = 0;
  bool fits = false;
  double step_time_s = 0;
};

class FixSearch {
 public:
  FixSearch(const ModelSpec& m, const ResolvedConfig& base, const ResolvedPlacement& p, const MemoryOptions& o,
            const PerfParams& params)
      : m_(m), base_(base), p_(p), o_(o), params_(params), levers_(Levers(m, base, p)) {}

  const std::vector<Lever>& levers() const { return levers_; }
  int64_t evaluated() const { return evaluated_; }
  bool capped() const { return capped_; }

  // The step time of `c` on its valid plan; 0 without a system, GBS or
  // sequence length.
  double StepTime(const ResolvedConfig& c, const MemoryAnswer& a) const {
    if (!p_.system.has_value() || c.gbs <= 0 || c.seq_length <= 0) return 0;
    ResolvedConfig effective = c;
    effective.vpp = a.validation.stages->vpp;
    return EstimatePerformance(m_, effective, *a.validation.stages, a.world, *p_.system, params_).step_time_s;
  }

  // Applies `levers` in order to the base config and estimates it; nullopt
  // when a lever does not apply, the result breaks a rule, repeats an
  // earlier result or the budget is spent.
  std::optional<Evaluated> Try(const std::vector<int>& levers) {
    ResolvedConfig c = base_;
    for (int i : levers) {
      if (!levers_[i].apply(&c)) return std::nullopt;
    }
    const std::string key = DescribeConfigChange(base_, c);
    if (key.empty() || !seen_.insert({key, true}).second) return std::nullopt;
    if (evaluated_ >= kMaxMemoryFixEvaluations) {
      capped_ = true;
      return std::nullopt;
    }
    ++evaluated_;
    MemoryAnswer a = AnswerMemory(m_, c, p_, o_);
    if (!a.estimate.has_value() && OnlySplitErrors(a.validation.violations)) {
      // A new PP whose layers do not split evenly: the nearest split Megatron accepts.
      if (auto repair = NearestValidSplit(m_, c); repair.has_value()) {
        c = repair->config;
        a = AnswerMemory(m_, c, p_, o_);
      }
    }
    if (!a.estimate.has_value() || !a.validation.valid) return std::nullopt;
    Evaluated e;
    e.config = c;
    e.levers = levers;
    e.peak_bytes = a.estimate->peak_bytes;
    e.fits = a.estimate->fits;
    e.step_time_s = StepTime(c, a);
    return e;
  }

 private:
  const ModelSpec& m_;
  const ResolvedConfig& base_;
  const ResolvedPlacement& p_;
  const MemoryOptions& o_;
  const PerfParams& params_;
  std::vector<Lever> levers_;
  std::map<std::string, bool> seen_;
  int64_t evaluated_ = 0;
  bool capped_ = false;
};

bool Contains(const std::vector<int>& big, const std::vector<int>& small) {
  for (int x : small) {
    if (std::find(big.begin(), big.end(), x) == big.end()) return false;
  }
  return true;
}

}  // namespace

MemoryFixSearch SearchMemoryFixes(const ModelSpec& model, const ResolvedConfig& config,
                                  const ResolvedPlacement& placement, const MemoryOptions& options,
                                  const PerfParams& params, int max) {
  MemoryFixSearch out;
  ResolvedPlacement fixed = placement;
  const MemoryAnswer current = AnswerMemory(model, config, placement, options);
  if (!current.estimate.has_value()) return out;
  fixed.gpus = current.world;  // a fix keeps the GPU count
  FixSearch search(model, config, fixed, options, params);
  out.current_step_time_s = current.validation.stages.has_value() ? search.StepTime(config, current) : 0;
  const auto& levers = search.levers();
  const int n = static_cast<int>(levers.size());
  std::vector<Evaluated> all;
  auto record = [&all](std::optional<Evaluated> e) {
    if (e.has_value()) all.push_back(std::move(*e));
  };
  // Singles, then every pair of different families.
  for (int i = 0; i < n; ++i) record(search.Try({i}));
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (levers[i].family != levers[j].family) record(search.Try({i, j}));
    }
  }
  // Triples, skipping any that contains a change already fitting (adding a
  // lever to a fix only adds its cost), levers ordered by how cheap they
  // are alone so that a capped search has tried the likeliest first.
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::vector<double> alone(n, 1e300);
  for (const auto& e : all) {
    if (e.levers.size() == 1) alone[e.levers[0]] = e.step_time_s;
  }
  std::stable_sort(order.begin(), order.end(), [&alone](int a, int b) { return alone[a] < alone[b]; });
  std::vector<std::vector<int>> fitting;
  for (const auto& e : all) {
    if (e.fits) fitting.push_back(e.levers);
  }
  for (int a = 0; a < n && !search.capped(); ++a) {
    for (int b = a + 1; b < n && !search.capped(); ++b) {
      for (int c = b + 1; c < n && !search.capped(); ++c) {
        std::vector<int> t = {order[a], order[b], order[c]};
        std::sort(t.begin(), t.end());
        if (levers[t[0]].family == levers[t[1]].family || levers[t[0]].family == levers[t[2]].family ||
            levers[t[1]].family == levers[t[2]].family) {
          continue;
        }
        bool covered = false;
        for (const auto& f : fitting) covered = covered || Contains(t, f);
        if (!covered) record(search.Try(t));
      }
    }
  }
  out.evaluated = search.evaluated();
  out.capped = search.capped();

  auto to_fix = [&](const Evaluated& e) {
    MemoryFix f;
    f.change = DescribeConfigChange(config, e.config);
    f.config = e.config;
    f.levers = static_cast<int>(e.levers.size());
    f.peak_bytes = e.peak_bytes;
    f.fits = e.fits;
    f.step_time_s = e.step_time_s;
    if (out.current_step_time_s > 0 && e.step_time_s > 0) {
      f.step_time_delta_s = e.step_time_s - out.current_step_time_s;
      f.step_time_delta_pct = 100 * f.step_time_delta_s / out.current_step_time_s;
    }
    for (int i : e.levers) {
      if (!f.note.empty()) f.note += "; ";
      f.note += levers[i].note;
    }
    return f;
  };
  std::vector<const Evaluated*> fits;
  for (const auto& e : all) {
    if (e.fits) fits.push_back(&e);
  }
  if (!fits.empty()) {
    std::stable_sort(fits.begin(), fits.end(), [](const Evaluated* a, const Evaluated* b) {
      if (a->step_time_s != b->step_time_s) return a->step_time_s < b->step_time_s;
      if (a->levers.size() != b->levers.size()) return a->levers.size() < b->levers.size();
      return a->peak_bytes < b->peak_bytes;
    });
    std::vector<const Evaluated*> kept;
    for (const Evaluated* e : fits) {
      if (static_cast<int>(kept.size()) >= max) break;
      // A fix containing a cheaper fix adds a lever for nothing.
      bool redundant = false;
      for (const Evaluated* k : kept) redundant = redundant || Contains(e->levers, k->levers);
      if (redundant) continue;
      kept.push_back(e);
      out.fixes.push_back(to_fix(*e));
    }
    return out;
  }
  std::vector<const Evaluated*> best;
  for (const auto& e : all) best.push_back(&e);
  std::stable_sort(best.begin(), best.end(),
                   [](const Evaluated* a, const Evaluated* b) { return a->peak_bytes < b->peak_bytes; });
  for (const Evaluated* e : best) {
    if (static_cast<int>(out.fixes.size()) >= max || e->peak_bytes >= current.estimate->peak_bytes) break;
    MemoryFix f = to_fix(*e);
    f.note = absl::StrCat("not enough (", HumanGiB(e->peak_bytes), "); ", f.note);
    out.fixes.push_back(std::move(f));
  }
  return out;
}

}  // namespace parplan
