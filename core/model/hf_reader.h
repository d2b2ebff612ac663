// Typed reads of one JSON object of a Hugging Face config.json, collecting
// field-exact errors. Internal to hf_config.cc and hf_families.cc.
#ifndef PARPLAN_CORE_MODEL_HF_READER_H_
#define PARPLAN_CORE_MODEL_HF_READER_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/util/field_error.h"
#include "nlohmann/json.hpp"

namespace parplan {

// Every read takes an HF key; a present key of the wrong type adds an error
// on `field` quoting the key and returns the fallback. Absent and null keys
// are not errors.
class HfReader {
 public:
  HfReader(const nlohmann::json& obj, std::string field) : obj_(obj), field_(std::move(field)) {}

  // The first present key among `keys` as an integer in 0..2^40 (an integral
  // float is accepted); 0 when none is present.
  int64_t Int(std::initializer_list<const char*> keys);
  // `key` as Int, or `fallback` when the key is absent (HF's class default);
  // a null value reads 0.
  int64_t IntOr(const char* key, int64_t fallback);
  bool Has(const char* key) const;
  bool Bool(const char* key, bool fallback);
  std::string String(const char* key);
  // A list of strings / of integers in 0..2^40; empty when absent or null.
  std::vector<std::string> StringList(const char* key);
  std::vector<int64_t> IntList(const char* key);
  // `key` as a JSON object; nullptr when absent or null (a value of another
  // type adds an error).
  const nlohmann::json* Object(const char* key);
  // `key` as a number in 0..1e6 (an integer is accepted); 0 when absent or null.
  double Number(const char* key);

  // Adds an error about `key`'s value.
  void Fail(const char* key, const std::string& description);
  FieldErrors& errors() { return errors_; }

 private:
  // Reads `value` (of `key`) as an integer in range, or adds an error and returns false.
  bool ToInt(const char* key, const nlohmann::json& value, int64_t* out);

  const nlohmann::json& obj_;
  std::string field_;
  FieldErrors errors_;
};

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_HF_READER_H_
