#include "server/api/planner_api.h"

#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/catalog/catalog.h"
#include "core/compare/predict_run.h"
#include "core/compare/suggest_changes.h"
#include "core/layout/rank_layout.h"
#include "core/memory/memory_margin.h"
#include "core/memory/memory_planner.h"
#include "core/memory/memory_root_cause.h"
#include "core/perf/perf_model.h"
#include "core/perf/uncertainty.h"
#include "core/mesh/mesh.h"
#include "core/resolve/model_resolve.h"
#include "core/render/render.h"
#include "core/rules/validate.h"
#include "core/search/memory_fixes.h"
#include "core/search/split_repair.h"
#include "core/system/racks.h"
#include "core/util/field_error.h"
#include "core/util/text.h"
#include "server/api/answer_defaults.h"
#include "server/api/calibration_convert.h"
#include "server/api/convert.h"
#include "server/api/resolve_request.h"
#include "core/util/limits.h"

namespace parplan {
namespace api {

absl::Status ListModels(const v1::ListModelsRequest& request, v1::ListModelsResponse* response) {
  if (static_cast<int64_t>(request.filter().size()) > kMaxNameChars) {
    return FieldError("filter", absl::StrCat("filter longer than ", kMaxNameChars, " characters"));
  }
  const std::string filter = NormalizeName(request.filter());
  for (const auto& m : Catalog::Get().models()) {
    bool match = filter.empty();
    for (const std::string& name : {m.id, m.name, m.hf_id}) {
      if (!match && NormalizeName(name).find(filter) != std::string::npos) match = true;
    }
    for (const auto& a : m.aliases) {
      if (!match && NormalizeName(a).find(filter) != std::string::npos) match = true;
    }
    if (match) ToModelSummary(m, response->add_models());
  }
  return absl::OkStatus();
}

absl::Status GetModel(const v1::GetModelRequest& request, v1::GetModelResponse* response) {
  auto model = ResolveModel(ToModelSource(request.model()), "model");
  if (!model.ok()) return model.status();
  ToModelInfo(*model, response->mutable_model());
  return absl::OkStatus();
}

absl::Status ListSystems(const v1::ListSystemsRequest&, v1::ListSystemsResponse* response) {
  for (const auto& s : Catalog::Get().systems()) ToSystemInfo(s, response->add_systems());
  return absl::OkStatus();
}

absl::Status GetSystem(const v1::GetSystemRequest& request, v1::GetSystemResponse* response) {
  if (absl::Status s = CheckSystemSpecSpellings(request.system_spec(), "system_spec"); !s.ok()) return s;
  SystemRef ref;
  ref.id = request.system();
  ref.figures = ToSystemFigures(request.system_spec());
  auto system = ResolveSystem(ref, "system", "system_spec");
  if (!system.ok()) return system.status();
  ToSystemInfo(system->spec, response->mutable_system());
  for (const auto& note : system->notes) response->mutable_system()->add_notes(note);
  return absl::OkStatus();
}

absl::Status MinGpus(const v1::MinGpusRequest& request, v1::MinGpusResponse* response) {
  if (request.num_next_world_sizes() < 0 || request.num_next_world_sizes() > kMaxNextWorldSizes) {
    return FieldError("num_next_world_sizes",
                      absl::StrCat("num_next_world_sizes = ", request.num_next_world_sizes(),
                                   " is out of range; allowed 0..", kMaxNextWorldSizes, " (0 = 5)"));
  }
  Resolved r;
  if (absl::Status s = Resolve(&request.model(), request.placement(), request.config(), &r); !s.ok()) return s;
  const MeshDims dims = MeshOf(r.config);
  const MinGpusResult min = ComputeMinGpus(dims);
  response->set_min_gpus(min.min_gpus);
  response->set_naive_product(min.naive_product);
  response->set_dense_mesh(min.dense_mesh);
  response->set_expert_mesh(min.expert_mesh);
  response->set_world_size_step(min.step);
  response->set_etp(static_cast<int32_t>(r.config.etp));
  const int count = request.num_next_world_sizes() > 0 ? request.num_next_world_sizes() : 5;
  const int64_t from = r.placement.gpus > 0 ? r.placement.gpus : min.min_gpus;
  for (int64_t w : NextValidWorldSizes(dims, from, count, r.config.gbs, r.config.mbs)) {
    response->add_next_valid_world_sizes(w);
  }
  for (const auto& reason : min.reasons) response->add_reasons(reason);
  if (r.placement.gpus > 0) {
    const WorldSizing w = SizeWorld(dims, r.placement.gpus, r.placement.gpus_per_node, r.config.gbs, r.config.mbs);
    ToWorldSizing(w, response->mutable_world());
    if (w.dp > 0 && w.edp > 0) {
      // EDP only where an expert mesh is in play (not for a dense model at EP = 1).
      response->add_reasons(absl::StrCat(
          w.gpus, " GPUs: DP=", w.dp, " (", w.gpus, "/(TP*PP*CP))",
          ExpertMeshInPlay(dims) ? absl::StrCat(", EDP=", w.edp, " (", w.gpus, "/(PP*EP*ETP))") : std::string(),
          w.nodes > 0 ? absl::StrCat(", ", w.nodes, " node(s) of ", w.gpus_per_node) : std::string(),
          w.microbatches > 0 ? absl::StrCat(", ", w.microbatches, " microbatches") : std::string(), "."));
    }
    for (const auto& p : w.problems) response->add_reasons(absl::StrCat("Not valid: ", p, "."));
  }
  for (const auto& note : r.config.notes) response->add_reasons(note);
  const WorldSizing sized = SizeWorld(dims, r.placement.gpus, 0, 0, 0);
  FillResolvedPlan(r.config, r.placement, r.model_ptr(), sized.dp, sized.edp, SettingsScope::kConfig, response);
  if (r.model.has_value()) {
    ToModelSummary(*r.model, response->mutable_model());
    const ValidationResult v = ValidateResolved(r);
    for (const auto& violation : v.violations) {
      if (violation.severity != Severity::kInfo) ToViolation(violation, response->add_violations());
    }
  }
  return absl::OkStatus();
}

absl::Status Validate(const v1::ValidateRequest& request, v1::ValidateResponse* response) {
  Resolved r;
  if (absl::Status s = Resolve(&request.model(), request.placement(), request.config(), &r); !s.ok()) return s;
  const ValidationResult v = ValidateResolved(r);
  response->set_valid(v.valid);
  response->set_errors(v.errors);
  response->set_warnings(v.warnings);
  response->set_infos(v.infos);
  ToViolations(v.violations, response->mutable_violations());
  if (r.model.has_value()) ToModelSummary(*r.model, response->mutable_model());
  ToResolvedConfig(r.config, response->mutable_resolved_config());
  if (v.stages.has_value()) {
    response->mutable_resolved_config()->set_vpp(static_cast<int32_t>(v.stages->vpp));
    ToStageLayers(*v.stages, response->mutable_stages());
  }
  response->set_min_gpus(v.min_gpus.min_gpus);
  if (v.world.has_value()) ToWorldSizing(*v.world, response->mutable_world());
  for (const auto& reason : v.reasons) response->add_reasons(reason);
  ResolvedConfig listed = r.config;
  if (v.stages.has_value()) listed.vpp = v.stages->vpp;
  FillResolvedPlan(listed, r.placement, r.model_ptr(), v.world.has_value() ? v.world->dp : 0,
                   v.world.has_value() ? v.world->edp : 0, SettingsScope::kConfig, response);
  if (r.model.has_value() && !v.stages.has_value()) {
    if (const auto repair = NearestValidSplit(*r.model, r.config); repair.has_value()) {
      ToSplitRepair(*repair, response->mutable_nearest_valid_split());
      response->add_reasons(absl::StrCat("Nearest valid split: ", repair->change, " (CLI: ", repair->cli_flags,
                                         "); memory and perf estimate with it."));
    }
  }
  return absl::OkStatus();
}

absl::Status ExplainLayout(const v1::ExplainLayoutRequest& request, v1::ExplainLayoutResponse* response) {
  FieldErrors errors;
  if (request.placement().gpus() <= 0) {
    errors.Add("placement.gpus", "ExplainLayout needs the world size: set placement.gpus (1..1048576)");
  }
  errors.CheckRange("max_ranks", request.max_ranks(), 0, kMaxRanksListed);
  errors.CheckRange("max_groups", request.max_groups(), 0, kMaxGroupsListed);
  if (!errors.empty()) return errors.ToStatus();
  Resolved r;
  if (absl::Status s = Resolve(&request.model(), request.placement(), request.config(), &r); !s.ok()) return s;
  const MeshDims dims = MeshOf(r.config);
  const int64_t world = r.placement.gpus;
  if (request.has_rank() && (request.rank() < 0 || request.rank() >= world)) {
    return FieldError("rank", absl::StrCat("rank = ", request.rank(), " is out of range; allowed 0..", world - 1));
  }
  response->set_world_size(world);
  response->set_order("tp-cp-ep-dp-pp");
  response->set_gpus_per_node(static_cast<int32_t>(r.placement.gpus_per_node));
  response->set_nvlink_domain_size(static_cast<int32_t>(r.placement.nvlink_domain_size));
  response->set_gpus_per_nvlink_domain(static_cast<int32_t>(r.placement.gpus_per_nvlink_domain));
  const WorldSizing w = SizeWorld(dims, world, r.placement.gpus_per_node, 0, 1);
  if (w.dp == 0 || w.edp == 0) {
    const ValidationResult v = ValidateResolved(r);
    for (const auto& violation : v.violations) {
      if (violation.severity == Severity::kError) ToViolation(violation, response->add_violations());
    }
    for (const auto& p : w.problems) response->add_reasons(absl::StrCat("No layout: ", p, "."));
    response->add_reasons(absl::StrCat("Valid world sizes are multiples of ", ComputeMinGpus(dims).min_gpus, "."));
    return absl::OkStatus();
  }
  FillResolvedPlan(r.config, r.placement, r.model_ptr(), w.dp, w.edp, SettingsScope::kConfig, response);
  const RankLayout layout(dims, world);
  // Ranks fill the used GPUs of each domain (core/system/racks.h): the
  // blocks the warnings and the performance model use too.
  const int64_t domain = r.placement.gpus_per_nvlink_domain;
  const int64_t node = r.placement.nvlink_domain_size == r.placement.gpus_per_node ? domain : r.placement.gpus_per_node;
  if (domain > 0) response->set_nvlink_domains((world + domain - 1) / domain);
  const bool expert =
      dims.ep > 1 || (!r.config.etp_defaulted && dims.etp > 1) || (r.model.has_value() && r.model->is_moe());
  const int max_groups = request.max_groups() > 0 ? request.max_groups() : 4;
  // Example groups list at most 65,536 ranks in all, so answers stay well under
  // the message limit even for a million-GPU world.
  const int64_t ranks_per_example =
      std::max<int64_t>(16, std::min<int64_t>(kMaxRanksPerGroupListed, kMaxLayoutAnswerRanks / (9 * max_groups)));
  const int64_t max_ranks = request.max_ranks() > 0 ? request.max_ranks() : 64;
  for (GroupKind kind : kAllGroupKinds) {
    const bool is_expert_kind = kind == GroupKind::kEp || kind == GroupKind::kEtp || kind == GroupKind::kEdp;
    if (is_expert_kind && !expert) continue;
    v1::GroupKindSummary* g = response->add_groups();
    g->set_kind(GroupKindName(kind));
    g->set_megatron_group(MegatronGroupName(kind));
    g->set_size(layout.GroupSize(kind));
    g->set_count(layout.GroupCount(kind));
    g->set_crossing_node(node > 0 ? layout.CountCrossing(kind, node) : 0);
    g->set_crossing_nvlink_domain(domain > 0 ? layout.CountCrossing(kind, domain) : 0);
    const int64_t examples = std::min<int64_t>(max_groups, layout.GroupCount(kind));
    for (int64_t i = 0; i < examples; ++i) {
      v1::RankGroup* rg = g->add_examples();
      for (int64_t rank : layout.Group(kind, i, ranks_per_example)) rg->add_ranks(rank);
      const auto span = layout.GroupSpan(kind, i);
      rg->set_crosses_node(node > 0 && span.first / node != span.second / node);
      rg->set_crosses_nvlink_domain(domain > 0 && span.first / domain != span.second / domain);
    }
    if (g->size() > 1) {
      g->set_note(absl::StrCat(
          g->count(), " group(s) of ", g->size(), " ranks",
          g->size() > ranks_per_example ? absl::StrCat(" (examples list the first ", ranks_per_example, ")")
                                        : std::string(),
          node > 0 ? absl::StrCat("; ", g->crossing_node(), " cross a node") : std::string(),
          domain > 0 && domain != node ? absl::StrCat("; ", g->crossing_nvlink_domain(), " cross an NVLink domain")
                                       : std::string()));
    }
  }
  auto placement_of = [&](int64_t rank, v1::RankPlacement* p) {
    const RankCoords c = layout.Coords(rank);
    p->set_rank(rank);
    p->set_node(node > 0 ? rank / node : 0);
    p->set_local_gpu(static_cast<int32_t>(node > 0 ? rank % node : rank));
    p->set_tp(c.tp);
    p->set_cp(c.cp);
    p->set_dp(c.dp);
    p->set_pp(c.pp);
    p->set_ep(c.ep);
    p->set_etp(c.etp);
    p->set_edp(c.edp);
  };
  const int64_t listed = std::min<int64_t>(max_ranks, world);
  for (int64_t rank = 0; rank < listed; ++rank) placement_of(rank, response->add_ranks());
  response->set_ranks_truncated(listed < world);
  if (request.has_rank()) {
    placement_of(request.rank(), response->mutable_rank_detail());
    for (const auto& g : response->groups()) {
      for (GroupKind kind : kAllGroupKinds) {
        if (GroupKindName(kind) != g.kind()) continue;
        v1::RankGroup* rg = response->add_rank_groups();
        const int64_t index = layout.GroupIndexOfRank(kind, request.rank());
        for (int64_t rank : layout.Group(kind, index, kMaxRanksPerGroupListed)) rg->add_ranks(rank);
        const auto span = layout.GroupSpan(kind, index);
        rg->set_crosses_node(node > 0 && span.first / node != span.second / node);
        rg->set_crosses_nvlink_domain(domain > 0 && span.first / domain != span.second / domain);
      }
    }
  }
  response->add_reasons(absl::StrCat("Rank order tp-cp-ep-dp-pp (Megatron-Core default): TP groups are ", dims.tp,
                                     " consecutive ranks, then CP, then DP; PP stages are the slowest dimension (",
                                     world / dims.pp, " ranks per stage)."));
  response->add_reasons(absl::StrCat("Dense grid TP=", dims.tp, " CP=", dims.cp, " DP=", w.dp, " PP=", dims.pp,
                                     expert ? absl::StrCat("; expert grid ETP=", dims.etp, " EP=", dims.ep,
                                                           " EDP=", w.edp, " PP=", dims.pp, " on the same ranks")
                                            : std::string(),
                                     "."));
  for (const auto& g : response->groups()) {
    if ((g.kind() == "tp" || g.kind() == "ep" || g.kind() == "cp") && g.crossing_nvlink_domain() > 0) {
      response->add_reasons(absl::StrCat(
          g.crossing_nvlink_domain(), " of ", g.count(), " ", g.kind(), " groups leave the NVLink domain (",
          domain == r.placement.nvlink_domain_size
              ? absl::StrCat(domain, " GPUs")
              : absl::StrCat(domain, " of its ", r.placement.nvlink_domain_size, " GPUs used"),
          "): their collectives use the scale-out network."));
    }
  }
  if (r.placement.system.has_value()) {
    const std::string use = DescribeDomainUse(*r.placement.system, world);
    if (!use.empty()) response->add_reasons(use);
  }
  if (node == 0) response->add_reasons("No system or gpus_per_node given: node placement unknown (node = 0).");
  if (r.model.has_value()) {
    const ValidationResult v = ValidateResolved(r);
    if (v.stages.has_value()) ToStageLayers(*v.stages, response->mutable_stages());
    for (const auto& violation : v.violations) {
      if (violation.severity == Severity::kError) ToViolation(violation, response->add_violations());
    }
  }
  return absl::OkStatus();
}

absl::Status RenderConfig(const v1::RenderConfigRequest& request, v1::RenderConfigResponse* response) {
  Resolved r;
  if (absl::Status s = Resolve(&request.model(), request.placement(), request.config(), &r); !s.ok()) return s;
  const ValidationResult v = ValidateResolved(r);
  ResolvedConfig config = r.config;
  if (v.stages.has_value()) config.vpp = v.stages->vpp;
  const std::vector<ResolvedSetting> settings =
      FillResolvedPlan(config, r.placement, r.model_ptr(), v.world.has_value() ? v.world->dp : 0,
                       v.world.has_value() ? v.world->edp : 0, SettingsScope::kConfig, response);
  // Benchmark-only settings are warned by render's own notes (core/render), in its words.
  std::vector<ResolvedSetting> beyond_benchmark;
  for (const auto& s : settings) {
    if (s.effect != EffectClass::kBenchmark) beyond_benchmark.push_back(s);
  }
  for (const auto& w : EffectWarnings(beyond_benchmark)) response->add_notes(absl::StrCat("Warning: ", w, "."));
  response->set_valid(v.valid);
  for (const auto& violation : v.violations) {
    if (violation.severity != Severity::kInfo) ToViolation(violation, response->add_violations());
  }
  // Never write a config Megatron would refuse: an invalid one gets its
  // violations and fixes, not a launchable config.
  if (!v.valid) {
    response->add_notes(
        "Not rendered: the config breaks Megatron's rules (see violations and their fixes); fix them and render "
        "again.");
    for (const auto& n : r.config.notes) response->add_notes(n);
    return absl::OkStatus();
  }
  const RenderedConfig out = parplan::RenderConfig(config, r.model_ptr(), r.placement);
  response->set_bridge_python(out.bridge_python);
  response->set_bridge_cli(out.bridge_cli);
  response->set_megatron_lm_args(out.megatron_lm_args);
  response->set_slurm_header(out.slurm_header);
  for (const auto& n : out.notes) response->add_notes(n);
  for (const auto& n : r.config.notes) response->add_notes(n);
  return absl::OkStatus();
}

namespace {

// What the memory and performance answers open with: the model, the config
// as given, its errors and, when the estimate used one, the nearest valid
// split with the reason saying so.
template <typename Response>
void FillEstimateHead(const Resolved& r, const SplitAwareAnswer& split, Response* response) {
  ToModelSummary(*r.model, response->mutable_model());
  ToResolvedConfig(r.config, response->mutable_resolved_config());
  for (const auto& v : split.as_given.violations) {
    if (v.severity == Severity::kError) ToViolation(v, response->add_violations());
  }
  if (split.repair.has_value()) {
    ToSplitRepair(*split.repair, response->mutable_nearest_valid_split());
    response->add_reasons(RepairReason(*split.repair, split.as_given));
  }
}

}  // namespace

absl::Status EstimateMemory(const v1::EstimateMemoryRequest& request, v1::EstimateMemoryResponse* response) {
  FieldErrors errors;
  if (!HasModel(request.model()))
    errors.Add("model", "EstimateMemory needs a model (id, spec, hf_config_json or size)");
  if (request.has_overhead_gib() && !(request.overhead_gib() >= 0 && request.overhead_gib() <= kMaxOverheadGib)) {
    errors.Add("overhead_gib", absl::StrCat("overhead_gib = ", request.overhead_gib(), " is out of range; allowed 0..",
                                            kMaxOverheadGib));
  }
  errors.CheckRange("max_suggestions", request.max_suggestions(), 0, kMaxSuggestions);
  const double reserve =
      MemoryReserveOf(request.has_memory_reserve(), request.memory_reserve(), "memory_reserve", &errors);
  if (!errors.empty()) return errors.ToStatus();
  Resolved r;
  if (absl::Status s = Resolve(&request.model(), request.placement(), request.config(), &r); !s.ok()) return s;
  auto assumed = CompleteForEstimate(&*r.model, "model");
  if (!assumed.ok()) return assumed.status();
  for (const auto& a : *assumed)
    response->add_assumptions(absl::StrCat("Model field assumed (estimate approximate): ", a));
  if (!r.config.seq_length_note.empty()) response->add_reasons(r.config.seq_length_note);
  ResolveWorldAndBatch(&r.config, &r.placement);
  for (const auto& n : r.placement.notes) response->add_assumptions(n);
  if (!r.config.gbs_note.empty()) response->add_reasons(r.config.gbs_note);
  MemoryOptions options;
  if (request.has_overhead_gib()) options.overhead_gib = request.overhead_gib();
  const SplitAwareAnswer split = AnswerMemoryOrNearestSplit(*r.model, r.config, r.placement, options);
  const MemoryAnswer& a = split.answer;
  FillEstimateHead(r, split, response);
  if (!a.estimate.has_value()) {
    response->add_reasons(absl::StrCat("No estimate: ", a.unavailable_reason, "."));
    return absl::OkStatus();
  }
  const MemoryEstimate& e = *a.estimate;
  {
    ResolvedConfig listed = split.repair.has_value() ? split.repair->config : r.config;
    listed.vpp = a.validation.stages->vpp;
    FillResolvedPlan(listed, r.placement, &*r.model, e.dp, e.edp, SettingsScope::kConfig, response);
  }
  if (request.config().gbs() == 0 && r.config.gbs == 0) {
    response->add_defaults(absl::StrCat("gbs not given: ", e.microbatches,
                                        " microbatches per step assumed (enough to fill the pipeline)"));
  }
  if (!request.has_overhead_gib()) {
    response->add_defaults("overhead_gib: 2 GiB + 3% allocator slack per GPU (not given)");
  }
  if (!request.has_memory_reserve()) {
    response->add_defaults(absl::StrFormat("memory_reserve = %.2f (not given)", reserve));
  }
  if (!split.repair.has_value()) {
    response->mutable_resolved_config()->set_vpp(static_cast<int32_t>(a.validation.stages->vpp));
  }
  for (const auto& st : e.stages) ToStageMemory(st, response->add_stages());
  response->set_peak_pp_rank(static_cast<int32_t>(e.peak_pp_rank));
  response->set_peak_bytes(static_cast<int64_t>(std::llround(e.peak_bytes)));
  response->set_capacity_bytes(static_cast<int64_t>(std::llround(e.capacity_bytes)));
  response->set_fits(e.fits);
  response->set_headroom_bytes(static_cast<int64_t>(std::llround(e.headroom_bytes)));
  response->set_peak_gib(std::round(e.peak_bytes / kGiB * 100) / 100);
  response->set_capacity_gib(std::round(e.capacity_bytes / kGiB * 100) / 100);
  response->set_dp(e.dp);
  response->set_edp(e.edp);
  response->set_microbatches(e.microbatches);
  for (const auto& s : e.assumptions) response->add_assumptions(s);
  if (a.world_assumed) {
    response->add_assumptions(
        absl::StrCat("No GPU count: sized for the smallest valid world, ", a.world, " GPUs (DP=", e.dp, ")."));
  }
  const StageMemory& peak = e.stages[e.peak_pp_rank];
  if (e.capacity_bytes > 0) {
    response->add_reasons(absl::StrCat(e.fits ? "Fits: " : "Does not fit: ", "peak ", HumanGiB(e.peak_bytes),
                                       " on PP rank ", e.peak_pp_rank, " of ", HumanGiB(e.capacity_bytes), " (",
                                       static_cast<int>(std::round(100 * e.peak_bytes / e.capacity_bytes)), "%)."));
    response->set_tight(IsTight(e, reserve));
    if (response->tight()) response->add_reasons(TightReason(e, reserve));
  } else {
    response->add_reasons(absl::StrCat("Peak ", HumanGiB(e.peak_bytes), " on PP rank ", e.peak_pp_rank,
                                       "; no system given, so capacity is unknown."));
  }
  response->add_reasons(absl::StrCat(
      "Peak stage: weights ", HumanGiB(peak.weight_bytes + peak.low_precision_weight_bytes), ", gradients ",
      HumanGiB(peak.grad_bytes), ", optimizer ", HumanGiB(peak.optimizer_dense_bytes + peak.optimizer_expert_bytes),
      ", activations ", HumanGiB(peak.activation_bytes + peak.recompute_working_bytes + peak.attention_working_bytes),
      " (", absl::StrFormat("%.2f", peak.in_flight_microbatches), " microbatches in flight), logits ",
      HumanGiB(peak.logits_bytes),
      peak.dispatcher_buffer_bytes > 0 ? absl::StrCat(", dispatcher buffers ", HumanGiB(peak.dispatcher_buffer_bytes))
                                       : std::string(),
      peak.cuda_graph_bytes > 0 ? absl::StrCat(", CUDA graphs ", HumanGiB(peak.cuda_graph_bytes)) : std::string(),
      ", overhead ", HumanGiB(peak.overhead_bytes), "."));
  response->set_first_iteration_peak_bytes(static_cast<int64_t>(std::llround(e.first_iteration_peak_bytes)));
  const ResolvedConfig& estimated = split.repair.has_value() ? split.repair->config : r.config;
  const MemoryRootCause cause = ExplainMemoryPeak(*r.model, estimated, e);
  for (const auto& line : cause.reasons) response->add_root_cause(line);
  if (e.capacity_bytes > 0 && !e.fits) {
    if (e.first_iteration_peak_bytes <= e.capacity_bytes) {
      response->add_reasons(absl::StrCat(
          "Iteration 1 peaks at ", HumanGiB(e.first_iteration_peak_bytes),
          " and fits; the steady state adds the allocator's fragmentation allowance: expect an OOM after the first "
          "iterations",
          estimated.expandable_segments ? "." : " (expandable_segments is off: turning it on shrinks the allowance)."));
    }
  }
  if (e.capacity_bytes > 0 && !e.fits) {
    const int max = request.max_suggestions() > 0 ? request.max_suggestions() : 5;
    const MemoryFixSearch fixes =
        SearchMemoryFixes(*r.model, estimated, r.placement, options, CalibratedPerfParams(), max);
    response->set_current_step_time_s(fixes.current_step_time_s);
    response->set_suggestions_evaluated(static_cast<int32_t>(fixes.evaluated));
    if (fixes.capped) {
      response->add_reasons(absl::StrCat("The fix search stopped at ", fixes.evaluated,
                                         " estimated changes (its bound); fixes of three levers may be missing."));
    }
    for (const auto& s : fixes.fixes) {
      v1::MemorySuggestion* out = response->add_suggestions();
      ToMemorySuggestion(s, out);
      // A change that fits with less than the reserve free is tight, not a fix to rely on.
      const double free_bytes = e.capacity_bytes - s.peak_bytes;
      const bool tight = s.fits && free_bytes < reserve * e.capacity_bytes;
      out->set_tight(tight);
      response->add_reasons(absl::StrCat(
          s.change, ": ", HumanGiB(e.peak_bytes), " -> ", HumanGiB(s.peak_bytes),
          !s.fits ? " (still does not fit)"
                  : (tight ? absl::StrFormat(" (fits, tight: %s free, under the %.0f%% reserve)", HumanGiB(free_bytes),
                                             100 * reserve)
                           : ""),
          s.step_time_s > 0 ? absl::StrFormat("; step %.2f s -> %.2f s (%+.1f%%)", fixes.current_step_time_s,
                                              s.step_time_s, s.step_time_delta_pct)
                            : std::string()));
    }
  }
  return absl::OkStatus();
}

namespace {

// What to change (core/compare/suggest_changes.h): the changes predicted
// faster, as `suggestions` and one reason each, and per execution setting
// where no other value helps, why.
void AddPerfAdvice(const ModelSpec& model, const ResolvedConfig& config, const ResolvedPlacement& placement,
                   const PerfParams& params, v1::EstimatePerformanceResponse* response) {
  const RunPrediction base = PredictRun(model, config, placement, params);
  if (!base.ok) return;
  const ChangeAdvice advice = AdviseChanges(model, base, params, kPerfSuggestions);
  for (const SuggestedChange& s : advice.faster) {
    v1::SuggestedChange* o = response->add_suggestions();
    o->set_change(s.change);
    o->set_predicted_step_s(s.predicted_step_s);
    o->set_predicted_gain(s.predicted_gain);
    o->set_effect(s.effect);
    o->set_note(s.note);
    response->add_reasons(absl::StrFormat("Change: %s (%s): %s.", s.change, s.effect, s.note));
  }
  if (advice.faster.empty()) response->add_reasons("Change: none of the changes tried is predicted faster.");
  for (const std::string& line : advice.not_helping) response->add_reasons(absl::StrCat("Kept: ", line, "."));
}

}  // namespace

absl::Status EstimatePerformance(const v1::EstimatePerformanceRequest& request,
                                 v1::EstimatePerformanceResponse* response) {
  FieldErrors errors;
  if (!HasModel(request.model()))
    errors.Add("model", "EstimatePerformance needs a model (id, spec, hf_config_json or size)");
  if (request.placement().system().empty() && request.placement().system_spec().gpu_arch().empty()) {
    errors.Add("placement.system",
               "EstimatePerformance needs a system (peaks and links): a catalog id (e.g. h100-sxm) or system_spec with "
               "gpu_arch");
  }
  if (!errors.empty()) return errors.ToStatus();
  Resolved r;
  if (absl::Status s = Resolve(&request.model(), request.placement(), request.config(), &r); !s.ok()) return s;
  auto assumed = CompleteForEstimate(&*r.model, "model");
  if (!assumed.ok()) return assumed.status();
  for (const auto& a : *assumed)
    response->add_assumptions(absl::StrCat("Model field assumed (estimate approximate): ", a));
  if (!r.config.seq_length_note.empty()) response->add_reasons(r.config.seq_length_note);
  ResolveWorldAndBatch(&r.config, &r.placement);
  if (!r.config.gbs_note.empty()) response->add_reasons(r.config.gbs_note);
  if (r.config.seq_length <= 0) return FieldError("config.seq_length", "no sequence length: set config.seq_length");
  for (const auto& n : r.placement.notes) response->add_assumptions(n);
  const SplitAwareAnswer split = AnswerMemoryOrNearestSplit(*r.model, r.config, r.placement, MemoryOptions{});
  const MemoryAnswer& a = split.answer;
  FillEstimateHead(r, split, response);
  if (!a.estimate.has_value() || !a.validation.valid) {
    response->add_reasons(absl::StrCat(
        "No estimate: ",
        a.unavailable_reason.empty() ? "the config breaks Megatron's rules (see violations)" : a.unavailable_reason,
        "."));
    return absl::OkStatus();
  }
  ResolvedConfig effective = split.repair.has_value() ? split.repair->config : r.config;
  effective.vpp = a.validation.stages->vpp;
  std::string calibration_said;
  const PerfParams params = ParamsForRequest(request.calibration(), *r.placement.system, &calibration_said);
  const PerfEstimate p =
      parplan::EstimatePerformance(*r.model, effective, *a.validation.stages, a.world, *r.placement.system, params);
  if (!calibration_said.empty()) {
    response->set_calibration(calibration_said);
    response->add_reasons(calibration_said);
  }
  if (!split.repair.has_value()) response->mutable_resolved_config()->set_vpp(static_cast<int32_t>(effective.vpp));
  response->set_step_time_s(p.step_time_s);
  ToPerformanceBreakdown(p.breakdown, response->mutable_breakdown());
  response->set_tokens_per_s_per_gpu(p.tokens_per_s_per_gpu);
  response->set_model_tflops_per_gpu(p.model_tflops_per_gpu);
  response->set_mfu(p.mfu);
  response->set_peak_tflops(p.peak_tflops);
  response->set_model_gflops_per_token(p.flops.total / 1e9);
  response->set_microbatches(p.microbatches);
  response->set_slowest_pp_rank(static_cast<int32_t>(p.slowest_stage));
  response->set_gemm_efficiency(p.gemm_efficiency);
  response->set_dp(a.estimate->dp);
  response->set_edp(a.estimate->edp);
  response->set_gbs(r.config.gbs);
  response->set_memory_peak_bytes(static_cast<int64_t>(std::llround(a.estimate->peak_bytes)));
  response->set_memory_capacity_bytes(static_cast<int64_t>(std::llround(a.estimate->capacity_bytes)));
  response->set_fits(a.estimate->fits);
  for (const LayerCompute& l : p.layers) ToLayerComputeTime(l, response->add_layer_times());
  for (const auto& s : p.assumptions) response->add_assumptions(s);
  const Uncertainty u = PerfUncertainty(*r.model, *r.placement.system, CalibratedUncertainty());
  response->set_uncertainty(u.median);
  response->set_uncertainty_p90(u.p90);
  response->set_uncertainty_basis(u.basis);
  // Settings that change more than the schedule, said last.
  const std::vector<std::string> effect_warnings = EffectWarnings(FillResolvedPlan(
      effective, r.placement, &*r.model, a.estimate->dp, a.estimate->edp, SettingsScope::kConfig, response));
  if (r.model->is_moe()) {
    response->add_assumptions(
        effective.moe_router_force_load_balancing
            ? "moe_router_force_load_balancing = true: expert loads are even, as estimated (and as most calibration "
              "runs measured them); a benchmark setting that changes what training does."
            : "Expert loads estimated even (most calibration runs force-balance routing); real routing waits for the "
              "most loaded EP rank each layer, not modelled: sampling noise alone adds ~1-2%, a router's learned "
              "skew more, so real MoE training is slower than this estimate.");
  }
  response->add_reasons(absl::StrCat(
      absl::StrFormat("%.0f tokens/s/GPU, %.0f model TFLOP/s/GPU; ", p.tokens_per_s_per_gpu, p.model_tflops_per_gpu),
      MfuStatement(p.mfu, p.peak_tflops, r.config.precision)));
  response->add_reasons(absl::StrCat("Uncertainty ", u.basis));
  const PerfBreakdown& d = p.breakdown;
  response->add_reasons(absl::StrFormat(
      "Step %.2f s = compute %.2f + bubble %.2f + exposed comm (TP %.2f, CP %.2f, EP %.2f, DP %.2f, PP %.2f%s) + "
      "optimizer %.2f; %d microbatches, slowest stage PP rank %d.",
      p.step_time_s, d.compute_s, d.bubble_s, d.tp_comm_s, d.cp_comm_s, d.ep_comm_s, d.dp_comm_s, d.pp_comm_s,
      r.config.fsdp ? absl::StrFormat(", FSDP %.2f", d.fsdp_comm_s) : std::string(), d.optimizer_s,
      static_cast<int>(p.microbatches), static_cast<int>(p.slowest_stage)));
  if (!a.estimate->fits) {
    response->add_reasons(absl::StrCat("Memory: peak ", HumanGiB(a.estimate->peak_bytes), " exceeds ",
                                       HumanGiB(a.estimate->capacity_bytes), ": this config would not run as is."));
  }
  for (const auto& w : effect_warnings) response->add_reasons(absl::StrCat("Warning: ", w, "."));
  if (a.estimate->fits) AddPerfAdvice(*r.model, effective, r.placement, params, response);
  return absl::OkStatus();
}

}  // namespace api
}  // namespace parplan
