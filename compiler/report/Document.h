// Everything one report shows, assembled once and rendered to the terminal,
// Markdown (report.md) and HTML (report.html).
#pragma once

#include "report/Chart.h"
#include "report/Metrics.h"
#include "report/Projection.h"
#include "report/TextTable.h"

#include <optional>
#include <string>
#include <vector>

namespace dx::report {

struct NamedChart {
  std::string file; // "mlp-speedup.svg", relative to the report's directory
  Chart chart;
};

struct SeriesSection {
  const Series *series = nullptr;
  TextTable table;
  std::vector<NamedChart> charts;
  std::optional<Projection> projection;
  std::optional<TextTable> projectionTable;
  std::optional<NamedChart> projectionChart;
};

struct ReportDoc {
  std::vector<std::string> logs;
  std::vector<SeriesSection> sections;
  std::vector<std::string> notes; // logs left out
};

// The column definitions, shown under the tables.
extern const char *const kDefinitions[];
extern const char *const kProjectionDefinition;
extern const char *const kOverlapDefinition; // after it, when the projection has the overlapped model

std::string renderMarkdownReport(const ReportDoc &doc);
// One self-contained page: styles inline, charts as inline SVG.
std::string renderHtmlReport(const ReportDoc &doc);

} // namespace dx::report
