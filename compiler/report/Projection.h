// Projection of the measured speed-up to rank counts this machine does not
// have: an alpha-beta model of gradient all-reduce (ring, tree, and
// hierarchical NVLink + InfiniBand) on a Network, fed with the per-step
// compute time and the gradient bytes of the series' baseline run. It is a
// MODEL, not a measurement; the equations are in docs/scaling-model.md.
#pragma once

#include "report/Metrics.h"
#include "report/Network.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace dx::report {

enum Algorithm { Ring = 0, Tree = 1, Hierarchical = 2 };
constexpr int kAlgorithms = 3;
const char *algorithmName(int a); // "ring", "tree", "hierarchical"

// Seconds of one all-reduce of `bytes` over `p` ranks on `net` (0 for p = 1).
double allreduceSeconds(Algorithm a, int64_t p, double bytes, const Network &net);
int64_t nodesFor(int64_t p, const Network &net); // ceil(p / gpus per node)

struct ProjectionInput {
  double computeStep = 0;  // s per step of one rank, without communication
  double gradBytes = 0;    // bytes all-reduced per step
  int64_t baseRanks = 1;   // N0: speed-ups are relative to it, as measured ones are
  int64_t every = 1;       // all-reduce every K steps (sync: average every K)
  std::vector<std::string> notes; // where the inputs came from
};

struct ProjectionRow {
  int64_t ranks = 0, nodes = 0;
  std::array<double, kAlgorithms> comm{};    // s of all-reduce per step (already divided by K)
  std::array<double, kAlgorithms> step{};    // computeStep + comm
  std::array<double, kAlgorithms> speedup{}; // (p / N0) * step(N0) / step(p)
  int best = 0;                              // the algorithm with the least comm
  double efficiency = 0;                     // of the best: speedup * N0 / p
};

struct Projection {
  Network net;
  ProjectionInput in;
  std::vector<ProjectionRow> rows;
};

// Why the series cannot be projected, "" when it can: the model needs the
// gradient's size, grad_bytes or params of the baseline's log.
std::string whyNotProjected(const Series &s);
// The model's inputs from the series' baseline run; `computeOverride` (s)
// replaces the measured compute time per step.
ProjectionInput projectionInput(const Series &s, std::optional<double> computeOverride);
ProjectionRow projectAt(const ProjectionInput &in, const Network &net, int64_t p);
Projection project(const Series &s, const Network &net, const std::vector<int64_t> &ranks,
                   std::optional<double> computeOverride);

} // namespace dx::report
