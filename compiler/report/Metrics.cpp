#include "report/Metrics.h"

#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace dx::report {

std::optional<double> metricOf(const EpochRecord &e, const std::string &metric) {
  if (metric == "accuracy") return e.valAccuracy;
  if (metric == "iou") return e.valIou;
  if (metric == "mae") return e.valMae;
  if (metric == "rmse") return e.valRmse;
  if (metric == "r2") return e.valR2;
  if (metric == "val_loss") return e.valLoss;
  return e.trainLoss;
}

std::string metricName(const std::string &m) {
  if (m == "iou") return "IoU";
  if (m == "mae") return "MAE";
  if (m == "rmse") return "RMSE";
  if (m == "r2") return "R²";
  if (m == "val_loss") return "val loss";
  return m; // accuracy, loss
}

std::string samplesRange(const RankGroup &g) {
  return withThousands(std::llround(g.minSamplesPerSec)) + "–" + withThousands(std::llround(g.maxSamplesPerSec));
}

std::string Row::status() const {
  std::string s;
  if (!run->error.empty())
    s = run->error == "non_finite_loss" ? "stopped: non-finite loss" : "stopped: " + run->error;
  else if (!run->stopReason.empty())
    s = "paused (" + run->stopReason + "), resumable";
  else
    s = complete ? "complete" : "no end event";
  if (run->resumes) s += ", resumed" + (run->resumes > 1 ? " " + std::to_string(run->resumes) + "x" : std::string());
  return s;
}

std::string Row::label() const {
  std::string s = std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks");
  if (duplicate) s += " (" + std::filesystem::path(run->path).filename().string() + ")";
  return s;
}

std::string Series::title() const {
  std::string t = model;
  std::vector<std::string> extra;
  if (sync == "average") extra.push_back("sync: average every " + std::to_string(averageEvery) + " steps");
  else if (!sync.empty()) extra.push_back("sync: " + sync);
  if (!lrScaling.empty() && lrScaling != "none") extra.push_back("lr scaling: " + lrScaling);
  if (synthetic) extra.push_back("synthetic data");
  for (size_t i = 0; i < extra.size(); ++i) t += (i ? ", " : " (") + extra[i];
  return extra.empty() ? t : t + ")";
}

std::string Series::description() const {
  std::vector<std::string> parts;
  if (!source.empty()) parts.push_back(source);
  if (params) parts.push_back(withThousands(*params) + " parameters");
  if (!device.empty()) parts.push_back(device);
  if (!dataset.empty()) parts.push_back(synthetic ? dataset + " (synthetic)" : dataset);
  parts.push_back(goal ? "target " + goal->str() : "no target");
  if (lrScaling == "none") parts.push_back("lr scaling: none");
  parts.push_back(scalingDescription());
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? " · " : "") + parts[i];
  return s;
}

std::string Series::scalingDescription() const {
  const std::string unit =
      samplesFromSteps ? " samples an epoch (steps_per_epoch × global batch)" : " train samples";
  const std::string range = withThousands(minSamples) + " to " + withThousands(maxSamples) + unit;
  switch (scaling) {
  case Scaling::Strong: return "fixed dataset (strong scaling): " + withThousands(minSamples) + unit;
  case Scaling::Weak: return "samples growing with ranks (weak scaling): " + range;
  case Scaling::Varying: return "samples differ between runs: " + range;
  }
  return "";
}

const char *Series::scalingName() const {
  switch (scaling) {
  case Scaling::Strong: return "strong";
  case Scaling::Weak: return "weak";
  case Scaling::Varying: return "varying";
  }
  return "";
}

std::string Series::plotMetric() const {
  if (goal) return goal->metric;
  // The task's own metric (segmentation before accuracy: its logs have both).
  for (const char *m : {"iou", "accuracy", "mae", "val_loss"})
    for (const Row &r : rows)
      for (const EpochRecord &e : r.run->epochs)
        if (metricOf(e, m)) return m;
  return "loss";
}

namespace {

// What makes runs comparable: everything but the rank count and batch.
using Key = std::tuple<std::string, int64_t, std::string, std::string, bool, std::string, std::string, int64_t,
                       std::string>;

Key keyOf(const RunLog &r) {
  return {r.model, r.params.value_or(-1), r.device, r.dataset, r.synthetic, r.goal ? r.goal->str() : "",
          r.sync, r.sync == "average" ? r.averageEvery : 0, r.lrScaling};
}

Row measure(const RunLog &r) {
  Row row;
  row.run = &r;
  row.ranks = r.ranks;
  row.perRankBatch = r.perRankBatch;
  row.globalBatch = r.globalBatch;
  row.epochs = int64_t(r.epochs.size());
  double time = 0, comm = 0, samples = 0, window = 0;
  bool allComm = true, allRates = true, allWait = true, allWindow = true;
  for (const EpochRecord &e : r.epochs) {
    row.steps += e.steps;
    time += e.epochTime;
    samples += e.samplesPerSec * e.epochTime;
    allRates = allRates && e.samplesPerSec > 0;
    // The exposed part: what the backward pass did not hide (logs before
    // the overlap have no comm_wait_s; all of their comm_time_s waited).
    allWait = allWait && e.commWait;
    allWindow = allWindow && e.overlapWindow;
    if (e.overlapWindow) window += *e.overlapWindow;
    if (e.commWait) comm += *e.commWait;
    else if (e.commTime) comm += *e.commTime;
    else allComm = false;
  }
  if (row.steps > 0) {
    row.stepTime = time / double(row.steps);
    row.epochTime = row.stepTime * double(r.stepsPerEpoch);
    if (allComm) row.computeStepTime = (time - comm) / double(row.steps);
    if (allWindow && !r.epochs.empty()) row.overlapWindowStep = window / double(row.steps);
  }
  if (allComm && time > 0) row.commFraction = comm / time;
  if (allWait && !r.epochs.empty()) row.waitedField = "comm_wait_s";
  // The runtime's samples_per_s, weighted by epoch time: samples trained / training time.
  if (time > 0) row.samplesPerSec = (allRates ? samples : double(r.globalBatch) * double(row.steps)) / time;
  const EpochRecord &last = r.epochs.back();
  row.trainTime = last.trainTime;
  row.finalAccuracy = last.valAccuracy;
  row.finalIou = last.valIou;
  row.finalMae = last.valMae;
  row.finalRmse = last.valRmse;
  row.finalR2 = last.valR2;
  row.finalValLoss = last.valLoss;
  row.finalTrainLoss = last.trainLoss;
  row.complete = r.ended;
  if (r.goal) {
    row.learning = r.target ? Learning::Reached : Learning::NotReached;
    if (r.target) {
      row.epochsToTarget = r.target->epoch;
      row.timeToTarget = r.target->trainTime;
    }
  }
  return row;
}

// Strong, weak or neither: compares the samples an epoch trains across the
// rows (sorted by ranks). Without train_samples in every log, the samples
// are steps_per_epoch * global_batch, which rounds the split up to whole
// steps: counts less than a global batch apart are the same data set.
void classify(Series &s) {
  s.samplesFromSteps = false;
  for (const Row &r : s.rows) s.samplesFromSteps = s.samplesFromSteps || !r.run->trainSamples;
  auto samples = [&](const Row &r) {
    return s.samplesFromSteps ? r.run->stepsPerEpoch * r.globalBatch : *r.run->trainSamples;
  };
  auto same = [&](const Row &a, const Row &b) {
    const int64_t slack = s.samplesFromSteps ? std::max(a.globalBatch, b.globalBatch) : 1;
    return std::llabs(samples(a) - samples(b)) < slack;
  };
  bool constant = true, growing = true;
  s.minSamples = s.maxSamples = samples(s.rows.front());
  for (size_t i = 1; i < s.rows.size(); ++i) {
    const Row &r = s.rows[i], &prev = s.rows[i - 1];
    constant = constant && same(r, s.rows.front());
    growing = growing && (same(r, prev) || (r.ranks > prev.ranks && samples(r) > samples(prev)));
    s.minSamples = std::min(s.minSamples, samples(r));
    s.maxSamples = std::max(s.maxSamples, samples(r));
  }
  s.scaling = constant ? Scaling::Strong : growing ? Scaling::Weak : Scaling::Varying;
}

// One RankGroup per rank count: the mean and spread of the runs' samples/s.
void group(Series &s) {
  s.groups.clear();
  for (size_t i = 0; i < s.rows.size();) {
    RankGroup g;
    g.ranks = s.rows[i].ranks;
    g.first = i;
    g.minSamplesPerSec = g.maxSamplesPerSec = s.rows[i].samplesPerSec;
    double sum = 0, epochs = 0;
    for (; i < s.rows.size() && s.rows[i].ranks == g.ranks; ++i) {
      const Row &r = s.rows[i];
      sum += r.samplesPerSec;
      epochs += r.epochTime;
      g.minSamplesPerSec = std::min(g.minSamplesPerSec, r.samplesPerSec);
      g.maxSamplesPerSec = std::max(g.maxSamplesPerSec, r.samplesPerSec);
      s.rows[i].group = s.groups.size();
    }
    g.count = i - g.first;
    g.samplesPerSec = sum / double(g.count);
    g.epochTime = epochs / double(g.count);
    if (g.count > 1) {
      double squares = 0;
      for (size_t j = g.first; j < i; ++j) squares += std::pow(s.rows[j].samplesPerSec - g.samplesPerSec, 2);
      g.sdSamplesPerSec = std::sqrt(squares / double(g.count - 1));
    }
    s.groups.push_back(g);
  }
}

// "124 (120–128, sd 5.7)"
std::string spread(const RankGroup &g) {
  return withThousands(std::llround(g.samplesPerSec)) + " (" + samplesRange(g) + ", sd " +
         fixed(g.sdSamplesPerSec, 1) + ")";
}

std::string slugOf(const Series &s) {
  std::string slug;
  for (char c : s.model) slug += (std::isalnum((unsigned char)c) || c == '_' || c == '-') ? c : '_';
  if (slug.empty()) slug = "model";
  if (s.sync == "average") slug += "-average" + std::to_string(s.averageEvery);
  if (s.lrScaling == "linear") slug += "-lrlinear";
  if (s.synthetic) slug += "-synthetic";
  return slug;
}

} // namespace

Analysis analyze(const std::vector<RunLog> &runs) {
  Analysis a;
  std::map<Key, size_t> index;
  for (const RunLog &r : runs) {
    if (r.epochs.empty()) {
      a.notes.push_back(r.path + ": no epoch was logged" +
                        (r.error.empty() ? std::string(r.ended ? "" : " (the run has no end event)")
                                         : " (the run stopped: " + r.error + ")") +
                        "; left out");
      continue;
    }
    Key k = keyOf(r);
    auto [it, fresh] = index.try_emplace(k, a.series.size());
    if (fresh) {
      Series s;
      s.model = r.model;
      s.params = r.params;
      s.device = r.device;
      s.dataset = r.dataset;
      s.source = r.source;
      s.synthetic = r.synthetic;
      s.goal = r.goal;
      s.sync = r.sync;
      s.averageEvery = r.sync == "average" ? r.averageEvery : 0;
      s.lrScaling = r.lrScaling;
      a.series.push_back(std::move(s));
    }
    a.series[it->second].rows.push_back(measure(r));
  }

  std::set<std::string> slugs;
  for (Series &s : a.series) {
    std::stable_sort(s.rows.begin(), s.rows.end(), [](const Row &x, const Row &y) { return x.ranks < y.ranks; });
    for (const Row &r : s.rows)
      if (r.run->source != s.source) s.source.clear(); // compiled from different paths: name none
    classify(s);
    group(s);
    for (const RankGroup &g : s.groups) {
      if (g.count < 2) continue;
      std::string files;
      for (size_t j = g.first; j < g.first + g.count; ++j) {
        s.rows[j].duplicate = true;
        files += (j > g.first ? ", " : "") + std::filesystem::path(s.rows[j].run->path).filename().string();
      }
      s.notes.push_back(std::to_string(g.count) + " runs have " + std::to_string(g.ranks) +
                        (g.ranks == 1 ? " rank" : " ranks") + " (" + files + "): a row (*) each, then '" +
                        std::to_string(g.ranks) + " mean' with their mean samples/s, " + spread(g) +
                        ", from which the speed-up is computed");
    }
    for (const Row &r : s.rows)
      if (r.run->stepsPerEpochDerived)
        s.notes.push_back(r.run->path + ": the log has no steps_per_epoch; epoch s counts its longest epoch's " +
                          std::to_string(r.run->stepsPerEpoch) + " steps as a whole epoch");
    const Row &base = s.rows.front();
    const RankGroup &base0 = s.groups.front();
    s.baseRanks = base.ranks;
    if (base.duplicate && s.goal)
      s.notes.push_back("the learning speed-up is relative to the first run given with " + std::to_string(base.ranks) +
                        (base.ranks == 1 ? " rank, " : " ranks, ") + base.run->path);
    auto speedup = [&](double samplesPerSec) {
      return base0.samplesPerSec > 0 ? samplesPerSec / base0.samplesPerSec : 0;
    };
    for (RankGroup &g : s.groups) {
      g.speedup = speedup(g.samplesPerSec);
      g.efficiency = g.speedup * double(s.baseRanks) / double(g.ranks);
    }
    for (Row &r : s.rows) {
      r.speedup = speedup(r.samplesPerSec);
      r.efficiency = r.speedup * double(s.baseRanks) / double(r.ranks);
      if (r.learning == Learning::Reached) {
        if (base.learning != Learning::Reached)
          r.learning = Learning::BaselineNotReached;
        else if (*r.timeToTarget > 0)
          r.learningSpeedup = *base.timeToTarget / *r.timeToTarget;
      }
    }
    if (s.goal && base.learning == Learning::NotReached) {
      bool anyReached = false;
      for (const Row &r : s.rows) anyReached |= r.learning == Learning::BaselineNotReached;
      s.notes.push_back(std::string("the baseline (") + base.label() + ") did not reach the target " + s.goal->str() +
                        (anyReached ? ", so learning speed-up is undefined (n/a) for the runs that did" : ""));
    }
    for (const Row &r : s.rows) {
      if (!r.complete && r.run->error.empty() && r.run->stopReason.empty())
        s.notes.push_back(r.run->path + ": the run has no end event (killed, or still running); its " +
                          std::to_string(r.epochs) + (r.epochs == 1 ? " epoch is" : " epochs are") + " reported");
      if (!r.run->error.empty())
        s.notes.push_back(r.run->path + ":" + std::to_string(r.run->errorLine) + ": the run stopped: " +
                          (r.run->error == "non_finite_loss" ? std::string("the loss became NaN or Inf") : r.run->error) +
                          "; its " + std::to_string(r.epochs) + (r.epochs == 1 ? " epoch is" : " epochs are") +
                          " reported");
      if (!r.run->stopReason.empty())
        s.notes.push_back(r.run->path + ": the run was paused (" + r.run->stopReason + ") after " +
                          std::to_string(r.epochs) + (r.epochs == 1 ? " epoch" : " epochs") + "; resume it with --resume");
      if (r.run->epochsPlanned && r.epochs < r.run->epochsPlanned && r.complete && r.learning != Learning::Reached)
        s.notes.push_back(r.run->path + ": " + std::to_string(r.epochs) + " of " +
                          std::to_string(r.run->epochsPlanned) + " epochs were trained" +
                          (r.run->maxSteps ? " (--max-steps " + std::to_string(r.run->maxSteps) + ")" : ""));
    }
    s.slug = slugOf(s);
    for (int n = 2; !slugs.insert(s.slug).second; ++n) s.slug = slugOf(s) + "-" + std::to_string(n);
  }
  return a;
}

} // namespace dx::report
