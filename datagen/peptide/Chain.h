// The coarse-grained peptide: one bead per Cα of a 21-residue helix former
// (Fs-peptide-like), and its native structure, an ideal α-helix Cα trace.
#pragma once

#include "peptide/Vec3.h"

#include <vector>

namespace dxgen::peptide {

using Coords = std::vector<Vec3>;

// Residues of the chain (the contact maps are padded from 21x21 to 22x22).
constexpr int kResidues = 21;
// Cα-Cα virtual-bond length (Å) of a trans peptide.
constexpr double kBondLength = 3.8;

// Geometry of the ideal α-helix Cα trace: rise per residue along the axis
// (Å) and rotation per residue (degrees). The radius is not a free
// parameter: it is solved so that consecutive beads are exactly kBondLength
// apart, which gives 2.279 Å (the textbook ~2.3 Å).
constexpr double kHelixRise = 1.5;
constexpr double kHelixTwistDeg = 100.0;
double helix_radius();

// The native structure: n beads on the ideal helix, axis along z, centred.
Coords ideal_helix(int n = kResidues);

} // namespace dxgen::peptide
