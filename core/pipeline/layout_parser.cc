#include "core/pipeline/layout_parser.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/util/field_error.h"
#include "nlohmann/json.hpp"

namespace parplan {
namespace {

// Reads the decimal digits at s[pos..]; returns the end index (pos when none).
size_t ReadDigits(const std::string& s, size_t pos, long long* value, bool* overflow) {
  long long v = 0;
  size_t i = pos;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + (s[i] - '0');
    if (v > static_cast<long long>(kMaxExpandedLayoutLayers)) *overflow = true;
    if (v > (1LL << 40)) v = 1LL << 40;
    ++i;
  }
  *value = v;
  return i;
}

// Applies Python's re.sub(r'\(([^)]+)\)\*(\d+)', group1 * n) left to right.
absl::Status ExpandGroups(const std::string& in, std::string* out, const std::string& field) {
  out->clear();
  size_t i = 0;
  while (i < in.size()) {
    if (in[i] == '(') {
      size_t close = in.find(')', i + 1);
      if (close != std::string::npos && close > i + 1 && close + 2 < in.size() && in[close + 1] == '*' &&
          std::isdigit(static_cast<unsigned char>(in[close + 2]))) {
        long long n = 0;
        bool overflow = false;
        size_t end = ReadDigits(in, close + 2, &n, &overflow);
        const std::string group = in.substr(i + 1, close - i - 1);
        if (overflow || group.size() * static_cast<size_t>(n) + out->size() > 4 * kMaxExpandedLayoutLayers) {
          return FieldError(field, absl::StrCat("layout expands to more than ", kMaxExpandedLayoutLayers,
                                                " layers; allowed at most that"));
        }
        for (long long k = 0; k < n; ++k) out->append(group);
        i = end;
        continue;
      }
    }
    out->push_back(in[i]);
    ++i;
  }
  return absl::OkStatus();
}

// Applies re.sub(r'(.)\*(\d+)', c * n) left to right.
absl::Status ExpandChars(const std::string& in, std::string* out, const std::string& field) {
  out->clear();
  size_t i = 0;
  while (i < in.size()) {
    if (in[i] != '\n' && i + 2 < in.size() && in[i + 1] == '*' && std::isdigit(static_cast<unsigned char>(in[i + 2]))) {
      long long n = 0;
      bool overflow = false;
      size_t end = ReadDigits(in, i + 2, &n, &overflow);
      if (overflow || static_cast<size_t>(n) + out->size() > 4 * kMaxExpandedLayoutLayers) {
        return FieldError(field, absl::StrCat("layout expands to more than ", kMaxExpandedLayoutLayers,
                                              " layers; allowed at most that"));
      }
      out->append(static_cast<size_t>(n), in[i]);
      i = end;
      continue;
    }
    out->push_back(in[i]);
    ++i;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<LayoutStage>> ParseStringForm(absl::string_view text, const std::string& field) {
  std::string s;
  for (char c : text) {
    if (c != ',') s.push_back(c);
  }
  std::string groups, flat;
  if (absl::Status st = ExpandGroups(s, &groups, field); !st.ok()) return st;
  if (absl::Status st = ExpandChars(groups, &flat, field); !st.ok()) return st;
  std::vector<LayoutStage> stages(1);
  size_t layers = 0;
  for (char c : flat) {
    if (c == '|') {
      stages.emplace_back();
      continue;
    }
    LayerType t;
    switch (c) {
      case 'E':
        t = LayerType::kEmbedding;
        break;
      case 'L':
        t = LayerType::kLoss;
        break;
      case 't':
        t = LayerType::kDecoder;
        break;
      case 'm':
        t = LayerType::kMtp;
        break;
      default:
        return FieldError(field, absl::StrCat("invalid layer character '", std::string(1, c),
                                              "' in the expanded layout; known: E (embedding), "
                                              "L (loss), t (decoder), m (mtp), | (stage break); "
                                              "groups \"(...)*n\" cannot nest"));
    }
    stages.back().push_back(t);
    if (++layers > kMaxExpandedLayoutLayers) {
      return FieldError(field, absl::StrCat("layout has more than ", kMaxExpandedLayoutLayers, " layers"));
    }
  }
  return stages;
}

absl::StatusOr<std::vector<LayoutStage>> ParseListForm(absl::string_view text, const std::string& field) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) {
    return FieldError(field,
                      "layout starts with '[' but is not valid JSON; the list form is a JSON "
                      "list of lists of layer names");
  }
  if (!j.is_array()) return FieldError(field, "the list form must be a list of lists");
  std::vector<LayoutStage> stages;
  size_t layers = 0;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_array()) {
      return FieldError(field, absl::StrCat("stage ", i,
                                            " is not a list; pipeline_model_parallel_layout "
                                            "must be a list of lists"));
    }
    LayoutStage stage;
    for (const auto& item : j[i]) {
      if (!item.is_string()) {
        return FieldError(field, absl::StrCat("stage ", i,
                                              " holds a non-string element; elements "
                                              "must be layer names"));
      }
      std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(item.get<std::string>()));
      LayerType t;
      if (name == "embedding") {
        t = LayerType::kEmbedding;
      } else if (name == "loss") {
        t = LayerType::kLoss;
      } else if (name == "decoder") {
        t = LayerType::kDecoder;
      } else if (name == "mtp") {
        t = LayerType::kMtp;
      } else if (name == "encoder") {
        t = LayerType::kEncoder;
      } else {
        return FieldError(field, absl::StrCat("'", name.substr(0, 32), "' in stage ", i,
                                              " is not a valid LayerType; allowed embedding, loss, "
                                              "decoder, mtp, encoder"));
      }
      stage.push_back(t);
      if (++layers > kMaxExpandedLayoutLayers) {
        return FieldError(field, absl::StrCat("layout has more than ", kMaxExpandedLayoutLayers, " layers"));
      }
    }
    stages.push_back(std::move(stage));
  }
  if (stages.empty()) return FieldError(field, "the layout lists no stages");
  return stages;
}

}  // namespace

absl::StatusOr<std::vector<LayoutStage>> ParseLayoutStages(absl::string_view text, const std::string& field) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  if (trimmed.empty()) return FieldError(field, "layout is empty");
  if (trimmed.front() == '[') return ParseListForm(trimmed, field);
  return ParseStringForm(trimmed, field);
}

std::string LayerTypeName(LayerType type) {
  switch (type) {
    case LayerType::kEmbedding:
      return "E";
    case LayerType::kLoss:
      return "L";
    case LayerType::kEncoder:
      return "encoder";
    case LayerType::kDecoder:
      return "t";
    case LayerType::kMtp:
      return "m";
  }
  return "?";
}

}  // namespace parplan
