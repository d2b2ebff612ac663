#include "core/runlog/log_lines.h"

#include <cctype>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/runlog/log_text.h"

namespace parplan {
namespace {

// "iteration  120/  5000" at `pos` of `s`: fills iteration and train_iters.
bool ReadIterationCounter(absl::string_view s, size_t pos, IterationRecord* record, size_t* end) {
  constexpr absl::string_view kWord = "iteration";
  if (s.compare(pos, kWord.size(), kWord) != 0) return false;
  absl::string_view rest = s.substr(pos + kWord.size());
  if (rest.empty() || (rest[0] != ' ' && rest[0] != '\t')) return false;
  size_t used = 0;
  const std::optional<int64_t> n = LeadingInteger(rest, &used);
  if (!n) return false;
  size_t i = used;
  while (i < rest.size() && rest[i] == ' ') ++i;
  if (i >= rest.size() || rest[i] != '/') return false;
  size_t used_total = 0;
  const std::optional<int64_t> total = LeadingInteger(rest.substr(i + 1), &used_total);
  if (!total) return false;
  record->iteration = *n;
  record->train_iters = *total;
  *end = pos + kWord.size() + i + 1 + used_total;
  return true;
}

// Position of the "iteration N/M" counter in a Megatron line: right after the
// timestamp, or after a logger's own prefix within the first 80 characters.
std::optional<size_t> FindCounter(absl::string_view s) {
  size_t from = 0;
  while (from < s.size() && from < 80) {
    const size_t pos = s.find("iteration", from);
    if (pos == absl::string_view::npos || pos > 80) return std::nullopt;
    IterationRecord probe;
    size_t end = 0;
    if (ReadIterationCounter(s, pos, &probe, &end)) return pos;
    from = pos + 1;
  }
  return std::nullopt;
}

std::optional<double> ValueOf(absl::string_view value) {
  size_t used = 0;
  std::optional<double> v = LeadingNumber(value, &used);
  return v;
}

// Applies one "key: value" field to `r`. Keys compared compacted (a hard wrap
// may have removed a blank).
void ApplyField(absl::string_view key_raw, absl::string_view value, IterationRecord* r) {
  const std::string key = CompactKey(key_raw);
  const std::optional<double> v = ValueOf(value);
  if (!v) return;
  if (key == "consumedsamples" || key == "consumed_samples") {
    r->consumed_samples = static_cast<int64_t>(*v);
  } else if (key == "elapsedtimeperiteration(ms)") {
    r->step_s = *v / 1000.0;
  } else if (key == "elapsedtimeperiteration(s)" || key == "train_step_timingins" || key == "train_step_timing") {
    r->step_s = *v;
  } else if (absl::StartsWith(key, "throughputpergpu") || key == "tflops_per_sec_per_gpu" || key == "tflops/s/gpu") {
    r->tflops_per_gpu = *v;
  } else if (absl::StrContains(key, "token") && absl::StrContains(key, "gpu")) {
    r->tokens_per_s_per_gpu = *v;
  } else if (key == "learningrate" || key == "lr") {
    r->learning_rate = *v;
  } else if (key == "globalbatchsize" || key == "global_batch_size") {
    r->global_batch_size = static_cast<int64_t>(*v);
  } else if (key == "lmloss" || key == "reduced_train_loss" || key == "train_loss") {
    r->loss = *v;
  } else if (key == "lossscale") {
    r->loss_scale = *v;
  } else if (key == "gradnorm" || key == "grad_norm") {
    r->grad_norm = *v;
  } else if (key == "numberofskippediterations") {
    r->skipped_iterations = static_cast<int64_t>(*v);
  } else if (key == "numberofnaniterations") {
    r->nan_iterations = static_cast<int64_t>(*v);
  }
}

}  // namespace

bool StartsIterationLine(absl::string_view line) {
  const absl::string_view s = StripTimestamp(line);
  if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(s), "Training epoch")) return true;
  return FindCounter(s).has_value();
}

std::optional<IterationRecord> ParseMegatronIterationLine(absl::string_view line, bool* complete) {
  const absl::string_view s = StripTimestamp(line);
  if (absl::StrContains(s.substr(0, std::min<size_t>(s.size(), 40)), "Training epoch")) return std::nullopt;
  const std::optional<size_t> pos = FindCounter(s);
  if (!pos) return std::nullopt;
  IterationRecord r;
  size_t end = 0;
  ReadIterationCounter(s, *pos, &r, &end);
  absl::string_view rest = s.substr(end);
  // The counter must be followed by the field separator (possibly cut away).
  const absl::string_view after = absl::StripLeadingAsciiWhitespace(rest);
  if (!after.empty() && after[0] != '|') return std::nullopt;
  r.format = LogFormat::kMegatronLm;
  for (absl::string_view field : absl::StrSplit(rest, '|')) {
    const size_t colon = field.find(':');
    if (colon == absl::string_view::npos) continue;
    ApplyField(field.substr(0, colon), field.substr(colon + 1), &r);
  }
  if (complete) *complete = absl::EndsWith(absl::StripTrailingAsciiWhitespace(s), "|");
  return r;
}

std::optional<IterationRecord> ParseNemoIterationLine(absl::string_view line) {
  absl::string_view s = absl::StripLeadingAsciiWhitespace(StripTimestamp(line));
  IterationRecord r;
  r.format = LogFormat::kNemo;
  const size_t epoch = s.find("Training epoch");
  if (epoch != absl::string_view::npos && epoch < 80) {
    const size_t pos = s.find("iteration", epoch);
    size_t end = 0;
    if (pos == absl::string_view::npos || !ReadIterationCounter(s, pos, &r, &end)) return std::nullopt;
    for (absl::string_view field : absl::StrSplit(s.substr(end), '|')) {
      const size_t colon = field.rfind(':');
      if (colon == absl::string_view::npos) continue;
      ApplyField(field.substr(0, colon), field.substr(colon + 1), &r);
    }
    return r;
  }
  // tqdm: "... 120/1000 [10:14<1:15:00, 5.12s/it, key=value, ...]".
  const size_t bracket = s.find(" [");
  if (bracket == absl::string_view::npos ||
      (!absl::StrContains(s.substr(bracket), "s/it") && !absl::StrContains(s.substr(bracket), "it/s"))) {
    return std::nullopt;
  }
  const size_t slash = s.rfind('/', bracket);
  if (slash == absl::string_view::npos) return std::nullopt;
  size_t num_start = slash;
  while (num_start > 0 && std::isdigit(static_cast<unsigned char>(s[num_start - 1]))) --num_start;
  if (num_start == slash) return std::nullopt;
  const std::optional<int64_t> n = LeadingInteger(s.substr(num_start));
  const std::optional<int64_t> total = LeadingInteger(s.substr(slash + 1));
  if (!n || !total) return std::nullopt;
  r.iteration = *n;
  r.train_iters = *total;
  const size_t close = s.find(']', bracket);
  const absl::string_view inside =
      s.substr(bracket + 2, close == absl::string_view::npos ? s.npos : close - bracket - 2);
  double tqdm_step = kNotLogged;
  for (absl::string_view item : absl::StrSplit(inside, ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (absl::EndsWith(item, "s/it")) {
      if (auto v = LeadingNumber(item)) tqdm_step = *v;
    } else if (absl::EndsWith(item, "it/s")) {
      if (auto v = LeadingNumber(item); v && *v > 0) tqdm_step = 1.0 / *v;
    } else if (const size_t eq = item.find('='); eq != absl::string_view::npos) {
      ApplyField(item.substr(0, eq), item.substr(eq + 1), &r);
    }
  }
  // train_step_timing is the step itself; tqdm's rate is a smoothed average.
  if (std::isnan(r.step_s)) r.step_s = tqdm_step;
  return r;
}

std::optional<StepTimeLine> ParseBridgeStepTimeLine(absl::string_view line) {
  absl::string_view s = absl::StripLeadingAsciiWhitespace(StripTimestamp(line));
  const size_t pos = s.find("Step Time :");
  if (pos == absl::string_view::npos || pos > 80) return std::nullopt;
  StepTimeLine out;
  size_t used = 0;
  const absl::string_view rest = s.substr(pos + 11);
  const std::optional<double> step = LeadingNumber(rest, &used);
  if (!step) return std::nullopt;
  out.step_s = *step;
  const size_t util = rest.find("GPU utilization:");
  if (util != absl::string_view::npos) {
    if (auto tf = LeadingNumber(rest.substr(util + 16))) out.tflops_per_gpu = *tf;
  }
  return out;
}

std::optional<MemoryReport> ParseMemoryLine(absl::string_view line, bool* complete) {
  absl::string_view s = absl::StripLeadingAsciiWhitespace(StripTimestamp(line));
  MemoryReport m;
  if (absl::StartsWith(s, "[Rank ")) {
    size_t used = 0;
    const std::optional<int64_t> rank = LeadingInteger(s.substr(6), &used);
    if (!rank || s.size() <= 6 + used || s[6 + used] != ']') return std::nullopt;
    m.rank = static_cast<int>(*rank);
    s = absl::StripLeadingAsciiWhitespace(s.substr(7 + used));
  }
  double unit = 0;
  size_t header_end = s.find("memory (MB)");
  if (header_end != absl::string_view::npos) {
    unit = 1048576.0;  // report_memory divides by 1024*1024 and prints "MB"
    header_end += 11;
  } else if ((header_end = s.find("memory (GB)")) != absl::string_view::npos) {
    unit = 1e9;  // Bridge divides bytes by 1.0e9
    header_end += 11;
  } else {
    return std::nullopt;
  }
  if (header_end > 120) return std::nullopt;
  const absl::string_view head = s.substr(0, header_end);
  if (const size_t after = head.find("(after "); after != absl::string_view::npos) {
    if (auto n = LeadingInteger(head.substr(after + 7))) m.after_iterations = *n;
  }
  bool saw_last = false;
  for (absl::string_view field : absl::StrSplit(s.substr(header_end), '|')) {
    const size_t colon = field.find(':');
    if (colon == absl::string_view::npos) continue;
    const std::string key = CompactKey(field.substr(0, colon));
    const std::optional<double> v = LeadingNumber(field.substr(colon + 1));
    if (!v) continue;
    if (key == "allocated" || key == "mem-allocated-gigabytes") {
      m.allocated_bytes = *v * unit;
    } else if (key == "maxallocated" || key == "mem-max-allocated-gigabytes") {
      m.max_allocated_bytes = *v * unit;
    } else if (key == "reserved" || key == "mem-reserved-gigabytes") {
      m.reserved_bytes = *v * unit;
    } else if (key == "maxreserved" || key == "mem-max-reserved-gigabytes") {
      m.max_reserved_bytes = *v * unit;
      saw_last = true;
    } else if (key == "mem-alloc-retires" || key == "mem-alloc-retries") {
      m.alloc_retries = static_cast<int64_t>(*v);
    }
  }
  if (std::isnan(m.allocated_bytes) && std::isnan(m.max_allocated_bytes) && std::isnan(m.reserved_bytes) &&
      std::isnan(m.max_reserved_bytes)) {
    if (complete) *complete = false;
    return m;
  }
  if (complete) *complete = saw_last || unit == 1e9;
  return m;
}

std::optional<std::pair<std::string, std::string>> ParseArgumentLine(absl::string_view line) {
  absl::string_view s = absl::StripAsciiWhitespace(line);
  const size_t space = s.find(' ');
  if (space == absl::string_view::npos || space == 0) return std::nullopt;
  const absl::string_view name = s.substr(0, space);
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  }
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(s.substr(space));
  size_t dots = 0;
  while (dots < rest.size() && rest[dots] == '.') ++dots;
  if (dots < 3) return std::nullopt;
  return std::make_pair(std::string(name), std::string(absl::StripAsciiWhitespace(rest.substr(dots))));
}

bool IsArgumentsBlockStart(absl::string_view line) {
  const absl::string_view s = absl::StripAsciiWhitespace(line);
  return absl::StartsWith(s, "----") && absl::StrContains(s, " arguments ") && !absl::StrContains(s, "end of");
}

bool IsArgumentsBlockEnd(absl::string_view line) {
  const absl::string_view s = absl::StripAsciiWhitespace(line);
  return absl::StartsWith(s, "----") && absl::StrContains(s, "end of ") && absl::StrContains(s, "arguments");
}

}  // namespace parplan
