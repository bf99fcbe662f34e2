// The Go-like (structure-based) potential of the peptide, built from its
// native structure in the style of Clementi, Nymeyer & Onuchic (J. Mol.
// Biol. 298, 937, 2000): the native helix is the global energy minimum, so
// folding is funnelled and the temperature alone sets the folded/unfolded
// balance. Reduced units: energy ε = 1, length Å, mass 1 (one bead), time
// τ = Å·sqrt(mass/ε); temperatures are k_B·T in ε.
//
//   V = Σ_bonds     K_b (r − r0)²
//     + Σ_angles    K_θ (θ − θ0)²
//     + Σ_dihedrals K_φ1 [1 − cos(φ − φ0)] + K_φ3 [1 − cos 3(φ − φ0)]
//     + Σ_native    ε [5 (σ_ij/r)^12 − 6 (σ_ij/r)^10]      (σ_ij = native distance)
//     + Σ_nonnative ε_rep (σ_rep/r)^12
//     − ε_c N_c Q_s²,   Q_s = (1/N_c) Σ_native 1 / (1 + exp(κ (r − λ σ_ij)))
//
// with r0, θ0, φ0 taken from the native structure. Pairs |i − j| ≥
// min_separation enter the last two sums: native if their native distance is
// below contact_cutoff, non-native otherwise.
//
// The last term is why the chain folds as a two-state system. A helix has
// only local native contacts (i, i+3 and i, i+4 within 8 Å), so with pair
// terms alone it is an Ising chain with nearest-neighbour coupling: its
// helix-coil transition is gradual and Q is unimodal at every temperature
// (measured: docs/datagen-peptide.md). The quadratic many-body term
// (Eastwood & Wolynes, J. Chem. Phys. 114, 4702, 2001; Ejtehadi, Avall &
// Plotkin, PNAS 101, 15088, 2004) rewards contacts more when many others are
// formed, which makes the free energy F(Q) double-welled near the folding
// temperature: frames are then either folded or unfolded, as the contact-map
// VAE example expects.
#pragma once

#include "peptide/Chain.h"

#include <vector>

namespace dxgen::peptide {

struct ForcefieldParams {
  double bond_k = 4000.0;      // K_b, ε/Å² (stiff: bonds stay within ~0.1 Å of 3.8 Å near T_f)
  double angle_k = 20.0;       // K_θ, ε/rad² (the native, helical basin)
  // Second, extended basin of the bond angle (0 = plain harmonic angles),
  // after the double-basin Cα angle potential of Best, Chen & Hummer
  // (Structure 13, 1755, 2005): unfolded chains open their angles towards
  // β/PPII values instead of staying helix-like, so that the unfolded state
  // has few native contacts (Q ≈ 0.2) as real unfolded peptides do.
  double extended_angle_k = 10.0;    // K_β, ε/rad²
  double extended_angle_deg = 130.0; // θ_β, degrees
  double extended_angle_offset = 0.0; // Δ_β, ε
  double angle_mixing = 1.0;         // γ, 1/ε
  double dihedral_k1 = 1.0;    // K_φ1, ε
  double dihedral_k3 = 0.5;    // K_φ3, ε
  double contact_epsilon = 1.0; // ε of the native 12-10 wells, ε
  double repulsion_epsilon = 1.0; // ε_rep, ε
  double repulsion_sigma = 4.0; // σ_rep, Å
  double contact_cutoff = 8.0;  // native-contact cutoff in the native structure, Å
  int min_separation = 3;       // |i − j| of nonbonded pairs (native or not)
  // Cooperative (many-body) native term −ε_c N_c Q_s², Q_s the smooth
  // fraction of native contacts (see below); 0 switches it off.
  double cooperative_epsilon = 2.0; // ε_c, ε per native contact
  double switch_factor = 1.2;       // Q_s counts r < factor · r0 ...
  double switch_steepness = 5.0;    // ... over a logistic edge of width 1/κ, κ in 1/Å
};

struct NativeContact {
  int i, j;
  double r0; // native distance, Å (σ_ij of the 12-10 well)
};

// The potential with its native reference values precomputed.
class Forcefield {
public:
  Forcefield(const Coords &native, const ForcefieldParams &params);

  // Potential energy (ε); if forces is non-null it is resized and filled
  // with −∇V (ε/Å).
  double energy(const Coords &x, Coords *forces) const;

  const ForcefieldParams &params() const { return p_; }
  const Coords &native() const { return native_; }
  const std::vector<NativeContact> &contacts() const { return contacts_; }

private:
  ForcefieldParams p_;
  Coords native_;
  std::vector<double> bond0_, angle0_, dihedral0_;
  std::vector<NativeContact> contacts_;
  std::vector<std::pair<int, int>> nonnative_;
};

// Geometry shared with the observables and tests.
double bond_angle(const Vec3 &a, const Vec3 &b, const Vec3 &c); // radians, at b
// Dihedral a-b-c-d in (−π, π], IUPAC sign convention (0 = cis).
double dihedral_angle(const Vec3 &a, const Vec3 &b, const Vec3 &c, const Vec3 &d);

} // namespace dxgen::peptide
