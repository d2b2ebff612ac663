// The layer splits Megatron accepts for a model, as arithmetic: which PPs
// divide the layers (with or without the embedding and loss counted as
// layers), and uneven first/last stage counts for a PP that does not. Used
// for fix texts and for the nearest valid split (core/search/split_repair.h).
//
// Megatron's rules (megatron/core/transformer/transformer_config.py,
// __post_init__): an even split needs num_layers (+1 per accounted end) to be
// divisible by PP*VPP; uneven stages need the middle stages to hold equal
// counts and every stage's count to be divisible by VPP.
#ifndef PARPLAN_CORE_PIPELINE_SPLIT_OPTIONS_H_
#define PARPLAN_CORE_PIPELINE_SPLIT_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace parplan {

// PP values in 2..max_pp with `units` divisible by PP*VPP, ascending.
std::vector<int64_t> EvenPps(int64_t units, int64_t vpp, int64_t max_pp);

struct UnevenStages {
  int64_t first = 0;             // num_layers_in_first_pipeline_stage
  int64_t last = 0;              // num_layers_in_last_pipeline_stage
  int64_t middle_per_stage = 0;  // each of the PP-2 middle stages
};

// First/last stage counts that put `layers` on PP >= 2 stages (VPP chunks
// each) with the largest stage no bigger than an even spread's (ceil of
// layers/PP, rounded up to a multiple of VPP); the last stage gets the
// smaller share (it also runs the loss). nullopt when no such split exists.
std::optional<UnevenStages> BalancedUnevenStages(int64_t layers, int64_t pp, int64_t vpp);

// The fix text for `layers` that do not split over PP*VPP: the PPs that
// divide them as they are, with the loss counted, with the embedding and the
// loss counted (accounting not offered for hybrid models); uneven first/last
// counts that keep this PP; and the layout. One sentence, numbers included.
std::string LayerSplitFix(int64_t layers, int64_t pp, int64_t vpp, bool hybrid);

}  // namespace parplan

#endif  // PARPLAN_CORE_PIPELINE_SPLIT_OPTIONS_H_
