// `recommend --from`: the plan the user runs now beside the search's plans.
// What a plan changes from it, by resolved-setting name
// (core/config/resolved_settings.h), the search base it implies, and the
// one sentence that compares it with plan 1.
#ifndef PARPLAN_CORE_SEARCH_CURRENT_PLAN_H_
#define PARPLAN_CORE_SEARCH_CURRENT_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/config/resolved_settings.h"
#include "core/model/model_spec.h"
#include "core/search/search_types.h"
#include "core/system/system_spec.h"

namespace parplan {

// The settings of `config` on `world` GPUs of `system` as answers list them
// (ListResolvedSettings) without the derived DP and EDP, plus the pipeline
// split fields that list leaves out (pipeline_layout,
// num_layers_in_first/last_pipeline_stage,
// account_for_embedding/loss_in_pipeline_split) when set.
std::vector<ResolvedSetting> PlanSettings(const ModelSpec& model, const ResolvedConfig& config, int64_t world,
                                          const SystemSpec& system);

// What `to` changes from `from`, one entry per field whose value differs:
// "tp 4 -> 8", "recompute_granularity none -> selective(mlp)". A field only
// one side lists is compared with the value its absence means (sp false,
// vpp none, optimizer_cpu_offload false, ...); one that only qualifies
// another (recompute_modules beside a granularity change, vpp beside a PP
// change, cp_comm_type beside a CP change) is left out then. `to`'s order,
// then fields only `from` lists.
std::vector<std::string> SettingChanges(const std::vector<ResolvedSetting>& from,
                                        const std::vector<ResolvedSetting>& to);

// The search's base with `current`: its settings, with `fallback`'s
// sequence length and global batch where it has none (0). The settings the
// search varies (mesh, MBS, SP, recompute, pipeline split) are no longer
// marked given, so each plan's resolved settings name them as the
// search's choice.
ResolvedConfig BaseFromCurrent(const ResolvedConfig& current, const ResolvedConfig& fallback);

// True when `config` keeps the request's pins and limits (TP, PP, VPP, CP,
// EP, ETP, MBS, max PP, CP allowed, recompute allowed, TP and EP*ETP inside
// an NVLink domain of `domain_size` GPUs when nvlink_only).
bool KeepsConstraints(const ResolvedConfig& config, const SearchConstraints& constraints, int64_t domain_size);

// The sentence of SearchResult::current_comparison: what plan 1 (`top`,
// null when nothing was found; its `changes` filled) changes from
// `current` and what it gains (tokens/s/GPU and peak memory before -> after,
// against the model's `resolution`, its between-config error), or that the
// current plan is as good within that error; for a current plan that is
// invalid (its rule ids) or does not fit (peak vs HBM), why, and that plan 1
// is the least change among the plans within the error of the fastest.
// Under kHeadroom a current plan ranked first is said to leave the most
// memory free instead.
std::string CurrentComparison(const PlanEval& current, const PlanEval* top, double resolution, Objective objective);

}  // namespace parplan

#endif  // PARPLAN_CORE_SEARCH_CURRENT_PLAN_H_
