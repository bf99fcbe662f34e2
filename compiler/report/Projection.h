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
  // The overlapped model (sync allreduce only): w, the backward pass's
  // seconds per step from the first bucket ready to the last, and B, the
  // equal buckets the gradient is all-reduced in. No window: no overlapped
  // projection (a note says why).
  std::optional<double> window;
  int64_t buckets = 1;
  std::vector<std::string> notes; // where the inputs came from
};

// The runtime's bucket count for `gradBytes` with the default --bucket-mb
// (ModelSync::buckets: 25 MiB buckets, at least 8 of at least 16,384 floats
// when there are that many).
int64_t runtimeBuckets(double gradBytes);
// The exposed all-reduce seconds of a step whose B buckets, `bucket` seconds
// each, become ready at (i - 1) / (B - 1) * w (i = 1..B; w for B = 1) and
// run one at a time: max(0, F_B - w), F_1 = bucket, F_i = max(F_i-1, r_i) + bucket.
double exposedSeconds(double bucket, int64_t B, double w);

struct ProjectionRow {
  int64_t ranks = 0, nodes = 0;
  std::array<double, kAlgorithms> comm{};    // s of all-reduce per step (already divided by K)
  std::array<double, kAlgorithms> step{};    // computeStep + comm
  std::array<double, kAlgorithms> speedup{}; // (p / N0) * step(N0) / step(p)
  int best = 0;                              // the algorithm with the least comm
  double efficiency = 0;                     // of the best: speedup * N0 / p
  // With the overlap (ProjectionInput::window set; else all 0):
  bool overlap = false;
  std::array<double, kAlgorithms> exposed{};        // E(p): s per step not hidden by the backward pass
  std::array<double, kAlgorithms> stepOverlap{};    // computeStep + exposed
  std::array<double, kAlgorithms> speedupOverlap{}; // (p / N0) * stepOverlap(N0) / stepOverlap(p)
  int bestOverlap = 0;                              // the least exposed (ties: best)
  double efficiencyOverlap = 0;                     // of bestOverlap
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
// replaces the measured compute time per step, `windowOverride` (s) the
// backward window measured in its runs with ranks > 1 (overlap_window_s).
ProjectionInput projectionInput(const Series &s, std::optional<double> computeOverride,
                                std::optional<double> windowOverride = std::nullopt);
ProjectionRow projectAt(const ProjectionInput &in, const Network &net, int64_t p);
Projection project(const Series &s, const Network &net, const std::vector<int64_t> &ranks,
                   std::optional<double> computeOverride, std::optional<double> windowOverride = std::nullopt);

} // namespace dx::report
