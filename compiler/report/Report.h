// `dxc report LOG.jsonl... [-o DIR] [--project N,... --network NET]`: reads
// metrics logs, prints each series' scaling table, and writes the tables
// (CSV, Markdown), SVG plots and one HTML page to DIR.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace dx::report {

struct ReportOptions {
  std::vector<std::string> logs;
  std::string outDir = "report";
  std::vector<int64_t> project;       // rank counts to project to (empty: no projection)
  std::string network;                // preset name or JSON file (needed with project)
  std::optional<double> computeTime;  // overrides the measured compute time per step (s)
  std::optional<double> backwardTime; // overrides the measured backward window per step (s, overlap_window_s)
};

// Exit code: 0, or 1 after printing every bad log's error (FILE:LINE: error:
// ...) or another input error to `err`. The tables go to `out`.
int runReport(const ReportOptions &o, std::ostream &out, std::ostream &err);

} // namespace dx::report
