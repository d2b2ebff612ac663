// The pictures of one plan (core/plot/plan_figure.h) from the API's own
// answers: the rank layout (ExplainLayout, every rank up to
// kMaxRanksListed), memory per stage (EstimateMemory), the step-time
// breakdown (EstimatePerformance) and the Megatron Bridge overrides
// (RenderConfig). The HTTP door serves it at /plot and the CLI's `plot`
// command writes it, so both draw the same SVG.
#ifndef PARPLAN_SERVER_PLAN_PLOT_H_
#define PARPLAN_SERVER_PLAN_PLOT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/plot/plan_figure.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace api {

struct PlanPlot {
  PlanFigure figure;
  std::string bridge_python;  // RenderConfig's overrides
  std::string bridge_cli;
  std::vector<std::string> reasons;  // what the pictures show, with the numbers
};

// The plot of `request`'s model, placement and config. The model must be
// complete and the placement name a system (the pictures need HBM, nodes
// and NVLink domains). INVALID_ARGUMENT (field violations) for bad input
// and for a config that breaks Megatron's rules (the violations named).
// `groups` picks the group kind the rank map shows: "" (TP and EP
// outlines), "tp", "cp", "ep", "dp" or "pp"; another value is an
// INVALID_ARGUMENT naming `groups_field`. Worlds above kMaxDetailRanks GPUs
// are drawn by node (or by rack beyond 512 nodes).
absl::StatusOr<PlanPlot> PlotPlan(const v1::RenderConfigRequest& request, const std::string& groups = "",
                                  const std::string& groups_field = "groups");

// The JSON the HTTP door answers /plot with: {"title", "rank_map_svg",
// "memory_svg", "step_time_svg", "bridge_python", "bridge_cli", "reasons"}.
std::string PlanPlotJson(const PlanPlot& plot);

// Which SVG `figure` names: "all" (PlanSvg), "ranks", "memory" or "time";
// INVALID_ARGUMENT naming `field` otherwise.
absl::StatusOr<std::string> PlanPlotSvg(const PlanPlot& plot, const std::string& figure, const std::string& field);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_PLAN_PLOT_H_
