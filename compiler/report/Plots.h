// The report's charts, built from a series (and its projection).
#pragma once

#include "report/Chart.h"
#include "report/Metrics.h"
#include "report/Projection.h"

namespace dx::report {

// Accuracy (or loss) after each epoch against training time, one line per run.
Chart metricChart(const Series &s);
// Parallel and learning speed-up against ranks, with the ideal N / N0.
Chart speedupChart(const Series &s);
// The measured speed-up with the model's curves for ring, tree and
// hierarchical all-reduce, up to the largest projected rank count.
Chart projectionChart(const Series &s, const Projection &p);

} // namespace dx::report
