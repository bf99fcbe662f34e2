// The report's tables as TextTables: the scaling table of a series (shown
// in the terminal, Markdown and HTML), the machine-readable CSV of all runs,
// and the projection's tables.
#pragma once

#include "report/Metrics.h"
#include "report/Projection.h"
#include "report/TextTable.h"

#include <vector>

namespace dx::report {

// ranks, batch/rank, global batch, epoch s, samples/s, speed-up, efficiency,
// epochs to target, time to target s, learning speed-up, final METRIC, run:
// a row per run, and under several runs at one rank count a row "N mean".
TextTable seriesTable(const Series &s);
// One line per run of every series, raw numbers (empty when there is none);
// the mean_* and *_samples_per_s columns repeat the run's rank count's.
TextTable runsCsv(const std::vector<Series> &series);

// ranks, nodes, all-reduce ms of each algorithm, speed-up of each, best, efficiency.
TextTable projectionTable(const Projection &p);
// One line per series, rank count and algorithm.
TextTable projectionCsv(const std::vector<std::pair<const Series *, Projection>> &projections);

// Cells of the learning speed-up column: "1.85", "not reached", "n/a", "no target".
std::string learningCell(const Row &r);

} // namespace dx::report
