#include "core/util/field_error.h"

#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace parplan {
namespace {

constexpr char kPayloadUrl[] = "type.googleapis.com/parplan.FieldViolations";

}  // namespace

void FieldErrors::Add(std::string field, std::string description) {
  violations_.push_back({std::move(field), std::move(description)});
}

void FieldErrors::CheckRange(const std::string& field, long long value, long long lo, long long hi) {
  if (value < lo || value > hi) {
    Add(field, absl::StrCat(field, " = ", value, " is out of range; allowed ", lo, "..", hi));
  }
}

absl::Status FieldErrors::ToStatus() const {
  if (violations_.empty()) return absl::OkStatus();
  std::string message;
  std::string payload;
  for (const auto& v : violations_) {
    if (!message.empty()) message += "; ";
    message += absl::StrCat(v.field, ": ", v.description);
    // Tabs and newlines cannot occur in field names; strip them from text.
    std::string text = v.description;
    for (char& c : text) {
      if (c == '\n' || c == '\t') c = ' ';
    }
    absl::StrAppend(&payload, v.field, "\t", text, "\n");
  }
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kPayloadUrl, absl::Cord(payload));
  return status;
}

absl::Status FieldError(std::string field, std::string description) {
  FieldErrors errors;
  errors.Add(std::move(field), std::move(description));
  return errors.ToStatus();
}

std::vector<FieldViolation> FieldViolationsOf(const absl::Status& status) {
  std::vector<FieldViolation> out;
  auto payload = status.GetPayload(kPayloadUrl);
  if (!payload.has_value()) return out;
  for (absl::string_view line : absl::StrSplit(std::string(*payload), '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> parts = absl::StrSplit(line, absl::MaxSplits('\t', 1));
    out.push_back({parts.first, parts.second});
  }
  return out;
}

absl::Status PrefixFields(const absl::Status& status, const std::string& prefix) {
  auto violations = FieldViolationsOf(status);
  if (violations.empty()) return status;
  FieldErrors errors;
  for (auto& v : violations) errors.Add(absl::StrCat(prefix, ".", v.field), v.description);
  return errors.ToStatus();
}

}  // namespace parplan
