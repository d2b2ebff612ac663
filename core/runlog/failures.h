// Failures in a training log: the exception line of a Python traceback
// (PyTorch's CUDA OOM, AssertionError / ValueError / RuntimeError), its sizes,
// and the parplan rule it corresponds to.
#ifndef PARPLAN_CORE_RUNLOG_FAILURES_H_
#define PARPLAN_CORE_RUNLOG_FAILURES_H_

#include <optional>
#include "absl/strings/string_view.h"

#include "core/runlog/run_log.h"

namespace parplan {

// The exception a line names, or nullopt: "torch.OutOfMemoryError: CUDA out
// of memory. ...", "torch.cuda.OutOfMemoryError: ...", "RuntimeError: CUDA out
// of memory. ..." (kind "oom"); "AssertionError: ..." ("assertion");
// "ValueError: ..." / "RuntimeError: ..." ("error"). The line must start with
// the exception name (a traceback's last line), so quoted source lines
// ("    raise ValueError(") do not count. `message` is the text after ": "
// (may be empty: Bridge's triple-quoted asserts put it on the next line).
std::optional<LogFailure> ReadExceptionLine(absl::string_view line);

// For kind "oom": reads the sizes in the message into tried/capacity/free
// bytes. Handles torch >= 2.2 ("Tried to allocate 2.00 GiB. GPU 0 has a
// total capacity of 79.10 GiB of which 1.23 GiB is free.") and the older form
// ("Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.47 GiB
// already allocated; 5.56 MiB free; ...)").
void ReadOomSizes(LogFailure* failure);

// Sets rule_id, fix (and rule_source) from the message: the first matching
// Megatron / Bridge template (failure_templates.h), or the memory advice for
// an OOM (parplan has no rule id for "does not fit": rule_id stays "").
void MapFailureToRule(LogFailure* failure);

}  // namespace parplan

#endif  // PARPLAN_CORE_RUNLOG_FAILURES_H_
