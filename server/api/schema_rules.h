// What the tool schemas say beyond the proto's types: each request field's
// bounds and closed set of values (from the same constants the checks use),
// which fields a tool requires, and which config fields a tool reads. The
// test tests/server/schema_rules_test.cc sends each bound (and one past it),
// each listed value and each missing required field through the API, so the
// schemas cannot drift from what the handlers accept.
#ifndef PARPLAN_SERVER_SCHEMA_RULES_H_
#define PARPLAN_SERVER_SCHEMA_RULES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace parplan {
namespace api {

struct FieldRule {
  std::optional<double> minimum;            // inclusive
  std::optional<double> exclusive_minimum;  // for (0, hi] figures
  std::optional<double> maximum;            // inclusive
  std::optional<int64_t> max_length;        // strings: characters; repeated: items
  std::vector<std::string> choices;         // the closed set (of each item when repeated)
};

// The rule of `field` in `message` (proto names without the package:
// "ParallelConfig", "tp"); nullptr when the proto type says it all.
const FieldRule* FieldRuleOf(absl::string_view message, absl::string_view field);

// Fields a call to `rpc` must give at `path` ("" = the request, "placement"
// = its placement), in proto order.
std::vector<std::string> RequiredFields(absl::string_view rpc, absl::string_view path);

// True when a call to `rpc` must give at least one field (GetSystem: a
// system id or inline figures).
bool NeedsSomeField(absl::string_view rpc);

// The config fields `rpc` reads; nullptr when it reads them all.
const std::vector<std::string>* ConfigFieldsRead(absl::string_view rpc);

// Messages the lean schemas list with bare fields (types and closed sets,
// no descriptions or bounds; their full schemas are in the json-schema
// export) in their home tool: the system figures and the config.
bool CollapsedInLeanSchemas(absl::string_view message);

// Where the lean schemas list a request message that several tools take:
// its home tool and the argument's path there; the other tools point to it
// (tools/list carries each list once: it must stay within 24 KiB).
// `listed`: false when no schema lists the fields and the home tool's answer
// shows them (the inline model architecture: get_model prints every field
// of a catalog model's, to copy and edit). Empty `tool` for messages listed
// in every tool.
struct LeanHome {
  std::string tool;
  std::string path;
  bool listed = true;
};
LeanHome LeanHomeOf(absl::string_view message);

// Fields the lean schemas leave out (still accepted; in the json-schema
// export): SystemSpec's second spelling of each figure (SystemInfo's names,
// so a printed system passes back) and its descriptive fields.
bool HiddenInLeanSchemas(absl::string_view message, absl::string_view field);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_SCHEMA_RULES_H_
