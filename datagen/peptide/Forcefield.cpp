#include "peptide/Forcefield.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dxgen::peptide {

double bond_angle(const Vec3 &a, const Vec3 &b, const Vec3 &c) {
  const Vec3 u = a - b, v = c - b;
  // atan2 keeps full precision near 0 and π, where acos loses it.
  return std::atan2(norm(cross(u, v)), dot(u, v));
}

double dihedral_angle(const Vec3 &a, const Vec3 &b, const Vec3 &c, const Vec3 &d) {
  const Vec3 b1 = b - a, b2 = c - b, b3 = d - c;
  const Vec3 n1 = cross(b1, b2), n2 = cross(b2, b3);
  return std::atan2(norm(b2) * dot(b1, n2), dot(n1, n2));
}

Forcefield::Forcefield(const Coords &native, const ForcefieldParams &params) : p_(params), native_(native) {
  const int n = int(native.size());
  if (n < 4) throw std::invalid_argument("peptide: the chain needs at least 4 beads");
  for (int i = 0; i + 1 < n; ++i) bond0_.push_back(norm(native[size_t(i + 1)] - native[size_t(i)]));
  for (int i = 0; i + 2 < n; ++i)
    angle0_.push_back(bond_angle(native[size_t(i)], native[size_t(i + 1)], native[size_t(i + 2)]));
  for (int i = 0; i + 3 < n; ++i)
    dihedral0_.push_back(
        dihedral_angle(native[size_t(i)], native[size_t(i + 1)], native[size_t(i + 2)], native[size_t(i + 3)]));
  for (int i = 0; i < n; ++i)
    for (int j = i + p_.min_separation; j < n; ++j) {
      const double r = norm(native[size_t(j)] - native[size_t(i)]);
      if (r < p_.contact_cutoff) contacts_.push_back({i, j, r});
      else nonnative_.emplace_back(i, j);
    }
}

double Forcefield::energy(const Coords &x, Coords *forces) const {
  const size_t n = x.size();
  if (n != native_.size()) throw std::invalid_argument("peptide: conformation has the wrong number of beads");
  if (forces) forces->assign(n, Vec3{});
  double e = 0;

  // Bonds: V = K_b (r − r0)², F_{i+1} = −2 K_b (r − r0) û.
  for (size_t i = 0; i + 1 < n; ++i) {
    const Vec3 d = x[i + 1] - x[i];
    const double r = norm(d), dr = r - bond0_[i];
    e += p_.bond_k * dr * dr;
    if (forces) {
      const Vec3 f = (-2.0 * p_.bond_k * dr / r) * d;
      (*forces)[i + 1] += f;
      (*forces)[i] -= f;
    }
  }

  // Angles: V = K_θ (θ − θ0)². With u = x_a − x_b, v = x_c − x_b,
  // ∂θ/∂x_a = (cosθ û − v̂) / (|u| sinθ), likewise for x_c, and x_b takes
  // minus their sum (the angle is translation invariant).
  for (size_t i = 0; i + 2 < n; ++i) {
    const Vec3 u = x[i] - x[i + 1], v = x[i + 2] - x[i + 1];
    const double ru = norm(u), rv = norm(v);
    const double theta = std::atan2(norm(cross(u, v)), dot(u, v));
    const double dth = theta - angle0_[i];
    double dvdth;
    if (p_.extended_angle_k > 0) {
      // Double basin: V = −(1/γ) ln[e^{−γ V_α} + e^{−γ V_β}], V_α = K_θ (θ − θ0)²,
      // V_β = K_β (θ − θ_β)² + Δ_β; dV/dθ = w_α V_α' + w_β V_β' with Boltzmann-like
      // weights w (computed relative to the smaller V so the exponentials never underflow).
      const double dtb = theta - p_.extended_angle_deg * M_PI / 180.0;
      const double va = p_.angle_k * dth * dth, vb = p_.extended_angle_k * dtb * dtb + p_.extended_angle_offset;
      const double vmin = std::min(va, vb), g = p_.angle_mixing;
      const double ea = std::exp(-g * (va - vmin)), eb = std::exp(-g * (vb - vmin));
      e += vmin - std::log(ea + eb) / g;
      dvdth = (ea * 2.0 * p_.angle_k * dth + eb * 2.0 * p_.extended_angle_k * dtb) / (ea + eb);
    } else {
      e += p_.angle_k * dth * dth;
      dvdth = 2.0 * p_.angle_k * dth;
    }
    if (forces) {
      // sinθ is bounded away from 0 in practice (a straight angle costs
      // tens of ε); the floor only avoids a division by zero.
      const double s = std::max(std::sin(theta), 1e-8), c = std::cos(theta);
      const Vec3 ga = (1.0 / (ru * s)) * (c / ru * u - (1.0 / rv) * v);
      const Vec3 gc = (1.0 / (rv * s)) * (c / rv * v - (1.0 / ru) * u);
      (*forces)[i] -= dvdth * ga;
      (*forces)[i + 2] -= dvdth * gc;
      (*forces)[i + 1] += dvdth * (ga + gc);
    }
  }

  // Dihedrals: V = K1 [1 − cos(φ − φ0)] + K3 [1 − cos 3(φ − φ0)]. Gradient
  // of φ (Blondel & Karplus, J. Comput. Chem. 17, 1132, 1996), with
  // b1 = x1 − x0, b2 = x2 − x1, b3 = x3 − x2, n1 = b1×b2, n2 = b2×b3:
  //   ∂φ/∂x0 = −|b2| n1/|n1|²,  ∂φ/∂x3 = |b2| n2/|n2|²,
  //   ∂φ/∂x1 = −(1 + b1·b2/|b2|²) ∂φ/∂x0 + (b3·b2/|b2|²) ∂φ/∂x3,
  //   ∂φ/∂x2 = −(1 + b3·b2/|b2|²) ∂φ/∂x3 + (b1·b2/|b2|²) ∂φ/∂x0.
  for (size_t i = 0; i + 3 < n; ++i) {
    const Vec3 b1 = x[i + 1] - x[i], b2 = x[i + 2] - x[i + 1], b3 = x[i + 3] - x[i + 2];
    const Vec3 n1 = cross(b1, b2), n2 = cross(b2, b3);
    const double rb2 = norm(b2);
    const double phi = std::atan2(rb2 * dot(b1, n2), dot(n1, n2));
    const double d = phi - dihedral0_[i];
    e += p_.dihedral_k1 * (1.0 - std::cos(d)) + p_.dihedral_k3 * (1.0 - std::cos(3.0 * d));
    if (forces) {
      const double dvdphi = p_.dihedral_k1 * std::sin(d) + 3.0 * p_.dihedral_k3 * std::sin(3.0 * d);
      // |n1|, |n2| vanish only for collinear triples, excluded by the angle term.
      const Vec3 g0 = (-rb2 / std::max(norm2(n1), 1e-12)) * n1;
      const Vec3 g3 = (rb2 / std::max(norm2(n2), 1e-12)) * n2;
      const double p = dot(b1, b2) / (rb2 * rb2), q = dot(b3, b2) / (rb2 * rb2);
      const Vec3 g1 = (-1.0 - p) * g0 + q * g3;
      const Vec3 g2 = (-1.0 - q) * g3 + p * g0;
      (*forces)[i] -= dvdphi * g0;
      (*forces)[i + 1] -= dvdphi * g1;
      (*forces)[i + 2] -= dvdphi * g2;
      (*forces)[i + 3] -= dvdphi * g3;
    }
  }

  // Native contacts: V = ε [5 s^12 − 6 s^10], s = σ/r, minimum −ε at r = σ;
  // dV/dr = −60 ε (s^12 − s^10) / r.
  for (const NativeContact &c : contacts_) {
    const Vec3 d = x[size_t(c.j)] - x[size_t(c.i)];
    const double r2 = norm2(d), s2 = c.r0 * c.r0 / r2;
    const double s10 = s2 * s2 * s2 * s2 * s2, s12 = s10 * s2;
    e += p_.contact_epsilon * (5.0 * s12 - 6.0 * s10);
    if (forces) {
      // F_j = −dV/dr · d/r = 60 ε (s^12 − s^10) d / r².
      const Vec3 f = (60.0 * p_.contact_epsilon * (s12 - s10) / r2) * d;
      (*forces)[size_t(c.j)] += f;
      (*forces)[size_t(c.i)] -= f;
    }
  }

  // Non-native pairs: pure repulsion V = ε_rep (σ_rep/r)^12.
  const double sr2 = p_.repulsion_sigma * p_.repulsion_sigma;
  for (const auto &[i, j] : nonnative_) {
    const Vec3 d = x[size_t(j)] - x[size_t(i)];
    const double r2 = norm2(d), s2 = sr2 / r2;
    const double s6 = s2 * s2 * s2, s12 = s6 * s6;
    e += p_.repulsion_epsilon * s12;
    if (forces) {
      const Vec3 f = (12.0 * p_.repulsion_epsilon * s12 / r2) * d;
      (*forces)[size_t(j)] += f;
      (*forces)[size_t(i)] -= f;
    }
  }

  // Cooperative term V = −ε_c N_c Q_s², with Q_s = (1/N_c) Σ s_k and the
  // logistic s_k = 1/(1 + exp(κ (r_k − λ r0_k))); ds/dr = −κ s (1 − s),
  // so F_j = −dV/dr · d/r = 2 ε_c Q_s (−κ s (1 − s)) d / r for each contact.
  if (p_.cooperative_epsilon != 0 && !contacts_.empty()) {
    const double nc = double(contacts_.size());
    double qs = 0;
    for (const NativeContact &c : contacts_) {
      const double r = norm(x[size_t(c.j)] - x[size_t(c.i)]);
      qs += 1.0 / (1.0 + std::exp(p_.switch_steepness * (r - p_.switch_factor * c.r0)));
    }
    qs /= nc;
    e -= p_.cooperative_epsilon * nc * qs * qs;
    if (forces) {
      for (const NativeContact &c : contacts_) {
        const Vec3 d = x[size_t(c.j)] - x[size_t(c.i)];
        const double r = norm(d);
        const double s = 1.0 / (1.0 + std::exp(p_.switch_steepness * (r - p_.switch_factor * c.r0)));
        const Vec3 f = (-2.0 * p_.cooperative_epsilon * qs * p_.switch_steepness * s * (1.0 - s) / r) * d;
        (*forces)[size_t(c.j)] += f;
        (*forces)[size_t(c.i)] -= f;
      }
    }
  }
  return e;
}

} // namespace dxgen::peptide
