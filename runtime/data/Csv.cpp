#include "data/Csv.h"

#include "common/Check.h"
#include "data/Array.h"
#include "data/Bytes.h"

#include <charconv>
#include <cmath>
#include <string_view>

namespace dxrt {

static std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

CsvTable read_csv(const std::string &path, int64_t label_column, bool header, int64_t classes) {
  std::vector<uint8_t> bytes = read_file(path);
  std::string_view text(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  CsvTable t;
  int64_t columns = -1, first_line = 0, line_no = 0;
  std::vector<double> row;
  size_t pos = 0;
  bool skipped_header = !header;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!skipped_header) {
      skipped_header = true;
      continue;
    }
    if (trim(line).empty()) continue;
    const std::string where = str("CSV file '", path, "' line ", line_no);
    row.clear();
    for (size_t a = 0;;) {
      size_t b = line.find(',', a);
      std::string_view field = trim(line.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a));
      double v = 0;
      auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
      DXRT_CHECK(!field.empty() && ec == std::errc() && ptr == field.data() + field.size() && std::isfinite(v),
                 str(where, " column ", row.size() + 1, ": '", std::string(field), "' is not a finite number"),
                 header ? "every field must be numeric" : "if the first line is a header, set header: true in the dataset block");
      row.push_back(v);
      if (b == std::string_view::npos) break;
      a = b + 1;
    }
    if (columns < 0) {
      columns = int64_t(row.size());
      first_line = line_no;
      DXRT_CHECK(label_column < columns,
                 str(where, " has ", columns, " columns, so label_column ", label_column, " does not exist"),
                 "label_column counts from 0");
      t.features = columns - (label_column >= 0 ? 1 : 0);
    }
    DXRT_CHECK(int64_t(row.size()) == columns,
               str(where, " has ", row.size(), " columns, but line ", first_line, " has ", columns), "every row needs the same columns");
    for (int64_t c = 0; c < columns; ++c) {
      double v = row[size_t(c)];
      if (c != label_column) {
        t.x.push_back(float(v));
        continue;
      }
      DXRT_CHECK(is_label(v, classes), str(where, ": label ", v, " is ", label_problem(classes)),
                 classes > 0 ? str("the dataset block says classes: ", classes) : std::string("labels are non-negative integers"));
      t.y.push_back(int64_t(v));
    }
    ++t.rows;
  }
  DXRT_CHECK(t.rows > 0, str("CSV file '", path, "' has no data rows"), "");
  return t;
}

} // namespace dxrt
