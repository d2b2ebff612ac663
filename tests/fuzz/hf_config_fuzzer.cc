// libFuzzer target: the Hugging Face config.json parser (core/model/hf_config.h).
// Any bytes must give a model or an INVALID_ARGUMENT (anything else aborts,
// so the fuzzer reports it), never a crash, hang or sanitizer report; a
// parsed model must pass the architecture range checks (aborts otherwise)
// and, when complete, have its parameters counted.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "core/model/hf_config.h"
#include "core/model/model_checks.h"
#include "core/model/param_count.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto model = parplan::ParseHfConfig(text, "model.hf_config_json");
  if (!model.ok()) {
    if (model.status().code() != absl::StatusCode::kInvalidArgument) {
      std::fprintf(stderr, "not INVALID_ARGUMENT: %s\n", model.status().ToString().c_str());
      std::abort();
    }
    return 0;
  }
  if (const absl::Status bounds = parplan::CheckArchitectureBounds(*model, "model"); !bounds.ok()) {
    std::fprintf(stderr, "parsed model out of bounds: %s\n", bounds.ToString().c_str());
    std::abort();
  }
  if (model->complete()) (void)parplan::CountParams(*model);
  return 0;
}
