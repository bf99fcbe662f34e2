#include "Scatter.h"

#include "Colormap.h"
#include "report/TextTable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace dxan {
namespace {

// Layout in SVG user units (px).
constexpr double kPanel = 300;      // square plotting area of each panel
constexpr double kLeft = 64;        // room for y tick labels and the axis label
constexpr double kGap = 72;         // between panels (the next panel's y labels)
constexpr double kTop = 56;         // title
constexpr double kBottom = 56;      // x tick labels and the axis label
constexpr double kBarGap = 28, kBarWidth = 16, kBarRight = 84; // colour bar and its labels
constexpr double kRadius = 2.2;

struct Range {
  double lo, hi;
};

std::string num(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f", v);
  return s;
}

// Ticks at multiples of 1, 2 or 5 x 10^k, about five across the range.
struct Ticks {
  std::vector<double> values;
  int decimals = 0;
};

Ticks nice_ticks(Range r) {
  Ticks t;
  const double span = r.hi - r.lo;
  const double raw = span / 5.0;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  t.decimals = std::max(0, -int(std::floor(std::log10(step) + 1e-9)));
  for (double k = std::ceil(r.lo / step - 1e-9); k * step <= r.hi + 1e-9 * span; k += 1.0)
    t.values.push_back(k * step);
  return t;
}

std::string tick_label(double v, int decimals) {
  if (std::fabs(v) < 0.5 * std::pow(10.0, -decimals)) v = 0; // not "-0.0" for a rounded zero
  char s[48];
  std::snprintf(s, sizeof s, "%.*f", decimals, v);
  return s;
}

// Data range, widened by 5% on each side so points do not sit on the frame;
// a constant column gets a unit range around its value.
Range padded_range(const std::vector<float> &v, int stride, int offset) {
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = offset; i < v.size(); i += stride) {
    lo = std::min(lo, double(v[i]));
    hi = std::max(hi, double(v[i]));
  }
  if (!(hi > lo)) return {lo - 0.5, lo + 0.5};
  const double pad = 0.05 * (hi - lo);
  return {lo - pad, hi + pad};
}

Range value_range(const std::vector<float> &v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  if (!(*hi > *lo)) return {*lo - 0.5, *lo + 0.5};
  return {*lo, *hi};
}

std::vector<std::pair<int, int>> panel_pairs(int dims) {
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < dims; ++a)
    for (int b = a + 1; b < dims; ++b) pairs.emplace_back(a, b);
  return pairs;
}

std::string text(double x, double y, const std::string &s, const char *anchor, const char *extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + extra + ">" +
         dx::report::htmlEscape(s) + "</text>\n";
}

} // namespace

int panel_count(int dims) { return dims * (dims - 1) / 2; }

std::vector<int64_t> subsample(int64_t rows, int64_t limit) {
  std::vector<int64_t> out;
  if (rows <= limit) {
    for (int64_t i = 0; i < rows; ++i) out.push_back(i);
    return out;
  }
  for (int64_t k = 0; k < limit; ++k) out.push_back(k * rows / limit);
  return out;
}

std::string render_svg(const ScatterPlot &p) {
  const std::vector<float> &z = *p.latent;
  const std::vector<float> &c = *p.color;
  const auto pairs = panel_pairs(p.dims);
  const int panels = int(pairs.size());
  const double width = kLeft + panels * kPanel + (panels - 1) * kGap + kBarGap + kBarWidth + kBarRight;
  const double height = kTop + kPanel + kBottom;

  std::vector<Range> ranges;
  for (int d = 0; d < p.dims; ++d) ranges.push_back(padded_range(z, p.dims, d));
  const Range cr = value_range(c);

  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
       "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
       "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += text(width / 2, 28, p.title, "middle", " font-size=\"15\" font-weight=\"bold\"");

  for (int k = 0; k < panels; ++k) {
    const auto [dx, dy] = pairs[k];
    const double x0 = kLeft + k * (kPanel + kGap), y0 = kTop;
    const Range rx = ranges[dx], ry = ranges[dy];
    auto px = [&](double v) { return x0 + (v - rx.lo) / (rx.hi - rx.lo) * kPanel; };
    auto py = [&](double v) { return y0 + kPanel - (v - ry.lo) / (ry.hi - ry.lo) * kPanel; };

    s += "<g>\n";
    s += "<rect x=\"" + num(x0) + "\" y=\"" + num(y0) + "\" width=\"" + num(kPanel) + "\" height=\"" + num(kPanel) +
         "\" fill=\"none\" stroke=\"#333\"/>\n";
    const Ticks tx = nice_ticks(rx), ty = nice_ticks(ry);
    for (double v : tx.values) {
      const double x = px(v);
      s += "<line x1=\"" + num(x) + "\" y1=\"" + num(y0 + kPanel) + "\" x2=\"" + num(x) + "\" y2=\"" +
           num(y0 + kPanel + 5) + "\" stroke=\"#333\"/>\n";
      s += text(x, y0 + kPanel + 18, tick_label(v, tx.decimals), "middle");
    }
    for (double v : ty.values) {
      const double y = py(v);
      s += "<line x1=\"" + num(x0 - 5) + "\" y1=\"" + num(y) + "\" x2=\"" + num(x0) + "\" y2=\"" + num(y) +
           "\" stroke=\"#333\"/>\n";
      s += text(x0 - 8, y + 4, tick_label(v, ty.decimals), "end");
    }
    const std::string xname = "z" + std::to_string(dx + 1), yname = "z" + std::to_string(dy + 1);
    s += text(x0 + kPanel / 2, y0 + kPanel + 40, xname, "middle", " font-size=\"14\"");
    const double ly = y0 + kPanel / 2, lx = x0 - 46;
    s += text(lx, ly, yname, "middle",
              (" font-size=\"14\" transform=\"rotate(-90 " + num(lx) + " " + num(ly) + ")\"").c_str());
    // Points, one element per line (easy to count and to diff).
    s += "<g fill-opacity=\"0.8\">\n";
    for (int64_t i : p.drawn) {
      const double t = (double(c[i]) - cr.lo) / (cr.hi - cr.lo);
      s += "<circle cx=\"" + num(px(z[i * p.dims + dx])) + "\" cy=\"" + num(py(z[i * p.dims + dy])) +
           "\" r=\"" + num(kRadius) + "\" fill=\"" + hex(colormap(t)) + "\"/>\n";
    }
    s += "</g>\n</g>\n";
  }

  // Colour bar: a gradient with the colormap's own anchors, minimum at the bottom.
  const double bx = kLeft + panels * kPanel + (panels - 1) * kGap + kBarGap, by = kTop;
  s += "<defs><linearGradient id=\"colorbar\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
  for (const auto &[offset, color] : colormap_stops())
    s += "<stop offset=\"" + num(offset * 100) + "%\" stop-color=\"" + color + "\"/>\n";
  s += "</linearGradient></defs>\n";
  s += "<rect x=\"" + num(bx) + "\" y=\"" + num(by) + "\" width=\"" + num(kBarWidth) + "\" height=\"" +
       num(kPanel) + "\" fill=\"url(#colorbar)\" stroke=\"#333\"/>\n";
  const Ticks tc = nice_ticks(cr);
  for (double v : tc.values) {
    const double y = by + kPanel - (v - cr.lo) / (cr.hi - cr.lo) * kPanel;
    s += "<line x1=\"" + num(bx + kBarWidth) + "\" y1=\"" + num(y) + "\" x2=\"" + num(bx + kBarWidth + 5) +
         "\" y2=\"" + num(y) + "\" stroke=\"#333\"/>\n";
    s += text(bx + kBarWidth + 8, y + 4, tick_label(v, tc.decimals), "start");
  }
  const double cx = bx + kBarWidth + 62, cy = by + kPanel / 2;
  s += text(cx, cy, p.color_name, "middle",
            (" font-size=\"14\" transform=\"rotate(-90 " + num(cx) + " " + num(cy) + ")\"").c_str());
  s += "</svg>\n";
  return s;
}

} // namespace dxan
