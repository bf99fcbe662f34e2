#include "report/Projection.h"

#include "util/Format.h"

#include <algorithm>
#include <cmath>

namespace dx::report {

const char *algorithmName(int a) {
  static const char *names[] = {"ring", "tree", "hierarchical"};
  return names[a];
}

int64_t nodesFor(int64_t p, const Network &net) { return (p + net.gpusPerNode - 1) / net.gpusPerNode; }

double allreduceSeconds(Algorithm a, int64_t p, double n, const Network &net) {
  if (p <= 1) return 0;
  const double P = double(p);
  const int64_t nodes = nodesFor(p, net);
  // The flat algorithms run at the pace of their slowest hop: NVLink inside
  // one node, else the node's InfiniBand.
  const double alpha = nodes == 1 ? net.intraLatency : net.interLatency;
  const double beta = nodes == 1 ? net.intraBandwidth : std::min(net.intraBandwidth, net.interBandwidth);
  switch (a) {
  case Ring: // reduce-scatter + all-gather, 2(p-1) steps of n/p bytes
    return 2 * (P - 1) * alpha + 2 * (P - 1) / P * n / beta;
  case Tree: // binomial-tree reduce, then broadcast, whole message per level
    return 2 * std::ceil(std::log2(P)) * (alpha + n / beta);
  case Hierarchical: {
    // Ring reduce-scatter inside each node (L ranks), ring all-reduce of the
    // n/L shards between the N nodes (L rings sharing the node's links),
    // ring all-gather inside each node.
    const double L = double(std::min(p, net.gpusPerNode));
    const double N = double(nodes);
    double t = 2 * (L - 1) * net.intraLatency + 2 * (L - 1) / L * n / net.intraBandwidth;
    if (nodes > 1) t += 2 * (N - 1) * net.interLatency + 2 * (N - 1) / N * n / net.interBandwidth;
    return t;
  }
  }
  return 0;
}

std::string whyNotProjected(const Series &s) {
  const Row &base = s.rows.front();
  if (base.run->gradBytes || s.params) return "";
  return "no projection: " + base.run->path +
         " has neither grad_bytes nor params, and the model needs the bytes all-reduced per step";
}

int64_t runtimeBuckets(double gradBytes) {
  // runtime/train/ModelSync.cpp with --bucket-mb 25 (runtime/driver/Flags.cpp).
  const int64_t floats = int64_t(gradBytes / 4), per = int64_t(25.0 * 1048576.0) / 4;
  const int64_t kMinBuckets = 8, kMinBucketFloats = 16384;
  return std::max<int64_t>({(floats + per - 1) / per, std::min(kMinBuckets, floats / kMinBucketFloats), int64_t(1)});
}

double exposedSeconds(double bucket, int64_t B, double w) {
  // One bucket holds the first layer's gradient too: it is ready only when
  // the backward pass ends, so none of it hides.
  if (B <= 1) return bucket;
  double F = bucket;
  for (int64_t i = 2; i <= B; ++i) F = std::max(F, double(i - 1) / double(B - 1) * w) + bucket;
  return std::max(0.0, F - w);
}

namespace {

// w and B for the overlapped model, or the note why there is none.
void overlapInput(const Series &s, std::optional<double> windowOverride, ProjectionInput &in) {
  if (in.every > 1) {
    in.notes.push_back("no overlapped projection: sync average every " + std::to_string(in.every) +
                       " steps averages the parameters between steps, not during the backward pass");
    return;
  }
  // The runs the window is measured on: more than one rank, a window logged.
  std::vector<const Row *> from;
  for (const Row &r : s.rows)
    if (r.ranks > 1 && r.overlapWindowStep && *r.overlapWindowStep > 0) from.push_back(&r);
  if (windowOverride) {
    in.window = *windowOverride;
    in.notes.push_back("backward window per step (overlap): " + fixed(*in.window * 1e3, 3) +
                       " ms, from --backward-time");
  } else if (!from.empty()) {
    double sum = 0;
    for (const Row *r : from) sum += *r->overlapWindowStep;
    in.window = sum / double(from.size());
    std::string where = from.size() == 1 ? "measured on " + from.front()->label()
                                         : "the mean of " + std::to_string(from.size()) + " runs with ranks > 1";
    in.notes.push_back("backward window per step (overlap): " + fixed(*in.window * 1e3, 3) + " ms, " + where +
                       " (overlap_window_s per step)");
  } else {
    in.notes.push_back("no overlapped projection: no run with more than 1 rank has overlap_window_s > 0 (only 1-rank "
                       "runs, --overlap off, or logs before 1.2.0); --backward-time SECONDS gives the window");
    return;
  }
  if (*in.window > in.computeStep) {
    in.notes.push_back("the backward window is capped at the compute time per step, " +
                       fixed(in.computeStep * 1e3, 3) + " ms");
    in.window = in.computeStep;
  }
  // B: from the runs the window came from, else any run of the series.
  const Row *withBuckets = nullptr;
  for (const Row *r : from)
    if (!withBuckets && r->run->gradBuckets) withBuckets = r;
  for (const Row &r : s.rows)
    if (!withBuckets && r.run->gradBuckets) withBuckets = &r;
  in.buckets = withBuckets ? *withBuckets->run->gradBuckets : runtimeBuckets(in.gradBytes);
  in.notes.push_back("buckets: " + std::to_string(in.buckets) + " of " +
                     withThousands(std::llround(in.gradBytes / double(in.buckets))) + " bytes " +
                     (withBuckets ? "(grad_buckets of the log)"
                                  : "(the runtime's with --bucket-mb 25: the logs have no grad_buckets)"));
}

} // namespace

ProjectionInput projectionInput(const Series &s, std::optional<double> computeOverride,
                                std::optional<double> windowOverride) {
  ProjectionInput in;
  const Row &base = s.rows.front();
  in.baseRanks = base.ranks;
  in.every = s.sync == "average" && s.averageEvery > 0 ? s.averageEvery : 1;
  if (computeOverride) {
    in.computeStep = *computeOverride;
    in.notes.push_back("compute per step: " + fixed(in.computeStep * 1e3, 3) + " ms, from --compute-time");
  } else if (base.computeStepTime) {
    in.computeStep = *base.computeStepTime;
    in.notes.push_back("compute per step: " + fixed(in.computeStep * 1e3, 3) + " ms, measured on " + base.label() +
                       " (epoch_time_s less " + base.waitedField + ", per step)");
  } else {
    in.computeStep = base.stepTime;
    in.notes.push_back("compute per step: " + fixed(in.computeStep * 1e3, 3) + " ms, measured on " + base.label() +
                       (base.ranks == 1 ? " (its whole step time)"
                                        : " (its whole step time: the log has no comm_time_s, so this includes "
                                          "its own all-reduce)"));
  }
  if (base.run->gradBytes) {
    in.gradBytes = double(*base.run->gradBytes);
    in.notes.push_back("gradient per step: " + withThousands(*base.run->gradBytes) + " bytes (grad_bytes of the log)");
  } else {
    in.gradBytes = double(s.params.value_or(0)) * 4;
    in.notes.push_back("gradient per step: " + withThousands(s.params.value_or(0) * 4) +
                       " bytes (params x 4 bytes: the log has no grad_bytes)");
  }
  if (in.every > 1)
    in.notes.push_back("sync: average every " + std::to_string(in.every) +
                       " steps, so one all-reduce of the parameters per " + std::to_string(in.every) + " steps");
  overlapInput(s, windowOverride, in);
  return in;
}

ProjectionRow projectAt(const ProjectionInput &in, const Network &net, int64_t p) {
  ProjectionRow r;
  r.ranks = p;
  r.nodes = nodesFor(p, net);
  for (int a = 0; a < kAlgorithms; ++a) {
    const double base = in.computeStep + allreduceSeconds(Algorithm(a), in.baseRanks, in.gradBytes, net) / double(in.every);
    r.comm[a] = allreduceSeconds(Algorithm(a), p, in.gradBytes, net) / double(in.every);
    r.step[a] = in.computeStep + r.comm[a];
    r.speedup[a] = r.step[a] > 0 ? double(p) / double(in.baseRanks) * base / r.step[a] : 0;
    if (r.comm[a] < r.comm[r.best]) r.best = a;
  }
  r.efficiency = r.speedup[r.best] * double(in.baseRanks) / double(p);
  if (!in.window) return r;
  // The overlapped model: B buckets of n / B bytes, each paying the latency.
  r.overlap = true;
  r.bestOverlap = r.best;
  const double B = double(in.buckets), w = *in.window;
  for (int a = 0; a < kAlgorithms; ++a) {
    const double baseBucket = allreduceSeconds(Algorithm(a), in.baseRanks, in.gradBytes / B, net);
    const double base = in.computeStep + exposedSeconds(baseBucket, in.buckets, w);
    r.exposed[a] = exposedSeconds(allreduceSeconds(Algorithm(a), p, in.gradBytes / B, net), in.buckets, w);
    r.stepOverlap[a] = in.computeStep + r.exposed[a];
    r.speedupOverlap[a] = r.stepOverlap[a] > 0 ? double(p) / double(in.baseRanks) * base / r.stepOverlap[a] : 0;
    if (r.exposed[a] < r.exposed[r.bestOverlap]) r.bestOverlap = a;
  }
  r.efficiencyOverlap = r.speedupOverlap[r.bestOverlap] * double(in.baseRanks) / double(p);
  return r;
}

Projection project(const Series &s, const Network &net, const std::vector<int64_t> &ranks,
                   std::optional<double> computeOverride, std::optional<double> windowOverride) {
  Projection pr;
  pr.net = net;
  pr.in = projectionInput(s, computeOverride, windowOverride);
  for (int64_t p : ranks) pr.rows.push_back(projectAt(pr.in, net, p));
  return pr;
}

} // namespace dx::report
