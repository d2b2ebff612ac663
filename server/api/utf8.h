// Keeps responses valid proto3: every string field must be UTF-8, but
// answers quote user input (a layout character, a model name cut at 256
// bytes). SanitizeUtf8 replaces each invalid byte with '?' in every string of
// a message, recursively (repeated fields and map values included).
#ifndef PARPLAN_SERVER_UTF8_H_
#define PARPLAN_SERVER_UTF8_H_

#include <string>

#include "google/protobuf/message.h"

namespace parplan {

// True when `s` is well-formed UTF-8 (no overlongs or surrogates).
bool IsValidUtf8(const std::string& s);

// `s` with every byte that does not start a valid sequence replaced by '?'.
std::string ToValidUtf8(const std::string& s);

void SanitizeUtf8(google::protobuf::Message* message);

// The length of the longest prefix of `s` of at most `max_bytes` that does
// not end inside a multi-byte UTF-8 character (s.size() when it fits).
size_t Utf8PrefixLength(const std::string& s, size_t max_bytes);

}  // namespace parplan

#endif  // PARPLAN_SERVER_UTF8_H_
