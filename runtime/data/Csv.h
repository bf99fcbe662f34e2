// Numeric CSV: one sample per line, comma-separated, optionally a header line
// and a label column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxrt {

struct CsvTable {
  int64_t rows = 0, features = 0;
  std::vector<float> x;     // rows * features, the non-label columns in order
  std::vector<int64_t> y;   // rows labels when label_column >= 0
};

// label_column: 0-based column of the label, -1 for none. classes > 0 bounds
// the labels. Throws dxrt::Error naming file:line and the problem.
CsvTable read_csv(const std::string &path, int64_t label_column, bool header, int64_t classes);

} // namespace dxrt
