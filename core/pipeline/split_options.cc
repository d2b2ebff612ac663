#include "core/pipeline/split_options.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace parplan {
namespace {

constexpr int64_t kMaxListed = 8;  // PPs named per option

// "2, 4, 8" (at most kMaxListed, then "...").
std::string PpList(const std::vector<int64_t>& pps) {
  std::vector<std::string> out;
  for (int64_t p : pps) {
    if (static_cast<int64_t>(out.size()) == kMaxListed) {
      out.push_back("...");
      break;
    }
    out.push_back(absl::StrCat(p));
  }
  return absl::StrJoin(out, ", ");
}

int64_t RoundUp(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

}  // namespace

std::vector<int64_t> EvenPps(int64_t units, int64_t vpp, int64_t max_pp) {
  std::vector<int64_t> out;
  vpp = std::max<int64_t>(1, vpp);
  for (int64_t pp = 2; pp <= max_pp && pp * vpp <= units; ++pp) {
    if (units % (pp * vpp) == 0) out.push_back(pp);
  }
  return out;
}

std::optional<UnevenStages> BalancedUnevenStages(int64_t layers, int64_t pp, int64_t vpp) {
  vpp = std::max<int64_t>(1, vpp);
  if (pp < 2 || layers < pp * vpp || layers % vpp != 0) return std::nullopt;
  const int64_t target = RoundUp((layers + pp - 1) / pp, vpp);
  // Middle stages as full as allowed, first and last share the rest.
  for (int64_t middle = target; middle >= vpp; middle -= vpp) {
    const int64_t rest = layers - middle * (pp - 2);
    if (rest < 2 * vpp) continue;
    const int64_t last = rest / 2 / vpp * vpp;
    const int64_t first = rest - last;
    if (first > target) break;  // lower middles only make first/last bigger
    if (pp == 2) return UnevenStages{first, last, 0};
    return UnevenStages{first, last, middle};
  }
  return std::nullopt;
}

std::string LayerSplitFix(int64_t layers, int64_t pp, int64_t vpp, bool hybrid) {
  const int64_t max_pp = std::min<int64_t>(layers, 128);
  std::vector<std::string> options;
  const std::vector<int64_t> plain = EvenPps(layers, vpp, max_pp);
  options.push_back(absl::StrCat("PPs that split ", layers, " layers",
                                 vpp > 1 ? absl::StrCat(" into VPP=", vpp, " chunks") : "",
                                 " evenly: ", plain.empty() ? "none above 1" : PpList(plain)));
  if (!hybrid) {
    const std::vector<int64_t> loss = EvenPps(layers + 1, vpp, max_pp);
    if (!loss.empty()) {
      options.push_back(absl::StrCat("counting the loss as a layer (", layers + 1,
                                     ", account_for_loss_in_pipeline_split): ", PpList(loss)));
    }
    const std::vector<int64_t> both = EvenPps(layers + 2, vpp, max_pp);
    if (!both.empty()) {
      options.push_back(absl::StrCat("counting the embedding and the loss (", layers + 2,
                                     ", account_for_embedding_in_pipeline_split and "
                                     "account_for_loss_in_pipeline_split): ",
                                     PpList(both)));
    }
  }
  std::string keep = absl::StrCat("to keep PP=", pp);
  if (const auto u = BalancedUnevenStages(layers, pp, vpp); u.has_value() && !hybrid) {
    absl::StrAppend(
        &keep, ": num_layers_in_first_pipeline_stage=", u->first, ", num_layers_in_last_pipeline_stage=", u->last,
        pp > 2
            ? absl::StrCat(" (", pp - 2, pp == 3 ? " middle stage of " : " middle stages of ", u->middle_per_stage, ")")
            : "",
        " (--first-stage-layers ", u->first, " --last-stage-layers ", u->last, "), or a pipeline layout");
  } else {
    absl::StrAppend(&keep, hybrid ? ": '|' stage breaks in the hybrid pattern" : ": a pipeline layout");
  }
  options.push_back(keep);
  return absl::StrJoin(options, "; ");
}

}  // namespace parplan
