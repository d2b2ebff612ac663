#include "server/api/recommend_api.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/memory/memory_margin.h"
#include "core/resolve/model_resolve.h"
#include "core/render/render.h"
#include "core/search/recommender.h"
#include "core/util/field_error.h"
#include "core/perf/uncertainty.h"
#include "core/search/candidate_space.h"
#include "core/util/text.h"
#include "server/api/answer_defaults.h"
#include "core/system/racks.h"
#include "server/api/calibration_convert.h"
#include "server/api/convert.h"
#include "server/api/resolve_request.h"
#include "core/util/limits.h"

namespace parplan {
namespace api {
namespace {

// What every plan of one answer shares: how far to trust its step time,
// and whether its global batch was defaulted per plan (its DP's default).
struct PlanContext {
  Uncertainty uncertainty;
  bool gbs_per_plan = false;
  const v1::Placement* placement = nullptr;  // the request's: system and its figures
};

void ToPlanSummary(const PlanEval& p, int rank, const ModelSpec& model, const SystemSpec& system,
                   const PlanContext& context, v1::PlanSummary* out) {
  out->set_rank(rank);
  out->set_label(PlanLabel(p.config));
  ToResolvedConfig(p.config, out->mutable_config());
  out->set_gpus(p.world);
  // The plan's placement, whole: asked with it, every other method
  // answers for the same ranks on the same domains.
  v1::Placement* placement = out->mutable_placement();
  placement->set_system(context.placement->system());
  placement->set_gpus_per_node(context.placement->gpus_per_node());
  // One spelling whichever way the request gave the node size (placement
  // or its system_spec), so every door's plan carries the same placement.
  if (context.placement->system_spec().ByteSizeLong() > 0) {
    *placement->mutable_system_spec() = context.placement->system_spec();
    if (placement->system_spec().has_gpus_per_node()) {
      placement->set_gpus_per_node(placement->system_spec().gpus_per_node());
      placement->mutable_system_spec()->clear_gpus_per_node();
    }
  }
  placement->set_gpus(p.world);
  placement->set_gpus_per_nvlink_domain(static_cast<int32_t>(p.gpus_per_nvlink_domain));
  out->set_dp(p.dp);
  out->set_edp(p.edp);
  out->set_valid(p.valid);
  for (const auto& v : p.violations) ToViolation(v, out->add_violations());
  for (const auto& r : p.reasons) out->add_reasons(r);
  for (const auto& c : p.changes) out->add_changes(c);
  if (!p.valid) return;
  out->set_fits(p.memory.fits);
  out->set_tight(p.tight);
  out->set_memory_peak_bytes(std::llround(p.memory.peak_bytes));
  out->set_memory_capacity_bytes(std::llround(p.memory.capacity_bytes));
  out->set_headroom_bytes(std::llround(p.memory.headroom_bytes));
  out->set_peak_pp_rank(static_cast<int32_t>(p.memory.peak_pp_rank));
  out->set_step_time_s(p.perf.step_time_s);
  out->set_tokens_per_s_per_gpu(p.perf.tokens_per_s_per_gpu);
  out->set_model_tflops_per_gpu(p.perf.model_tflops_per_gpu);
  out->set_mfu(p.perf.mfu);
  out->set_peak_tflops(p.perf.peak_tflops);
  out->set_uncertainty(context.uncertainty.median);
  out->set_uncertainty_p90(context.uncertainty.p90);
  out->set_uncertainty_basis(context.uncertainty.basis);
  out->add_reasons(MfuStatement(p.perf.mfu, p.perf.peak_tflops, p.config.precision));
  out->add_reasons(absl::StrCat("Uncertainty of the step time ", context.uncertainty.basis));
  if (context.gbs_per_plan) out->add_reasons(GlobalBatchNote(p.config, p.dp, p.config.gbs));
  ToPerformanceBreakdown(p.perf.breakdown, out->mutable_breakdown());
  SystemSpec placed = system;
  placed.nvlink_domain_used = static_cast<int>(p.gpus_per_nvlink_domain);
  out->set_bridge_overrides(parplan::RenderConfig(p.config, &model, PlacementOn(placed, p.world)).bridge_python);
}

absl::StatusOr<Objective> ParseObjective(const std::string& text, bool find_min_gpus) {
  if (text.empty()) return find_min_gpus ? Objective::kFewestGpus : Objective::kThroughput;
  if (text == "throughput") return Objective::kThroughput;
  if (text == "fewest-gpus" || text == "fewest_gpus") return Objective::kFewestGpus;
  if (text == "headroom") return Objective::kHeadroom;
  return FieldError("objective", absl::StrCat("objective = \"", text, "\" is not known; allowed ",
                                              absl::StrJoin(ObjectiveNames(), ", ")));
}

}  // namespace

absl::Status Recommend(const v1::RecommendRequest& request, v1::RecommendResponse* response, absl::Time deadline) {
  FieldErrors errors;
  if (!HasModel(request.model())) errors.Add("model", "Recommend needs a model (id, spec, hf_config_json or size)");
  if (request.placement().system().empty() && request.placement().system_spec().gpu_arch().empty()) {
    errors.Add(
        "placement.system",
        "Recommend needs a system (peaks, memory, links): a catalog id (e.g. h100-sxm) or system_spec with gpu_arch");
  }
  errors.CheckRange("min_gpus", request.min_gpus(), 0, kMaxGpus);
  errors.CheckRange("max_gpus", request.max_gpus(), 0, kMaxGpus);
  errors.CheckRange("top_k", request.top_k(), 0, kMaxTopK);
  errors.CheckRange("max_candidates", request.max_candidates(), 0, kMaxCandidates);
  errors.CheckRange("current_gpus", request.current_gpus(), 0, kMaxGpus);
  errors.CheckRange("constraints.max_pp", request.constraints().max_pp(), 0, kMaxSearchPp);
  const double reserve =
      MemoryReserveOf(request.has_memory_reserve(), request.memory_reserve(), "memory_reserve", &errors);
  if (request.placement().gpus() > 0 && (request.find_min_gpus() || request.min_gpus() > 0 || request.max_gpus() > 0)) {
    errors.Add("placement.gpus", "give either placement.gpus or find_min_gpus / min_gpus..max_gpus, not both");
  }
  if (request.placement().gpus() == 0 && !request.find_min_gpus() && request.max_gpus() == 0) {
    errors.Add("placement.gpus", "no GPU count: set placement.gpus, find_min_gpus, or a min_gpus..max_gpus range");
  }
  if (!errors.empty()) return errors.ToStatus();
  auto objective = ParseObjective(request.objective(), request.find_min_gpus());
  if (!objective.ok()) return objective.status();

  Resolved r;
  if (absl::Status s = Resolve(&request.model(), request.placement(), request.config(), &r); !s.ok()) return s;
  auto assumed = CompleteForEstimate(&*r.model, "model");
  if (!assumed.ok()) return assumed.status();
  for (const auto& a : *assumed) response->add_reasons(absl::StrCat("Model field assumed (plans approximate): ", a));
  if (r.config.seq_length <= 0) return FieldError("config.seq_length", "no sequence length: set config.seq_length");

  SearchRequest q;
  q.model = &*r.model;
  q.system = *r.placement.system;
  q.gpus = request.placement().gpus();
  // GPUs per NVLink domain: as resolved (given, or the even split of one
  // world); a range of worlds gets each world's even split in the search.
  q.find_min_gpus = request.find_min_gpus();
  q.min_gpus = request.min_gpus();
  q.max_gpus = request.max_gpus();
  q.base = r.config;
  q.base.gbs = request.config().gbs();
  const v1::ParallelConfig& pins = request.config();
  q.constraints.tp = pins.tp();
  q.constraints.pp = pins.pp();
  q.constraints.vpp = pins.vpp();
  q.constraints.cp = pins.cp();
  q.constraints.ep = pins.ep();
  q.constraints.etp = pins.has_etp() ? pins.etp() : 0;
  q.constraints.mbs = pins.mbs();
  q.constraints.max_pp = request.constraints().max_pp();
  q.constraints.allow_cp = !request.constraints().no_cp();
  q.constraints.allow_recompute = !request.constraints().no_recompute();
  q.constraints.recompute_pinned = !pins.recompute_granularity().empty();
  q.constraints.nvlink_only = request.constraints().nvlink_only();
  q.objective = *objective;
  q.top_k = request.top_k() > 0 ? request.top_k() : 5;
  q.max_candidates = request.max_candidates() > 0 ? request.max_candidates() : kDefaultCandidates;
  q.deadline = deadline;
  q.memory_reserve = reserve;
  std::string calibration_said;
  const PerfParams params = ParamsForRequest(request.calibration(), q.system, &calibration_said);
  if (HasCalibration(request.calibration())) q.params = &params;
  if (request.has_current()) {
    // The user's plan: the same model and placement, its own settings.
    Resolved current;
    if (absl::Status st = Resolve(&request.model(), request.placement(), request.current(), &current); !st.ok()) {
      // Resolve names the config's fields "config.*": here they are the current plan's.
      const std::vector<FieldViolation> violations = FieldViolationsOf(st);
      if (violations.empty()) return st;
      FieldErrors renamed;
      for (const FieldViolation& v : violations) {
        const bool of_config = absl::StartsWith(v.field, "config.");
        renamed.Add(of_config ? absl::StrCat("current.", v.field.substr(7)) : v.field,
                    of_config ? absl::StrReplaceAll(v.description, {{"config.", "current."}}) : v.description);
      }
      return renamed.ToStatus();
    }
    q.current = current.config;
    q.current_gpus = request.current_gpus();
  }

  auto result = parplan::Recommend(q);
  if (!result.ok()) return result.status();
  const SearchResult& s = *result;
  ToModelSummary(*r.model, response->mutable_model());
  if (!r.config.seq_length_note.empty()) response->add_reasons(r.config.seq_length_note);
  for (const auto& n : r.placement.notes) response->add_reasons(n);
  if (q.system.hbm_gb > 0) response->add_reasons(ReserveStatement(q.system.hbm_gb * kGiB, reserve));
  PlanContext context;
  context.placement = &request.placement();
  context.uncertainty = PerfUncertainty(*r.model, q.system, CalibratedUncertainty());
  // The batch when none is given: one per world (SearchGlobalBatch) while
  // the world is small enough, else each plan's own DP default.
  const int64_t world = s.plans.empty() ? 0 : s.plans.front().world;
  const int64_t shared_gbs = world > 0 ? SearchGlobalBatch(q.base.seq_length, world) : 0;
  context.gbs_per_plan = request.config().gbs() == 0 && shared_gbs == 0;
  // The resolved plan of plan 1 (of the request's base when nothing is
  // feasible): the search's choices marked as such.
  {
    ResolvedConfig listed = s.plans.empty() ? r.config : s.plans.front().config;
    ResolvedPlacement placed = r.placement;
    int64_t dp = 0, edp = 0;
    if (!s.plans.empty()) {
      placed.gpus = s.plans.front().world;
      placed.gpus_per_nvlink_domain = s.plans.front().gpus_per_nvlink_domain;
      if (placed.system.has_value() && !placed.gpus_per_nvlink_domain_given && placed.gpus != r.placement.gpus) {
        // A range search: this world's even split (core/search SystemFor).
        SystemSpec even = *r.placement.system;
        even.nvlink_domain_used = 0;
        placed.domain_use_reason = ChooseDomainUse(placed.gpus, &even);
      }
      dp = s.plans.front().dp;
      edp = s.plans.front().edp;
    }
    const std::vector<ResolvedSetting> settings =
        FillResolvedPlan(listed, placed, &*r.model, dp, edp, SettingsScope::kSearch, response);
    for (const auto& w : EffectWarnings(settings)) response->add_reasons(absl::StrCat("Warning: ", w, "."));
  }
  if (request.config().gbs() == 0 && world > 0) {
    response->add_defaults(
        shared_gbs > 0
            ? absl::StrCat("gbs = ", WithCommas(shared_gbs),
                           " (not given: ", WithCommas(shared_gbs * q.base.seq_length),
                           " tokens per step, the multiple of the world (", WithCommas(world),
                           " GPUs) nearest 4M tokens, so every plan runs the same batch and every DP divides it)")
            : absl::StrCat("gbs: per plan (not given; ", WithCommas(world),
                           " GPUs are more than 4M tokens / seq_length, so each plan takes the multiple of its MBS x "
                           "DP nearest 4M tokens, at most 16M; each plan's reasons state its batch)"));
  }
  if (request.objective().empty()) {
    response->add_defaults(
        absl::StrCat("objective = ", request.find_min_gpus() ? "fewest-gpus" : "throughput", " (not given)"));
  }
  if (request.top_k() == 0) response->add_defaults("top_k = 5 (not given)");
  if (!request.has_memory_reserve())
    response->add_defaults(absl::StrFormat("memory_reserve = %.2f (not given)", reserve));
  response->set_feasible(s.feasible);
  response->set_infeasible_reason(s.infeasible_reason);
  int rank = 1;
  for (const PlanEval& p : s.plans) ToPlanSummary(p, rank++, *r.model, q.system, context, response->add_plans());
  if (s.starting_point.has_value()) {
    ToPlanSummary(*s.starting_point, 0, *r.model, q.system, context, response->mutable_starting_point());
  }
  response->set_starting_point_comparison(s.starting_point_comparison);
  if (s.current.has_value()) ToPlanSummary(*s.current, 0, *r.model, q.system, context, response->mutable_current());
  response->set_current_comparison(s.current_comparison);
  if (!s.current_comparison.empty()) response->add_reasons(s.current_comparison);
  if (!calibration_said.empty()) {
    response->set_calibration(calibration_said);
    response->add_reasons(calibration_said);
  }
  auto* rej = response->mutable_rejected();
  rej->set_invalid(s.rejected.invalid);
  rej->set_does_not_fit(s.rejected.does_not_fit);
  rej->set_dominated(s.rejected.dominated);
  if (s.rejected.best_invalid)
    ToPlanSummary(*s.rejected.best_invalid, 0, *r.model, q.system, context, rej->mutable_best_invalid());
  if (s.rejected.best_not_fitting) {
    ToPlanSummary(*s.rejected.best_not_fitting, 0, *r.model, q.system, context, rej->mutable_best_not_fitting());
  }
  if (s.rejected.best_dominated) {
    ToPlanSummary(*s.rejected.best_dominated, 0, *r.model, q.system, context, rej->mutable_best_dominated());
  }
  response->set_candidates(s.candidates);
  response->set_evaluated(s.evaluated);
  for (int64_t w : s.worlds_searched) response->add_worlds_searched(w);
  response->set_truncated(s.truncated);
  response->set_truncated_reason(s.truncated_reason);
  for (const auto& line : s.reasons) response->add_reasons(line);
  if (!s.plans.empty()) response->set_gbs(s.plans.front().config.gbs);
  response->set_seq_length(static_cast<int32_t>(q.base.seq_length));
  return absl::OkStatus();
}

}  // namespace api
}  // namespace parplan
