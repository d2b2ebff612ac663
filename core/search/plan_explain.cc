#include "core/search/plan_explain.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/layout/rank_layout.h"
#include "core/pipeline/layout_builder.h"
#include "core/rules/validate.h"
#include "core/system/links.h"
#include "core/system/racks.h"
#include "core/util/text.h"

namespace parplan {

std::string Percent(double fraction) { return absl::StrFormat("%.1f%%", 100 * fraction); }

std::string PlanLabel(const ResolvedConfig& c) {
  std::string s = absl::StrCat("TP=", c.tp, " PP=", c.pp, " VPP=", c.vpp, " CP=", c.cp, " EP=", c.ep);
  if (!c.etp_defaulted) absl::StrAppend(&s, " ETP=", c.etp);
  absl::StrAppend(&s, " MBS=", c.mbs, " recompute ", RecomputeName(c.recompute));
  if (c.recompute == RecomputeGranularity::kSelective) {
    absl::StrAppend(&s, "(", absl::StrJoin(c.recompute_modules, ","), ")");
  }
  if (!c.pipeline_layout.empty()) absl::StrAppend(&s, " layout ", CompactLayout(c.pipeline_layout));
  if (c.account_for_embedding || c.account_for_loss) {
    absl::StrAppend(&s, " split counts ", SplitAccountingName(c));
  }
  return s;
}

void AddPlanReasons(const ModelSpec& m, const SystemSpec& sys, PlanEval* p) {
  const PerfEstimate& e = p->perf;
  const PerfBreakdown& b = e.breakdown;
  p->reasons.push_back(absl::StrFormat("%.0f tokens/s/GPU, MFU %.1f%%, step %.2f s (%d microbatches of %d).",
                                       e.tokens_per_s_per_gpu, 100 * e.mfu, e.step_time_s,
                                       static_cast<int>(e.microbatches), static_cast<int>(p->config.mbs)));
  p->reasons.push_back(
      absl::StrCat("Memory: peak ", HumanGiB(p->memory.peak_bytes), " of ", HumanGiB(p->memory.capacity_bytes),
                   " on PP rank ", p->memory.peak_pp_rank, p->memory.fits ? " (fits, " : " (does not fit, ",
                   HumanGiB(std::fabs(p->memory.headroom_bytes)), p->memory.fits ? " headroom)." : " over)."));
  // What dominates the step, and the largest cost that is not compute
  // (the first of equal ones, in StepParts order).
  const StepPart* top_compute = nullptr;
  const StepPart* worst = nullptr;
  const auto parts = StepParts(b);
  for (const StepPart& part : parts) {
    const StepPart*& best = part.compute ? top_compute : worst;
    if (best == nullptr || part.seconds > best->seconds) best = &part;
  }
  const StepPart* dominant = worst->seconds > top_compute->seconds ? worst : top_compute;
  p->reasons.push_back(absl::StrFormat(
      "Dominant cost: %s (%.0f%% of the step). Compute is %.0f%%; the largest other cost is the %s (%.0f%%).",
      dominant->name, 100 * dominant->seconds / e.step_time_s, 100 * b.compute_s / e.step_time_s, worst->name,
      100 * worst->seconds / e.step_time_s));
  if (p->config.account_for_embedding || p->config.account_for_loss) {
    const ResolvedConfig& c = p->config;
    const int64_t ends = c.account_for_embedding + c.account_for_loss;
    const int64_t units = m.num_layers + ends;
    p->reasons.push_back(absl::StrCat(
        "Pipeline split counts the ", SplitAccountingName(c), " as a layer (account_for_",
        c.account_for_embedding ? "embedding_in_pipeline_split" : "loss_in_pipeline_split",
        c.account_for_embedding && c.account_for_loss ? " + account_for_loss_in_pipeline_split" : "",
        "): ", m.num_layers, " + ", ends, " = ", units, " = PP ", c.pp, c.vpp > 1 ? absl::StrCat(" x VPP ", c.vpp) : "",
        " x ", units / (c.pp * c.vpp), ", so the end stages carrying the embedding and the logits hold fewer layers",
        m.num_layers % c.pp != 0 ? absl::StrCat(" (", m.num_layers, " alone does not divide by PP ", c.pp, ")") : "",
        "."));
  }
  // Which groups leave the NVLink domain: counted on the actual rank
  // placement (core/layout/rank_layout.h), as the topology rules count them,
  // so a reason never says "inside" while a warning says some groups cross.
  const int64_t domain = RanksPerDomain(sys);  // the used GPUs of each domain (core/system/racks.h)
  const std::string domain_words =
      domain == std::max(1, sys.nvlink_domain_size)
          ? absl::StrCat(domain, "-GPU NVLink domain")
          : absl::StrCat("NVLink domain (", domain, " of its ", sys.nvlink_domain_size, " GPUs used)");
  const int64_t expert_span = p->config.ep * p->config.etp;
  const RankLayout layout(MeshOf(p->config), p->world);
  const int64_t tp_cross = p->config.tp > 1 ? layout.CountCrossing(GroupKind::kTp, domain) : 0;
  const int64_t ep_cross = m.num_moe_experts > 0 && expert_span > 1 ? layout.CountCrossing(GroupKind::kEp, domain) : 0;
  if (tp_cross > 0) {
    p->reasons.push_back(absl::StrCat(
        tp_cross, " of ", layout.GroupCount(GroupKind::kTp), " TP groups (TP=", p->config.tp, ") cross the ",
        domain_words, ": their collectives run over ", DescribeLink(sys, LinkLeavingDomain(sys, p->config.tp)),
        " instead of ", domain > 1 ? DescribeLink(sys, Link::kNvlink) : "NVLink", "."));
  } else if (ep_cross > 0) {
    p->reasons.push_back(absl::StrCat(
        ep_cross, " of ", layout.GroupCount(GroupKind::kEp), " EP groups (EP*ETP=", expert_span, ") cross the ",
        domain_words, ": their all-to-all runs over ", DescribeLink(sys, LinkLeavingDomain(sys, expert_span)), "."));
  } else if (p->config.tp > 1 || expert_span > 1) {
    p->reasons.push_back(absl::StrCat(
        "TP=", p->config.tp, m.num_moe_experts > 0 ? absl::StrCat(" and EP*ETP=", expert_span, " stay") : " stays",
        " inside the ", domain_words, "."));
  }
}

std::string CompareWithStartingPoint(const std::string& rule, const PlanEval& st, const PlanEval* top_plan) {
  std::string verdict;
  if (!st.valid) {
    verdict =
        absl::StrCat("is invalid here (", st.violations.empty() ? "see violations" : st.violations.front().rule, ")");
  } else if (!st.memory.fits) {
    verdict = absl::StrCat("does not fit (peak ", HumanGiB(st.memory.peak_bytes), " of ",
                           HumanGiB(st.memory.capacity_bytes), ")");
  } else {
    verdict = absl::StrFormat("predicts %.0f tokens/s/GPU", st.perf.tokens_per_s_per_gpu);
  }
  std::string out = absl::StrCat("Rule of thumb (", rule, "): ", PlanLabel(st.config), " ", verdict, ".");
  if (top_plan != nullptr) {
    const PlanEval& top = *top_plan;
    const ResolvedConfig& a = top.config;
    const ResolvedConfig& b = st.config;
    const bool same = a.tp == b.tp && a.pp == b.pp && a.cp == b.cp && a.ep == b.ep && a.vpp == b.vpp &&
                      a.mbs == b.mbs && a.recompute == b.recompute;
    if (same) {
      absl::StrAppend(&out, " The top plan agrees with it.");
    } else {
      absl::StrAppend(&out, " The top plan changes ", DescribeConfigChange(b, a));
      if (st.valid && st.memory.fits && st.perf.tokens_per_s_per_gpu > 0) {
        absl::StrAppend(&out, ": predicted ", Percent(top.perf.tokens_per_s_per_gpu / st.perf.tokens_per_s_per_gpu - 1),
                        " faster.");
      } else {
        absl::StrAppend(&out, ": the starting point cannot run as is.");
      }
    }
  }
  return out;
}

}  // namespace parplan
