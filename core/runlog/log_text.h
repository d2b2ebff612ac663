// Small text helpers shared by the run-log readers: line splitting, the
// prefixes launchers put before each line, numbers with units.
#ifndef PARPLAN_CORE_RUNLOG_LOG_TEXT_H_
#define PARPLAN_CORE_RUNLOG_LOG_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

namespace parplan {

// Lines longer than this are cut (and reported unread); no printer parplan
// reads writes lines anywhere near it.
inline constexpr size_t kMaxLogLineBytes = 64u << 10;

// Splits on '\n', '\r\n' and lone '\r' (tqdm redraws with '\r').
std::vector<absl::string_view> SplitLogLines(absl::string_view text);

// A line without the prefix a launcher adds: torchrun's "[rank3]: " and
// "[default3]:", srun --label's "3: ". `rank` is set when the prefix names one
// (-1 otherwise). Leading/trailing whitespace is kept except the prefix's.
absl::string_view StripRankPrefix(absl::string_view line, int* rank);

// Removes a leading "[2026-01-01 10:00:00]" / "[2026-01-01 10:00:00.123456]"
// timestamp (and the blanks around it); other text is returned unchanged.
absl::string_view StripTimestamp(absl::string_view line);

// The number at the start of `s` (after blanks): "5123.4", "2.500000E-04",
// "nan", "inf". nullopt when `s` starts with anything else.
std::optional<double> LeadingNumber(absl::string_view s, size_t* consumed = nullptr);
std::optional<int64_t> LeadingInteger(absl::string_view s, size_t* consumed = nullptr);

// Lower case without blanks: compares keys that a hard wrap may have cut
// at a blank ("consumed" + "samples" -> "consumedsamples").
std::string CompactKey(absl::string_view key);

// A size with a unit as PyTorch prints it ("2.00 GiB", "5.56 MiB", "512 bytes",
// "1.5 GB"); bytes. nullopt when no unit it knows follows the number.
std::optional<double> ParseSize(absl::string_view s);

// At most `max_chars` of `line`, with "..." when cut (for examples in notes).
std::string Excerpt(absl::string_view line, size_t max_chars = 120);

}  // namespace parplan

#endif  // PARPLAN_CORE_RUNLOG_LOG_TEXT_H_
