// What is recorded of each frame: the Cα contact map (the VAE's input), the
// fraction of native contacts Q and the RMSD to the native structure.
#pragma once

#include "peptide/Forcefield.h"

#include <cstdint>
#include <vector>

namespace dxgen::peptide {

// Side of the stored maps: the 21x21 map zero-padded by one row and column
// (index 21), so the VAE's stride-2 convolution halves it evenly to 11x11.
constexpr int kMapSide = 22;
constexpr double kMapCutoff = 8.0; // Å

// Writes the side x side map (row-major) into out: out[i*side + j] = 1 if
// |x_i − x_j| < cutoff, else 0, for i, j < x.size(); the padding is 0. The
// diagonal is 1 (a residue's distance to itself is 0 < cutoff), as in
// MDAnalysis' contact_matrix; the map is symmetric.
void contact_map(const Coords &x, double cutoff, int side, uint8_t *out);

// Fraction of native contacts formed: a native contact (i, j) with native
// distance r0 counts as formed when r_ij < factor · r0 (factor 1.2, the
// usual tolerance for thermal fluctuation of Cα Go models).
constexpr double kQFactor = 1.2;
double fraction_native(const Coords &x, const std::vector<NativeContact> &contacts, double factor = kQFactor);

// Cα RMSD (Å) between a and b after optimal superposition (translation and
// proper rotation; Kabsch's minimum, computed as Horn's/Coutsias'
// quaternion eigenvalue problem, which gives the same value and never a
// reflection).
double kabsch_rmsd(const Coords &a, const Coords &b);

} // namespace dxgen::peptide
