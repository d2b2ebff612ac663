// libFuzzer target: the JSON request path of the MCP door and the CLI
// (server/api/json_codec.h -> server/api/api_methods.h): the first byte picks the
// RPC, the rest is its JSON arguments. Every input must end in an answer or a
// precise error, within the call budget, without a crash or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "server/api/api_methods.h"
#include "server/api/json_codec.h"
#include "server/api/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& methods = parplan::api::ApiMethods();
  const parplan::api::ApiMethod& method = methods[data[0] % methods.size()];
  const absl::string_view json(reinterpret_cast<const char*>(data + 1), size - 1);
  std::unique_ptr<google::protobuf::Message> request(method.request->New());
  std::unique_ptr<google::protobuf::Message> response(method.response->New());
  if (!parplan::api::JsonToMessage(json, "arguments", request.get()).ok()) return 0;
  // A short budget keeps searches from dominating the run; they must stop on it.
  if (!method.call(*request, response.get(), absl::Now() + absl::Milliseconds(200)).ok()) return 0;
  // An answer prints as JSON, and as valid UTF-8 (answers quote the input).
  const std::string printed = parplan::api::MessageToJson(*response, false);
  if (printed.empty() || !parplan::IsValidUtf8(printed)) std::abort();
  return 0;
}
