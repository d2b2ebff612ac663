#include "core/model/hf_reader.h"

#include "absl/strings/str_cat.h"

namespace parplan {

using nlohmann::json;

bool HfReader::ToInt(const char* key, const json& value, int64_t* out) {
  if (value.is_number_integer() || value.is_number_unsigned()) {
    const int64_t v = value.is_number_unsigned() && value.get<uint64_t>() > (uint64_t{1} << 62) ? int64_t{1} << 62
                                                                                                : value.get<int64_t>();
    if (v < 0 || v > (int64_t{1} << 40)) {
      Fail(key, absl::StrCat("= ", v, " is out of range; allowed 0..2^40"));
      return false;
    }
    *out = v;
    return true;
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (d >= 0 && d <= 1e12 && d == static_cast<double>(static_cast<int64_t>(d))) {
      *out = static_cast<int64_t>(d);
      return true;
    }
  }
  Fail(key, absl::StrCat("must be a non-negative integer, got ", value.dump().substr(0, 64)));
  return false;
}

int64_t HfReader::Int(std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) continue;
    int64_t v = 0;
    return ToInt(key, *it, &v) ? v : 0;
  }
  return 0;
}

int64_t HfReader::IntOr(const char* key, int64_t fallback) {
  if (!obj_.contains(key)) return fallback;
  return Int({key});
}

bool HfReader::Has(const char* key) const { return obj_.contains(key) && !obj_[key].is_null(); }

bool HfReader::Bool(const char* key, bool fallback) {
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) return fallback;
  if (it->is_boolean()) return it->get<bool>();
  Fail(key, "must be true or false");
  return fallback;
}

std::string HfReader::String(const char* key) {
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  Fail(key, "must be a string");
  return "";
}

std::vector<std::string> HfReader::StringList(const char* key) {
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) return {};
  std::vector<std::string> out;
  if (it->is_array()) {
    for (const json& v : *it) {
      if (!v.is_string()) break;
      out.push_back(v.get<std::string>());
    }
    if (out.size() == it->size()) return out;
  }
  Fail(key, absl::StrCat("must be a list of strings, got ", it->dump().substr(0, 64)));
  return {};
}

std::vector<int64_t> HfReader::IntList(const char* key) {
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) return {};
  if (!it->is_array()) {
    Fail(key, absl::StrCat("must be a list of non-negative integers, got ", it->dump().substr(0, 64)));
    return {};
  }
  std::vector<int64_t> out;
  for (const json& v : *it) {
    int64_t n = 0;
    if (!ToInt(key, v, &n)) return {};
    out.push_back(n);
  }
  return out;
}

const json* HfReader::Object(const char* key) {
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) return nullptr;
  if (it->is_object()) return &*it;
  Fail(key, absl::StrCat("must be an object, got ", it->dump().substr(0, 64)));
  return nullptr;
}

double HfReader::Number(const char* key) {
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) return 0;
  if (it->is_number() && it->get<double>() >= 0 && it->get<double>() <= 1e6) return it->get<double>();
  Fail(key, absl::StrCat("must be a number in 0..1e6, got ", it->dump().substr(0, 64)));
  return 0;
}

void HfReader::Fail(const char* key, const std::string& description) {
  errors_.Add(field_, absl::StrCat("\"", key, "\" ", description));
}

}  // namespace parplan
