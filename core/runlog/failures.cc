#include "core/runlog/failures.h"

#include <cmath>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/runlog/failure_templates.h"
#include "core/runlog/log_text.h"

namespace parplan {
namespace {

constexpr size_t kMaxMessageChars = 2000;

std::optional<double> SizeAfter(absl::string_view message, absl::string_view marker) {
  const size_t pos = message.find(marker);
  if (pos == absl::string_view::npos) return std::nullopt;
  return ParseSize(message.substr(pos + marker.size()));
}

// The size written just before `marker` ("79.10 GiB total capacity").
std::optional<double> SizeBefore(absl::string_view message, absl::string_view marker) {
  const size_t pos = message.find(marker);
  if (pos == absl::string_view::npos) return std::nullopt;
  size_t start = message.rfind(';', pos);
  start = start == absl::string_view::npos ? message.rfind('(', pos) : start;
  if (start == absl::string_view::npos) return std::nullopt;
  return ParseSize(message.substr(start + 1, pos - start - 1));
}

std::string Gib(double bytes) { return absl::StrFormat("%.2f GiB", bytes / 1073741824.0); }

}  // namespace

std::optional<LogFailure> ReadExceptionLine(absl::string_view line) {
  const absl::string_view s = absl::StripAsciiWhitespace(line);
  struct Name {
    absl::string_view prefix;
    const char* kind;
  };
  static constexpr Name kNames[] = {
      {"torch.OutOfMemoryError:", "oom"}, {"torch.cuda.OutOfMemoryError:", "oom"},
      {"OutOfMemoryError:", "oom"},       {"AssertionError", "assertion"},
      {"ValueError:", "error"},           {"RuntimeError:", "error"},
  };
  for (const Name& name : kNames) {
    if (!absl::StartsWith(s, name.prefix)) continue;
    absl::string_view rest = s.substr(name.prefix.size());
    if (name.prefix == "AssertionError") {
      if (!rest.empty() && rest[0] != ':') continue;  // "AssertionErrorFoo"
      if (!rest.empty()) rest.remove_prefix(1);
    }
    LogFailure f;
    f.kind = name.kind;
    f.message = std::string(absl::StripAsciiWhitespace(rest.substr(0, kMaxMessageChars)));
    if (f.kind == "error" && absl::StrContains(f.message, "CUDA out of memory")) f.kind = "oom";
    return f;
  }
  return std::nullopt;
}

void ReadOomSizes(LogFailure* f) {
  const absl::string_view m = f->message;
  if (auto tried = SizeAfter(m, "Tried to allocate")) f->tried_bytes = *tried;
  if (auto cap = SizeAfter(m, "total capacity of")) {
    f->capacity_bytes = *cap;
  } else if (auto old_cap = SizeBefore(m, "total capacity")) {
    f->capacity_bytes = *old_cap;
  }
  if (const size_t of = m.find("of which"); of != absl::string_view::npos) {
    if (auto free = ParseSize(m.substr(of + 8))) f->free_bytes = *free;
  } else if (auto old_free = SizeBefore(m, "free;")) {
    f->free_bytes = *old_free;
  } else if (auto old_free2 = SizeBefore(m, "free)")) {
    f->free_bytes = *old_free2;
  }
}

void MapFailureToRule(LogFailure* f) {
  if (f->kind == "oom") {
    f->rule_id = "memory.does_not_fit";
    std::string sizes;
    if (!std::isnan(f->tried_bytes) && !std::isnan(f->capacity_bytes)) {
      sizes = absl::StrCat("it asked for ", Gib(f->tried_bytes), " on a ", Gib(f->capacity_bytes), " GPU",
                           std::isnan(f->free_bytes) ? "" : absl::StrCat(" with ", Gib(f->free_bytes), " free"), "; ");
    }
    f->fix = absl::StrCat(
        "the configuration does not fit in GPU memory (", sizes,
        "parplan's memory estimate is the check that predicts this): lower the "
        "per-GPU footprint with more TP/PP/CP/EP, a smaller micro batch, the distributed optimizer, activation "
        "recomputation or offloading, then check the plan with parplan's memory estimate. ",
        "If reserved-but-unallocated memory is large, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True can help.");
    return;
  }
  const TemplateMatch match = MatchFailureTemplate(f->message);
  if (match.entry == nullptr) return;
  f->rule_id = match.entry->rule_id;
  f->rule_source = match.entry->source;
  f->fix = match.entry->fix(match.values);
}

}  // namespace parplan
