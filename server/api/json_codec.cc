#include "server/api/json_codec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "absl/numeric/int128.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/util/field_error.h"
#include "core/util/limits.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver_util.h"
#include "nlohmann/json.hpp"
#include "server/api/schema_rules.h"

namespace parplan {
namespace api {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using Json = nlohmann::json;

constexpr int kMaxDepth = 32;

std::string Shown(const Json& value) {
  if (value.is_number_float() && !std::isfinite(value.get<double>())) return "a number beyond 1.8e308";
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  return text.size() > 64 ? text.substr(0, 61) + "..." : text;
}

const FieldDescriptor* FieldNamed(const Descriptor& d, const std::string& key) {
  if (const FieldDescriptor* f = d.FindFieldByName(key)) return f;
  for (int i = 0; i < d.field_count(); ++i) {
    if (d.field(i)->json_name() == key) return d.field(i);
  }
  return nullptr;
}

void CheckMessage(const Json& object, const Descriptor& d, const std::string& path, int depth, FieldErrors* errors);

// A bound as written in the docs: whole numbers without exponent.
std::string Whole(double x) {
  if (std::fabs(x) < 9e18 && x == std::floor(x)) return absl::StrCat(static_cast<int64_t>(x));
  return absl::StrCat(x);
}

// The integer range of a field's proto type.
struct IntRange {
  absl::int128 lo, hi;
  const char* text;
};
IntRange RangeOf(FieldDescriptor::CppType type) {
  switch (type) {
    case FieldDescriptor::CPPTYPE_INT32:
      return {INT32_MIN, INT32_MAX, "-2147483648..2147483647"};
    case FieldDescriptor::CPPTYPE_UINT32:
      return {0, UINT32_MAX, "0..4294967295"};
    case FieldDescriptor::CPPTYPE_UINT64:
      return {0, UINT64_MAX, "0..18446744073709551615"};
    default:
      return {INT64_MIN, INT64_MAX, "-9223372036854775808..9223372036854775807"};
  }
}

// Request fields whose documented range starts at 1 and that no answer
// prints as 0 (so a config or placement passed back from an answer still
// reads): leaving them out means "the default", so an explicit 0 is a
// mistake that proto3 could not tell from "not given" once parsed.
bool ZeroIsNotDefault(const FieldDescriptor& f) {
  static const std::vector<std::pair<std::string, std::string>> kFields = {
      {"ParallelConfig", "seq_length"},
      {"Placement", "gpus"},
  };
  for (const auto& [message, field] : kFields) {
    if (f.containing_type()->name() == message && f.name() == field) return true;
  }
  return false;
}

// What QuoteOverflowingNumbers puts in place of a number no double holds.
constexpr absl::string_view kOverflowMark = "\x01number too large: ";

// One value of `f` (an element when repeated); proto3 JSON forms.
void CheckValue(const Json& v, const FieldDescriptor& f, const std::string& path, int depth, FieldErrors* errors) {
  if (v.is_null()) return;  // null means "default" in proto3 JSON
  if (v.is_string() && absl::StartsWith(v.get<std::string>(), kOverflowMark)) {
    const FieldRule* rule = FieldRuleOf(f.containing_type()->name(), f.name());
    errors->Add(path,
                absl::StrCat(path, " = ", v.get<std::string>().substr(kOverflowMark.size(), 40),
                             " is too large for a number (over 1.8e308); allowed: ",
                             rule != nullptr && rule->maximum
                                 ? absl::StrCat(rule->minimum ? Whole(*rule->minimum) : "", "..", Whole(*rule->maximum))
                                 : "a finite number"));
    return;
  }
  auto expect = [&](bool ok, const char* what) {
    if (!ok) errors->Add(path, absl::StrCat(path, " = ", Shown(v), "; expected ", what));
  };
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64: {
      const IntRange range = RangeOf(f.cpp_type());
      bool integer = false;
      bool in_range = false;
      absl::int128 value = 0;
      if (v.is_number_unsigned()) {
        integer = true;
        value = absl::int128(v.get<uint64_t>());
      } else if (v.is_number_integer()) {
        integer = true;
        value = absl::int128(v.get<int64_t>());
      } else if (v.is_number_float()) {  // 2.0 is an integer; 2.5 and 1e300 are too big or not whole
        const double d = v.get<double>();
        integer = !std::isnan(d) && (std::isinf(d) || d == std::floor(d));
        if (integer && std::fabs(d) < 1.8e19) value = absl::int128(d);
        in_range = integer && std::fabs(d) < 1.8e19;
      } else if (v.is_string()) {
        const std::string s = v.get<std::string>();
        integer = !s.empty() && s.find_first_not_of("-0123456789") == std::string::npos;
        in_range = integer && s.size() <= 20;
        if (in_range) {
          absl::uint128 u = 0;
          const bool negative = s[0] == '-';
          for (size_t i = negative ? 1 : 0; i < s.size(); ++i) {
            if (s[i] == '-') integer = false;
            u = u * 10 + static_cast<uint64_t>(s[i] - '0');
          }
          value = negative ? -absl::int128(u) : absl::int128(u);
        }
      }
      if (v.is_number_integer()) in_range = true;
      if (!integer) {
        expect(false, "an integer");
      } else if (!in_range || value < range.lo || value > range.hi) {
        const FieldRule* rule = FieldRuleOf(f.containing_type()->name(), f.name());
        errors->Add(path, absl::StrCat(path, " = ", Shown(v), " is out of range; allowed: ",
                                       rule != nullptr && rule->minimum && rule->maximum
                                           ? absl::StrCat(Whole(*rule->minimum), "..", Whole(*rule->maximum))
                                           : range.text));
      } else if (value == 0 && ZeroIsNotDefault(f)) {
        const FieldRule* rule = FieldRuleOf(f.containing_type()->name(), f.name());
        errors->Add(path, absl::StrCat(path, " = ", Shown(v), " is not allowed; allowed: 1..",
                                       rule != nullptr && rule->maximum ? Whole(*rule->maximum) : "",
                                       " (leave the field out for its default)"));
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      if (v.is_string()) {
        expect(v == "NaN" || v == "Infinity" || v == "-Infinity", "a number");
        break;
      }
      if (!v.is_number()) {
        expect(false, "a number");
        break;
      }
      const double d = v.get<double>();
      const double limit = f.cpp_type() == FieldDescriptor::CPPTYPE_FLOAT ? 3.4e38 : 1.7976931348623157e308;
      if (!std::isfinite(d) || std::fabs(d) > limit) {
        errors->Add(path, absl::StrCat(path, " is too large for a number (over ", limit > 1e300 ? "1.8e308" : "3.4e38",
                                       "); allowed: a finite number", [&]() -> std::string {
                                         const FieldRule* rule = FieldRuleOf(f.containing_type()->name(), f.name());
                                         if (rule == nullptr || !rule->maximum) return "";
                                         return absl::StrCat(" up to ", Whole(*rule->maximum));
                                       }()));
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      expect(v.is_boolean(), "true or false");
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      expect(v.is_string(), "a string");
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      expect(v.is_string() || v.is_number_integer(), "an enum name");
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (f.message_type()->file()->package() == "google.protobuf") break;  // well-known types: any form
      if (!v.is_object()) {
        expect(false, "an object");
      } else if (depth < kMaxDepth) {
        CheckMessage(v, *f.message_type(), path, depth + 1, errors);
      }
      break;
  }
}

void CheckMessage(const Json& object, const Descriptor& d, const std::string& path, int depth, FieldErrors* errors) {
  std::map<const google::protobuf::OneofDescriptor*, std::string> oneofs_set;  // oneof -> the member given
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string field_path = path.empty() ? it.key() : absl::StrCat(path, ".", it.key());
    const FieldDescriptor* f = FieldNamed(d, it.key());
    if (f == nullptr) {
      std::vector<std::string> known;
      for (int i = 0; i < d.field_count(); ++i) known.push_back(d.field(i)->name());
      errors->Add(field_path, absl::StrCat("unknown field \"", it.key().substr(0, 64), "\" of ", d.name(),
                                           "; known: ", absl::StrJoin(known, ", ")));
      continue;
    }
    const Json& v = it.value();
    if (const auto* oneof = f->real_containing_oneof(); oneof != nullptr && !v.is_null()) {
      auto [given, first] = oneofs_set.emplace(oneof, f->name());
      if (!first) {
        std::vector<std::string> members;
        for (int i = 0; i < oneof->field_count(); ++i) members.push_back(oneof->field(i)->name());
        const std::string where = path.empty() ? std::string(d.name()) : path;
        errors->Add(field_path, absl::StrCat(where, " takes one of ", absl::StrJoin(members, ", "), "; both ",
                                             given->second, " and ", f->name(), " were given"));
        continue;
      }
    }
    if (f->is_map()) {
      if (!v.is_object() && !v.is_null()) {
        errors->Add(field_path, absl::StrCat(field_path, " = ", Shown(v), "; expected an object"));
        continue;
      }
      if (v.is_object()) {
        for (auto e = v.begin(); e != v.end(); ++e) {
          CheckValue(e.value(), *f->message_type()->map_value(), absl::StrCat(field_path, ".", e.key()), depth, errors);
        }
      }
    } else if (f->is_repeated()) {
      if (!v.is_array() && !v.is_null()) {
        errors->Add(field_path, absl::StrCat(field_path, " = ", Shown(v), "; expected a list"));
        continue;
      }
      if (v.is_array()) {
        for (size_t i = 0; i < v.size(); ++i) {
          CheckValue(v[i], *f, absl::StrCat(field_path, "[", i, "]"), depth, errors);
        }
      }
    } else {
      CheckValue(v, *f, field_path, depth, errors);
    }
  }
}

// Finds where a document stops being JSON: a SAX handler that accepts every
// event and records the parser's first error (nlohmann::json counts the
// offending character's byte from 1).
class SyntaxErrorFinder : public nlohmann::json_sax<Json> {
 public:
  size_t byte = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    if (byte == 0) {
      byte = position;
      overflow = e.id == 406;  // "number overflow parsing '1e400'"
    }
    return false;
  }
  bool overflow = false;
};

}  // namespace

std::string NotJsonText(absl::string_view json, size_t byte) {
  if (json.empty()) return "not valid JSON: the body is empty (expected a JSON object)";
  byte = std::min(std::max<size_t>(byte, 1), json.size());
  size_t line = 1, column = 1;
  for (size_t i = 0; i + 1 < byte; ++i) {
    if (json[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  const unsigned char c = static_cast<unsigned char>(json[byte - 1]);
  const std::string shown = c >= 0x20 && c < 0x7f ? absl::StrCat("'", std::string(1, static_cast<char>(c)), "'")
                                                  : absl::StrCat("byte 0x", absl::Hex(c, absl::kZeroPad2));
  return absl::StrCat("not valid JSON at line ", line, ", column ", column, " (byte ", byte, " of ", json.size(),
                      "): unexpected ", byte == json.size() && c != '}' && c != ']' ? "end of input after " : "",
                      shown);
}

std::string QuoteOverflowingNumbers(absl::string_view json) {
  std::string text(json);
  auto number_char = [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' ||
           c == '-';
  };
  for (int i = 0; i < 16; ++i) {
    SyntaxErrorFinder finder;
    Json::sax_parse(text.begin(), text.end(), &finder, nlohmann::detail::input_format_t::json, /*strict=*/true);
    if (!finder.overflow || finder.byte == 0) break;
    // The number ends at or just before the error's byte.
    size_t end = std::min(finder.byte, text.size());
    while (end > 0 && !number_char(text[end - 1])) --end;
    size_t begin = end;
    while (begin > 0 && number_char(text[begin - 1])) --begin;
    if (begin == end) break;
    const std::string token = text.substr(begin, end - begin);
    text.replace(begin, end - begin, absl::StrCat("\"\\u0001number too large: ", token, "\""));
  }
  return text;
}

bool JsonNestedWithin(absl::string_view json, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

std::string MessageToJson(const google::protobuf::Message& message, bool pretty) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  options.add_whitespace = pretty;
  std::string json;
  const google::protobuf::DescriptorPool* pool = message.GetDescriptor()->file()->pool();
  if (pool != google::protobuf::DescriptorPool::generated_pool()) {
    (void)google::protobuf::util::MessageToJsonString(message, &json, options);
    return json;
  }
  // The printer converts the message's wire form, whose map entries come in
  // hash order unless serialized deterministically (sorted by key): sorted,
  // two equal messages print the same bytes whichever door built them.
  std::string binary;
  {
    google::protobuf::io::StringOutputStream raw(&binary);
    google::protobuf::io::CodedOutputStream coded(&raw);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  static google::protobuf::util::TypeResolver* const resolver =
      google::protobuf::util::NewTypeResolverForDescriptorPool("type.googleapis.com", pool);
  // Fails only for messages that cannot be printed (e.g. Any with an unknown
  // type), which the API does not use.
  (void)google::protobuf::util::BinaryToJsonString(
      resolver, absl::StrCat("type.googleapis.com/", message.GetDescriptor()->full_name()), binary, &json, options);
  return json;
}

absl::Status JsonToMessage(absl::string_view json, const std::string& prefix, google::protobuf::Message* message) {
  const std::string field_name = prefix.empty() ? "request" : prefix;
  // A UTF-8 byte-order mark before the document is allowed (RFC 8259 §8.1)
  // and dropped: the protobuf parser would refuse it with its own words.
  if (json.size() >= 3 && json.substr(0, 3) == "\xEF\xBB\xBF") json.remove_prefix(3);
  if (!JsonNestedWithin(json, kMaxJsonDepth)) {
    return FieldError(field_name, absl::StrCat("JSON nested deeper than ", kMaxJsonDepth, " levels"));
  }
  // First a check that names the exact field and what it expects; the
  // protobuf parser then catches what is left (e.g. integers out of range).
  Json parsed = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    // A number beyond a double's range is named by its field below.
    const std::string quoted = QuoteOverflowingNumbers(json);
    if (quoted != json) parsed = Json::parse(quoted, nullptr, /*allow_exceptions=*/false);
  }
  if (parsed.is_discarded()) {
    SyntaxErrorFinder finder;
    Json::sax_parse(json.begin(), json.end(), &finder, nlohmann::detail::input_format_t::json, /*strict=*/true);
    return FieldError(field_name, NotJsonText(json, finder.byte));
  }
  if (!parsed.is_object()) {
    return FieldError(field_name, absl::StrCat(field_name, " = ", Shown(parsed), "; expected a JSON object"));
  }
  FieldErrors errors;
  CheckMessage(parsed, *message->GetDescriptor(), prefix, 0, &errors);
  if (!errors.empty()) return errors.ToStatus();
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(std::string(json), message, options);
  if (status.ok()) return absl::OkStatus();
  return FieldError(field_name,
                    absl::StrCat("not a valid ", message->GetDescriptor()->name(), ": ", status.message().ToString()));
}

}  // namespace api
}  // namespace parplan
