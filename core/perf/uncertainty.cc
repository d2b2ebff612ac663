#include "core/perf/uncertainty.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace parplan {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

std::string ModelFamily(const ModelSpec& m) {
  if (m.is_hybrid()) return "hybrid Mamba";
  if (m.multi_latent_attention) return "MLA+MoE";
  return m.is_moe() ? "MoE" : "dense";
}

Uncertainty PerfUncertainty(const ModelSpec& model, const SystemSpec& system, const UncertaintyTable& t) {
  const std::string family = ModelFamily(model);
  const bool model_seen = model.origin == "catalog" && Contains(t.models, model.id);
  const bool family_seen = Contains(t.families, family);
  const bool generation_seen = Contains(t.generations, system.gpu_arch);
  const ErrorSpread& model_group = model_seen ? t.seen : family_seen ? t.model_unseen : t.family_unseen;
  Uncertainty u;
  // A model the fit never saw is never quoted as more certain than a
  // calibrated one (held-out medians can come out below in-sample ones when
  // few parameters are fitted).
  u.median = std::max(model_group.median, t.seen.median);
  u.p90 = std::max(model_group.p90, t.seen.p90);
  // Nor as more certain than the calibrated rows of its own GPU generation
  // (Blackwell's kernel rates are published figures, not a measured table).
  const ErrorSpread* generation = nullptr;
  for (const auto& [arch, spread] : t.seen_by_generation) {
    if (arch == system.gpu_arch) generation = &spread;
  }
  const bool generation_wider = generation != nullptr && (generation->median > u.median || generation->p90 > u.p90);
  if (generation != nullptr) {
    u.median = std::max(u.median, generation->median);
    u.p90 = std::max(u.p90, generation->p90);
  }
  if (!generation_seen) {
    if (model_seen) {
      u.median = t.generation_unseen.median;
      u.p90 = t.generation_unseen.p90;
    } else {
      u.median = std::hypot(model_group.median, t.generation_unseen.median);
      u.p90 = std::hypot(model_group.p90, t.generation_unseen.p90);
    }
  }
  const std::string model_part = model_seen ? absl::StrCat(model.id, " is a calibrated model")
                                 : family_seen
                                     ? absl::StrCat(model.id, " is not among the calibrated models, but its family (",
                                                    family, ") is (leave-one-model-out error)")
                                     : absl::StrCat("no ", family,
                                                    " model is in the calibration data (leave-one-model-out error of a "
                                                    "model alone in its family)");
  const std::string gpu_part = generation_seen
                                   ? absl::StrCat("the ", system.gpu_arch, " generation is calibrated",
                                                  generation_wider ? " (at its own in-sample error, wider than the "
                                                                     "pooled one)"
                                                                   : "")
                                   : absl::StrCat("no ", system.gpu_arch.empty() ? "such" : system.gpu_arch,
                                                  " GPU is in the calibration data (leave-one-GPU-generation-out error",
                                                  model_seen ? "" : ", combined with the model's", ")");
  u.basis = absl::StrFormat("±%.0f%% typical, ±%.0f%% at p90: %s; %s (bench/results/perf_accuracy.txt).",
                            100 * u.median, 100 * u.p90, model_part, gpu_part);
  return u;
}

}  // namespace parplan
