#include "peptide/Simulation.h"

#include "common/Parallel.h"
#include "common/Rng.h"
#include "peptide/Integrator.h"

namespace dxgen::peptide {

double trajectory_temperature(const SimulationParams &p, int index) {
  return p.temperatures[size_t(index) % p.temperatures.size()];
}

Trajectory run_trajectory(const Forcefield &ff, const SimulationParams &p, int index,
                          const std::function<void()> &on_frame) {
  Trajectory t;
  t.index = index;
  t.temperature = trajectory_temperature(p, index);
  Rng rng(p.seed, uint64_t(index));
  State s = make_state(ff, ff.native(), t.temperature, rng);
  const LangevinBAOAB integrator(p.dt, p.friction, t.temperature);
  for (int k = 0; k < p.equilibration; ++k) integrator.step(ff, s, rng);

  const size_t map_size = size_t(kMapSide) * kMapSide;
  t.maps.resize(size_t(p.frames) * map_size);
  t.q.reserve(size_t(p.frames));
  t.rmsd.reserve(size_t(p.frames));
  t.energy.reserve(size_t(p.frames));
  for (int f = 0; f < p.frames; ++f) {
    for (int k = 0; k < p.stride; ++k) integrator.step(ff, s, rng);
    contact_map(s.x, kMapCutoff, kMapSide, t.maps.data() + size_t(f) * map_size);
    t.q.push_back(float(fraction_native(s.x, ff.contacts())));
    t.rmsd.push_back(float(kabsch_rmsd(s.x, ff.native())));
    t.energy.push_back(float(s.potential));
    if (on_frame) on_frame();
  }
  return t;
}

std::vector<Trajectory> run_trajectories(const Forcefield &ff, const SimulationParams &p,
                                         const std::function<void()> &on_frame) {
  std::vector<Trajectory> out(size_t(p.trajectories));
  parallel_for(p.trajectories, p.threads,
               [&](int64_t k) { out[size_t(k)] = run_trajectory(ff, p, int(k), on_frame); });
  return out;
}

} // namespace dxgen::peptide
