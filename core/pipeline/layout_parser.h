// Megatron-Core's pipeline_model_parallel_layout, in both of its forms.
//
// String form (megatron/core/transformer/pipeline_parallel_layer_layout.py,
// parse_str_to_list): commas are cosmetic and removed; "(...)*n" repeats a
// group (one level, no nesting), then "x*n" repeats one character; '|'
// separates stages; E = embedding, L = loss, t = decoder layer, m = MTP layer.
// List form: a JSON list of lists of layer names (embedding, loss, decoder,
// mtp, encoder; case-insensitive).
//
// Stages are listed in virtual order: stage i belongs to pp rank i % PP and
// virtual chunk i / PP (PipelineParallelLayerLayout.__init__).
#ifndef PARPLAN_CORE_PIPELINE_LAYOUT_PARSER_H_
#define PARPLAN_CORE_PIPELINE_LAYOUT_PARSER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace parplan {

enum class LayerType { kEmbedding, kLoss, kEncoder, kDecoder, kMtp };

using LayoutStage = std::vector<LayerType>;

// Largest expanded layout the parser builds (layers, all stages together).
inline constexpr size_t kMaxExpandedLayoutLayers = 1 << 16;

// Parses either form into the flat list of stages. Errors are
// INVALID_ARGUMENT on `field` with Megatron's reason (invalid character,
// malformed JSON, unknown layer name, expansion too large).
absl::StatusOr<std::vector<LayoutStage>> ParseLayoutStages(absl::string_view text, const std::string& field);

// "E", "L", "t", "m", "encoder".
std::string LayerTypeName(LayerType type);

}  // namespace parplan

#endif  // PARPLAN_CORE_PIPELINE_LAYOUT_PARSER_H_
