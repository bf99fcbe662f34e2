// Physics checks of dx-datagen peptide (docs/datagen-peptide.md).
#include "common/Rng.h"
#include "peptide/Chain.h"
#include "peptide/Forcefield.h"
#include "peptide/Integrator.h"
#include "peptide/Observables.h"
#include "peptide/Simulation.h"

#include <cmath>
#include <gtest/gtest.h>

namespace {

using namespace dxgen::peptide;

TEST(PeptideChain, NativeHelixGeometry) {
  const Coords x = ideal_helix();
  ASSERT_EQ(int(x.size()), kResidues);
  for (size_t i = 0; i + 1 < x.size(); ++i) EXPECT_NEAR(norm(x[i + 1] - x[i]), 3.8, 1e-12);
  EXPECT_NEAR(helix_radius(), 2.279, 1e-3);
  EXPECT_NEAR(x[20].z - x[0].z, 20 * 1.5, 1e-12);
}

TEST(PeptideObservables, NativeHasFullQZeroRmsdSymmetricMap) {
  const Forcefield ff(ideal_helix(), ForcefieldParams{});
  EXPECT_EQ(ff.contacts().size(), 35u); // i,i+3 (18) and i,i+4 (17) within 8 Å
  EXPECT_DOUBLE_EQ(fraction_native(ff.native(), ff.contacts()), 1.0);
  EXPECT_NEAR(kabsch_rmsd(ff.native(), ff.native()), 0.0, 1e-6);
  uint8_t map[kMapSide * kMapSide];
  contact_map(ff.native(), kMapCutoff, kMapSide, map);
  for (int i = 0; i < kMapSide; ++i)
    for (int j = 0; j < kMapSide; ++j) {
      EXPECT_EQ(map[i * kMapSide + j], map[j * kMapSide + i]);
      if (i == kResidues || j == kResidues) EXPECT_EQ(map[i * kMapSide + j], 0); // padding
      else if (i == j) EXPECT_EQ(map[i * kMapSide + j], 1);                     // diagonal
      else EXPECT_EQ(map[i * kMapSide + j], std::abs(i - j) <= 4 ? 1 : 0);       // helix: |i-j| ≤ 4 within 8 Å
    }
}

TEST(PeptideObservables, RmsdIsInvariantToRigidMotionAndSeesMirrorImage) {
  const Coords a = ideal_helix();
  Coords b = a, mirror = a;
  const double c = std::cos(0.7), s = std::sin(0.7);
  for (size_t k = 0; k < a.size(); ++k) {
    const Vec3 p = a[k];
    b[k] = Vec3{c * p.x - s * p.y, s * p.x + c * p.y, p.z} + Vec3{3, -2, 5}; // rotation + translation
    mirror[k] = {p.x, p.y, -p.z};                                              // left-handed helix
  }
  EXPECT_NEAR(kabsch_rmsd(a, b), 0.0, 1e-6);
  EXPECT_GT(kabsch_rmsd(a, mirror), 1.0); // a reflection is not a superposition
  // Perturbing one bead by d moves the RMSD by at most d/sqrt(N) ... and never above the unfitted RMSD.
  Coords p = a;
  p[10] += Vec3{1.0, 0, 0};
  EXPECT_LE(kabsch_rmsd(a, p), 1.0 / std::sqrt(21.0) + 1e-9);
  EXPECT_GT(kabsch_rmsd(a, p), 0.0);
}

// A random conformation near the native one (thermal-size displacements).
Coords perturbed(uint64_t seed, double amplitude) {
  dxgen::Rng rng(seed);
  Coords x = ideal_helix();
  for (Vec3 &p : x) p += amplitude * Vec3{rng.normal(), rng.normal(), rng.normal()};
  return x;
}

TEST(PeptideForcefield, ForcesAreMinusTheEnergyGradient) {
  const Forcefield ff(ideal_helix(), ForcefieldParams{});
  for (uint64_t seed : {1, 2, 3}) {
    const Coords x = perturbed(seed, 0.5);
    Coords f;
    ff.energy(x, &f);
    const double h = 1e-6;
    for (size_t i = 0; i < x.size(); ++i)
      for (int d = 0; d < 3; ++d) {
        Coords xp = x, xm = x;
        double *cp = d == 0 ? &xp[i].x : d == 1 ? &xp[i].y : &xp[i].z;
        double *cm = d == 0 ? &xm[i].x : d == 1 ? &xm[i].y : &xm[i].z;
        *cp += h;
        *cm -= h;
        const double grad = (ff.energy(xp, nullptr) - ff.energy(xm, nullptr)) / (2 * h);
        const double fi = d == 0 ? f[i].x : d == 1 ? f[i].y : f[i].z;
        EXPECT_NEAR(fi, -grad, 1e-4 * (1.0 + std::abs(grad))) << "bead " << i << " axis " << d;
      }
  }
}

TEST(PeptideIntegrator, VelocityVerletConservesEnergy) {
  // 1,000 NVE steps at dt = 0.0005 τ (6x below the default) from the
  // native helix with velocities at T = 1.9 (a thermal state; a randomly
  // strained start would put hundreds of ε into the stiff bonds). The drift of the
  // total energy is measured relative to the kinetic energy at the start
  // (the scale of the energy's thermal exchanges; stricter than relative to
  // the total energy, which is dominated by the −100 ε of native contacts).
  const Forcefield ff(ideal_helix(), ForcefieldParams{});
  dxgen::Rng rng(5);
  State s = make_state(ff, ff.native(), 1.9, rng);
  const double e0 = s.potential + kinetic_energy(s.v), k0 = kinetic_energy(s.v);
  double worst = 0;
  for (int k = 0; k < 1000; ++k) {
    velocity_verlet_step(ff, s, 0.0005);
    worst = std::max(worst, std::abs(s.potential + kinetic_energy(s.v) - e0));
  }
  EXPECT_LT(worst / k0, 1e-3) << "E0 " << e0 << " K0 " << k0;
}

TEST(PeptideIntegrator, LangevinKeepsBondsAndTemperature) {
  const Forcefield ff(ideal_helix(), ForcefieldParams{});
  SimulationParams p; // default temperature and dt
  dxgen::Rng rng(9);
  State s = make_state(ff, ff.native(), p.temperatures[0], rng);
  const LangevinBAOAB integ(p.dt, p.friction, p.temperatures[0]);
  double worst = 0, ksum = 0;
  const int steps = 20000;
  for (int k = 0; k < steps; ++k) {
    integ.step(ff, s, rng);
    for (size_t i = 0; i + 1 < s.x.size(); ++i) worst = std::max(worst, std::abs(norm(s.x[i + 1] - s.x[i]) - 3.8));
    ksum += kinetic_energy(s.v);
  }
  EXPECT_LT(worst, 0.1);
  // Equipartition: ⟨K⟩ = (3N/2) k_B T, within sampling error.
  EXPECT_NEAR(ksum / steps / (1.5 * kResidues * p.temperatures[0]), 1.0, 0.03);
}

double mean_q(double temperature) {
  const Forcefield ff(ideal_helix(), ForcefieldParams{});
  SimulationParams p;
  p.trajectories = 4;
  p.frames = 60;
  p.stride = 200;
  p.equilibration = 5000;
  p.temperatures = {temperature};
  p.threads = 1;
  double sum = 0;
  int n = 0;
  for (const Trajectory &t : run_trajectories(ff, p))
    for (float q : t.q) {
      sum += q;
      ++n;
    }
  return sum / n;
}

TEST(PeptideSimulation, FoldedAtLowUnfoldedAtHighTemperature) {
  const double cold = mean_q(1.2), hot = mean_q(3.0);
  EXPECT_GT(cold, 0.8);
  EXPECT_LT(hot, 0.3);
}

TEST(PeptideSimulation, DeterministicForSeedIndependentOfThreads) {
  const Forcefield ff(ideal_helix(), ForcefieldParams{});
  SimulationParams p;
  p.trajectories = 4;
  p.frames = 5;
  p.stride = 50;
  p.equilibration = 100;
  p.threads = 1;
  const auto a = run_trajectories(ff, p);
  p.threads = 3;
  const auto b = run_trajectories(ff, p);
  p.seed = 2;
  const auto c = run_trajectories(ff, p);
  for (size_t t = 0; t < a.size(); ++t) {
    EXPECT_EQ(a[t].maps, b[t].maps);
    EXPECT_EQ(a[t].q, b[t].q);
    EXPECT_EQ(a[t].rmsd, b[t].rmsd);
    EXPECT_NE(a[t].rmsd, c[t].rmsd);
  }
}

} // namespace
