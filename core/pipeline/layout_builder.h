// Builds a pipeline_model_parallel_layout that spreads a model's decoder
// layers as evenly as possible over PP*VPP virtual stages, with the embedding
// on the first stage, MTP and the loss on the last -- the shape Megatron
// Bridge's DeepSeek recipes use (recipes/deepseek/h100/deepseek_v3.py,
// _get_deepseek_v3_pipeline_layout): when the layers do not divide, the
// first and last stages, which also hold the embedding and the loss, get
// fewer layers.
#ifndef PARPLAN_CORE_PIPELINE_LAYOUT_BUILDER_H_
#define PARPLAN_CORE_PIPELINE_LAYOUT_BUILDER_H_

#include <cstdint>
#include <string>

namespace parplan {

// String form ("Et*4|t*4|...|tmL"). Precondition: stages >= 1, num_layers >= 0.
std::string BalancedLayout(int64_t num_layers, int64_t mtp_layers, int64_t stages);

// As BalancedLayout, but only the loss counts as a layer (the embedding is a
// lookup): the last stage gets one layer fewer and a middle stage one more,
// as Megatron Bridge's Llama-3 70B H100 recipe does
// (perf_recipes/llama/h100/llama3.py: "Et*2|(t*2|)*34,t*3|(t*2|)*3,tL").
std::string LossBalancedLayout(int64_t num_layers, int64_t mtp_layers, int64_t stages);

}  // namespace parplan

#endif  // PARPLAN_CORE_PIPELINE_LAYOUT_BUILDER_H_
