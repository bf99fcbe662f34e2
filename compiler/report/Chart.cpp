#include "report/Chart.h"

#include "report/TextTable.h"
#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

namespace dx::report {

namespace {

const char *kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
const char *kGrey = "#7f7f7f";

constexpr double kWidth = 700, kHeight = 420;
constexpr double kLeft = 72, kRight = 180, kTop = 58, kBottom = 56;
constexpr double kLegendText = 44; // from the plot's right edge to a legend label

// About a text's width in DejaVu Sans (the font the page and the SVGs ask
// for, and the one browsers on Debian use), a little over: character widths in
// em, by class. The chart widens to fit its texts, or a long legend label (a
// run's file name) is cut off at its edge. Measured in Chromium, "2 ranks
// (mlp-np2-again.jsonl)" at 12 px is 177 px; this says 187.
double textWidth(const std::string &text, double size, bool bold = false) {
  double em = 0;
  for (unsigned char ch : text) {
    if ((ch & 0xC0) == 0x80) continue; // a UTF-8 continuation byte
    if (ch >= 0x80) em += 0.8;
    else if (std::strchr(" il|.,:;'!", ch)) em += 0.32;
    else if (std::strchr("fjrt()[]{}-/", ch)) em += 0.4;
    else if (std::strchr("mw%MW", ch)) em += 1.0;
    else if (std::isupper(ch) || std::strchr("=<>+~#&@", ch)) em += 0.8;
    else em += 0.64; // digits, most lower case letters
  }
  return em * size * (bold ? 1.12 : 1.0);
}

struct Axis {
  bool log = false;
  bool integer = false;
  double lo = 0, hi = 1; // in data units
  std::vector<double> ticks;

  double t(double v) const { return log ? std::log2(v) : v; }
  // 0..1 along the axis
  double frac(double v) const { return (t(v) - t(lo)) / (t(hi) - t(lo)); }
};

std::string coord(double v) { return fixed(v, 1); }

// Ticks of a linear axis get the decimals of their step (0.0, 0.2, ... 1.0;
// 97.5, 100.0, 102.5: a step of 2.5 needs one, or its labels would read 98,
// 100, 103); those of a log axis (step 0) are whole numbers, or 3
// significant digits below 1.
std::string tickLabel(double v, double step, bool integer) {
  if (step > 0 && !integer) {
    int digits = 0;
    for (double scaled = step; digits < 6 && std::fabs(scaled - std::round(scaled)) > 1e-6 * scaled; scaled *= 10)
      ++digits;
    if (digits == 0 && std::fabs(v) < 9e15) return withThousands(int64_t(std::llround(v)));
    return fixed(v, std::min(digits, 6));
  }
  if (std::fabs(v) >= 1 && std::fabs(v) < 9e15 && std::fabs(v - std::round(v)) < 1e-9)
    return withThousands(int64_t(std::llround(v)));
  return significant(v, 3);
}

// Nice linear ticks (1, 2, 5 x 10^k) covering [lo, hi] and a little room
// around the data; widens lo and hi to ticks. `fromZero` keeps lo at 0.
void linearAxis(Axis &a, double lo, double hi, bool fromZero) {
  if (!(hi > lo)) {
    double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  } else {
    double pad = (hi - lo) * 0.04;
    lo -= pad;
    hi += pad;
  }
  if (fromZero) lo = 0;
  double raw = (hi - lo) / 6;
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  if (a.integer) step = std::max(1.0, std::round(step));
  a.lo = std::floor(lo / step + 1e-9) * step;
  a.hi = std::ceil(hi / step - 1e-9) * step;
  for (double v = a.lo; v <= a.hi + step * 1e-6; v += step) a.ticks.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
}

// Powers of two covering [lo, hi], at most ~9 labelled.
void logAxis(Axis &a, double lo, double hi) {
  int e0 = int(std::floor(std::log2(lo) + 1e-9)), e1 = int(std::ceil(std::log2(hi) - 1e-9));
  if (e1 <= e0) e1 = e0 + 1;
  int stride = std::max(1, (e1 - e0 + 8) / 9);
  e0 = int(std::floor(double(e0) / stride)) * stride;
  e1 = int(std::ceil(double(e1) / stride)) * stride;
  a.lo = std::ldexp(1.0, e0);
  a.hi = std::ldexp(1.0, e1);
  for (int e = e0; e <= e1; e += stride) a.ticks.push_back(std::ldexp(1.0, e));
}

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

// The stroke-dasharray (and -dashoffset) attributes of a line, "" if solid;
// a legend's sample of a line that takes turns is dashed as the others (one
// dash in its 24 px would hardly show its colour).
std::string dashAttrs(const ChartLine &l, bool legend = false) {
  if (!l.dashed) return "";
  if (l.dashTurns <= 0 || legend) return " stroke-dasharray=\"6 4\"";
  constexpr int kDash = 6;
  return " stroke-dasharray=\"" + std::to_string(kDash) + " " + std::to_string(kDash * (l.dashTurns - 1)) +
         "\" stroke-dashoffset=\"" + std::to_string(kDash * ((l.dashTurns - l.dashTurn) % l.dashTurns)) + "\"";
}

std::string strokeWidth(const ChartLine &l) { return l.wide ? "5" : "2"; }
std::string markerRadius(const ChartLine &l) { return l.wide ? "5.5" : "3.5"; }

} // namespace

std::string renderSvg(const Chart &c) {
  Axis x, y;
  x.log = c.logX;
  x.integer = c.integerX;
  y.log = c.logY;
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const ChartLine &l : c.lines)
    for (auto [px, py] : l.points)
      if (usable(px, x.log) && usable(py, y.log)) {
        xlo = std::min(xlo, px);
        xhi = std::max(xhi, px);
        ylo = std::min(ylo, py);
        yhi = std::max(yhi, py);
      }
  if (c.hline && usable(c.hline->first, y.log)) {
    ylo = std::min(ylo, c.hline->first);
    yhi = std::max(yhi, c.hline->first);
  }
  if (!(xlo <= xhi)) xlo = xhi = x.log ? 1 : 0;
  if (!(ylo <= yhi)) ylo = yhi = y.log ? 1 : 0;
  if (x.log) logAxis(x, xlo, xhi);
  else linearAxis(x, c.xFromZero ? std::min(0.0, xlo) : xlo, xhi, c.xFromZero && xlo >= 0);
  if (y.log) logAxis(y, ylo, yhi);
  else linearAxis(y, ylo, yhi, false);

  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  double width = kWidth;
  for (const ChartLine &l : c.lines) width = std::max(width, kLeft + pw + kLegendText + textWidth(l.label, 12) + 8);
  width = std::max(width, kLeft + textWidth(c.title, 15, true) + 8);
  width = std::max(width, kLeft + textWidth(c.subtitle, 12) + 8);
  auto X = [&](double v) { return kLeft + x.frac(v) * pw; };
  auto Y = [&](double v) { return kTop + (1 - y.frac(v)) * ph; };

  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + coord(width) + "\" height=\"" + coord(kHeight) +
       "\" viewBox=\"0 0 " + coord(width) + " " + coord(kHeight) +
       "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  s += "<title>" + htmlEscape(c.title) + "</title>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  s += "<text x=\"" + coord(kLeft) + "\" y=\"22\" font-size=\"15\" font-weight=\"bold\">" + htmlEscape(c.title) +
       "</text>\n";
  if (!c.subtitle.empty())
    s += "<text x=\"" + coord(kLeft) + "\" y=\"40\" font-size=\"12\" fill=\"#b03030\">" + htmlEscape(c.subtitle) +
         "</text>\n";

  // Grid and tick labels.
  const double xstep = x.ticks.size() > 1 ? x.ticks[1] - x.ticks[0] : 0;
  const double ystep = y.ticks.size() > 1 ? y.ticks[1] - y.ticks[0] : 0;
  for (double v : x.ticks) {
    s += "<line x1=\"" + coord(X(v)) + "\" y1=\"" + coord(kTop) + "\" x2=\"" + coord(X(v)) + "\" y2=\"" +
         coord(kTop + ph) + "\" stroke=\"#e4e4e4\"/>\n";
    s += "<text x=\"" + coord(X(v)) + "\" y=\"" + coord(kTop + ph + 16) + "\" text-anchor=\"middle\">" +
         htmlEscape(tickLabel(v, x.log ? 0 : xstep, x.integer)) + "</text>\n";
  }
  for (double v : y.ticks) {
    s += "<line x1=\"" + coord(kLeft) + "\" y1=\"" + coord(Y(v)) + "\" x2=\"" + coord(kLeft + pw) + "\" y2=\"" +
         coord(Y(v)) + "\" stroke=\"#e4e4e4\"/>\n";
    s += "<text x=\"" + coord(kLeft - 6) + "\" y=\"" + coord(Y(v) + 4) + "\" text-anchor=\"end\">" +
         htmlEscape(tickLabel(v, y.log ? 0 : ystep, false)) + "</text>\n";
  }
  s += "<rect x=\"" + coord(kLeft) + "\" y=\"" + coord(kTop) + "\" width=\"" + coord(pw) + "\" height=\"" + coord(ph) +
       "\" fill=\"none\" stroke=\"#444444\"/>\n";
  s += "<text x=\"" + coord(kLeft + pw / 2) + "\" y=\"" + coord(kHeight - 14) + "\" text-anchor=\"middle\">" +
       htmlEscape(c.xLabel) + (x.log ? " (log scale)" : "") + "</text>\n";
  s += "<text transform=\"translate(18," + coord(kTop + ph / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
       htmlEscape(c.yLabel) + (y.log ? " (log scale)" : "") + "</text>\n";

  // The reference line.
  if (c.hline && usable(c.hline->first, y.log)) {
    double yy = Y(c.hline->first);
    s += "<line x1=\"" + coord(kLeft) + "\" y1=\"" + coord(yy) + "\" x2=\"" + coord(kLeft + pw) + "\" y2=\"" +
         coord(yy) + "\" stroke=\"" + kGrey + "\" stroke-dasharray=\"2 3\"/>\n";
    s += "<text x=\"" + coord(kLeft + 4) + "\" y=\"" + coord(yy - 4) + "\" fill=\"" + kGrey + "\">" +
         htmlEscape(c.hline->second) + "</text>\n";
  }
  // Marks, stacked upwards from the bottom of the plot when they share an x.
  std::vector<std::pair<double, int>> used;
  for (const Chart::Mark &m : c.marks) {
    if (!usable(m.x, x.log)) continue;
    int level = 0;
    for (auto &[ux, n] : used)
      if (ux == m.x) level = ++n;
    if (level == 0) used.push_back({m.x, 0});
    const double mx = X(m.x), my = kTop + ph - 8 - 14 * level;
    const bool right = mx > kLeft + pw - 60;
    s += "<text x=\"" + coord(right ? mx - 6 : mx + 6) + "\" y=\"" + coord(my) + "\"" +
         (right ? " text-anchor=\"end\"" : "") + " font-size=\"11\" fill=\"" +
         (m.color < 0 ? kGrey : kPalette[m.color % 8]) + "\">" + htmlEscape(m.text) + "</text>\n";
  }

  // Lines, clipped to the plot area.
  const std::string clip = (c.id.empty() ? std::string("chart") : c.id) + "-plot";
  s += "<clipPath id=\"" + htmlEscape(clip) + "\"><rect x=\"" + coord(kLeft - 4) + "\" y=\"" + coord(kTop - 4) + "\" width=\"" +
       coord(pw + 8) + "\" height=\"" + coord(ph + 8) + "\"/></clipPath>\n<g clip-path=\"url(#" + htmlEscape(clip) + ")\">\n";
  for (bool top : {false, true})
    for (const ChartLine &l : c.lines) {
      if (l.onTop != top) continue;
      const std::string color = l.color < 0 ? kGrey : kPalette[l.color % 8];
      std::string pts;
      for (auto [px, py] : l.points)
        if (usable(px, x.log) && usable(py, y.log)) pts += coord(X(px)) + "," + coord(Y(py)) + " ";
      if (pts.empty()) continue;
      s += "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"" + strokeWidth(l) + "\"" + dashAttrs(l) +
           " points=\"" + pts + "\"/>\n";
      if (l.markers)
        for (auto [px, py] : l.points)
          if (usable(px, x.log) && usable(py, y.log))
            s += "<circle cx=\"" + coord(X(px)) + "\" cy=\"" + coord(Y(py)) + "\" r=\"" + markerRadius(l) +
                 "\" fill=\"" + color + "\"/>\n";
    }
  s += "</g>\n";

  // Legend, right of the plot.
  double ly = kTop + 8;
  for (const ChartLine &l : c.lines) {
    const std::string color = l.color < 0 ? kGrey : kPalette[l.color % 8];
    const double lx = kLeft + pw + 14;
    s += "<line x1=\"" + coord(lx) + "\" y1=\"" + coord(ly) + "\" x2=\"" + coord(lx + 24) + "\" y2=\"" + coord(ly) +
         "\" stroke=\"" + color + "\" stroke-width=\"" + strokeWidth(l) + "\"" + dashAttrs(l, true) + "/>\n";
    if (l.markers)
      s += "<circle cx=\"" + coord(lx + 12) + "\" cy=\"" + coord(ly) + "\" r=\"" + markerRadius(l) + "\" fill=\"" +
           color + "\"/>\n";
    s += "<text x=\"" + coord(kLeft + pw + kLegendText) + "\" y=\"" + coord(ly + 4) + "\">" + htmlEscape(l.label) +
         "</text>\n";
    ly += 20;
  }
  s += "</svg>\n";
  return s;
}

} // namespace dx::report
