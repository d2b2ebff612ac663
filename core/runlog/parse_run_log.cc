// ParseRunLog: walks the lines once, hands each to the line readers
// (log_lines.h, failures.h), joins hard-wrapped lines, keeps one record per
// iteration and says what it could not read.
#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/runlog/failures.h"
#include "core/runlog/log_lines.h"
#include "core/runlog/log_text.h"
#include "core/runlog/run_log.h"
#include "core/util/field_error.h"

namespace parplan {
namespace {

constexpr size_t kMaxIterationRecords = 200000;
constexpr size_t kMaxMemoryReports = 20000;
constexpr size_t kMaxFailures = 200;
constexpr size_t kMaxArguments = 4000;
constexpr size_t kMaxFrames = 64;
constexpr int kMaxJoinedLines = 8;
constexpr size_t kExamplesPerKind = 3;

// Start-up milestones Megatron-LM (training.py print_datetime calls:
// 1777, 1833, 1961, 4373) and Bridge (setup.py:422) print, in order.
enum class Phase { kNone, kInit, kModel, kBuilt, kTraining };

Phase PhaseOf(absl::string_view s) {
  if (absl::StrContains(s, "before the start of training step") || absl::StrContains(s, "Starting training loop")) {
    return Phase::kTraining;
  }
  if (absl::StrContains(s, "after model, optimizer, and learning rate scheduler are built") ||
      absl::StrContains(s, "after dataloaders are built")) {
    return Phase::kBuilt;
  }
  if ((absl::StrContains(s, "building ") && absl::StrContains(s, " model")) ||
      absl::StrContains(s, "number of parameters on (tensor, pipeline) model parallel rank")) {
    return Phase::kModel;
  }
  if (absl::StrContains(s, "after megatron is initialized") || absl::StrContains(s, "initializing torch distributed") ||
      absl::StrContains(s, "initializing tensor model parallel")) {
    return Phase::kInit;
  }
  return Phase::kNone;
}

bool FramesMention(const std::vector<std::string>& frames, std::initializer_list<absl::string_view> names) {
  for (const std::string& f : frames) {
    for (absl::string_view n : names) {
      if (absl::EndsWith(f, absl::StrCat(" in ", n))) return true;
    }
  }
  return false;
}

std::string Moment(int64_t last_iteration, Phase phase, const std::vector<std::string>& frames) {
  const bool in_step = FramesMention(
      frames, {"train_step", "forward_backward_no_pipelining", "forward_backward_pipelining_without_interleaving",
               "forward_backward_pipelining_with_interleaving", "forward_step", "backward_step", "step"});
  if (last_iteration >= 0) {
    return absl::StrCat("after iteration ", last_iteration, in_step ? " (in a training step)" : "");
  }
  if (FramesMention(frames, {"get_megatron_optimizer", "_get_megatron_optimizer_based_on_param_groups",
                             "setup_optimizer", "_init_optimizer"})) {
    return "start-up: optimizer initialisation (before the first logged iteration)";
  }
  if (in_step || phase == Phase::kTraining) {
    return "the first iteration (training had started; no iteration logged yet)";
  }
  if (FramesMention(frames, {"get_model", "model_provider", "provide_distributed_model", "provide"}) ||
      phase == Phase::kModel) {
    return "start-up: model build (before the first logged iteration)";
  }
  if (phase == Phase::kBuilt) {
    return "start-up: after the model, optimizer and scheduler were built, before the first logged iteration";
  }
  if (FramesMention(frames, {"initialize_model_parallel", "validate_args", "__post_init__", "initialize_megatron",
                             "finalize", "validate"}) ||
      phase == Phase::kInit) {
    return "start-up: configuration and parallel-state initialisation (before the model was built)";
  }
  return "start-up (before the first logged iteration)";
}

// "megatron/core/parallel_state.py:823 in initialize_model_parallel" from
// '  File "/opt/Megatron-LM/megatron/core/parallel_state.py", line 823, in initialize_model_parallel'.
std::string FrameOf(absl::string_view s) {
  const size_t q1 = s.find('"');
  const size_t q2 = q1 == absl::string_view::npos ? q1 : s.find('"', q1 + 1);
  if (q2 == absl::string_view::npos) return std::string(absl::StripAsciiWhitespace(s));
  absl::string_view path = s.substr(q1 + 1, q2 - q1 - 1);
  for (absl::string_view root : {"megatron/", "nemo/", "torch/", "transformer_engine/"}) {
    const size_t at = path.find(root);
    if (at != absl::string_view::npos) {
      path = path.substr(at);
      break;
    }
  }
  absl::string_view rest = s.substr(q2 + 1);
  std::string out(path);
  if (const size_t ln = rest.find("line "); ln != absl::string_view::npos) {
    if (auto n = LeadingInteger(rest.substr(ln + 5))) absl::StrAppend(&out, ":", *n);
  }
  if (const size_t in = rest.find(", in "); in != absl::string_view::npos) {
    absl::StrAppend(&out, " in ", absl::StripAsciiWhitespace(rest.substr(in + 5)));
  }
  return out;
}

// Unread lines by kind, with a few examples each.
class UnreadTally {
 public:
  void Add(const std::string& kind, int64_t line, absl::string_view text) {
    Entry& e = entries_[kind];
    ++e.count;
    if (e.examples.size() < kExamplesPerKind) e.examples.push_back(absl::StrCat("line ", line, ": ", Excerpt(text)));
  }
  void WriteTo(std::vector<std::string>* out) const {
    for (const auto& [kind, e] : entries_) {
      std::string s = absl::StrCat(e.count, " ", kind);
      for (const std::string& ex : e.examples) absl::StrAppend(&s, e.examples.front() == ex ? " (" : "; ", ex);
      if (!e.examples.empty()) s += ")";
      out->push_back(std::move(s));
    }
  }

 private:
  struct Entry {
    int64_t count = 0;
    std::vector<std::string> examples;
  };
  std::map<std::string, Entry> entries_;
};

class Reader {
 public:
  explicit Reader(absl::string_view text) : lines_(SplitLogLines(text)) {}
  ParsedLog Run();

 private:
  // Line i without its launcher prefix, cut at kMaxLogLineBytes (counted
  // once, by the main loop).
  absl::string_view Line(size_t i, int* rank, bool count_cut = false) {
    absl::string_view raw = lines_[i];
    if (raw.size() > kMaxLogLineBytes) {
      raw = raw.substr(0, kMaxLogLineBytes);
      if (count_cut) ++cut_lines_;
    }
    return StripRankPrefix(raw, rank);
  }
  // True when line i can only be the rest of a record cut by a hard wrap.
  bool IsContinuation(size_t i, int rank);
  std::string JoinWrapped(size_t* i, int rank, std::string first, bool need_bar);
  void AddIteration(IterationRecord r);
  void AddFailure(LogFailure f, size_t* i);
  void Summarise();

  std::vector<absl::string_view> lines_;
  ParsedLog log_;
  UnreadTally unread_;
  std::map<int64_t, size_t> by_iteration_;
  int64_t last_iteration_ = -1;
  int64_t cut_lines_ = 0, wrapped_joined_ = 0, duplicates_dropped_ = 0, step_lines_attached_ = 0;
  int64_t records_dropped_ = 0, failure_repeats_ = 0;
  bool saw_bridge_marker_ = false;
  bool have_step_line_ = false;
  StepTimeLine step_line_;
  Phase phase_ = Phase::kNone;
  std::vector<std::string> frames_;
};

bool Reader::IsContinuation(size_t i, int rank) {
  if (i >= lines_.size()) return false;
  int next_rank = -1;
  const absl::string_view s = Line(i, &next_rank);
  const absl::string_view t = absl::StripAsciiWhitespace(s);
  if (t.empty() || (next_rank >= 0 && next_rank != rank)) return false;
  if (StartsIterationLine(s) || StripTimestamp(s) != s || absl::StartsWith(t, "[Rank ") ||
      absl::StartsWith(t, "Traceback") || ReadExceptionLine(t) || ParseBridgeStepTimeLine(s) || ParseMemoryLine(s) ||
      IsArgumentsBlockStart(s) || ParseArgumentLine(s)) {
    return false;
  }
  return true;
}

std::string Reader::JoinWrapped(size_t* i, int rank, std::string joined, bool need_bar) {
  for (int k = 0; k < kMaxJoinedLines && IsContinuation(*i + 1, rank); ++k) {
    int r = -1;
    const absl::string_view next = Line(*i + 1, &r);
    // A record that ended cleanly takes a following line only if it is
    // more "key: value |" fields (a wrap that fell on a separator).
    if (!need_bar && !(absl::StrContains(next, "|") && absl::StrContains(next, ":"))) break;
    joined += std::string(absl::StripTrailingAsciiWhitespace(next));
    ++*i;
    ++wrapped_joined_;
    ++log_.lines_read;
    need_bar = !absl::EndsWith(absl::StripTrailingAsciiWhitespace(joined), "|");
  }
  return joined;
}

void Reader::AddIteration(IterationRecord r) {
  if (have_step_line_) {
    // Bridge prints its step line just before the iteration line
    // (train_utils.py:1049 then 1088): it fills what the line lacks.
    if (std::isnan(r.step_s)) r.step_s = step_line_.step_s;
    if (std::isnan(r.tflops_per_gpu)) r.tflops_per_gpu = step_line_.tflops_per_gpu;
    have_step_line_ = false;
    ++step_lines_attached_;
  }
  auto it = by_iteration_.find(r.iteration);
  if (it != by_iteration_.end()) {
    IterationRecord& kept = log_.iterations[it->second];
    if (r.rank >= 0 && (kept.rank < 0 || r.rank < kept.rank)) {
      kept = r;  // prefer rank 0 / the lowest rank
    }
    ++duplicates_dropped_;
    return;
  }
  if (log_.iterations.size() >= kMaxIterationRecords) {
    ++records_dropped_;
    return;
  }
  by_iteration_[r.iteration] = log_.iterations.size();
  last_iteration_ = std::max(last_iteration_, r.iteration);
  log_.iterations.push_back(r);
}

void Reader::AddFailure(LogFailure f, size_t* i) {
  f.line = static_cast<int64_t>(*i) + 1;
  // Bridge's triple-quoted assert messages start on the next, indented line
  // (config.py:1024-1026) that no reader claims.
  if (f.message.empty() && *i + 1 < lines_.size()) {
    int r = -1;
    const absl::string_view next = Line(*i + 1, &r);
    if (!next.empty() && (next[0] == ' ' || next[0] == '\t') && IsContinuation(*i + 1, f.rank)) {
      ++*i;
      ++log_.lines_read;
      f.message = std::string(absl::StripAsciiWhitespace(next).substr(0, 2000));
    }
  }
  if (f.kind == "oom") ReadOomSizes(&f);
  MapFailureToRule(&f);
  f.after_iteration = last_iteration_;
  f.moment = Moment(last_iteration_, phase_, frames_);
  for (auto frame = frames_.rbegin(); frame != frames_.rend() && f.raised_at.empty(); ++frame) {
    if (absl::StartsWith(*frame, "megatron/") || absl::StartsWith(*frame, "nemo/")) f.raised_at = *frame;
  }
  if (f.raised_at.empty() && !frames_.empty()) f.raised_at = frames_.back();
  frames_.clear();
  for (LogFailure& seen : log_.failures) {
    if (seen.kind == f.kind && seen.message == f.message) {
      ++seen.repeats;
      ++failure_repeats_;
      return;
    }
  }
  if (log_.failures.size() < kMaxFailures) log_.failures.push_back(std::move(f));
}

ParsedLog Reader::Run() {
  log_.lines = static_cast<int64_t>(lines_.size());
  bool in_arguments = false;
  bool in_traceback = false;  // between "Traceback" and the exception line: source lines are read
  for (size_t i = 0; i < lines_.size(); ++i) {
    int rank = -1;
    const absl::string_view s = Line(i, &rank, /*count_cut=*/true);
    const absl::string_view t = absl::StripAsciiWhitespace(s);
    const int64_t line_no = static_cast<int64_t>(i) + 1;
    if (t.empty()) continue;
    if (in_arguments) {
      if (IsArgumentsBlockEnd(t)) {
        in_arguments = false;
        ++log_.lines_read;
        continue;
      }
      if (auto pair = ParseArgumentLine(t)) {
        if (log_.arguments.size() < kMaxArguments) log_.arguments.push_back(std::move(*pair));
        ++log_.lines_read;
        continue;
      }
      in_arguments = false;
    }
    if (IsArgumentsBlockStart(t)) {
      in_arguments = true;
      ++log_.lines_read;
      continue;
    }
    if (absl::StartsWith(t, "Traceback (most recent call last)")) {
      frames_.clear();
      in_traceback = true;
      ++log_.lines_read;
      continue;
    }
    if (absl::StartsWith(t, "File \"")) {
      if (frames_.size() >= kMaxFrames) frames_.erase(frames_.begin());
      frames_.push_back(FrameOf(t));
      ++log_.lines_read;
      continue;
    }
    if (auto failure = ReadExceptionLine(t)) {
      in_traceback = false;
      failure->rank = rank;
      ++log_.lines_read;
      AddFailure(std::move(*failure), &i);
      continue;
    }
    if (auto step = ParseBridgeStepTimeLine(s)) {
      step_line_ = *step;
      have_step_line_ = true;
      saw_bridge_marker_ = true;
      ++log_.lines_read;
      continue;
    }
    if (auto nemo = ParseNemoIterationLine(s)) {
      nemo->rank = rank;
      nemo->line = line_no;
      ++log_.lines_read;
      AddIteration(*nemo);
      continue;
    }
    bool complete = false;
    if (auto record = ParseMegatronIterationLine(s, &complete)) {
      ++log_.lines_read;
      const size_t start = i;
      const std::string joined = JoinWrapped(&i, rank, std::string(absl::StripTrailingAsciiWhitespace(s)), !complete);
      if (i != start) record = ParseMegatronIterationLine(joined, &complete);
      if (record) {
        record->rank = rank;
        record->line = line_no;
        AddIteration(*record);
      }
      continue;
    }
    if (auto memory = ParseMemoryLine(s, &complete)) {
      ++log_.lines_read;
      const size_t start = i;
      if (!complete) {
        const std::string joined = JoinWrapped(&i, rank, std::string(absl::StripTrailingAsciiWhitespace(s)), true);
        if (i != start) memory = ParseMemoryLine(joined, &complete);
      }
      if (absl::StrContains(s, "memory (GB)")) saw_bridge_marker_ = true;
      if (memory) {
        if (memory->rank < 0) memory->rank = rank;
        memory->line = line_no;
        if (log_.memory.size() < kMaxMemoryReports) log_.memory.push_back(*memory);
      }
      continue;
    }
    if (in_traceback) {
      ++log_.lines_read;
      continue;
    }
    if (const Phase p = PhaseOf(t); p != Phase::kNone) {
      phase_ = std::max(phase_, p);
      continue;
    }
    if (absl::StrContains(t, "iteration") && absl::StrContains(t, "|")) {
      unread_.Add("iteration-like lines that did not parse", line_no, t);
    } else if (absl::StrContains(t, "memory (") && absl::StrContains(t, "|")) {
      unread_.Add("memory-like lines that did not parse", line_no, t);
    } else {
      unread_.Add("other lines (start-up output, prose, fields of unknown printers)", line_no, t);
    }
  }
  Summarise();
  return std::move(log_);
}

void Reader::Summarise() {
  int counts[4] = {0, 0, 0, 0};
  for (IterationRecord& r : log_.iterations) {
    if (saw_bridge_marker_ && r.format == LogFormat::kMegatronLm) r.format = LogFormat::kBridge;
    ++counts[static_cast<int>(r.format)];
  }
  log_.format = static_cast<LogFormat>(std::max_element(counts, counts + 4) - counts);
  if (log_.iterations.empty()) log_.format = saw_bridge_marker_ ? LogFormat::kBridge : LogFormat::kUnknown;
  if (wrapped_joined_ > 0) log_.notes.push_back(absl::StrCat(wrapped_joined_, " hard-wrapped line(s) joined"));
  if (duplicates_dropped_ > 0) {
    log_.notes.push_back(absl::StrCat(duplicates_dropped_,
                                      " repeated iteration line(s) (other ranks or a restart) dropped: one record per "
                                      "iteration, the lowest rank kept"));
  }
  if (step_lines_attached_ > 0) {
    log_.notes.push_back(
        absl::StrCat(step_lines_attached_, " Bridge \"Step Time\" line(s) attached to the next iteration"));
  }
  if (have_step_line_) unread_.Add("Bridge \"Step Time\" line without a following iteration line", 0, "Step Time");
  if (failure_repeats_ > 0) {
    log_.notes.push_back(absl::StrCat(failure_repeats_, " repeated failure message(s) (other ranks) merged"));
  }
  // Gaps: iterations further apart than the usual log interval.
  std::vector<int64_t> its;
  for (const IterationRecord& r : log_.iterations) its.push_back(r.iteration);
  std::sort(its.begin(), its.end());
  if (its.size() >= 3) {
    std::map<int64_t, int> diffs;
    for (size_t k = 1; k < its.size(); ++k) ++diffs[its[k] - its[k - 1]];
    const int64_t interval =
        std::max_element(diffs.begin(), diffs.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
    int64_t gaps = 0;
    std::string example;
    for (size_t k = 1; k < its.size(); ++k) {
      if (its[k] - its[k - 1] > interval) {
        if (gaps++ == 0) example = absl::StrCat(its[k - 1], " -> ", its[k]);
      }
    }
    if (gaps > 0) {
      log_.notes.push_back(absl::StrCat(gaps, " gap(s) in the iteration numbers (log interval ", interval,
                                        "; first gap ", example, ")"));
    }
  }
  if (cut_lines_ > 0) {
    unread_.Add(absl::StrCat("line(s) longer than ", kMaxLogLineBytes, " bytes, cut"), 0, "");
  }
  if (records_dropped_ > 0) {
    log_.unread.push_back(absl::StrCat(records_dropped_, " iteration record(s) beyond the ", kMaxIterationRecords,
                                       "-record limit not kept"));
  }
  unread_.WriteTo(&log_.unread);
  if (log_.iterations.empty() && log_.failures.empty() && log_.memory.empty() && log_.arguments.empty()) {
    log_.unread.push_back(
        "nothing recognised: no Megatron-LM / Bridge iteration line (\"iteration N/ M | ...\"), NeMo line "
        "(\"Training epoch E, iteration N/M | ...\"), memory report, argument block or traceback");
  }
}

}  // namespace

absl::StatusOr<ParsedLog> ParseRunLog(std::string_view text_in, const std::string& field) {
  const absl::string_view text(text_in.data(), text_in.size());
  if (text.size() > kMaxLogBytes) {
    return FieldError(field, absl::StrCat("is ", text.size(), " bytes; at most ", kMaxLogBytes,
                                          " bytes of log are read (paste the part around the failure or the "
                                          "steady iterations)"));
  }
  if (absl::StripAsciiWhitespace(text).empty()) {
    return FieldError(field, "is empty; expected the text of a training log (Megatron-LM, Megatron Bridge or NeMo)");
  }
  if (text.find('\0') != absl::string_view::npos) {
    return FieldError(field,
                      absl::StrCat("contains a NUL byte at offset ", text.find('\0'), ": binary data, not a text log"));
  }
  return Reader(text).Run();
}

}  // namespace parplan
