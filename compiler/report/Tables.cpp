#include "report/Tables.h"

#include "util/Format.h"

#include <cmath>

namespace dx::report {

namespace {

std::string orDash(const std::optional<double> &v, int digits) { return v ? fixed(*v, digits) : "-"; }
std::string num(double v) { return shortest(v); }
std::string num(const std::optional<double> &v) { return v ? shortest(*v) : ""; }

std::string batchCell(int64_t b) { return b ? withThousands(b) : "-"; }

// The row under repeated runs at one rank count: their mean, the range of
// their samples/s, and the speed-up of the mean. Learning and quality stay
// per run (above it), so those cells are empty.
std::vector<std::string> meanRow(const Series &s, const RankGroup &g) {
  auto common = [&](int64_t Row::*field) {
    for (size_t i = g.first; i < g.first + g.count; ++i)
      if (s.rows[i].*field != s.rows[g.first].*field) return std::string("-");
    return batchCell(s.rows[g.first].*field);
  };
  return {std::to_string(g.ranks) + " mean",
          common(&Row::perRankBatch),
          common(&Row::globalBatch),
          fixed(g.epochTime, 3),
          withThousands(std::llround(g.samplesPerSec)) + " (" + samplesRange(g) + ")",
          fixed(g.speedup, 2),
          fixed(g.efficiency * 100, 1) + "%",
          "",
          "",
          "",
          "",
          "mean of " + std::to_string(g.count) + " runs"};
}

} // namespace

std::string learningCell(const Row &r) {
  switch (r.learning) {
  case Learning::NoGoal: return "no target";
  case Learning::NotReached: return "not reached";
  case Learning::BaselineNotReached: return "n/a";
  case Learning::Reached: return r.learningSpeedup ? fixed(*r.learningSpeedup, 2) : "n/a";
  }
  return "";
}

TextTable seriesTable(const Series &s) {
  TextTable t;
  for (auto [name, numeric] : std::initializer_list<std::pair<const char *, bool>>{
           {"ranks", true},
           {"batch/rank", true},
           {"global batch", true},
           {"epoch s", true},
           {"samples/s", true},
           {"speed-up", true},
           {"efficiency", true},
           {"epochs to target", true},
           {"time to target s", true},
           {"learning speed-up", true},
           {"final", true},
           {"run", false}})
    t.addColumn(name, numeric);
  // The series' own quality metric: accuracy, IoU, MAE, ... (Series::plotMetric).
  const std::string metric = s.plotMetric();
  t.header[10] = "final " + metricName(metric);
  for (const RankGroup &g : s.groups) {
    for (size_t i = g.first; i < g.first + g.count; ++i) {
      const Row &r = s.rows[i];
      const std::optional<double> final = r.run->epochs.empty() ? std::nullopt : metricOf(r.run->epochs.back(), metric);
      t.rows.push_back({std::to_string(r.ranks) + (r.duplicate ? "*" : ""), batchCell(r.perRankBatch),
                        withThousands(r.globalBatch), fixed(r.epochTime, 3), withThousands(std::llround(r.samplesPerSec)),
                        fixed(r.speedup, 2), fixed(r.efficiency * 100, 1) + "%",
                        r.epochsToTarget ? std::to_string(*r.epochsToTarget) : "-", orDash(r.timeToTarget, 2),
                        learningCell(r), orDash(final, 4), r.status()});
    }
    if (g.count > 1) t.rows.push_back(meanRow(s, g));
  }
  return t;
}

TextTable runsCsv(const std::vector<Series> &series) {
  TextTable t;
  for (const char *name :
       {"series", "model", "sync", "average_every", "lr_scaling", "synthetic", "scaling", "train_samples", "ranks",
        "per_rank_batch", "global_batch", "epochs", "steps", "mean_epoch_time_s", "samples_per_s", "speedup",
        "efficiency", "runs_at_ranks", "mean_samples_per_s", "min_samples_per_s", "max_samples_per_s",
        "sd_samples_per_s", "mean_speedup", "mean_efficiency", "comm_fraction", "goal", "target_reached",
        "epochs_to_target", "time_to_target_s", "learning_speedup", "final_accuracy", "final_iou", "final_mae",
        "final_rmse", "final_r2", "final_val_loss", "final_train_loss", "train_time_s", "complete", "status", "log"})
    t.addColumn(name, false);
  for (const Series &s : series)
    for (const Row &r : s.rows) {
      std::string reached = r.learning == Learning::NoGoal ? ""
                            : r.learning == Learning::NotReached ? "no"
                                                                 : "yes";
      const RankGroup &g = s.groupOf(r);
      t.rows.push_back({s.slug, s.model, s.sync, s.sync == "average" ? std::to_string(s.averageEvery) : "",
                        s.lrScaling, s.synthetic ? "true" : "false", s.scalingName(),
                        r.run->trainSamples ? std::to_string(*r.run->trainSamples) : "", std::to_string(r.ranks),
                        r.perRankBatch ? std::to_string(r.perRankBatch) : "", std::to_string(r.globalBatch),
                        std::to_string(r.epochs), std::to_string(r.steps), num(r.epochTime), num(r.samplesPerSec),
                        num(r.speedup), num(r.efficiency), std::to_string(g.count), num(g.samplesPerSec),
                        num(g.minSamplesPerSec), num(g.maxSamplesPerSec), num(g.sdSamplesPerSec), num(g.speedup),
                        num(g.efficiency), num(r.commFraction), s.goal ? s.goal->str() : "", reached,
                        r.epochsToTarget ? std::to_string(*r.epochsToTarget) : "", num(r.timeToTarget),
                        num(r.learningSpeedup), num(r.finalAccuracy), num(r.finalIou), num(r.finalMae),
                        num(r.finalRmse), num(r.finalR2), num(r.finalValLoss), num(r.finalTrainLoss),
                        num(r.trainTime), r.complete ? "true" : "false", r.status(), r.run->path});
    }
  return t;
}

TextTable projectionTable(const Projection &p) {
  TextTable t;
  t.addColumn("ranks", true);
  t.addColumn("nodes", true);
  for (int a = 0; a < kAlgorithms; ++a) t.addColumn(std::string(algorithmName(a)) + " ms", true);
  for (int a = 0; a < kAlgorithms; ++a) t.addColumn("speed-up " + std::string(algorithmName(a)), true);
  t.addColumn("best", false);
  t.addColumn("efficiency", true);
  const bool overlap = p.in.window.has_value();
  if (overlap) {
    t.addColumn("overlap best", false);
    t.addColumn("exposed ms", true);
    t.addColumn("overlap speed-up", true);
    t.addColumn("overlap efficiency", true);
  }
  for (const ProjectionRow &r : p.rows) {
    std::vector<std::string> row = {withThousands(r.ranks), withThousands(r.nodes)};
    for (int a = 0; a < kAlgorithms; ++a) row.push_back(fixed(r.comm[a] * 1e3, 3));
    for (int a = 0; a < kAlgorithms; ++a) row.push_back(fixed(r.speedup[a], 2));
    row.push_back(algorithmName(r.best));
    row.push_back(fixed(r.efficiency * 100, 1) + "%");
    if (overlap) {
      row.push_back(algorithmName(r.bestOverlap));
      row.push_back(fixed(r.exposed[r.bestOverlap] * 1e3, 3));
      row.push_back(fixed(r.speedupOverlap[r.bestOverlap], 2));
      row.push_back(fixed(r.efficiencyOverlap * 100, 1) + "%");
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

TextTable projectionCsv(const std::vector<std::pair<const Series *, Projection>> &projections) {
  TextTable t;
  for (const char *name : {"series", "model", "network", "ranks", "nodes", "algorithm", "compute_s", "grad_bytes",
                           "allreduce_every", "comm_s", "step_s", "speedup", "efficiency", "best", "buckets",
                           "backward_window_s", "exposed_comm_s", "step_overlap_s", "speedup_overlap",
                           "efficiency_overlap", "best_overlap"})
    t.addColumn(name, false);
  for (const auto &[s, p] : projections)
    for (const ProjectionRow &r : p.rows)
      for (int a = 0; a < kAlgorithms; ++a) {
        // The overlapped model's cells are empty without a backward window.
        auto ov = [&](double v) { return r.overlap ? num(v) : std::string(); };
        t.rows.push_back({s->slug, s->model, p.net.name, std::to_string(r.ranks), std::to_string(r.nodes),
                          algorithmName(a), num(p.in.computeStep), num(p.in.gradBytes), std::to_string(p.in.every),
                          num(r.comm[a]), num(r.step[a]), num(r.speedup[a]),
                          num(r.speedup[a] * double(p.in.baseRanks) / double(r.ranks)), r.best == a ? "true" : "false",
                          r.overlap ? std::to_string(p.in.buckets) : "", num(p.in.window), ov(r.exposed[a]),
                          ov(r.stepOverlap[a]), ov(r.speedupOverlap[a]),
                          ov(r.speedupOverlap[a] * double(p.in.baseRanks) / double(r.ranks)),
                          r.overlap ? (r.bestOverlap == a ? "true" : "false") : ""});
      }
  return t;
}

} // namespace dx::report
