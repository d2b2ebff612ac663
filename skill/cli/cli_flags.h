// Command-line flags of `parplan`, turned into API request protos.
#ifndef PARPLAN_SKILL_CLI_CLI_FLAGS_H_
#define PARPLAN_SKILL_CLI_CLI_FLAGS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace cli {

namespace v1 = ::parplan::v1;

// Parsed flags: name (without dashes) -> value ("true" for bare switches).
struct Flags {
  std::string command;
  std::map<std::string, std::string> values;
  bool Has(const std::string& name) const { return values.count(name) > 0; }
  std::string Get(const std::string& name) const;
};

// Parses argv after the program name: the first word is the command, then
// --flag value, --flag=value, or bare switches (--json, --sp, --no-sp).
// INVALID_ARGUMENT naming the flag on unknown flags or missing values.
absl::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args);

// Builders; errors name the flag (e.g. "--tp").
absl::Status FillModel(const Flags& flags, v1::ModelRef* model, bool required);
absl::Status FillConfig(const Flags& flags, v1::ParallelConfig* config);
absl::Status FillPlacement(const Flags& flags, v1::Placement* placement);
// The contents of the file named by flag `name` (a path), at most `limit`
// bytes; errors name the flag.
absl::StatusOr<std::string> ReadFileFlag(const Flags& flags, const std::string& name, size_t limit);
// A number flag (present); errors name the flag.
absl::Status DoubleFlag(const Flags& flags, const std::string& name, double* out);
// --memory-reserve as a share of HBM in 0..kMaxMemoryReserve; untouched when
// absent.
absl::Status MemoryReserveFlag(const Flags& flags, std::optional<double>* out);
// Integer flag in [lo, hi]; `out` untouched when absent.
absl::Status IntFlag(const Flags& flags, const std::string& name, long long lo, long long hi, long long* out);

// The flags each command accepts, for --help and unknown-flag errors.
const std::vector<std::string>& KnownFlags();

}  // namespace cli
}  // namespace parplan

#endif  // PARPLAN_SKILL_CLI_CLI_FLAGS_H_
