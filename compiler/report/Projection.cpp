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

ProjectionInput projectionInput(const Series &s, std::optional<double> computeOverride) {
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
  return r;
}

Projection project(const Series &s, const Network &net, const std::vector<int64_t> &ranks,
                   std::optional<double> computeOverride) {
  Projection pr;
  pr.net = net;
  pr.in = projectionInput(s, computeOverride);
  for (int64_t p : ranks) pr.rows.push_back(projectAt(pr.in, net, p));
  return pr;
}

} // namespace dx::report
