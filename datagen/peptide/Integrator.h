// Time integration of the bead chain (mass 1 per bead, reduced units of
// Forcefield.h).
//
// Langevin dynamics by BAOAB (Leimkuhler & Matthews, Appl. Math. Res.
// Express. 2013, 34): half kick (B), half drift (A), exact Ornstein-
// Uhlenbeck velocity update (O), half drift, half kick. It samples
// configurations with an O(dt²) error that is small among Langevin
// splittings, needs one force evaluation a step, and is exact in the
// friction for any γ.
//
// Velocity Verlet without a thermostat (NVE) is the same B-A-A-B sequence
// with O left out; the tests use it to check that forces and energy agree
// (energy conservation).
#pragma once

#include "common/Rng.h"
#include "peptide/Forcefield.h"

namespace dxgen::peptide {

struct State {
  Coords x, v, f; // positions (Å), velocities (Å/τ), forces (ε/Å) at x
  double potential = 0;
};

// Kinetic energy Σ ½ v² (mass 1), ε.
double kinetic_energy(const Coords &v);

// Starts a state at x with velocities from the Maxwell-Boltzmann
// distribution at temperature T (k_B T in ε), forces evaluated.
State make_state(const Forcefield &ff, Coords x, double temperature, Rng &rng);

class LangevinBAOAB {
public:
  // dt in τ, friction γ in 1/τ, temperature k_B T in ε.
  LangevinBAOAB(double dt, double friction, double temperature);
  void step(const Forcefield &ff, State &s, Rng &rng) const;

private:
  double dt_, c1_, c2_;
};

// One velocity-Verlet (NVE) step.
void velocity_verlet_step(const Forcefield &ff, State &s, double dt);

} // namespace dxgen::peptide
