// Megatron-Core, Megatron-LM and Megatron Bridge error messages, each mapped
// to the parplan rule that predicts it and a fix in words.
#ifndef PARPLAN_CORE_RUNLOG_FAILURE_TEMPLATES_H_
#define PARPLAN_CORE_RUNLOG_FAILURE_TEMPLATES_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

namespace parplan {

// `pattern` is the message as printed, with "{}" where the upstream f-string
// puts an integer (blanks compared collapsed). `fix` receives the integers in
// order (always as many as the pattern has "{}").
struct FailureTemplate {
  const char* pattern;
  const char* rule_id;
  const char* source;  // upstream file:line at the pinned commit
  std::string (*fix)(const std::vector<int64_t>& values);
};

const std::vector<FailureTemplate>& FailureTemplates();

// The first template `message` matches (anywhere in it), with its integers.
struct TemplateMatch {
  const FailureTemplate* entry = nullptr;
  std::vector<int64_t> values;
};
TemplateMatch MatchFailureTemplate(absl::string_view message);

}  // namespace parplan

#endif  // PARPLAN_CORE_RUNLOG_FAILURE_TEMPLATES_H_
