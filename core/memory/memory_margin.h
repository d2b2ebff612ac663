// The memory safety margin: how much of HBM a plan should leave free so that
// the memory model's own error does not turn "fits" into an OOM.
//
// Why 5%: of the 172 NVIDIA configs in ../shared/data that ran, the memory
// model predicts two at 105-106% of HBM (core/memory/README.md); a plan that
// fits with less than 5% free is inside that error.
#ifndef PARPLAN_CORE_MEMORY_MEMORY_MARGIN_H_
#define PARPLAN_CORE_MEMORY_MEMORY_MARGIN_H_

#include <string>

#include "absl/status/status.h"

#include "core/memory/memory_model.h"
#include "core/util/limits.h"

namespace parplan {

inline constexpr double kDefaultMemoryReserve = 0.05;

// OK when `reserve` is a share of HBM in 0..kMaxMemoryReserve; else
// INVALID_ARGUMENT naming `field` ("<field> = 0.7 is out of range; ...").
absl::Status CheckMemoryReserve(double reserve, const std::string& field);

// True when `e` fits its capacity but leaves less than `reserve` (a share of
// capacity, 0..kMaxMemoryReserve) free. False without a capacity.
bool IsTight(const MemoryEstimate& e, double reserve);

// "Tight: 1.3 GiB free is under the 5% of HBM (4.0 GiB) reserved for the
// memory model's error ..." for a tight estimate; "" otherwise.
std::string TightReason(const MemoryEstimate& e, double reserve);

// The reserve in words, for answers that apply it: "Memory reserve: plans
// with under 5% of HBM (4.0 GiB of 79.6 GiB) free are shown as tight ...".
// `capacity_bytes` > 0.
std::string ReserveStatement(double capacity_bytes, double reserve);

}  // namespace parplan

#endif  // PARPLAN_CORE_MEMORY_MEMORY_MARGIN_H_
