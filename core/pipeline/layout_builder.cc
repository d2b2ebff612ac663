#include "core/pipeline/layout_builder.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace parplan {

namespace {

// Spreads `num_layers` decoder layers over `stages`, counting the loss (and
// the embedding when `embedding_unit`) as one layer each; the remainder goes
// to the middle stages.
std::string Layout(int64_t num_layers, int64_t mtp_layers, int64_t stages, bool embedding_unit) {
  std::vector<int64_t> layers(stages, 0);
  const int64_t units = num_layers + 1 + (embedding_unit ? 1 : 0);
  const int64_t base = units / stages;
  int64_t extra = units % stages;
  for (int64_t i = 0; i < stages; ++i) {
    layers[i] = base;
    if (extra > 0 && i > 0 && i < stages - 1) {
      ++layers[i];
      --extra;
    }
  }
  // Leftover (only when there are no middle stages) goes to the first stage.
  layers[0] += extra;
  if (embedding_unit) layers[0] -= 1;  // the embedding takes one unit
  layers[stages - 1] -= 1;  // the loss takes one unit
  // A stage cannot hold fewer than zero layers: move the deficit along.
  for (int64_t i = 0; i < stages; ++i) {
    if (layers[i] < 0) {
      const int64_t j = i + 1 < stages ? i + 1 : i - 1;
      if (j >= 0) layers[j] += layers[i];
      layers[i] = 0;
    }
  }
  std::string out;
  for (int64_t i = 0; i < stages; ++i) {
    if (i > 0) out += "|";
    if (i == 0) out += "E";
    if (layers[i] > 0) out += layers[i] == 1 ? "t" : absl::StrCat("t*", layers[i]);
    if (i == stages - 1) {
      for (int64_t k = 0; k < mtp_layers; ++k) out += "m";
      out += "L";
    }
  }
  return out;
}

}  // namespace

std::string BalancedLayout(int64_t num_layers, int64_t mtp_layers, int64_t stages) {
  return Layout(num_layers, mtp_layers, stages, true);
}

std::string LossBalancedLayout(int64_t num_layers, int64_t mtp_layers, int64_t stages) {
  return Layout(num_layers, mtp_layers, stages, false);
}

}  // namespace parplan
