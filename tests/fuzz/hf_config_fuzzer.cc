// libFuzzer target: the Hugging Face config.json parser (core/model/hf_config.h).
// Any bytes must give a model or an INVALID_ARGUMENT, never a crash, hang or
// sanitizer report; a parsed model must pass its own range checks or say why.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "core/model/hf_config.h"
#include "core/model/param_count.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto model = parplan::ParseHfConfig(text, "model.hf_config_json");
  if (model.ok() && model->complete()) (void)parplan::CountParams(*model);
  return 0;
}
