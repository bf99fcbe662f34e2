// libFuzzer harness for the metrics logs that `dxc report` reads
// (compiler/report/Log.cpp): each input is the bytes of one .jsonl log. A
// log that reads is taken through the rest of the report of one run, as
// `dxc report LOG` makes it: the series and their arithmetic (Metrics.cpp),
// the scaling table as text and CSV, and both charts as SVG.
#include "report/Log.h"
#include "report/Metrics.h"
#include "report/Plots.h"
#include "report/Tables.h"
#include "ReaderFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = dxfuzz::write_scratch("input.jsonl", data, size);
  dxfuzz::allow_errors<dx::report::InputError>([&] {
    const std::vector<dx::report::RunLog> runs = {dx::report::readLog(path)};
    const dx::report::Analysis a = dx::report::analyze(runs);
    for (const dx::report::Series &s : a.series) {
      (void)(s.title() + s.description() + s.scalingDescription() + s.plotMetric());
      (void)dx::report::renderText(dx::report::seriesTable(s));
      (void)dx::report::renderSvg(dx::report::metricChart(s));
      (void)dx::report::renderSvg(dx::report::speedupChart(s));
    }
    (void)dx::report::renderCsv(dx::report::runsCsv(a.series));
  });
  return 0;
}
