#include "core/pipeline/layout_builder.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace parplan {

namespace {

// Spreads `num_layers` decoder layers over `stages`, counting the loss (and
// the embedding when `embedding_unit`) as one layer each; the remainder goes
// to the middle stages.
std::string Layout(int64_t num_layers, int64_t mtp_layers, int64_t stages, bool embedding_unit, int64_t end_units) {
  std::vector<int64_t> layers(stages, 0);
  // The extras never take more than a stage's share (no empty stages).
  end_units = std::min(end_units, std::max<int64_t>(1, (num_layers + end_units + (embedding_unit ? 1 : 0)) / stages));
  const int64_t units = num_layers + end_units + (embedding_unit ? 1 : 0);
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
  layers[stages - 1] -= end_units;     // the loss (and MTP) take their units
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

std::string BalancedLayout(int64_t num_layers, int64_t mtp_layers, int64_t stages, int64_t end_units) {
  return CompactLayout(Layout(num_layers, mtp_layers, stages, false, std::max<int64_t>(1, end_units)));
}

std::string LossBalancedLayout(int64_t num_layers, int64_t mtp_layers, int64_t stages) {
  return CompactLayout(Layout(num_layers, mtp_layers, stages, false, 1));
}

std::string CompactLayout(const std::string& layout) {
  if (layout.empty() || layout.find('(') != std::string::npos || layout.find('[') != std::string::npos) return layout;
  std::vector<std::string> stages = absl::StrSplit(layout, '|');
  std::string out;
  for (size_t i = 0; i < stages.size();) {
    size_t j = i + 1;
    while (j < stages.size() && stages[j] == stages[i]) ++j;
    const size_t run = j - i;
    const bool last = j == stages.size();
    if (run >= 3 && !last) {
      // "(s|)*n" expands to n copies each followed by '|'.
      absl::StrAppend(&out, "(", stages[i], "|)*", run);
    } else if (run >= 3) {
      // The final stage has no trailing '|': repeat all but the last copy.
      absl::StrAppend(&out, "(", stages[i], "|)*", run - 1, stages[i]);
    } else {
      for (size_t k = i; k < j; ++k) absl::StrAppend(&out, stages[k], k + 1 < stages.size() ? "|" : "");
    }
    i = j;
  }
  return out;
}

int64_t EndUnits(double logits_flops, double layer_flops, int64_t mtp_layers) {
  if (layer_flops <= 0) return 1;
  return std::max<int64_t>(1, static_cast<int64_t>(std::floor(logits_flops / layer_flops)) + mtp_layers);
}

}  // namespace parplan
