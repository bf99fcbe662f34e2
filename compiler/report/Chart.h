// A small SVG line chart: axes (linear or log2), grid, lines with markers,
// an optional horizontal reference line, a legend. No scripts, no external
// resources, so the SVG can be inlined into the HTML page as it is.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dx::report {

struct ChartLine {
  std::string label;
  std::vector<std::pair<double, double>> points; // drawn in this order
  int color = 0;        // index into the palette; -1: grey (ideal lines)
  bool dashed = false;
  bool markers = true;
};

struct Chart {
  std::string id; // unique in a page that inlines several charts
  std::string title;
  std::string subtitle; // smaller, under the title (e.g. "MODEL, not measured")
  std::string xLabel, yLabel;
  bool logX = false, logY = false; // base-2 logarithmic axes
  bool integerX = false;           // x ticks are whole numbers (ranks)
  bool xFromZero = false;          // a linear x axis starts at 0 (time)
  std::vector<ChartLine> lines;
  std::optional<std::pair<double, std::string>> hline; // y value and label
  // Short texts written at the bottom of the plot at an x value, in a line's
  // colour (e.g. "not reached" where a learning speed-up has no point).
  struct Mark {
    double x;
    std::string text;
    int color;
  };
  std::vector<Mark> marks;
};

// The chart as a standalone SVG document (no XML declaration, so it can be
// inlined into HTML). Points that are not finite, or not positive on a log
// axis, are left out.
std::string renderSvg(const Chart &c);

} // namespace dx::report
