#include "report/Document.h"

#include "report/Tables.h"

namespace dx::report {

namespace {

const char *kStyle = R"(body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px 32px; color: #222; max-width: 1600px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; } h3 { font-size: 15px; }
.meta { color: #555; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; }
th { background: #f2f2f2; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
ul.notes { color: #7a4a00; font-size: 13px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
.charts svg { border: 1px solid #ddd; max-width: 100%; height: auto; }
.model { border: 2px dashed #b03030; padding: 4px 16px 12px; margin-top: 16px; background: #fffafa; }
.model .label { color: #b03030; font-weight: bold; }
.defs { font-size: 13px; color: #444; }
code { background: #f4f4f4; padding: 0 3px; }
)";

std::string notesList(const std::vector<std::string> &notes) {
  if (notes.empty()) return "";
  std::string h = "<ul class=\"notes\">\n";
  for (const std::string &n : notes) h += "<li>note: " + htmlEscape(n) + "</li>\n";
  return h + "</ul>\n";
}

} // namespace

std::string renderHtmlReport(const ReportDoc &doc) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<title>DeepEx scaling report</title>\n<style>\n";
  h += kStyle;
  h += "</style>\n</head>\n<body>\n<h1>DeepEx scaling report</h1>\n<p class=\"meta\">Logs:";
  for (const std::string &l : doc.logs) h += " <code>" + htmlEscape(l) + "</code>";
  h += "</p>\n" + notesList(doc.notes);
  for (const SeriesSection &sec : doc.sections) {
    const Series &s = *sec.series;
    h += "<section>\n<h2>" + htmlEscape(s.title()) + "</h2>\n<p class=\"meta\">" + htmlEscape(s.description()) + "</p>\n";
    h += renderHtml(sec.table, "runs");
    h += notesList(s.notes);
    h += "<div class=\"charts\">\n";
    for (const NamedChart &c : sec.charts) h += renderSvg(c.chart);
    h += "</div>\n";
    if (sec.projection) {
      const Projection &p = *sec.projection;
      h += "<div class=\"model\">\n<h3><span class=\"label\">Projection — a model, not a measurement:</span> " +
           htmlEscape(s.model) + " on " + htmlEscape(p.net.name) + "</h3>\n";
      h += "<p class=\"meta\">" + htmlEscape(p.net.description) + ". Source: " + htmlEscape(p.net.source) + ".</p>\n";
      h += "<ul class=\"meta\">\n";
      for (const std::string &n : p.in.notes) h += "<li>" + htmlEscape(n) + "</li>\n";
      h += "</ul>\n" + renderHtml(*sec.projectionTable, "projection");
      h += "<p class=\"meta\">" + htmlEscape(kProjectionDefinition) + "</p>\n";
      if (p.in.window) h += "<p class=\"meta\">" + htmlEscape(kOverlapDefinition) + "</p>\n";
      if (sec.projectionChart) h += "<div class=\"charts\">\n" + renderSvg(sec.projectionChart->chart) + "</div>\n";
      h += "</div>\n";
    }
    h += "</section>\n";
  }
  h += "<h2>Definitions</h2>\n<ul class=\"defs\">\n";
  for (int i = 0; kDefinitions[i]; ++i) h += "<li>" + htmlEscape(kDefinitions[i]) + "</li>\n";
  h += "</ul>\n</body>\n</html>\n";
  return h;
}

} // namespace dx::report
