// The resolved plan in a text answer: which release the answer assumes and
// a compact list of what was defaulted or chosen (never what the user gave).
// (Warnings on settings that are not execution-only come in the answer's
// own notes and reasons.)
#ifndef PARPLAN_SKILL_CLI_CLI_RESOLVED_H_
#define PARPLAN_SKILL_CLI_CLI_RESOLVED_H_

#include <string>

#include "google/protobuf/message.h"

namespace parplan {
namespace cli {

// For an answer with `resolved` and `assumes` fields (every config-shaped
// answer): "assumes: ...\nresolved (not given): etp=1 (bridge_default),
// dp=16 (...), ...\n"; "" for answers without them.
std::string ResolvedPlanText(const google::protobuf::Message& response);

}  // namespace cli
}  // namespace parplan

#endif  // PARPLAN_SKILL_CLI_CLI_RESOLVED_H_
