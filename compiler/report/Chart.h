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
  // Dashed lines that may lie on top of each other (a projection's ideal line
  // and its model curves, all through (N0, 1) and near N / N0 within a node)
  // take turns: with dashTurns n > 0 the line draws only the dashTurn-th of
  // n dashes, so each of them shows where they coincide. Otherwise "6 4".
  int dashTurn = 0, dashTurns = 0;
  bool markers = true;
  // Lines that may coincide with a later one (parallel and learning speed-up,
  // equal when the target takes as many epochs at every rank count): drawn
  // 5 px wide (markers of radius 5.5, not 2 and 3.5), so a later line on top
  // leaves its rim in sight.
  bool wide = false;
  // Drawn after the other lines (the ideal line, thin and dashed, over a
  // measured speed-up that scales perfectly), in its place in the legend.
  bool onTop = false;
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
