// A small RFC 4180 CSV reader for test data (quoted fields, "" escapes).
#ifndef PARPLAN_TESTS_CORE_CSV_READER_H_
#define PARPLAN_TESTS_CORE_CSV_READER_H_

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace parplan {

// Rows as header -> value maps; an unreadable file gives no rows.
inline std::vector<std::map<std::string, std::string>> ReadCsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<std::vector<std::string>> records(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      records.back().push_back(field);
      field.clear();
      records.emplace_back();
    } else if (c != '\r') {
      field.push_back(c);
    }
  }
  if (!field.empty() || !records.back().empty()) records.back().push_back(field);
  if (records.back().empty()) records.pop_back();
  std::vector<std::map<std::string, std::string>> rows;
  if (records.empty()) return rows;
  const auto& header = records[0];
  for (size_t r = 1; r < records.size(); ++r) {
    std::map<std::string, std::string> row;
    for (size_t k = 0; k < header.size(); ++k) row[header[k]] = k < records[r].size() ? records[r][k] : "";
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace parplan

#endif  // PARPLAN_TESTS_CORE_CSV_READER_H_
