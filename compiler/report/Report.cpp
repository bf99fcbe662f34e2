#include "report/Report.h"

#include "report/Document.h"
#include "report/Log.h"
#include "report/Metrics.h"
#include "report/Network.h"
#include "report/Plots.h"
#include "report/Projection.h"
#include "report/Tables.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>

namespace dx::report {

namespace fs = std::filesystem;

namespace {

bool writeFile(const fs::path &path, const std::string &text, std::ostream &err) {
  std::ofstream f(path, std::ios::binary);
  if (f) f << text;
  if (!f) {
    err << "dxc: error: cannot write '" << path.string() << "': " << std::strerror(errno) << "\n";
    return false;
  }
  return true;
}

void printTerminal(const ReportDoc &doc, std::ostream &out) {
  for (const std::string &n : doc.notes) out << "note: " << n << "\n";
  if (!doc.notes.empty()) out << "\n";
  for (size_t i = 0; i < doc.sections.size(); ++i) {
    const SeriesSection &sec = doc.sections[i];
    const Series &s = *sec.series;
    if (i) out << "\n";
    out << s.title() << "\n" << s.description() << "\n\n" << renderText(sec.table);
    for (const std::string &n : s.notes) out << "note: " << n << "\n";
    if (sec.projection) {
      const Projection &p = *sec.projection;
      out << "\nPROJECTION (a model, not a measurement) of " << s.model << " on " << p.net.name << ": "
          << p.net.description << "\n";
      for (const std::string &n : p.in.notes) out << "  " << n << "\n";
      out << "\n" << renderText(*sec.projectionTable);
    }
  }
}

} // namespace

int runReport(const ReportOptions &o, std::ostream &out, std::ostream &err) {
  if (o.project.empty() != o.network.empty()) {
    err << "dxc: error: " << (o.project.empty() ? "--network needs --project N,..." : "--project needs --network")
        << " (the network is a preset: summit, hopper; or a JSON file, see docs/scaling-model.md)\n";
    return 1;
  }
  std::optional<Network> net;
  if (!o.network.empty()) {
    try {
      net = loadNetwork(o.network);
    } catch (const InputError &e) {
      err << e.render() << "\n";
      return 1;
    }
  }

  std::vector<RunLog> runs;
  bool bad = false;
  for (const std::string &path : o.logs) {
    try {
      runs.push_back(readLog(path));
    } catch (const InputError &e) {
      err << e.render() << "\n";
      bad = true;
    }
  }
  if (bad) return 1;

  Analysis a = analyze(runs);
  ReportDoc doc;
  doc.logs = o.logs;
  doc.notes = a.notes;
  if (a.series.empty()) {
    for (const std::string &n : a.notes) err << "note: " << n << "\n";
    err << "dxc: error: nothing to report: no log has an epoch\n";
    return 1;
  }
  for (Series &s : a.series) {
    SeriesSection sec;
    sec.series = &s;
    sec.table = seriesTable(s);
    sec.charts.push_back({s.slug + "-" + (s.plotMetric() == "accuracy" ? "accuracy" : s.plotMetric()) + ".svg",
                          metricChart(s)});
    sec.charts.push_back({s.slug + "-speedup.svg", speedupChart(s)});
    const std::string unprojected = net ? whyNotProjected(s) : "";
    if (!unprojected.empty()) s.notes.push_back(unprojected);
    else if (net) {
      sec.projection = project(s, *net, o.project, o.computeTime, o.backwardTime);
      sec.projectionTable = projectionTable(*sec.projection);
      sec.projectionChart = NamedChart{s.slug + "-projection-" + net->name + ".svg", projectionChart(s, *sec.projection)};
    }
    doc.sections.push_back(std::move(sec));
  }

  printTerminal(doc, out);

  std::error_code ec;
  fs::create_directories(o.outDir, ec);
  if (ec) {
    err << "dxc: error: cannot create the report directory '" << o.outDir << "': " << ec.message() << "\n";
    return 1;
  }
  const fs::path dir(o.outDir);
  std::vector<std::pair<const Series *, Projection>> projections;
  int plots = 0;
  bool ok = writeFile(dir / "report.csv", renderCsv(runsCsv(a.series)), err) &&
            writeFile(dir / "report.md", renderMarkdownReport(doc), err) &&
            writeFile(dir / "report.html", renderHtmlReport(doc), err);
  for (const SeriesSection &sec : doc.sections) {
    std::vector<const NamedChart *> charts;
    for (const NamedChart &c : sec.charts) charts.push_back(&c);
    if (sec.projectionChart) charts.push_back(&*sec.projectionChart);
    for (const NamedChart *c : charts) {
      ok = ok && writeFile(dir / c->file, renderSvg(c->chart), err);
      ++plots;
    }
    if (sec.projection) projections.push_back({sec.series, *sec.projection});
  }
  if (!projections.empty()) ok = ok && writeFile(dir / "projection.csv", renderCsv(projectionCsv(projections)), err);
  if (!ok) return 1;
  out << "\nreport: " << (dir / "report.html").string() << " (with report.md, report.csv"
      << (projections.empty() ? "" : ", projection.csv") << " and " << plots << " SVG plots in " << dir.string()
      << ")\n";
  return 0;
}

} // namespace dx::report
