#include "server/api/plan_plot.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "core/layout/rank_layout.h"
#include "core/mesh/mesh.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"
#include "nlohmann/json.hpp"
#include "server/api/planner_api.h"

namespace parplan {
namespace api {
namespace {

// Dense-mesh coordinates that identify a rank's TP group (ranks differing
// only in tp share one) and expert-mesh coordinates for its EP group.
using GroupKey = std::tuple<int64_t, int64_t, int64_t>;

// Gives every distinct key a small id, in first-seen order.
class GroupIds {
 public:
  int64_t Of(const GroupKey& key) { return ids_.emplace(key, static_cast<int64_t>(ids_.size())).first->second; }

 private:
  std::map<GroupKey, int64_t> ids_;
};

// The rank map: each listed rank with its stage and group ids, and whether
// its TP / EP group spans more than one NVLink domain (a domain is
// `domain` consecutive ranks, as the layout places them).
void FillRanks(const v1::ExplainLayoutResponse& layout, const v1::ParallelConfig& config, PlanFigure* figure) {
  const int64_t domain = std::max(1, layout.nvlink_domain_size());
  GroupIds tp_ids, ep_ids;
  std::map<int64_t, std::pair<int64_t, int64_t>> tp_domains, ep_domains;  // group -> min, max domain
  auto widen = [](std::map<int64_t, std::pair<int64_t, int64_t>>* spans, int64_t group, int64_t d) {
    auto [it, added] = spans->emplace(group, std::make_pair(d, d));
    if (!added) it->second = {std::min(it->second.first, d), std::max(it->second.second, d)};
  };
  const bool tp_groups = config.tp() > 1;
  const bool ep_groups = config.ep() > 1;
  for (const v1::RankPlacement& r : layout.ranks()) {
    FigureRank rank;
    rank.rank = r.rank();
    rank.node = r.node();
    rank.local_gpu = r.local_gpu();
    rank.pp_stage = static_cast<int>(r.pp());
    if (tp_groups) rank.tp_group = tp_ids.Of({r.pp(), r.dp(), r.cp()});
    if (ep_groups) rank.ep_group = ep_ids.Of({r.pp(), r.edp(), r.etp()});
    if (rank.tp_group >= 0) widen(&tp_domains, rank.tp_group, r.rank() / domain);
    if (rank.ep_group >= 0) widen(&ep_domains, rank.ep_group, r.rank() / domain);
    figure->ranks.push_back(rank);
  }
  for (FigureRank& rank : figure->ranks) {
    if (rank.tp_group >= 0)
      rank.tp_crosses_domain = tp_domains[rank.tp_group].first != tp_domains[rank.tp_group].second;
    if (rank.ep_group >= 0)
      rank.ep_crosses_domain = ep_domains[rank.ep_group].first != ep_domains[rank.ep_group].second;
  }
}

void FillStages(const v1::EstimateMemoryResponse& memory, PlanFigure* figure) {
  for (const v1::StageMemory& s : memory.stages()) {
    FigureStage stage;
    stage.pp_rank = s.pp_rank();
    stage.weight_bytes = s.weight_bytes();
    stage.grad_bytes = s.grad_bytes();
    stage.optimizer_bytes = s.optimizer_dense_bytes() + s.optimizer_expert_bytes();
    stage.activation_bytes = s.activation_bytes() + s.recompute_working_bytes() + s.logits_bytes() +
                             s.embedding_bytes() + s.fsdp_working_bytes() + s.attention_working_bytes();
    // Runtime buffers (MoE dispatcher, CUDA graphs) are drawn with the overhead.
    stage.overhead_bytes = s.overhead_bytes() + s.dispatcher_buffer_bytes() + s.cuda_graph_bytes();
    stage.total_bytes = s.total_bytes();
    figure->stages.push_back(stage);
  }
  figure->capacity_bytes = memory.capacity_bytes();
  figure->peak_pp_rank = memory.peak_pp_rank();
}

// The step time's parts: compute by kind, then what is exposed beyond it.
void FillStepParts(const v1::EstimatePerformanceResponse& perf, PlanFigure* figure) {
  const v1::PerformanceBreakdown& b = perf.breakdown();
  const std::pair<const char*, double> parts[] = {{"gemm", b.gemm_s()},
                                                  {"attention", b.attention_s()},
                                                  {"moe", b.moe_s()},
                                                  {"elementwise", b.elementwise_s()},
                                                  {"recompute", b.recompute_s()},
                                                  {"logits", b.logits_s()},
                                                  {"overhead", b.overhead_s()},
                                                  {"tp comm", b.tp_comm_s()},
                                                  {"cp comm", b.cp_comm_s()},
                                                  {"ep comm", b.ep_comm_s()},
                                                  {"dp comm", b.dp_comm_s()},
                                                  {"fsdp comm", b.fsdp_comm_s()},
                                                  {"pp comm", b.pp_comm_s()},
                                                  {"bubble", b.bubble_s()},
                                                  {"optimizer", b.optimizer_s()}};
  for (const auto& [name, seconds] : parts) figure->step_parts.push_back({name, seconds});
  figure->step_time_s = perf.step_time_s();
}

// The request field a rule's first field is: placement.gpus for the world
// size, config.tp for a config field, model for an architecture field.
std::string RequestFieldOf(const v1::Violation& v) {
  if (v.fields().empty()) return "config";
  const std::string& name = v.fields(0);
  if (v1::Placement::descriptor()->FindFieldByName(name) != nullptr) return absl::StrCat("placement.", name);
  if (v1::ParallelConfig::descriptor()->FindFieldByName(name) != nullptr) return absl::StrCat("config.", name);
  if (v1::ModelArchitecture::descriptor()->FindFieldByName(name) != nullptr) return "model";
  return "config";
}

// The config's error-severity violations as one INVALID_ARGUMENT.
absl::Status RuleErrors(const google::protobuf::RepeatedPtrField<v1::Violation>& violations) {
  FieldErrors errors;
  for (const v1::Violation& v : violations) {
    if (v.severity() != "error") continue;
    errors.Add(RequestFieldOf(v), absl::StrCat(v.message(), v.fix().empty() ? "" : absl::StrCat(" Fix: ", v.fix())));
  }
  return errors.ToStatus();
}

// The first of `reasons` that mentions `word` (the headline of an answer
// whose reasons start with its assumptions), else the first.
std::string FirstWith(const google::protobuf::RepeatedPtrField<std::string>& reasons, absl::string_view word) {
  for (const std::string& r : reasons) {
    if (absl::StrContains(r, word)) return r;
  }
  return reasons.empty() ? "" : reasons[0];
}

// A request of type Req (any config-shaped request) for this model,
// placement and config.
template <typename Req>
Req PlanRequest(const v1::ModelRef& model, const v1::Placement& placement, const v1::ParallelConfig& config) {
  Req request;
  *request.mutable_model() = model;
  *request.mutable_placement() = placement;
  *request.mutable_config() = config;
  return request;
}

// The core group kind for a rank map's group name ("tp", "cp", "ep", "dp",
// "pp"); false for any other name.
bool GroupKindOf(const std::string& name, GroupKind* kind) {
  static const std::pair<const char*, GroupKind> kKinds[] = {{"tp", GroupKind::kTp},
                                                             {"cp", GroupKind::kCp},
                                                             {"ep", GroupKind::kEp},
                                                             {"dp", GroupKind::kDp},
                                                             {"pp", GroupKind::kPp}};
  for (const auto& [n, k] : kKinds) {
    if (name == n) {
      *kind = k;
      return true;
    }
  }
  return false;
}

// Megatron's rank layout of `config` over `world` GPUs.
RankLayout LayoutOf(const v1::ParallelConfig& config, int64_t world) {
  MeshDims dims;
  dims.tp = std::max(1, config.tp());
  dims.pp = std::max(1, config.pp());
  dims.cp = std::max(1, config.cp());
  dims.ep = std::max(1, config.ep());
  dims.etp = config.has_etp() && config.etp() > 0 ? config.etp() : dims.tp;
  return RankLayout(dims, world);
}

// The chosen group kind on the figure: each listed rank's group, the group
// size and count.
void FillGroups(const RankLayout& layout, GroupKind kind, const std::string& name, PlanFigure* figure) {
  figure->group_kind = name;
  figure->group_size = layout.GroupSize(kind);
  figure->group_count = layout.GroupCount(kind);
  for (FigureRank& r : figure->ranks) r.group = layout.GroupIndexOfRank(kind, r.rank);
}

// A summarised world: one unit per node, or per rack when there are more
// than 512 nodes. A rack is an NVLink domain of several nodes, else 4 nodes
// (the system names no rack size; the figure says so).
void FillUnits(const RankLayout& layout, const std::string& group, GroupKind kind, PlanFigure* figure) {
  const int64_t world = layout.world();
  const int64_t gpn = std::max(1, figure->gpus_per_node);
  const int64_t domain = std::max(1, figure->nvlink_domain);
  const int64_t nodes = (world + gpn - 1) / gpn;
  figure->nodes_per_rack = domain > gpn && domain % gpn == 0 ? static_cast<int>(domain / gpn) : 4;
  figure->rack_note =
      domain > gpn && domain % gpn == 0
          ? absl::StrCat("A rack is one NVLink domain: ", figure->nodes_per_rack, " nodes, ", domain, " GPUs.")
          : absl::StrCat("A rack is drawn as ", figure->nodes_per_rack,
                         " nodes (the system names no rack size); NVLink domain ", domain, " GPUs.");
  const bool racks = nodes > 512;
  figure->unit_name = racks ? "rack" : "node";
  figure->gpus_per_unit = racks ? gpn * figure->nodes_per_rack : gpn;
  for (int64_t first = 0; first < world; first += figure->gpus_per_unit) {
    FigureUnit unit;
    unit.first_rank = first;
    unit.ranks = std::min(figure->gpus_per_unit, world - first);
    unit.first_stage = static_cast<int>(layout.Coords(first).pp);
    unit.last_stage = static_cast<int>(layout.Coords(first + unit.ranks - 1).pp);
    figure->units.push_back(unit);
  }
  if (group.empty()) return;
  for (int64_t rank : layout.GroupOfRank(kind, 0)) {
    figure->units[static_cast<size_t>(rank / figure->gpus_per_unit)].in_group = true;
  }
}

std::string Label(const v1::ParallelConfig& c, int64_t dp) {
  return absl::StrFormat("TP=%d PP=%d%s CP=%d EP=%d DP=%d MBS=%d", c.tp(), c.pp(),
                         c.vpp() > 1 ? absl::StrFormat(" VPP=%d", c.vpp()) : "", c.cp(), c.ep(), dp, c.mbs());
}

}  // namespace

absl::StatusOr<PlanPlot> PlotPlan(const v1::RenderConfigRequest& request, const std::string& groups,
                                  const std::string& groups_field) {
  GroupKind kind = GroupKind::kTp;
  if (!groups.empty() && !GroupKindOf(groups, &kind)) {
    return FieldError(groups_field, absl::StrCat("\"", groups.substr(0, 64),
                                                 "\" is not a group kind; allowed tp, cp, ep, dp, pp (or empty)"));
  }
  if (request.placement().system().empty() && request.placement().system_spec().gpu_arch().empty()) {
    return FieldError("placement.system", "a plot needs a system (HBM, nodes, NVLink domains); e.g. \"h100-sxm\"");
  }
  const v1::ModelRef& model = request.model();
  v1::EstimateMemoryResponse memory;
  if (absl::Status s =
          EstimateMemory(PlanRequest<v1::EstimateMemoryRequest>(model, request.placement(), request.config()), &memory);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = RuleErrors(memory.violations()); !s.ok() && !memory.has_nearest_valid_split()) return s;
  // Everything below uses the config the memory answer resolved (defaults
  // filled, the nearest valid split when that was the only error).
  const v1::ParallelConfig& config = memory.resolved_config();
  v1::Placement placement = request.placement();
  v1::EstimatePerformanceResponse perf;
  if (absl::Status s =
          EstimatePerformance(PlanRequest<v1::EstimatePerformanceRequest>(model, placement, config), &perf);
      !s.ok()) {
    return s;
  }
  placement.set_gpus(memory.dp() * config.tp() * config.cp() * config.pp());
  auto layout_request = PlanRequest<v1::ExplainLayoutRequest>(model, placement, config);
  layout_request.set_max_ranks(static_cast<int32_t>(std::min(kMaxRanksListed, kMaxDetailRanks)));
  v1::ExplainLayoutResponse layout;
  if (absl::Status s = ExplainLayout(layout_request, &layout); !s.ok()) return s;
  if (absl::Status s = RuleErrors(layout.violations()); !s.ok()) return s;
  v1::RenderConfigResponse rendered;
  if (absl::Status s = RenderConfig(PlanRequest<v1::RenderConfigRequest>(model, placement, config), &rendered);
      !s.ok()) {
    return s;
  }

  PlanPlot plot;
  PlanFigure& figure = plot.figure;
  const std::string system = placement.system().empty() ? placement.system_spec().gpu_arch() : placement.system();
  figure.title =
      absl::StrCat(memory.model().id(), " on ", layout.world_size(), " x ", system, ": ", Label(config, memory.dp()));
  figure.world_size = layout.world_size();
  figure.gpus_per_node = layout.gpus_per_node();
  figure.nvlink_domain = layout.nvlink_domain_size();
  figure.pp = std::max(1, config.pp());
  FillRanks(layout, config, &figure);
  figure.ranks_truncated = layout.ranks_truncated();
  const RankLayout ranks = LayoutOf(config, layout.world_size());
  if (!groups.empty()) FillGroups(ranks, kind, groups, &figure);
  if (layout.world_size() > kMaxDetailRanks) FillUnits(ranks, groups, kind, &figure);
  FillStages(memory, &figure);
  FillStepParts(perf, &figure);
  plot.bridge_python = rendered.bridge_python();
  plot.bridge_cli = rendered.bridge_cli();
  for (const std::string& r : layout.reasons()) plot.reasons.push_back(r);
  plot.reasons.push_back(FirstWith(memory.reasons(), "peak"));
  plot.reasons.push_back(FirstWith(perf.reasons(), "tokens/s"));
  return plot;
}

std::string PlanPlotJson(const PlanPlot& plot) {
  nlohmann::ordered_json out = {{"title", plot.figure.title},
                                {"rank_map_svg", RankMapSvg(plot.figure)},
                                {"memory_svg", MemorySvg(plot.figure)},
                                {"step_time_svg", StepTimeSvg(plot.figure)},
                                {"bridge_python", plot.bridge_python},
                                {"bridge_cli", plot.bridge_cli},
                                {"reasons", plot.reasons}};
  return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

absl::StatusOr<std::string> PlanPlotSvg(const PlanPlot& plot, const std::string& figure, const std::string& field) {
  if (figure == "all") return PlanSvg(plot.figure);
  if (figure == "ranks") return RankMapSvg(plot.figure);
  if (figure == "memory") return MemorySvg(plot.figure);
  if (figure == "time") return StepTimeSvg(plot.figure);
  return FieldError(field,
                    absl::StrCat("\"", figure.substr(0, 64), "\" is not a figure; allowed: all, ranks, memory, time"));
}

}  // namespace api
}  // namespace parplan
