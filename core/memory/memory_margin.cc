#include "core/memory/memory_margin.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/util/field_error.h"
#include "core/util/text.h"

namespace parplan {

absl::Status CheckMemoryReserve(double reserve, const std::string& field) {
  if (reserve >= 0 && reserve <= kMaxMemoryReserve) return absl::OkStatus();
  return FieldError(field, absl::StrCat(field, " = ", reserve, " is out of range; allowed 0..", kMaxMemoryReserve,
                                        " (a share of HBM, e.g. 0.05)"));
}

bool IsTight(const MemoryEstimate& e, double reserve) {
  if (e.capacity_bytes <= 0 || !e.fits) return false;
  return e.headroom_bytes < reserve * e.capacity_bytes;
}

std::string TightReason(const MemoryEstimate& e, double reserve) {
  if (!IsTight(e, reserve)) return "";
  return absl::StrFormat(
      "Tight: %s free is under the %.0f%% of HBM (%s) reserved for the memory model's error (of the 172 NVIDIA "
      "configs that ran, two are predicted at 105-106%% of HBM); prefer a plan with room, or watch memory in the "
      "first iterations.",
      HumanGiB(e.headroom_bytes), 100 * reserve, HumanGiB(reserve * e.capacity_bytes));
}

std::string ReserveStatement(double capacity_bytes, double reserve) {
  return absl::StrFormat(
      "Memory reserve: a plan with under %.0f%% of HBM (%s of %s) free is shown as tight and ranks below an equally "
      "fast plan with room (set memory_reserve, CLI --memory-reserve, 0..%.1f).",
      100 * reserve, HumanGiB(reserve * capacity_bytes), HumanGiB(capacity_bytes), kMaxMemoryReserve);
}

}  // namespace parplan
