// Text answers of `import`, `compare` and `calibrate`.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "skill/cli/cli_table.h"

namespace parplan {
namespace cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string Seconds(double s) { return absl::StrFormat("%.3f s", s); }

std::string Percent(double f) { return absl::StrFormat("%+.1f%%", 100 * f); }

std::string ModelLine(const v1::ModelRef& m) {
  if (!m.id().empty()) return absl::StrCat("model: ", m.id(), " (catalog)\n");
  if (m.has_spec()) {
    const auto& a = m.spec();
    return absl::StrFormat(
        "model: from the arguments: %d layers, hidden %d, ffn %d, %d heads / %d query groups%s\n", a.num_layers(),
        a.hidden_size(), a.ffn_hidden_size(), a.num_attention_heads(), a.num_query_groups(),
        a.num_moe_experts() > 0 ? absl::StrFormat(", %d experts top-%d", a.num_moe_experts(), a.moe_router_topk())
                                : "");
  }
  if (!m.hf_config_json().empty()) return "model: from the Hugging Face config.json\n";
  return "model: not given by the text (add --model)\n";
}

}  // namespace

std::string FormatImportConfig(const v1::ImportConfigResponse& r) {
  std::string out =
      absl::StrCat("read as ", r.format(), r.recipe().empty() ? "" : absl::StrCat(" (recipe ", r.recipe(), ")"), ": ",
                   r.mapped(), " mapped, ", r.not_modelled(), " not modelled, ", r.no_effect(), " without effect\n");
  absl::StrAppend(&out, ModelLine(r.model()));
  if (r.placement().gpus() > 0) {
    absl::StrAppend(
        &out, "gpus: ", r.placement().gpus(),
        r.placement().gpus_per_node() > 0 ? absl::StrCat(" (", r.placement().gpus_per_node(), " per node)") : "",
        r.placement().system().empty() ? "" : absl::StrCat(" on ", r.placement().system()), "\n");
  }
  absl::StrAppend(&out, "arguments:\n");
  for (const auto& a : r.arguments()) {
    absl::StrAppend(&out, absl::StrFormat("  %-12s %s = %s", a.status(), a.name(), a.value()));
    if (!a.maps_to().empty()) absl::StrAppend(&out, " -> ", a.maps_to());
    if (!a.note().empty()) absl::StrAppend(&out, "  (", a.note(), ")");
    absl::StrAppend(&out, "\n");
  }
  for (const auto& w : r.warnings()) absl::StrAppend(&out, "warning: ", w, "\n");
  for (const auto& n : r.notes()) absl::StrAppend(&out, "note: ", n, "\n");
  absl::StrAppend(&out, r.valid() ? "VALID" : "INVALID", "\n");
  out += Violations(r.violations());
  out += Reasons(r.reasons());
  return out;
}

std::string FormatCompareRun(const v1::CompareRunResponse& r) {
  std::string out = absl::StrCat("log: ", r.log_format(), "\n");
  const auto& w = r.window();
  if (w.records() > 0) {
    absl::StrAppend(
        &out,
        absl::StrFormat("steady window: iterations %d-%d (%d records), median %.3f s, spread %.1f%%\n",
                        w.first_iteration(), w.last_iteration(), w.records(), w.median_step_s(), 100 * w.spread()));
  } else {
    absl::StrAppend(&out, "steady window: none (", w.reason(), ")\n");
  }
  for (const auto& e : w.excluded()) absl::StrAppend(&out, "  excluded: ", e, "\n");
  if (r.has_prediction() && r.has_measured_step_s()) {
    absl::StrAppend(
        &out, absl::StrFormat("step time    measured %s | predicted %s | error %s (p90 band +-%.0f%%: %s)\n",
                              Seconds(r.measured_step_s()), Seconds(r.predicted_step_s()), Percent(r.step_error()),
                              100 * r.uncertainty_p90(), r.within_uncertainty() ? "inside" : "outside"));
  } else if (r.has_measured_step_s()) {
    absl::StrAppend(&out, "step time    measured ", Seconds(r.measured_step_s()), "\n");
  }
  if (r.has_measured_tokens_per_s_per_gpu()) {
    absl::StrAppend(&out, absl::StrFormat("tokens/s/GPU measured %.0f", r.measured_tokens_per_s_per_gpu()),
                    r.has_prediction() ? absl::StrFormat(" | predicted %.0f", r.predicted_tokens_per_s_per_gpu()) : "",
                    "\n");
  }
  if (r.has_measured_mfu() || r.has_prediction()) {
    absl::StrAppend(&out, "MFU          ",
                    r.has_measured_mfu() ? absl::StrFormat("measured %.1f%%", 100 * r.measured_mfu()) : "measured -",
                    r.has_prediction() ? absl::StrFormat(" | predicted %.1f%% (peak %.0f TFLOP/s)",
                                                         100 * r.predicted_mfu(), r.peak_tflops())
                                       : "",
                    "\n");
  }
  if (r.has_measured_max_allocated_bytes() || r.has_measured_max_reserved_bytes()) {
    absl::StrAppend(&out, "memory       ",
                    r.has_measured_max_allocated_bytes()
                        ? absl::StrFormat("max allocated %.1f GiB", r.measured_max_allocated_bytes() / kGiB)
                        : "max allocated -",
                    r.has_measured_max_reserved_bytes()
                        ? absl::StrFormat(", max reserved %.1f GiB", r.measured_max_reserved_bytes() / kGiB)
                        : "",
                    r.has_measured_fragmentation()
                        ? absl::StrFormat(" (fragmentation %.1f%%)", 100 * r.measured_fragmentation())
                        : "",
                    r.has_prediction() ? absl::StrFormat(" | predicted peak %.1f GiB of %.1f",
                                                         r.predicted_peak_bytes() / kGiB, r.capacity_bytes() / kGiB)
                                       : "",
                    "\n");
  }
  if (r.has_prediction() && !r.has_measured_max_allocated_bytes() && !r.has_measured_max_reserved_bytes()) {
    absl::StrAppend(&out, absl::StrFormat("memory       not logged | predicted peak %.1f GiB of %.1f%s\n",
                                          r.predicted_peak_bytes() / kGiB, r.capacity_bytes() / kGiB,
                                          r.predicted_peak_bytes() > r.capacity_bytes() ? " (does not fit)" : ""));
  }
  if (r.gap_size() > 0) {
    absl::StrAppend(&out, "gap by term (what each would have to be to close the gap alone):\n");
    for (const auto& g : r.gap()) {
      absl::StrAppend(
          &out,
          absl::StrFormat("  %-14s %8.3f s -> %8.3f s (x%.2f)", g.term(), g.predicted_s(), g.needed_s(), g.factor()),
          g.note().empty() ? "" : absl::StrCat("  ", g.note()), "\n");
    }
  }
  if (r.changes_size() > 0) {
    absl::StrAppend(&out, "changes predicted to help:\n");
    for (const auto& c : r.changes()) {
      absl::StrAppend(&out, absl::StrFormat("  %-44s step %.3f s (%.1f%% faster) [%s]\n", c.change(),
                                            c.predicted_step_s(), 100 * c.predicted_gain(), c.effect()));
    }
  }
  absl::StrAppend(&out, "gate: ", r.valid_measurement() ? "PASS (a valid measurement)" : "FAIL", "\n");
  for (const auto& g : r.gate()) {
    absl::StrAppend(&out, "  [", !g.checked() ? "n/a" : (g.ok() ? "ok" : "FAIL"), "] ", g.name(), ": ", g.detail(),
                    "\n");
  }
  if (r.has_ab()) absl::StrAppend(&out, "A/B: ", r.ab().verdict(), "\n");
  for (const auto& f : r.failures()) {
    absl::StrAppend(&out, "failure (", f.kind(), ", line ", f.line(), ", ", f.moment(), "): ", f.message(), "\n");
    if (!f.rule_id().empty()) absl::StrAppend(&out, "  rule ", f.rule_id(), ": ", f.fix(), "\n");
  }
  for (const auto& n : r.log_notes()) absl::StrAppend(&out, "log note: ", n, "\n");
  out += Reasons(r.reasons());
  return out;
}

std::string FormatCalibrate(const v1::CalibrateResponse& r) {
  std::string out = absl::StrCat(r.summary(), "\n");
  for (const auto& run : r.calibration().runs()) {
    absl::StrAppend(&out, absl::StrFormat("  %-24s measured %.3f s, predicted %.3f s (compute %.3f, communication "
                                          "%.3f), leave-one-out residual %s\n",
                                          run.label(), run.measured_step_s(), run.predicted_step_s(), run.compute_s(),
                                          run.communication_s(),
                                          run.has_loo_residual() ? Percent(run.loo_residual()) : "- (one run)"));
  }
  out += Reasons(r.reasons());
  return out;
}

}  // namespace cli
}  // namespace parplan
