#include "server/api/utf8.h"

#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"

namespace parplan {
namespace {

// Length of the valid sequence starting at s[i], or 0.
size_t ValidSequenceAt(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

bool IsValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = ValidSequenceAt(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

size_t Utf8PrefixLength(const std::string& s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s.size();
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // a continuation byte
  return cut;
}

std::string ToValidUtf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = ValidSequenceAt(s, i);
    if (n == 0) {
      out.push_back('?');
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

void SanitizeUtf8(google::protobuf::Message* message) {
  using google::protobuf::FieldDescriptor;
  const auto* reflection = message->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(*message, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->type() == FieldDescriptor::TYPE_STRING) {
      if (f->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(*message, f); ++i) {
          const std::string v = reflection->GetRepeatedString(*message, f, i);
          if (!IsValidUtf8(v)) reflection->SetRepeatedString(message, f, i, ToValidUtf8(v));
        }
      } else {
        const std::string v = reflection->GetString(*message, f);
        if (!IsValidUtf8(v)) reflection->SetString(message, f, ToValidUtf8(v));
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      // Map entries are repeated messages too; their keys here are field names.
      if (f->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(*message, f); ++i) {
          SanitizeUtf8(reflection->MutableRepeatedMessage(message, f, i));
        }
      } else {
        SanitizeUtf8(reflection->MutableMessage(message, f));
      }
    }
  }
}

}  // namespace parplan
