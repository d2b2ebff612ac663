#include "core/search/plan_explain.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/layout/rank_layout.h"
#include "core/memory/memory_model.h"
#include "core/model/layer_kind.h"
#include "core/perf/context_parallel.h"
#include "core/perf/group_links.h"
#include "core/perf/layer_time.h"
#include "core/perf/perf_model.h"
#include "core/pipeline/layout_builder.h"
#include "core/pipeline/stage_plan.h"
#include "core/rules/validate.h"
#include "core/search/candidate_space.h"
#include "core/system/links.h"
#include "core/system/racks.h"
#include "core/util/text.h"

namespace parplan {

std::string Percent(double fraction) { return absl::StrFormat("%.1f%%", 100 * fraction); }

std::string PlanLabel(const ResolvedConfig& c) {
  std::string s = absl::StrCat("TP=", c.tp, " PP=", c.pp, " VPP=", c.vpp);
  // Megatron derives VPP from a layout; the rendered override is None.
  if (c.vpp > 1 && !c.pipeline_layout.empty()) absl::StrAppend(&s, " (set by the layout)");
  absl::StrAppend(&s, " CP=", c.cp);
  // The CP type whenever CP splits the sequence: some models run only one.
  if (c.cp > 1) {
    absl::StrAppend(&s, " cp_comm_type=", c.cp_comm_type);
    if (!c.hierarchical_cp_sizes.empty()) absl::StrAppend(&s, "[", absl::StrJoin(c.hierarchical_cp_sizes, ","), "]");
  }
  absl::StrAppend(&s, " EP=", c.ep);
  if (!c.etp_defaulted) absl::StrAppend(&s, " ETP=", c.etp);
  absl::StrAppend(&s, " MBS=", c.mbs, " recompute ", RecomputeName(c.recompute));
  if (c.recompute == RecomputeGranularity::kSelective) {
    absl::StrAppend(&s, "(", absl::StrJoin(c.recompute_modules, ","), ")");
  }
  if (!c.pipeline_layout.empty()) absl::StrAppend(&s, " layout ", CompactLayout(c.pipeline_layout));
  if (c.account_for_embedding || c.account_for_loss) {
    absl::StrAppend(&s, " split counts ", SplitAccountingName(c));
  }
  if (c.optimizer_cpu_offload) absl::StrAppend(&s, " optimizer offload ", c.optimizer_offload_fraction);
  if (c.moe_token_dispatcher_type == "flex" && c.ep > 1) {
    absl::StrAppend(&s, " dispatcher flex/", c.moe_flex_dispatcher_backend);
  }
  return s;
}

namespace {

std::string MiB(double bytes) { return absl::StrFormat("%.0f MiB", bytes / (1024.0 * 1024.0)); }

// What one attention layer's CP moves per microbatch on one GPU, in words.
std::string CpTraffic(const CpAttentionWork& w, const CpShape& cp) {
  std::vector<std::string> parts;
  if (cp.a2a > 1) {
    parts.push_back(absl::StrCat("all-to-alls of ", MiB(w.a2a_in_bytes), " Q/K/V and ", MiB(w.a2a_out_bytes),
                                 " O each way (dQ/dK/dV, dO backward)"));
  }
  if (w.ring_steps > 0) {
    parts.push_back(absl::StrFormat("%d ring transfers of %s K/V (K/V + dK/dV backward)",
                                    static_cast<int>(w.ring_steps), MiB(w.ring_bytes)));
  }
  if (w.gather_bytes > 0) {
    parts.push_back(absl::StrCat("a ", MiB(w.gather_bytes),
                                 " K/V all-gather (again backward, then a dK/dV "
                                 "reduce-scatter)"));
  }
  return absl::StrJoin(parts, " and ");
}

// The plan's CP communication type, where its groups run, what it moves,
// and what the other types the rules allow would cost on the same mesh.
std::string CpReason(const ModelSpec& m, const SystemSpec& sys, const PerfParams& params, const PlanEval& p) {
  const ResolvedConfig& c = p.config;
  const CpShape shape = CpShapeOf(c);
  const CpLinks links = CpLinksOf(c, shape, LinksOfGroups(MeshOf(c), p.world, sys).cp.spread, p.world, sys);
  const LayerTime t = TimeLayer(m, c, KindOfLayer(m, 0), 0, false, false, MakeDevice(sys, c.precision), params);
  std::string out = absl::StrFormat(
      "Context parallelism CP=%d, cp_comm_type %s: %s; per attention layer and microbatch each GPU's %s; exposed CP "
      "communication %.2f s of the %.2f s step.",
      static_cast<int>(c.cp), CpVariantName({c.cp_comm_type, c.hierarchical_cp_sizes}), DescribeCp(shape, links, sys),
      CpTraffic(t.cp, shape), p.perf.breakdown.cp_comm_s, p.perf.step_time_s);
  ResolvedConfig open = c;
  open.cp_comm_type_given = false;
  open.hierarchical_cp_sizes.clear();
  const std::vector<CpVariant> allowed = AllowedCpVariants(m, open);
  const auto plan = PlanStages(m, c);
  std::vector<std::string> others;
  for (const CpVariant& v : allowed) {
    if (v.type == c.cp_comm_type && v.sizes == c.hierarchical_cp_sizes) continue;
    if (!plan.has_value()) break;
    const ResolvedConfig alt = WithCpVariant(c, v);
    const PerfEstimate e = EstimatePerformance(m, alt, *plan, p.world, sys, params);
    const double delta = e.step_time_s - p.perf.step_time_s;
    std::string said =
        absl::StrFormat("%s %.2f s/step %s", CpVariantName(v), std::fabs(delta), delta >= 0 ? "slower" : "faster");
    const MemoryEstimate mem = EstimateMemory(m, alt, *plan, p.world, &sys, MemoryOptions{});
    const double more = mem.peak_bytes - p.memory.peak_bytes;
    if (std::fabs(more) >= 0.1 * kGiB) {
      absl::StrAppend(&said, " and ", HumanGiB(std::fabs(more)), more > 0 ? " more" : " less", " memory");
    }
    others.push_back(said);
  }
  std::vector<std::string> refused;
  for (const char* type : {"p2p", "all_gather", "a2a", "a2a+p2p"}) {
    if (std::none_of(allowed.begin(), allowed.end(), [&](const CpVariant& v) { return v.type == type; })) {
      refused.push_back(type);
    }
  }
  if (!others.empty()) absl::StrAppend(&out, " Other types on this mesh: ", absl::StrJoin(others, "; "), ".");
  if (!refused.empty()) {
    absl::StrAppend(
        &out, " Not allowed here by Megatron's / Transformer Engine's checks: ", absl::StrJoin(refused, ", "), ".");
  }
  return out;
}

}  // namespace

void AddPlanReasons(const ModelSpec& m, const SystemSpec& sys, const PerfParams& params, PlanEval* p) {
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
  if (p->config.cp > 1 && p->config.seq_length >= kLongContextTokens)
    p->reasons.push_back(CpReason(m, sys, params, *p));
  if (p->config.optimizer_cpu_offload) {
    p->reasons.push_back(absl::StrFormat(
        "Optimizer CPU offload: the Adam moments of %.0f%% of the distributed optimizer's shard in host memory, "
        "their step on the CPU (optimizer %.2f s of the step); the fp32 master shard stays in HBM.",
        100 * p->config.optimizer_offload_fraction, p->perf.breakdown.optimizer_s));
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
        const double gain = top.perf.tokens_per_s_per_gpu / st.perf.tokens_per_s_per_gpu - 1;
        absl::StrAppend(&out, ": predicted ", Percent(std::fabs(gain)), gain >= 0 ? " faster." : " slower.");
      } else {
        absl::StrAppend(&out, ": the starting point cannot run as is.");
      }
    }
  }
  return out;
}

}  // namespace parplan
