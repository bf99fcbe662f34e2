#include "report/Document.h"

#include "report/Tables.h"

namespace dx::report {

const char *const kDefinitions[] = {
    "epoch s: mean epoch time, sum(epoch_time_s) / sum(steps) * steps_per_epoch (for information: when the "
    "samples grow with the ranks, so does an epoch's work)",
    "samples/s: the runs' samples_per_s weighted by epoch time, i.e. samples trained / training time",
    "speed-up: samples/s / samples/s of the smallest rank count N0, right for a fixed dataset and for samples "
    "growing with ranks alike; efficiency: speed-up * N0 / ranks",
    "several runs at one rank count: a row (*) each, with its samples/s over N0's mean, then a row \"N mean\": "
    "their mean samples/s (lowest–highest) and its speed-up, which the plot shows",
    "fixed dataset (strong scaling): every run has the same train_samples; samples growing with ranks (weak "
    "scaling): more ranks, more samples (each rank brings its own, as with --synthetic)",
    "epochs and time to target: the epoch, and the cumulative training time (train_time_s), at which the target "
    "was first met",
    "learning speed-up: time to target of N0 / time to target; \"not reached\" if the run never met the target, "
    "\"n/a\" if the baseline did not",
    "final: the series' metric (the target's, else validation IoU, accuracy, MAE or loss) after the last epoch",
    nullptr};

const char *const kProjectionDefinition =
    "A MODEL, not a measurement: step time = compute + all-reduce time (no overlap), with alpha-beta costs of "
    "ring, tree and hierarchical all-reduce (docs/scaling-model.md); speed-up = (N / N0) * step(N0) / step(N); "
    "efficiency of the best algorithm.";
const char *const kOverlapDefinition =
    "With overlap (also a model): the gradient in B equal buckets, each all-reduced on its own (latency per "
    "bucket), ready evenly over the backward window w and run one at a time; exposed = what runs past w; step "
    "time = compute + exposed; overlap speed-up and efficiency of the algorithm with the least exposed time.";

std::string renderMarkdownReport(const ReportDoc &doc) {
  std::string md = "# DeepEx scaling report\n\n";
  md += "Logs:";
  for (const std::string &l : doc.logs) md += " `" + l + "`";
  md += "\n\n";
  for (const std::string &n : doc.notes) md += "- note: " + n + "\n";
  if (!doc.notes.empty()) md += "\n";
  for (const SeriesSection &sec : doc.sections) {
    const Series &s = *sec.series;
    md += "## " + s.title() + "\n\n" + s.description() + "\n\n";
    md += renderMarkdown(sec.table) + "\n";
    for (const std::string &n : s.notes) md += "- note: " + n + "\n";
    if (!s.notes.empty()) md += "\n";
    for (const NamedChart &c : sec.charts) md += "![" + c.chart.title + "](" + c.file + ")\n";
    md += "\n";
    if (sec.projection) {
      const Projection &p = *sec.projection;
      md += "### Projection (model, not measured): " + s.model + " on " + p.net.name + "\n\n";
      md += p.net.description + ". Source: " + p.net.source + ".\n\n";
      for (const std::string &n : p.in.notes) md += "- " + n + "\n";
      md += "\n" + renderMarkdown(*sec.projectionTable) + "\n" + kProjectionDefinition +
            (p.in.window ? std::string(" ") + kOverlapDefinition : std::string()) + "\n\n";
      if (sec.projectionChart) md += "![" + sec.projectionChart->chart.title + "](" + sec.projectionChart->file + ")\n\n";
    }
  }
  md += "## Definitions\n\n";
  for (int i = 0; kDefinitions[i]; ++i) md += "- " + std::string(kDefinitions[i]) + "\n";
  return md;
}

} // namespace dx::report
