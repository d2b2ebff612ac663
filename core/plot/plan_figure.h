// Pictures of one training plan as SVG: a rank map (nodes x GPUs coloured by
// pipeline stage, TP and EP groups outlined, groups that leave their NVLink
// domain marked), memory per pipeline stage as stacked bars against the HBM
// capacity, and the step time split by where it goes. The input is plain
// numbers (PlanFigure), filled by the doors from the layout, memory and
// performance answers, so the web page and `parplan plot` draw the same SVG.
//
// The SVGs are self-contained (no scripts, no external fonts or links), have
// a viewBox, a <title>, and stable classes a test or a page can query:
//   rank map:  one <rect class="rank-cell" data-rank="R" data-stage="S"> per
//              listed rank; outlines <path class="tp-outline">/"ep-outline";
//              cells of groups leaving the NVLink domain get class
//              "crosses-domain" and a visible mark. With group_kind set, cells
//              are coloured by that kind's group (data-group="G") and rank 0's
//              group is outlined (<path class="group-outline">). A summarised
//              world (units non-empty: more than kMaxDetailRanks GPUs) has one
//              <rect class="unit-cell" data-unit="U" data-stage="S"> per node
//              or rack instead, class "in-group" on the units holding rank 0's
//              group; the legend lists only the stages drawn.
//   memory:    one <g class="stage-bar" data-stage="S"> per stage holding one
//              <rect class="segment segment-KIND"> per non-zero part, and a
//              <line class="capacity-line">
//   step time: one <rect class="time-part time-part-KIND"> per non-zero part
// All text is XML-escaped.
#ifndef PARPLAN_CORE_PLOT_PLAN_FIGURE_H_
#define PARPLAN_CORE_PLOT_PLAN_FIGURE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace parplan {

// One GPU of the rank map.
struct FigureRank {
  int64_t rank = 0;
  int64_t node = 0;
  int local_gpu = 0;
  int pp_stage = 0;
  int64_t tp_group = -1;           // ranks with equal ids share a TP group (-1: none / TP=1)
  int64_t ep_group = -1;           // ranks with equal ids share an EP group (-1: none / EP=1)
  bool tp_crosses_domain = false;  // its TP group spans more than one NVLink domain
  bool ep_crosses_domain = false;  // its EP group spans more than one NVLink domain
  int64_t group = -1;              // its group of PlanFigure::group_kind (-1: none chosen)
};

// One pipeline stage's per-GPU memory, bytes.
struct FigureStage {
  int pp_rank = 0;
  int64_t weight_bytes = 0;
  int64_t grad_bytes = 0;
  int64_t optimizer_bytes = 0;   // dense + expert optimizer state
  int64_t activation_bytes = 0;  // activations, logits, embedding, recompute and FSDP working buffers
  int64_t overhead_bytes = 0;
  int64_t total_bytes = 0;
};

// One part of the step time (e.g. "compute", "tp comm", "bubble").
struct FigureTimePart {
  std::string name;  // lower-case words; the SVG class uses it with spaces as '-'
  double seconds = 0;
};

// One node or rack of a summarised rank map: its ranks are
// [first_rank, first_rank + ranks); stages first_stage..last_stage.
struct FigureUnit {
  int64_t first_rank = 0;
  int64_t ranks = 0;
  int first_stage = 0;
  int last_stage = 0;
  bool in_group = false;  // holds a rank of rank 0's group of group_kind
};

// Worlds above this many GPUs are drawn by node or rack (PlanFigure::units).
inline constexpr int64_t kMaxDetailRanks = 512;

struct PlanFigure {
  std::string title;  // e.g. "llama3_70b on 64 x h100-sxm: TP=4 PP=4 CP=2 DP=2"
  int64_t world_size = 0;
  int gpus_per_node = 8;
  int nvlink_domain = 8;  // GPUs per NVLink domain
  int pp = 1;             // pipeline stages (colours)
  // "" (TP and EP outlines) or "tp", "cp", "ep", "dp", "pp": the group kind
  // the rank map shows (FigureRank::group, FigureUnit::in_group).
  std::string group_kind;
  int64_t group_size = 0;   // ranks in one group of group_kind
  int64_t group_count = 0;  // groups of group_kind
  // Summarised world: every node (unit_name "node") or rack ("rack") in
  // order, gpus_per_unit GPUs each; empty = one cell per listed rank.
  std::vector<FigureUnit> units;
  std::string unit_name;
  int64_t gpus_per_unit = 0;
  int nodes_per_rack = 0;
  std::string rack_note;            // how a rack was defined
  std::vector<FigureRank> ranks;    // in rank order; may be the first N of world_size
  bool ranks_truncated = false;     // the map shows ranks.size() of world_size
  std::vector<FigureStage> stages;  // in pp_rank order
  int64_t capacity_bytes = 0;       // HBM per GPU; 0 = unknown (no capacity line)
  int peak_pp_rank = 0;
  std::vector<FigureTimePart> step_parts;  // in display order
  double step_time_s = 0;
};

// The rank map alone.
std::string RankMapSvg(const PlanFigure& figure);

// Memory per pipeline stage alone.
std::string MemorySvg(const PlanFigure& figure);

// The step-time breakdown alone.
std::string StepTimeSvg(const PlanFigure& figure);

// The three pictures stacked in one SVG document with the title on top.
std::string PlanSvg(const PlanFigure& figure);

}  // namespace parplan

#endif  // PARPLAN_CORE_PLOT_PLAN_FIGURE_H_
