// Values as the front ends write them, read for the field map
// (core/import/field_map.h): booleans, bounded integers, lists in Python,
// YAML or shell spelling, and Megatron's layer-list expressions. Each error
// is INVALID_ARGUMENT naming the argument, the value and what is allowed.
#ifndef PARPLAN_CORE_IMPORT_FIELD_VALUES_H_
#define PARPLAN_CORE_IMPORT_FIELD_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace parplan {

// true / false / 1 / 0 / yes / no / on / off (any case, quotes stripped).
absl::Status ParseBoolValue(const std::string& value, const std::string& argument, bool* out);
// An integer in lo..hi; a whole-number float ("8.0") passes.
absl::Status ParseIntValue(const std::string& value, const std::string& argument, int64_t lo, int64_t hi, int64_t* out);
// "[1, 2]", "1,2", "1 2" -> {1, 2}.
absl::Status ParseIntListValue(const std::string& value, const std::string& argument, std::vector<int64_t>* out);
// "['core_attn', 'mlp']", "core_attn,mlp", "core_attn mlp" -> {"core_attn", "mlp"}.
std::vector<std::string> SplitListValue(const std::string& value);

// Megatron's list form of moe_layer_freq / window_attn_skip_freq: a Python
// list expression of 0/1 terms, e.g. "([0]*3+[1]*58)", "[1,1,1,0]*3".
// Evaluated within `max_len` entries; INVALID_ARGUMENT naming `argument`
// for anything else.
absl::Status EvalLayerPattern(const std::string& value, const std::string& argument, size_t max_len,
                              std::vector<int>* out);

// The value without surrounding blanks and one pair of matching quotes.
std::string UnquoteValue(std::string value);

}  // namespace parplan

#endif  // PARPLAN_CORE_IMPORT_FIELD_VALUES_H_
