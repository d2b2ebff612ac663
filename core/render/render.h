// A config rendered for the tools that run it: Megatron Bridge Python and CLI
// overrides (ConfigContainer fields, src/megatron/bridge/training/config.py),
// Megatron-LM flags (megatron/training/arguments.py) and a Slurm header.
#ifndef PARPLAN_CORE_RENDER_RENDER_H_
#define PARPLAN_CORE_RENDER_RENDER_H_

#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"

namespace parplan {

struct RenderedConfig {
  std::string bridge_python;
  std::string bridge_cli;
  std::string megatron_lm_args;
  std::string slurm_header;  // empty when the GPU count or node size is unknown
  std::vector<std::string> notes;
};

// Renders `config`; `model` (nullable) adds seq_length / MTP context, the
// placement sizes the Slurm header. The Megatron-LM arguments come from the
// field map (core/import/field_map.h) -- every plan setting that differs
// from Megatron-LM's parser default, and with a model its architecture
// arguments -- so importing them (core/import/megatron_import.h) gives the
// plan back. A model that is not from the catalog is also written to the
// Bridge overrides as model.* fields.
RenderedConfig RenderConfig(const ResolvedConfig& config, const ModelSpec* model, const ResolvedPlacement& placement);

}  // namespace parplan

#endif  // PARPLAN_CORE_RENDER_RENDER_H_
