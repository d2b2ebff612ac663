// The one JSON form of the API messages, shared by the CLI (--json) and the
// MCP door: proto3 JSON with the proto field names (snake_case), every
// primitive field printed (zeros and empty strings included). 64-bit integers
// are decimal strings, as proto3 JSON prescribes; parsing accepts numbers or
// strings for them.
#ifndef PARPLAN_SERVER_JSON_CODEC_H_
#define PARPLAN_SERVER_JSON_CODEC_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace parplan {
namespace api {

// True when no array or object in `json` is nested deeper than `max_depth`
// (strings and escapes skipped). Checked before parsing untrusted JSON: the
// JSON library copies and prints recursively, so a document nested 100,000
// deep would overflow the stack.
bool JsonNestedWithin(absl::string_view json, int max_depth);

// "not valid JSON at line L, column C (byte B of N): unexpected 'x'" for a
// document whose parser failed at 1-based byte `byte` (0 = unknown: the
// first); names an empty body as such.
std::string NotJsonText(absl::string_view json, size_t byte);

// `json` with each number too large for a double (1e400, which the JSON
// parser refuses) replaced by a marked string, so that the document parses
// and JsonToMessage names the number's field and range instead of a syntax
// error. Other text is returned as is.
std::string QuoteOverflowingNumbers(absl::string_view json);

// `message` as JSON; `pretty` adds newlines and two-space indents.
std::string MessageToJson(const google::protobuf::Message& message, bool pretty);

// Fills `message` from a JSON object. Unknown fields and wrong types are
// INVALID_ARGUMENT with a field violation per field, named by its path under
// `prefix` ("arguments.config.tp"; bare "config.tp" when `prefix` is empty,
// as the HTTP door's body is the request itself); malformed JSON and what
// the protobuf parser alone catches are one violation named `prefix` (or
// "request" when empty). A document nested deeper than kMaxJsonDepth is
// refused before it is parsed.
absl::Status JsonToMessage(absl::string_view json, const std::string& prefix, google::protobuf::Message* message);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_JSON_CODEC_H_
