#include "core/compare/run_gate.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/config/resolved_settings.h"
#include "core/util/text.h"

namespace parplan {
namespace {

GateCheck OptimizerInitialised(const ParsedLog& log) {
  GateCheck g{"optimizer_initialised", false, ""};
  const IterationRecord* first = nullptr;
  for (const IterationRecord& r : log.iterations) {
    if (r.iteration >= 1) {
      first = &r;
      break;
    }
  }
  const LogFailure* startup = nullptr;
  for (const LogFailure& f : log.failures) {
    if (f.after_iteration < 0) {
      startup = &f;
      break;
    }
  }
  if (first != nullptr) {
    // Megatron-LM and Bridge print an iteration line only after the
    // iteration's optimizer step (training.py training_log).
    g.ok = true;
    g.detail = absl::StrCat("iteration lines from iteration ", first->iteration, " (line ", first->line,
                            "): the optimizer was built and stepped");
  } else if (startup != nullptr) {
    g.detail = absl::StrCat("the run failed at start-up, before any iteration line (line ", startup->line, ": ",
                            startup->message, ")");
  } else {
    g.detail = "no iteration line: nothing shows the run got past start-up (model build, optimizer init)";
  }
  return g;
}

GateCheck SteadyIterations(const MeasuredRun& m, int64_t min) {
  GateCheck g{"steady_iterations", m.window.records >= min, ""};
  if (m.window.records == 0) {
    g.detail =
        absl::StrCat("no steady window: ", m.window.reason.empty() ? "no iteration with a step time" : m.window.reason,
                     "; ", min, " steady records needed");
  } else {
    g.detail = absl::StrFormat("%d steady records (iterations %d-%d), %d needed", m.window.records,
                               m.window.first_iteration, m.window.last_iteration, min);
  }
  return g;
}

GateCheck NoNanOrSkipped(const MeasuredRun& m) {
  GateCheck g{"no_nan_or_skipped", false, ""};
  if (m.window.records == 0) {
    g.checked = false;
    g.detail = "no steady window to check";
    return g;
  }
  g.ok = m.nan_iterations == 0 && m.skipped_iterations == 0;
  g.detail =
      absl::StrFormat("%d NaN and %d skipped iterations in iterations %d-%d%s", m.nan_iterations, m.skipped_iterations,
                      m.window.first_iteration, m.window.last_iteration,
                      g.ok ? "" : ": loss scaling or the data hit a problem; the steps are not all real updates");
  return g;
}

GateCheck MemoryHeadroom(const ParsedLog& log, const MeasuredRun& m, double capacity, double headroom) {
  GateCheck g{"memory_headroom", false, ""};
  for (const LogFailure& f : log.failures) {
    if (f.kind == "oom") {
      g.detail = absl::StrCat("the run ran out of memory (line ", f.line, ", ", f.moment, "): ", f.message);
      return g;
    }
  }
  const bool reserved = std::isfinite(m.max_reserved_bytes);
  const double peak = reserved ? m.max_reserved_bytes : m.max_allocated_bytes;
  if (!std::isfinite(peak)) {
    g.checked = false;
    g.detail = "the log has no memory report (max allocated / max reserved)";
    return g;
  }
  if (capacity <= 0) {
    g.checked = false;
    g.detail = absl::StrCat("measured peak ", HumanGiB(peak),
                            " but the GPU's memory is not known: a config with a system would check it");
    return g;
  }
  const double limit = (1 - headroom) * capacity;
  g.ok = peak <= limit;
  g.detail = absl::StrFormat("measured peak %s (max %s) is %.0f%% of %s; the gate wants at most %.0f%% (%s)",
                             HumanGiB(peak), reserved ? "reserved" : "allocated", 100 * peak / capacity,
                             HumanGiB(capacity), 100 * (1 - headroom), HumanGiB(limit));
  return g;
}

}  // namespace

std::vector<std::string> ChangedBenchmarkOrSemantics(const ResolvedConfig& baseline, const ResolvedConfig& config,
                                                     const ResolvedPlacement& placement, const ModelSpec* model) {
  std::map<std::string, ResolvedSetting> a;
  for (ResolvedSetting& s : ListResolvedSettings(baseline, placement, model, 0, 0, SettingsScope::kConfig)) {
    a[s.field] = std::move(s);
  }
  std::vector<std::string> out;
  for (const ResolvedSetting& s : ListResolvedSettings(config, placement, model, 0, 0, SettingsScope::kConfig)) {
    if (s.effect != EffectClass::kSemantics && s.effect != EffectClass::kBenchmark) continue;
    auto it = a.find(s.field);
    const std::string before = it == a.end() ? "(unset)" : it->second.value;
    if (before != s.value)
      out.push_back(absl::StrCat(s.field, " ", before, " -> ", s.value, " (", EffectClassName(s.effect), ")"));
  }
  return out;
}

std::vector<GateCheck> CheckRunGate(const GateInputs& in) {
  std::vector<GateCheck> out;
  out.push_back(OptimizerInitialised(*in.log));
  out.push_back(SteadyIterations(*in.measured, in.min_steady_iterations));
  out.push_back(NoNanOrSkipped(*in.measured));
  double capacity = in.capacity_bytes;
  for (const LogFailure& f : in.log->failures) {
    if (capacity <= 0 && std::isfinite(f.capacity_bytes) && f.capacity_bytes > 0) capacity = f.capacity_bytes;
  }
  out.push_back(MemoryHeadroom(*in.log, *in.measured, capacity, in.memory_headroom));
  GateCheck b{"baseline_settings", false, ""};
  if (in.baseline_config == nullptr || in.config == nullptr || in.placement == nullptr) {
    b.checked = false;
    b.detail = "no baseline config: nothing to compare the settings with";
  } else {
    const std::vector<std::string> changed =
        ChangedBenchmarkOrSemantics(*in.baseline_config, *in.config, *in.placement, in.model);
    b.ok = changed.empty();
    b.detail = b.ok ? "no setting of benchmark or semantics effect differs from the baseline"
                    : absl::StrCat("settings that change what is trained or benchmarked differ from the baseline: ",
                                   absl::StrJoin(changed, "; "),
                                   " -- the runs measure different training, not only a different schedule");
  }
  out.push_back(std::move(b));
  return out;
}

}  // namespace parplan
