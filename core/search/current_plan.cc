#include "core/search/current_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/memory/memory_model.h"
#include "core/pipeline/layout_builder.h"
#include "core/search/plan_explain.h"
#include "core/util/text.h"

namespace parplan {
namespace {

// Fields whose absence from a list means a value (ListResolvedSettings
// leaves them out when they do not apply or are at that value).
const std::map<std::string_view, std::string_view>& AbsentMeans() {
  static const auto* values = new std::map<std::string_view, std::string_view>{
      {"sp", "false"},
      {"tp_comm_overlap", "false"},
      {"mtp_num_layers", "0"},
      {"fp8_param_gather", "false"},
      {"peft", "none"},
      {"optimizer_cpu_offload", "false"},
      {"cpu_offloading_num_layers", "0"},
      {"offload_modules", "none"},
      {"cuda_graph_modules", "none"},
      {"ep", "1"},
      {"etp", "1"},
      {"pipeline_layout", "none"},
      {"num_layers_in_first_pipeline_stage", "even split"},
      {"num_layers_in_last_pipeline_stage", "even split"},
      {"account_for_embedding_in_pipeline_split", "false"},
      {"account_for_loss_in_pipeline_split", "false"},
  };
  return *values;
}

// Fields that only qualify another setting (listed when it applies): a
// change of that setting says it, so their appearing or going is no change
// of its own.
bool Qualifies(std::string_view field) {
  static constexpr std::string_view kQualifiers[] = {"vpp",
                                                     "cp_comm_type",
                                                     "hierarchical_context_parallel_sizes",
                                                     "recompute_modules",
                                                     "recompute_method",
                                                     "recompute_num_layers",
                                                     "optimizer_offload_fraction",
                                                     "moe_flex_dispatcher_backend",
                                                     "placement.gpus_per_nvlink_domain",
                                                     "placement.gpus",
                                                     "placement.gpus_per_node"};
  return std::find(std::begin(kQualifiers), std::end(kQualifiers), field) != std::end(kQualifiers);
}

const ResolvedSetting* Find(const std::vector<ResolvedSetting>& list, std::string_view field) {
  for (const ResolvedSetting& s : list) {
    if (s.field == field) return &s;
  }
  return nullptr;
}

void AddSetting(std::vector<ResolvedSetting>* out, std::string field, std::string value) {
  ResolvedSetting s;
  s.field = std::move(field);
  s.value = std::move(value);
  s.source = SettingSource::kUser;
  s.effect = EffectOf(s.field);
  out->push_back(std::move(s));
}

std::string TokensPerGpu(double v) { return WithCommas(std::llround(v)); }

std::string Memory(const PlanEval& p) {
  return absl::StrCat("peak ", HumanGiB(p.memory.peak_bytes), " of ", HumanGiB(p.memory.capacity_bytes));
}

std::string RuleIds(const PlanEval& p) {
  std::vector<std::string> ids;
  for (const Violation& v : p.violations) {
    if (v.severity == Severity::kError && std::find(ids.begin(), ids.end(), v.rule) == ids.end()) ids.push_back(v.rule);
  }
  return ids.empty() ? "its layer split is invalid" : absl::StrCat("breaks ", absl::StrJoin(ids, ", "));
}

std::string ChangeList(const PlanEval& p) { return p.changes.empty() ? "nothing" : absl::StrJoin(p.changes, ", "); }

}  // namespace

std::vector<ResolvedSetting> PlanSettings(const ModelSpec& m, const ResolvedConfig& c, int64_t world,
                                          const SystemSpec& sys) {
  std::vector<ResolvedSetting> all = ListResolvedSettings(c, PlacementOn(sys, world), &m, 0, 0, SettingsScope::kConfig);
  if (!c.pipeline_layout.empty()) AddSetting(&all, "pipeline_layout", CompactLayout(c.pipeline_layout));
  if (c.first_stage_layers > 0) {
    AddSetting(&all, "num_layers_in_first_pipeline_stage", absl::StrCat(c.first_stage_layers));
  }
  if (c.last_stage_layers > 0) {
    AddSetting(&all, "num_layers_in_last_pipeline_stage", absl::StrCat(c.last_stage_layers));
  }
  if (c.account_for_embedding) AddSetting(&all, "account_for_embedding_in_pipeline_split", "true");
  if (c.account_for_loss) AddSetting(&all, "account_for_loss_in_pipeline_split", "true");
  return all;
}

std::vector<std::string> SettingChanges(const std::vector<ResolvedSetting>& from,
                                        const std::vector<ResolvedSetting>& to) {
  std::vector<std::string> out;
  const ResolvedSetting* to_modules = Find(to, "recompute_modules");
  auto compare = [&](const std::string& field, const ResolvedSetting* a, const ResolvedSetting* b) {
    if (field == "dp" || field == "edp") return;
    if ((a == nullptr || b == nullptr) && Qualifies(field)) return;
    const auto absent = AbsentMeans().find(field);
    const std::string none = absent != AbsentMeans().end() ? std::string(absent->second) : "none";
    const std::string before = a != nullptr ? a->value : none;
    std::string after = b != nullptr ? b->value : none;
    if (before == after) return;
    // A switch to selective names its modules (they only qualify it).
    if (field == "recompute_granularity" && after == "selective" && to_modules != nullptr) {
      absl::StrAppend(&after, "(", to_modules->value, ")");
    }
    out.push_back(absl::StrCat(field, " ", before, " -> ", after));
  };
  for (const ResolvedSetting& b : to) compare(b.field, Find(from, b.field), &b);
  for (const ResolvedSetting& a : from) {
    if (Find(to, a.field) == nullptr) compare(a.field, &a, nullptr);
  }
  return out;
}

ResolvedConfig BaseFromCurrent(const ResolvedConfig& current, const ResolvedConfig& fallback) {
  ResolvedConfig base = current;
  if (current.given != nullptr) {
    // What the search varies is its choice in each plan, not the user's.
    auto given = std::make_shared<ParallelConfig>(*current.given);
    given->tp = given->pp = given->vpp = given->cp = given->ep = given->mbs = 0;
    given->etp.reset();
    given->sp.reset();
    given->recompute_granularity.clear();
    given->recompute_modules.clear();
    given->recompute_method.clear();
    given->recompute_num_layers = 0;
    given->pipeline_layout.clear();
    given->first_stage_layers = given->last_stage_layers = 0;
    given->account_for_embedding = given->account_for_loss = false;
    base.given = std::move(given);
  }
  if (base.seq_length <= 0) base.seq_length = fallback.seq_length;
  if (base.gbs <= 0) base.gbs = fallback.gbs;
  return base;
}

bool KeepsConstraints(const ResolvedConfig& c, const SearchConstraints& k, int64_t domain_size) {
  auto pinned = [](int64_t value, int64_t pin) { return pin == 0 || value == pin; };
  if (!pinned(c.tp, k.tp) || !pinned(c.pp, k.pp) || !pinned(std::max<int64_t>(1, c.vpp), k.vpp) ||
      !pinned(c.cp, k.cp) || !pinned(c.ep, k.ep) || !pinned(c.etp, k.etp) || !pinned(c.mbs, k.mbs)) {
    return false;
  }
  if (k.max_pp > 0 && c.pp > k.max_pp) return false;
  if (!k.allow_cp && c.cp > 1) return false;
  if (!k.allow_recompute && c.recompute != RecomputeGranularity::kNone) return false;
  if (k.nvlink_only && (c.tp > domain_size || c.ep * c.etp > domain_size)) return false;
  return true;
}

std::string CurrentComparison(const PlanEval& current, const PlanEval* top, double resolution, Objective objective) {
  const std::string label = PlanLabel(current.config);
  const std::string error = absl::StrFormat("the model's ±%.0f%% between-config error", 100 * resolution);
  std::string problem;
  if (!current.valid) {
    problem =
        absl::StrCat("Your current plan (", label, " on ", current.world, " GPUs) cannot run: ", RuleIds(current), ".");
  } else if (!current.memory.fits) {
    problem =
        absl::StrCat("Your current plan (", label, " on ", current.world, " GPUs) does not fit: ", Memory(current),
                     " (", HumanGiB(-current.memory.headroom_bytes), " over).");
  }
  if (!problem.empty()) {
    if (top == nullptr) return absl::StrCat(problem, " No plan that fixes it was found.");
    return absl::StrCat(problem, " Plan 1 is the least change that fixes it among the plans within ", error,
                        " of the fastest: it changes ", ChangeList(*top), " and predicts ",
                        TokensPerGpu(top->perf.tokens_per_s_per_gpu), " tokens/s/GPU with ", Memory(*top), ".");
  }
  const double before = current.perf.tokens_per_s_per_gpu;
  const std::string now = absl::StrCat(TokensPerGpu(before), " tokens/s/GPU, ", Memory(current));
  if (top == nullptr) {
    return absl::StrCat("Your current plan (", label, ") predicts ", now, "; the search found no plan to compare.");
  }
  if (top->changes.empty()) {
    return absl::StrCat("Keep your current plan (", label, "): it ranks first at ", now,
                        objective == Objective::kHeadroom
                            ? "; no plan within 85% of the fastest leaves more memory free."
                            : absl::StrCat("; no plan that changes it is better by more than ", error, "."));
  }
  const double gain = before > 0 ? top->perf.tokens_per_s_per_gpu / before - 1 : 0;
  std::string out =
      absl::StrCat("Plan 1 changes ", ChangeList(*top), " from your current plan: tokens/s/GPU ", TokensPerGpu(before),
                   " -> ", TokensPerGpu(top->perf.tokens_per_s_per_gpu), absl::StrFormat(" (%+.1f%%, ", 100 * gain),
                   std::fabs(gain) > resolution ? "beyond " : "within ", error, "), peak memory ",
                   HumanGiB(current.memory.peak_bytes), " -> ", HumanGiB(top->memory.peak_bytes), " of ",
                   HumanGiB(top->memory.capacity_bytes), ".");
  if (std::fabs(gain) <= resolution && current.tight && !top->tight) {
    absl::StrAppend(&out, " Your current plan leaves less than the memory reserve free; plan 1 has room.");
  }
  return out;
}

}  // namespace parplan
