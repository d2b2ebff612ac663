// Completing and checking a ModelSpec.
#ifndef PARPLAN_CORE_MODEL_MODEL_CHECKS_H_
#define PARPLAN_CORE_MODEL_MODEL_CHECKS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/model/model_spec.h"
#include "core/util/limits.h"

namespace parplan {

// softmax_type values: vanilla, off-by-one, learnable.
const std::vector<std::string>& KnownSoftmaxTypes();
// position_embedding_type values: rope, yarn (RoPE with YaRN scaling, GPT-OSS), learned_absolute, none.
const std::vector<std::string>& KnownPositionEmbeddingTypes();
// rope_scaling_type values (Hugging Face rope_scaling types that scale the
// context): yarn, llama3, linear, dynamic, longrope.
const std::vector<std::string>& KnownRopeScalingTypes();
// normalization values: RMSNorm, LayerNorm.
const std::vector<std::string>& KnownNormalizations();
// activation_func names: silu, gelu, quick_gelu, relu, squared_relu.
const std::vector<std::string>& KnownActivations();

// Fills the defaults Megatron-Core applies when a field is unset
// (transformer_config.py __post_init__): num_query_groups = heads,
// kv_channels = hidden / heads, ffn_hidden_size = 4 * hidden (when the model
// has dense MLP layers), moe_ffn_hidden_size = ffn_hidden_size,
// num_layers = pattern length for hybrid models, softmax_type = "vanilla",
// position_embedding_type = "rope", normalization = "RMSNorm" (parplan's
// defaults where Megatron's differ: see ModelSpec),
// and derives `kind`. Used for inline specs and HF configs, never for catalog nulls (a catalog
// null means "unverified", not "default").
void ApplyMegatronDefaults(ModelSpec* model);

// The fields the planner's math needs that are still unknown, given the
// model's kind (MoE, MLA, hybrid). Sorted, without duplicates.
std::vector<std::string> MissingFields(const ModelSpec& model);

// Range checks on every architecture field; `prefix` is the request path of
// the spec (e.g. "model.spec"). Also checks consistency that would make the
// math meaningless (top-k > experts, pattern lengths vs num_layers, a window
// and a chunk size together, an unknown softmax_type).
absl::Status CheckArchitectureBounds(const ModelSpec& model, const std::string& prefix);

// Derives kind from the fields (dense, moe, mla_moe, hybrid_mamba, ...).
std::string DeriveKind(const ModelSpec& model);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_MODEL_CHECKS_H_
