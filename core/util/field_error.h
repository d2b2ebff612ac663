// Field-level input errors shared by every door.
//
// A bad request becomes absl::InvalidArgumentError whose message lists every
// problem, plus a payload that names each field, so the gRPC door can turn it
// into google.rpc.BadRequest field violations and the CLI can print it.
#ifndef PARPLAN_CORE_UTIL_FIELD_ERROR_H_
#define PARPLAN_CORE_UTIL_FIELD_ERROR_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace parplan {

struct FieldViolation {
  std::string field;        // e.g. "config.tp"
  std::string description;  // what is wrong and what is allowed
};

// Collects field violations; ToStatus() is OK when none were added.
class FieldErrors {
 public:
  void Add(std::string field, std::string description);
  // Adds "<field> = <value> is out of range; allowed <lo>..<hi>" when outside.
  void CheckRange(const std::string& field, long long value, long long lo, long long hi);
  bool empty() const { return violations_.empty(); }
  const std::vector<FieldViolation>& violations() const { return violations_; }
  absl::Status ToStatus() const;

 private:
  std::vector<FieldViolation> violations_;
};

// One-violation shortcut.
absl::Status FieldError(std::string field, std::string description);

// The violations carried by a status made by FieldErrors/FieldError (empty for
// any other status).
std::vector<FieldViolation> FieldViolationsOf(const absl::Status& status);

// Prefixes every field of a FieldErrors status with "<prefix>." (so a core
// error on "tp" reads "config.tp" at the door). Other statuses pass through.
absl::Status PrefixFields(const absl::Status& status, const std::string& prefix);

}  // namespace parplan

#endif  // PARPLAN_CORE_UTIL_FIELD_ERROR_H_
