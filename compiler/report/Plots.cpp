#include "report/Plots.h"

#include <algorithm>
#include <cmath>

namespace dx::report {

namespace {

std::string metricLabel(const std::string &metric) {
  if (metric == "loss") return "training loss";
  if (metric == "val_loss") return "validation loss";
  return "validation " + metricName(metric);
}

ChartLine ideal(int64_t base, int64_t lo, int64_t hi) {
  ChartLine l;
  l.label = base == 1 ? "ideal (N)" : "ideal (N / " + std::to_string(base) + ")";
  l.color = -1;
  l.dashed = true;
  l.markers = false;
  for (int64_t n : {lo, hi}) l.points.push_back({double(n), double(n) / double(base)});
  return l;
}

} // namespace

Chart metricChart(const Series &s) {
  Chart c;
  const std::string metric = s.plotMetric();
  c.id = s.slug + "-" + metric;
  c.title = s.model + ": " + metricLabel(metric) + " against training time";
  c.xLabel = "training time (s)";
  c.xFromZero = true;
  c.yLabel = metricLabel(metric);
  int color = 0;
  for (const Row &r : s.rows) {
    ChartLine l;
    l.label = r.label();
    l.color = color++;
    for (const EpochRecord &e : r.run->epochs)
      if (auto v = metricOf(e, metric)) l.points.push_back({e.trainTime, *v});
    c.lines.push_back(std::move(l));
  }
  if (s.goal && s.goal->metric == metric) c.hline = {{s.goal->value, "target " + s.goal->str()}};
  return c;
}

Chart speedupChart(const Series &s) {
  Chart c;
  c.id = s.slug + "-speedup";
  c.title = s.model + ": speed-up against ranks";
  c.subtitle = "samples/s relative to " + std::to_string(s.baseRanks) + (s.baseRanks == 1 ? " rank" : " ranks") +
               (s.scaling == Scaling::Strong ? " (fixed dataset)"
                : s.scaling == Scaling::Weak ? " (samples growing with ranks)"
                                             : " (samples differ between runs)");
  c.xLabel = "ranks";
  c.yLabel = "speed-up";
  c.logX = c.logY = true;
  c.integerX = true;
  c.lines.push_back(ideal(s.baseRanks, s.rows.front().ranks, std::max<int64_t>(s.rows.back().ranks, 2 * s.baseRanks)));
  // Where the speed-ups coincide (with the ideal: perfect scaling; with each
  // other: as many epochs to the target at every rank count) none may hide
  // another: the ideal is drawn over them, the learning speed-up inside a
  // wide parallel one.
  c.lines.back().onTop = true;
  ChartLine parallel, learning;
  parallel.label = "parallel speed-up";
  parallel.color = 0;
  parallel.wide = true;
  learning.label = "learning speed-up";
  learning.color = 1;
  // One point per rank count: the speed-up of its runs' mean samples/s.
  for (const RankGroup &g : s.groups) parallel.points.push_back({double(g.ranks), g.speedup});
  for (const Row &r : s.rows) {
    if (r.learningSpeedup) learning.points.push_back({double(r.ranks), *r.learningSpeedup});
    else if (r.learning == Learning::NotReached) c.marks.push_back({double(r.ranks), "learning: not reached", 1});
    else if (r.learning == Learning::BaselineNotReached) c.marks.push_back({double(r.ranks), "learning: n/a", 1});
  }
  c.lines.push_back(std::move(parallel));
  if (s.goal) c.lines.push_back(std::move(learning));
  return c;
}

Chart projectionChart(const Series &s, const Projection &p) {
  Chart c;
  c.id = s.slug + "-projection";
  c.title = s.model + ": projected speed-up on " + p.net.name;
  c.subtitle = p.in.window ? "MODEL (alpha-beta all-reduce, without and with overlap), not a measurement; dots: "
                             "measured on this machine"
                           : "MODEL (alpha-beta all-reduce), not a measurement; dots: measured on this machine";
  c.xLabel = "ranks";
  c.yLabel = "speed-up";
  c.logX = c.logY = true;
  c.integerX = true;
  int64_t hi = s.rows.back().ranks;
  for (const ProjectionRow &r : p.rows) hi = std::max(hi, r.ranks);
  // The ideal line and the model's curves start together at (N0, 1) and, while
  // the all-reduce is cheap, stay together: they take turns at the dashes,
  // or the last one drawn would hide the others (a legend of lines unseen).
  const bool overlap = p.in.window.has_value();
  const int turns = 1 + kAlgorithms + (overlap ? 1 : 0);
  c.lines.push_back(ideal(p.in.baseRanks, p.in.baseRanks, std::max(hi, 2 * p.in.baseRanks)));
  c.lines.back().dashTurns = turns;
  // The model's curves, at powers of two and at the asked rank counts.
  std::vector<int64_t> at;
  for (int64_t n = p.in.baseRanks; n < hi; n *= 2) at.push_back(n);
  for (const ProjectionRow &r : p.rows) at.push_back(r.ranks);
  at.push_back(hi);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  for (int a = 0; a < kAlgorithms; ++a) {
    ChartLine l;
    l.label = std::string("model: ") + algorithmName(a);
    l.color = 2 + a;
    l.dashed = true;
    l.dashTurn = 1 + a;
    l.dashTurns = turns;
    l.markers = false;
    for (int64_t n : at) l.points.push_back({double(n), projectAt(p.in, p.net, n).speedup[a]});
    c.lines.push_back(std::move(l));
  }
  if (overlap) {
    // The overlapped model, its best algorithm at each rank count.
    ChartLine l;
    l.label = "model with overlap: best";
    l.color = 2 + kAlgorithms;
    l.dashed = true;
    l.dashTurn = 1 + kAlgorithms;
    l.dashTurns = turns;
    l.markers = false;
    for (int64_t n : at) {
      const ProjectionRow r = projectAt(p.in, p.net, n);
      l.points.push_back({double(n), r.speedupOverlap[r.bestOverlap]});
    }
    c.lines.push_back(std::move(l));
  }
  ChartLine measured;
  measured.label = "measured";
  measured.color = 0;
  for (const RankGroup &g : s.groups) measured.points.push_back({double(g.ranks), g.speedup});
  c.lines.push_back(std::move(measured));
  return c;
}

} // namespace dx::report
