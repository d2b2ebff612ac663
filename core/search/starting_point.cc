#include "core/search/starting_point.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "core/model/param_count.h"
#include "core/pipeline/stage_plan.h"
#include "core/search/split_repair.h"

namespace parplan {
namespace {

struct Row {
  int64_t tp, pp, ep, cp;
};

// Reference §3's MoE table, by catalog id.
const std::map<std::string, Row>& MoeTable() {
  static const auto* table = new std::map<std::string, Row>{
      {"olmoe_7b", {1, 1, 8, 1}},         {"moonlight_16b", {2, 1, 8, 1}}, {"deepseek_v2", {1, 4, 32, 1}},
      {"glm45_air", {1, 4, 8, 1}},        {"qwen3_30b_a3b", {4, 2, 4, 1}}, {"glm45", {2, 8, 16, 1}},
      {"qwen3_235b_a22b", {4, 16, 8, 2}}, {"deepseek_v3", {2, 16, 64, 1}}, {"kimi_k2", {2, 16, 32, 1}}};
  return *table;
}

int64_t LargestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::max<int64_t>(1, std::min(n, limit)); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

}  // namespace

StartingPoint RuleOfThumbConfig(const ModelSpec& m, const ResolvedConfig& base, int64_t world, const SystemSpec& sys) {
  StartingPoint s;
  s.config = base;
  const ParamCounts params = CountParams(m);
  const double total_b = params.total / 1e9, active_b = params.active / 1e9;
  int64_t tp = 1, pp = 1, ep = 1, cp = 1;
  if (m.num_moe_experts > 0) {
    const auto it = MoeTable().find(m.id);
    if (it != MoeTable().end()) {
      tp = it->second.tp;
      pp = it->second.pp;
      ep = it->second.ep;
      cp = it->second.cp;
      s.rule = absl::StrCat("MoE table row for ", m.id);
    } else {
      tp = active_b < 5 ? 1 : (active_b < 40 ? 2 : 4);
      pp = total_b < 50 ? 1 : (total_b < 150 ? 4 : (total_b < 500 ? 8 : 16));
      ep = LargestDivisorAtMost(m.num_moe_experts, 64);
      s.rule = absl::StrCat("MoE: TP by active parameters (", static_cast<int>(active_b + 0.5),
                            "B), EP up to the expert count, PP by total parameters");
    }
  } else if (total_b < 1) {
    s.rule = "dense < 1B: data parallel only";
  } else if (total_b < 10) {
    tp = 2;
    s.rule = "dense 1-10B: TP 2-4 + DP";
  } else if (total_b < 70) {
    tp = 4;
    pp = 2;
    s.rule = "dense 10-70B: TP 4-8, PP 2-4, DP";
  } else if (total_b < 175) {
    tp = 8;
    pp = 4;
    s.rule = "dense 70-175B: TP 8, PP 4-8, DP";
  } else if (total_b < 500) {
    tp = 8;
    pp = 8;
    cp = 2;
    s.rule = "dense 175-500B: TP 8, PP 8-16, CP 2, DP";
  } else {
    tp = 8;
    pp = 16;
    cp = 2;
    s.rule = "dense > 500B: TP 8, PP 16, CP 2, DP";
  }
  // Sequence length: 8K-32K add CP 2, >= 32K CP 4-8.
  if (base.seq_length >= 131072) {
    cp = std::max<int64_t>(cp, 8);
  } else if (base.seq_length >= 32768) {
    cp = std::max<int64_t>(cp, 4);
  } else if (base.seq_length > 8192) {
    cp = std::max<int64_t>(cp, 2);
  }
  // TP inside the NVLink domain; then shrink until the mesh divides the world.
  tp = std::min<int64_t>(tp, std::max(1, sys.nvlink_domain_size));
  while (tp > 1 && (m.num_attention_heads % tp != 0 || world % tp != 0)) tp /= 2;
  while (cp > 1 && world % (tp * cp) != 0) cp /= 2;
  pp = std::min(pp, m.num_layers);
  while (pp > 1 && world % (tp * cp * pp) != 0) --pp;
  while (ep > 1 && ((world / pp) % ep != 0 || m.num_moe_experts % ep != 0)) --ep;
  s.config.tp = tp;
  s.config.pp = pp;
  s.config.cp = cp;
  s.config.ep = ep;
  s.config.etp = 1;
  s.config.etp_defaulted = m.num_moe_experts == 0;
  if (s.config.etp_defaulted) s.config.etp = tp;
  s.config.sp = tp > 1;
  s.config.vpp = 1;
  s.config.mbs = 1;
  s.config.recompute = RecomputeGranularity::kNone;
  s.config.recompute_modules.clear();
  s.config.pipeline_layout.clear();

  // The tables ignore the layer count: when PP does not split the layers,
  // use the nearest split Megatron accepts (61 layers over PP 16 -> a layout).
  if (const auto repair = NearestValidSplit(m, s.config); repair.has_value()) {
    s.config = repair->config;
    absl::StrAppend(&s.rule, "; layers split as ", repair->change);
  }
  // Hybrid patterns split only where PP divides them: lower PP until it does.
  auto splits = [&m](const ResolvedConfig& c) { return PlanStages(m, c).has_value(); };
  if (!splits(s.config)) {
    const int64_t from = s.config.pp;
    while (s.config.pp > 1 && (world % (tp * cp * s.config.pp) != 0 || !splits(s.config))) --s.config.pp;
    absl::StrAppend(&s.rule, "; PP ", from, " -> ", s.config.pp, " so that the layers split");
  }
  // No batch yet (past one sequence per GPU): the default of its DP, as the search's candidates.
  const int64_t model_parallel = s.config.tp * s.config.cp * s.config.pp;
  if (s.config.gbs <= 0 && world % model_parallel == 0) {
    s.config.gbs = DefaultGlobalBatch(s.config, world / model_parallel);
  }
  return s;
}

}  // namespace parplan
