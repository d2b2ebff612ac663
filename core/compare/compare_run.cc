#include "core/compare/compare_run.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/compare/measured_run.h"
#include "core/compare/predict_run.h"
#include "core/compare/run_gate.h"
#include "core/compare/suggest_changes.h"
#include "core/compare/term_gap.h"
#include "core/util/field_error.h"
#include "core/util/text.h"

namespace parplan {
namespace {

constexpr int kMaxSuggestedChanges = 5;
constexpr int64_t kMaxMinSteadyIterations = 100000;

bool Known(double x) { return std::isfinite(x); }

void CopyMeasured(const MeasuredRun& m, RunComparison* out) {
  out->window = m.window;
  out->measured_step_s = m.step_s;
  out->measured_tokens_per_s_per_gpu = m.tokens_per_s_per_gpu;
  out->measured_tflops_per_gpu = m.tflops_per_gpu;
  out->measured_max_allocated_bytes = m.max_allocated_bytes;
  out->measured_max_reserved_bytes = m.max_reserved_bytes;
  out->measured_fragmentation = m.fragmentation;
  out->measured_gbs = m.gbs;
  out->measured_gbs_source = m.gbs_source;
  out->measured_tokens_source = m.tokens_source;
  out->world = m.world;
  out->seq_length = m.seq_length;
}

void CopyPrediction(const RunPrediction& p, RunComparison* out) {
  out->has_prediction = true;
  out->predicted_step_s = p.perf.step_time_s;
  out->predicted_tokens_per_s_per_gpu = p.perf.tokens_per_s_per_gpu;
  out->predicted_tflops_per_gpu = p.perf.model_tflops_per_gpu;
  out->predicted_mfu = p.perf.mfu;
  out->peak_tflops = p.perf.peak_tflops;
  out->predicted_peak_bytes = p.memory.peak_bytes;
  out->predicted_fragmentation_allowance_bytes = p.fragmentation_allowance_bytes;
  out->capacity_bytes = p.memory.capacity_bytes;
  out->predicted_breakdown = p.perf.breakdown;
  out->uncertainty_median = p.uncertainty.median;
  out->uncertainty_p90 = p.uncertainty.p90;
}

std::string WindowSentence(const SteadyWindow& w) {
  if (w.records == 0) {
    return absl::StrCat("No steady window: ", w.reason.empty() ? "no iteration line with a step time" : w.reason, ".");
  }
  std::string s = absl::StrFormat(
      "Steady window: iterations %d-%d, %d records, median step %.3f s (min %.3f, max %.3f; p10-p90 spread %.1f%% of "
      "the median)",
      w.first_iteration, w.last_iteration, w.records, w.median_step_s, w.min_step_s, w.max_step_s, 100 * w.spread);
  // The exclusions carry their reasons; the window's own summary repeats the numbers above.
  absl::StrAppend(
      &s, w.excluded.empty() ? "; nothing left out" : absl::StrCat("; left out: ", absl::StrJoin(w.excluded, "; ")));
  return s + ".";
}

std::string MeasuredSentence(const RunComparison& r) {
  std::string s = Known(r.measured_step_s) ? absl::StrFormat("Measured: step %.3f s", r.measured_step_s)
                                           : std::string("Measured: no step time");
  if (Known(r.measured_tokens_per_s_per_gpu)) {
    absl::StrAppend(
        &s, absl::StrFormat(", %.0f tokens/s/GPU (%s)", r.measured_tokens_per_s_per_gpu, r.measured_tokens_source));
  } else {
    absl::StrAppend(&s, ", tokens/s/GPU ", r.measured_tokens_source);
  }
  if (Known(r.measured_tflops_per_gpu)) {
    absl::StrAppend(&s, absl::StrFormat(", %.1f TFLOP/s/GPU as logged", r.measured_tflops_per_gpu));
  }
  if (Known(r.measured_mfu)) {
    absl::StrAppend(
        &s, absl::StrFormat(", MFU %.1f%% of the %.0f TFLOP/s dense peak", 100 * r.measured_mfu, r.peak_tflops));
  }
  return s + ".";
}

std::string MemorySentence(const RunComparison& r) {
  std::string s;
  if (Known(r.measured_max_allocated_bytes) || Known(r.measured_max_reserved_bytes)) {
    s = absl::StrCat("Memory: max allocated ",
                     Known(r.measured_max_allocated_bytes) ? HumanGiB(r.measured_max_allocated_bytes) : "not logged",
                     ", max reserved ",
                     Known(r.measured_max_reserved_bytes) ? HumanGiB(r.measured_max_reserved_bytes) : "not logged");
    if (Known(r.measured_fragmentation)) {
      absl::StrAppend(&s, absl::StrFormat(": the allocator holds %s (%.1f%% of reserved) it does not use",
                                          HumanGiB(r.measured_max_reserved_bytes - r.measured_max_allocated_bytes),
                                          100 * r.measured_fragmentation));
      if (r.has_prediction) {
        const double measured_slack = r.measured_max_reserved_bytes - r.measured_max_allocated_bytes;
        absl::StrAppend(
            &s, absl::StrFormat(", %s the model's allocator allowance of %s (%.0f%% of its other terms)",
                                measured_slack > r.predicted_fragmentation_allowance_bytes ? "above" : "within",
                                HumanGiB(r.predicted_fragmentation_allowance_bytes), 100 * kDefaultAllocatorSlack));
      }
    }
  } else {
    s = "Memory: the log has no memory report";
  }
  if (r.has_prediction) {
    absl::StrAppend(&s, "; predicted peak ", HumanGiB(r.predicted_peak_bytes), " of ", HumanGiB(r.capacity_bytes),
                    absl::StrFormat(" (it includes %.0f GiB for the CUDA context, NCCL and library workspaces, which "
                                    "PyTorch's allocated/reserved counters do not see)",
                                    kDefaultOverheadGiB));
    const double measured =
        Known(r.measured_max_reserved_bytes) ? r.measured_max_reserved_bytes : r.measured_max_allocated_bytes;
    if (Known(measured) && measured > 0) {
      absl::StrAppend(&s, absl::StrFormat(", %.0f%% of the measured %s plus that overhead",
                                          100 * r.predicted_peak_bytes / (measured + kDefaultOverheadGiB * kGiB),
                                          Known(r.measured_max_reserved_bytes) ? "max reserved" : "max allocated"));
    }
  }
  return s + ".";
}

std::string ErrorSentence(const RunComparison& r, const std::string& basis) {
  return absl::StrFormat(
      "Predicted: step %.3f s, %.0f tokens/s/GPU, %.1f model TFLOP/s/GPU, MFU %.1f%%. The prediction is %.1f%% %s "
      "than measured (step error %+.1f%%), %s the model's p90 band of ±%.0f%% (%s)",
      r.predicted_step_s, r.predicted_tokens_per_s_per_gpu, r.predicted_tflops_per_gpu, 100 * r.predicted_mfu,
      100 * std::fabs(r.step_error), r.step_error < 0 ? "faster" : "slower", 100 * r.step_error,
      r.within_uncertainty ? "inside" : "outside", 100 * r.uncertainty_p90, basis);
}

std::string GapSentence(const RunComparison& r) {
  const double gap = r.measured_step_s - r.predicted_step_s;
  const std::vector<const TermGap*> best = LikeliestTerms(r.gap, 3);
  std::vector<std::string> parts;
  for (const TermGap* g : best) {
    parts.push_back(absl::StrFormat("%s %.3f -> %.3f s (x%.2f, %s)", g->label, g->predicted_s, g->needed_s, g->factor,
                                    g->plausible ? "plausible" : "unlikely alone"));
  }
  return absl::StrFormat(
      "Gap: the measured step is %.3f s %s than predicted; %s.", std::fabs(gap), gap >= 0 ? "longer" : "shorter",
      parts.empty()
          ? std::string("no single term can close it alone")
          : absl::StrCat("the terms that would close it alone with the least change: ", absl::StrJoin(parts, "; ")));
}

}  // namespace

absl::StatusOr<RunComparison> CompareRun(const CompareInputs& in) {
  FieldErrors errors;
  if (in.log == nullptr) errors.Add("log", "a parsed training log is required");
  errors.CheckRange("min_steady_iterations", in.min_steady_iterations, 1, kMaxMinSteadyIterations);
  if (!(in.memory_headroom >= 0 && in.memory_headroom < 1)) {
    errors.Add("memory_headroom", absl::StrCat("memory_headroom = ", in.memory_headroom,
                                               " is out of range; allowed a share of HBM in [0, 1)"));
  }
  const bool with_config = in.model != nullptr && in.config != nullptr && in.placement != nullptr;
  if ((in.model != nullptr || in.config != nullptr) && !with_config) {
    errors.Add("config", "a comparison with a prediction needs the model, the config and the placement together");
  }
  if (!errors.empty()) return errors.ToStatus();
  const PerfParams& params = in.params != nullptr ? *in.params : CalibratedPerfParams();
  RunComparison out;
  out.compute_scale = params.compute_scale;
  out.network_scale = params.network_scale;
  out.log_notes = in.log->unread;
  out.log_notes.insert(out.log_notes.end(), in.log->notes.begin(), in.log->notes.end());

  // The prediction first: it fixes the world, the batch the config runs and the peak.
  RunPrediction prediction;
  ResolvedConfig config;
  if (with_config) {
    config = *in.config;
    const MeasuredRun alone = MeasureRun(*in.log, RunShape{});
    if (config.gbs == 0 && alone.window.global_batch_size > 0) {
      config.gbs = alone.window.global_batch_size;
      out.reasons.push_back(absl::StrCat("gbs not in the config: the log's global batch size, ", config.gbs, "."));
    }
    prediction = PredictRun(*in.model, config, *in.placement, params);
    if (!prediction.ok) out.no_prediction_reason = absl::StrCat("no estimate: ", prediction.unavailable_reason);
  } else {
    out.no_prediction_reason =
        "the log alone: a config (--from the launch script, recipe or YAML, with the system and GPU count) would add "
        "the prediction, the gap by term and the changes the model predicts help";
  }
  RunShape shape;
  if (with_config) {
    shape.seq_length = prediction.ok ? prediction.config.seq_length : config.seq_length;
    shape.world = prediction.ok ? prediction.world : in.placement->gpus;
    shape.config_gbs = prediction.ok ? prediction.config.gbs : config.gbs;
  }
  const MeasuredRun measured = MeasureRun(*in.log, shape);
  CopyMeasured(measured, &out);
  if (prediction.ok) {
    CopyPrediction(prediction, &out);
    for (const std::string& n : prediction.notes) out.reasons.push_back(n);
    if (measured.window.global_batch_size > 0 && measured.window.global_batch_size != prediction.config.gbs) {
      out.reasons.push_back(absl::StrFormat(
          "The log ran a global batch of %d, the config says %d: the prediction is for the config's batch, so the "
          "step times compare different work.",
          measured.window.global_batch_size, prediction.config.gbs));
    }
  }
  // MFU against the dense peak the prediction uses: the logged TFLOP/s, else
  // parplan's FLOPs per token times the measured tokens/s.
  if (out.has_prediction && out.peak_tflops > 0) {
    const double flops_per_token = prediction.perf.flops.total;
    if (Known(out.measured_tflops_per_gpu)) {
      out.measured_mfu = out.measured_tflops_per_gpu / out.peak_tflops;
      if (Known(out.measured_tokens_per_s_per_gpu)) {
        const double ours = out.measured_tokens_per_s_per_gpu * flops_per_token / 1e12;
        if (std::fabs(ours / out.measured_tflops_per_gpu - 1) > 0.05) {
          out.reasons.push_back(absl::StrFormat(
              "The log's %.1f TFLOP/s/GPU counts FLOPs its own way: parplan's count (%.2f GFLOP per token) at the "
              "measured tokens/s gives %.1f TFLOP/s/GPU; the MFUs below use the logged figure.",
              out.measured_tflops_per_gpu, flops_per_token / 1e9, ours));
        }
      }
    } else if (Known(out.measured_tokens_per_s_per_gpu)) {
      out.measured_mfu = out.measured_tokens_per_s_per_gpu * flops_per_token / 1e12 / out.peak_tflops;
    }
  }

  out.reasons.push_back(WindowSentence(out.window));
  out.reasons.push_back(MeasuredSentence(out));
  if (out.has_prediction && Known(out.measured_step_s) && out.measured_step_s > 0) {
    out.step_error = (out.predicted_step_s - out.measured_step_s) / out.measured_step_s;
    out.within_uncertainty = std::fabs(out.step_error) <= out.uncertainty_p90;
    out.reasons.push_back(ErrorSentence(out, prediction.uncertainty.basis));
    out.gap =
        GapByTerm(*in.model, out.predicted_breakdown, prediction.config, prediction.memory.dp, out.measured_step_s);
    out.reasons.push_back(GapSentence(out));
  } else if (out.has_prediction) {
    out.reasons.push_back(
        absl::StrFormat("Predicted: step %.3f s, %.0f tokens/s/GPU; the log gives no step time to "
                        "compare it with.",
                        out.predicted_step_s, out.predicted_tokens_per_s_per_gpu));
  } else {
    out.reasons.push_back(absl::StrCat("No prediction: ", out.no_prediction_reason, "."));
  }
  out.reasons.push_back(MemorySentence(out));
  if (prediction.ok && in.suggest_changes) {
    out.changes = SuggestFasterChanges(*in.model, prediction, params, kMaxSuggestedChanges);
    std::vector<std::string> parts;
    for (const SuggestedChange& c : out.changes) {
      parts.push_back(absl::StrFormat("%s (%.1f%% faster, %s)", c.change, 100 * c.predicted_gain, c.effect));
    }
    out.reasons.push_back(parts.empty()
                              ? "No single change of overlap, recompute, VPP, CUDA graphs, dispatcher or MBS "
                                "is predicted to make this run faster and still fit."
                              : absl::StrCat("Changes the model predicts help: ", absl::StrJoin(parts, "; "), "."));
  }

  GateInputs gate;
  gate.log = in.log;
  gate.measured = &measured;
  gate.min_steady_iterations = in.min_steady_iterations;
  gate.memory_headroom = in.memory_headroom;
  gate.capacity_bytes = out.capacity_bytes;
  gate.model = in.model;
  // The configs as given on both sides (the prediction's has its batch and
  // VPP resolved, the baseline's does not).
  gate.config = with_config ? in.config : nullptr;
  gate.baseline_config = in.baseline_config;
  gate.placement = in.placement;
  out.gate = CheckRunGate(gate);
  out.valid_measurement = true;
  std::vector<std::string> failed, unchecked;
  for (const GateCheck& g : out.gate) {
    if (!g.checked) {
      unchecked.push_back(absl::StrCat(g.name, " (", g.detail, ")"));
    } else if (!g.ok) {
      out.valid_measurement = false;
      failed.push_back(absl::StrCat(g.name, ": ", g.detail));
    }
  }
  out.reasons.push_back(absl::StrCat(
      out.valid_measurement ? "Gate: a valid measurement"
                            : absl::StrCat("Gate: not a valid measurement -- ", absl::StrJoin(failed, "; ")),
      unchecked.empty() ? "" : absl::StrCat("; not checked: ", absl::StrJoin(unchecked, "; ")), "."));

  if (in.baseline_log != nullptr) {
    out.ab = CompareRunWindows(*in.baseline_log, *in.log);
    if (!out.ab->verdict.empty())
      out.reasons.push_back(absl::StrCat("A/B (A the baseline, B this run): ", out.ab->verdict));
  }
  out.failures = in.log->failures;
  for (const LogFailure& f : out.failures) {
    out.reasons.push_back(
        absl::StrCat("Failure (", f.kind, ", line ", f.line, ", ", f.moment, "): ", f.message,
                     f.rule_id.empty() ? "" : absl::StrCat(" -- parplan rule ", f.rule_id, ": ", f.fix), "."));
  }
  return out;
}

}  // namespace parplan
