#include "report/Metrics.h"

#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace dx::report {

std::optional<double> metricOf(const EpochRecord &e, const std::string &metric) {
  if (metric == "accuracy") return e.valAccuracy;
  if (metric == "val_loss") return e.valLoss;
  return e.trainLoss;
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
  parts.push_back(withThousands(params) + " parameters");
  if (!device.empty()) parts.push_back(device);
  if (!dataset.empty()) parts.push_back(synthetic ? dataset + " (synthetic)" : dataset);
  parts.push_back(goal ? "target " + goal->str() : "no target");
  if (lrScaling == "none") parts.push_back("lr scaling: none");
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? " · " : "") + parts[i];
  return s;
}

std::string Series::plotMetric() const {
  if (goal) return goal->metric;
  for (const Row &r : rows)
    for (const EpochRecord &e : r.run->epochs)
      if (e.valAccuracy) return "accuracy";
  for (const Row &r : rows)
    for (const EpochRecord &e : r.run->epochs)
      if (e.valLoss) return "val_loss";
  return "loss";
}

namespace {

// What makes runs comparable: everything but the rank count and batch.
using Key = std::tuple<std::string, int64_t, std::string, std::string, bool, std::string, std::string, int64_t,
                       std::string>;

Key keyOf(const RunLog &r) {
  return {r.model, r.params, r.device, r.dataset, r.synthetic, r.goal ? r.goal->str() : "",
          r.sync, r.sync == "average" ? r.averageEvery : 0, r.lrScaling};
}

Row measure(const RunLog &r) {
  Row row;
  row.run = &r;
  row.ranks = r.ranks;
  row.perRankBatch = r.perRankBatch;
  row.globalBatch = r.globalBatch;
  row.epochs = int64_t(r.epochs.size());
  double time = 0, comm = 0, samples = 0;
  bool allComm = true, allRates = true;
  for (const EpochRecord &e : r.epochs) {
    row.steps += e.steps;
    time += e.epochTime;
    samples += e.samplesPerSec * e.epochTime;
    allRates = allRates && e.samplesPerSec > 0;
    if (e.commTime) comm += *e.commTime;
    else allComm = false;
  }
  if (row.steps > 0) {
    row.stepTime = time / double(row.steps);
    row.epochTime = row.stepTime * double(r.stepsPerEpoch);
    if (allComm) row.computeStepTime = (time - comm) / double(row.steps);
  }
  if (allComm && time > 0) row.commFraction = comm / time;
  // The runtime's samples_per_s, weighted by epoch time: samples trained / training time.
  if (time > 0) row.samplesPerSec = (allRates ? samples : double(r.globalBatch) * double(row.steps)) / time;
  const EpochRecord &last = r.epochs.back();
  row.trainTime = last.trainTime;
  row.finalAccuracy = last.valAccuracy;
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
    for (size_t i = 0; i + 1 < s.rows.size(); ++i)
      if (s.rows[i].ranks == s.rows[i + 1].ranks) s.rows[i].duplicate = s.rows[i + 1].duplicate = true;
    for (const Row &r : s.rows)
      if (r.run->source != s.source) s.source.clear(); // compiled from different paths: name none
    for (size_t i = 0; i < s.rows.size();) {
      size_t j = i;
      std::string files;
      for (; j < s.rows.size() && s.rows[j].ranks == s.rows[i].ranks; ++j)
        files += (j > i ? ", " : "") + std::filesystem::path(s.rows[j].run->path).filename().string();
      if (j - i > 1)
        s.notes.push_back(std::to_string(j - i) + " runs have " + std::to_string(s.rows[i].ranks) +
                          (s.rows[i].ranks == 1 ? " rank" : " ranks") + " (" + files + "): one row (*) each");
      i = j;
    }
    const Row &base = s.rows.front();
    s.baseRanks = base.ranks;
    if (base.duplicate)
      s.notes.push_back("several runs have " + std::to_string(base.ranks) + (base.ranks == 1 ? " rank" : " ranks") +
                        "; the baseline is the first given, " + base.run->path);
    for (Row &r : s.rows) {
      r.speedup = r.epochTime > 0 ? base.epochTime / r.epochTime : 0;
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
