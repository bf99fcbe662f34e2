// Many independent Langevin trajectories of the peptide, each recording
// frames (contact map, Q, RMSD) at a fixed stride after an equilibration.
// Trajectory k uses its own random stream Rng(seed, k) and its temperature
// temperatures[k mod count], so the frames depend only on (seed, k), never on
// the thread that ran it.
#pragma once

#include "peptide/Forcefield.h"
#include "peptide/Observables.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace dxgen::peptide {

struct SimulationParams {
  int trajectories = 60;
  int frames = 500;          // per trajectory
  int stride = 300;          // MD steps between frames
  int equilibration = 10000; // MD steps before the first frame
  double dt = 0.003;         // τ
  std::vector<double> temperatures{2.05}; // k_B T in ε, trajectories spread round-robin
  double friction = 1.0;     // γ, 1/τ
  uint64_t seed = 1;
  int threads = 0;           // 0 = all hardware threads
};

struct Trajectory {
  int index = 0;
  double temperature = 0;
  std::vector<uint8_t> maps; // frames x kMapSide x kMapSide, 0/1
  std::vector<float> q, rmsd, energy; // per frame; energy = potential, ε
};

double trajectory_temperature(const SimulationParams &p, int index);

// One trajectory, started from the native helix with Maxwell-Boltzmann
// velocities; equilibration (at the trajectory's temperature) lets it
// unfold or stay folded before frames are kept. on_frame (if set) is called
// after each recorded frame (for progress reporting).
Trajectory run_trajectory(const Forcefield &ff, const SimulationParams &p, int index,
                          const std::function<void()> &on_frame = {});

// All trajectories on p.threads threads, in index order.
std::vector<Trajectory> run_trajectories(const Forcefield &ff, const SimulationParams &p,
                                         const std::function<void()> &on_frame = {});

} // namespace dxgen::peptide
