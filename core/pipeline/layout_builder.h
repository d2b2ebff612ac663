// Builds a pipeline_model_parallel_layout that spreads a model's decoder
// layers as evenly as possible over PP*VPP virtual stages, with the embedding
// on the first stage, MTP and the loss on the last -- the shape Megatron
// Bridge's DeepSeek recipes use (recipes/deepseek/h100/deepseek_v3.py,
// _get_deepseek_v3_pipeline_layout): the embedding (a lookup) counts as no
// layer, the MTP depth and the loss as `end_units` layers (3 there: PP 4 ->
// 16/16/16/13, PP 8 -> 8 x 7 + 5, PP 16 -> 4 x 15 + 1), the remainder goes to
// the middle stages.
#ifndef PARPLAN_CORE_PIPELINE_LAYOUT_BUILDER_H_
#define PARPLAN_CORE_PIPELINE_LAYOUT_BUILDER_H_

#include <cstdint>
#include <string>

namespace parplan {

// String form ("Et*4|t*4|...|tmL"). Precondition: stages >= 1, num_layers >= 0.
// `end_units`: how many decoder layers' worth of work the MTP depths and the
// loss on the last stage count as (1 by default; the DeepSeek-V3 recipes give
// the last stage 3 layers fewer than the others: MTP plus two vocabulary
// projections of 129K, see EndUnits).
std::string BalancedLayout(int64_t num_layers, int64_t mtp_layers, int64_t stages, int64_t end_units = 1);

// The same layout with runs of identical stages written as Megatron's
// repeat group ("Et*4|t*4|t*4|t*4|tmL" -> "Et*4|(t*4|)*3tmL"): what
// parse_str_to_list expands back to the same stages. Strings that already
// use groups, or a JSON list, are returned unchanged.
std::string CompactLayout(const std::string& layout);

// Decoder layers' worth of work of the last stage's extras: the whole number
// of average decoder layers the output layer's (and MTP heads') FLOPs make,
// plus one per MTP depth; at least 1 (DeepSeek-V3 at 4K: 2 + 1 = 3, as its
// recipes). `logits_flops` and `layer_flops` per
// token.
int64_t EndUnits(double logits_flops, double layer_flops, int64_t mtp_layers);

// As BalancedLayout, but only the loss counts as a layer (the embedding is a
// lookup): the last stage gets one layer fewer and a middle stage one more,
// as Megatron Bridge's Llama-3 70B H100 recipe does
// (perf_recipes/llama/h100/llama3.py: "Et*2|(t*2|)*34,t*3|(t*2|)*3,tL").
std::string LossBalancedLayout(int64_t num_layers, int64_t mtp_layers, int64_t stages);

}  // namespace parplan

#endif  // PARPLAN_CORE_PIPELINE_LAYOUT_BUILDER_H_
