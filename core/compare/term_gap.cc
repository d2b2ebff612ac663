#include "core/compare/term_gap.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace parplan {
namespace {

// Short keys of the StepParts terms, in StepParts order.
constexpr const char* kTermKeys[kStepParts] = {"gemm",    "attention", "moe",     "elementwise", "recompute",
                                               "logits",  "overhead",  "bubble",  "tp_comm",     "cp_comm",
                                               "ep_comm", "dp_comm",   "pp_comm", "fsdp_comm",   "optimizer"};

// Why the config makes a term zero ("" when it does not).
std::string ZeroByConfig(const std::string& key, const ModelSpec& m, const ResolvedConfig& c, int64_t dp) {
  if (key == "moe" && !m.is_moe()) return "a dense model";
  if (key == "recompute" && c.recompute == RecomputeGranularity::kNone) return "no activation recompute";
  if ((key == "bubble" || key == "pp_comm") && c.pp == 1) return "PP = 1";
  if (key == "tp_comm" && c.tp == 1) return "TP = 1";
  if (key == "cp_comm" && c.cp == 1) return "CP = 1";
  if (key == "ep_comm" && !m.is_moe()) return "a dense model";
  if (key == "ep_comm" && c.ep * c.etp == 1) return "EP x ETP = 1";
  if (key == "dp_comm" && dp == 1 && !c.fsdp) return "DP = 1";
  if (key == "fsdp_comm" && !c.fsdp) return "Megatron FSDP is off";
  return "";
}

// How far a term of this kind can plausibly be off, as a factor, and why.
struct Plausible {
  double max_factor;
  const char* why;
};
Plausible PlausibleRange(const std::string& key) {
  if (key == "bubble")
    return {1.5,
            "the schedule fixes the bubble (PP, VPP, microbatches); more means stragglers or "
            "unbalanced stages"};
  if (key == "optimizer") return {2.0, "the optimizer step streams the local parameters through HBM"};
  if (key == "overhead") return {3.0, "host launch and synchronisation depend on the CPU, Python and the container"};
  if (absl::EndsWith(key, "_comm")) {
    return {3.0, "exposed communication depends on how much overlap hides, link efficiency and congestion"};
  }
  return {1.5,
          "kernel times come from measured rates (core/perf/kernel_rates.cc); clocks, power capping or other "
          "kernels can cost tens of percent"};
}

}  // namespace

std::vector<TermGap> GapByTerm(const ModelSpec& model, const PerfBreakdown& predicted, const ResolvedConfig& config,
                               int64_t dp, double measured_step_s) {
  const auto parts = StepParts(predicted);
  double step = 0;
  for (const StepPart& p : parts) step += p.seconds;
  const double gap = measured_step_s - step;
  std::vector<TermGap> out;
  for (int i = 0; i < kStepParts; ++i) {
    TermGap g;
    g.term = kTermKeys[i];
    g.label = parts[i].name;
    g.predicted_s = parts[i].seconds;
    const double needed = g.predicted_s + gap;
    g.needed_s = std::max(0.0, needed);
    g.factor = g.predicted_s > 0 ? g.needed_s / g.predicted_s : 0;
    g.closes_alone = needed >= 0;
    const std::string zero = g.predicted_s > 0 ? "" : ZeroByConfig(g.term, model, config, dp);
    if (!zero.empty()) {
      g.note = absl::StrCat("zero for this config (", zero, "): cannot explain the gap");
      g.closes_alone = false;
    } else if (needed < 0) {
      g.note = absl::StrFormat("would have to fall below 0 s (%.3f s less than its %.3f s): cannot close the gap alone",
                               -gap, g.predicted_s);
    } else if (g.predicted_s <= 0) {
      g.note = absl::StrFormat("predicted 0 s; only a cost the model leaves out (%.3f s) would explain it", gap);
    } else {
      const Plausible range = PlausibleRange(g.term);
      const double off = g.factor >= 1 ? g.factor : 1 / std::max(g.factor, 1e-9);
      g.plausible = off <= range.max_factor;
      g.note = absl::StrFormat("x%.2f (%+.3f s): %s (%s)", g.factor, gap,
                               g.plausible ? absl::StrFormat("plausible, within x%.1f", range.max_factor)
                                           : absl::StrFormat("unlikely alone, beyond x%.1f", range.max_factor),
                               range.why);
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<const TermGap*> LikeliestTerms(const std::vector<TermGap>& gap, size_t max) {
  std::vector<const TermGap*> out;
  for (const TermGap& g : gap) {
    if (g.closes_alone && g.predicted_s > 0) out.push_back(&g);
  }
  auto off = [](const TermGap* g) { return std::fabs(std::log(std::max(g->factor, 1e-9))); };
  std::stable_sort(out.begin(), out.end(), [&](const TermGap* a, const TermGap* b) {
    if (a->plausible != b->plausible) return a->plausible;
    return off(a) < off(b);
  });
  if (out.size() > max) out.resize(max);
  return out;
}

}  // namespace parplan
