// libFuzzer target: Megatron pipeline-layout strings and JSON lists
// (core/pipeline/layout_parser.h). Any bytes: stages or INVALID_ARGUMENT, and
// never more layers than the documented expansion bound.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "core/pipeline/layout_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto stages = parplan::ParseLayoutStages(text, "config.pipeline_layout");
  if (stages.ok()) {
    size_t layers = 0;
    for (const auto& stage : *stages) layers += stage.size();
    if (layers > parplan::kMaxExpandedLayoutLayers) std::abort();
  }
  return 0;
}
