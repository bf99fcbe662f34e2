// Tests of dx-datagen stem: each class's crystals really have the class's
// symmetry (lattice metric, FFT peaks on the reciprocal lattice, every group
// operation mapping the atom set onto itself, exactly the group's symmetry and
// no more, images correlating with their transformed selves), the noise has
// the stated statistics, and the data are deterministic and balanced.
#include "stem/Crystal.h"
#include "stem/Dataset.h"
#include "stem/Fft.h"
#include "stem/Lattice.h"
#include "stem/Render.h"
#include "stem/Symmetry.h"
#include "stem/Wallpaper.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

using namespace dxgen;
using namespace dxgen::stem;

namespace {

constexpr double kDeg = M_PI / 180;

// An ideal image: no noise, no distortion, no vacancies.
ImagingParams ideal(int size, double pixel = 0.25) {
  ImagingParams p;
  p.size = size;
  p.pixel_size = pixel;
  p.distortion = 0;
  p.vacancy_rate = 0;
  return p;
}

std::vector<double> render_ideal(const Crystal &c, const View &v, const ImagingParams &p) {
  Rng rng(0);
  return render_signal(c, v, p, draw_scan_distortion(p, rng), rng);
}

// ---------------------------------------------------------------- lattices

TEST(StemLattice, BravaisMetricConditionsWithMargins) {
  MotifOptions opt;
  for (int s = 0; s < kLatticeSystems; ++s) {
    for (int i = 0; i < 200; ++i) {
      Rng rng(11, uint64_t(s * 1000 + i));
      const Crystal c = make_bravais_crystal(LatticeSystem(s), opt, rng);
      const Basis &b = c.basis;
      const double la = norm(b.a), lb = norm(b.b), gamma = angle_deg(b.a, b.b);
      const double ratio = std::max(la, lb) / std::min(la, lb);
      SCOPED_TRACE(std::string(lattice_system_name(LatticeSystem(s))) + " #" + std::to_string(i));
      EXPECT_GE(c.min_separation(), opt.min_separation - 1e-9);
      switch (LatticeSystem(s)) {
      case LatticeSystem::Square:
        EXPECT_NEAR(la, lb, 1e-9 * la);
        EXPECT_NEAR(gamma, 90, 1e-9);
        break;
      case LatticeSystem::Hexagonal:
        EXPECT_NEAR(la, lb, 1e-9 * la);
        EXPECT_NEAR(gamma, 120, 1e-9);
        break;
      case LatticeSystem::Rectangular:
        EXPECT_NEAR(gamma, 90, 1e-9);
        EXPECT_GE(ratio, 1.2 - 1e-9);
        EXPECT_LE(ratio, 2.0 + 1e-9);
        EXPECT_FALSE(b.centred);
        break;
      case LatticeSystem::CentredRectangular: {
        // Conventional cell: a rectangle with a centring point; primitive
        // cell: a rhombus (|a'| = |b'|) whose angle is well away from the
        // square (90) and hexagonal (60/120) rhombi.
        ASSERT_TRUE(b.centred);
        EXPECT_NEAR(gamma, 90, 1e-9);
        EXPECT_TRUE((ratio >= 1.2 - 1e-9 && ratio <= 1.5746 + 1e-9) || (ratio >= 1.9053 - 1e-9 && ratio <= 2.5 + 1e-9))
            << ratio;
        const Vec2 pa = b.primitive_a(), pb = b.primitive_b();
        EXPECT_NEAR(norm(pa), norm(pb), 1e-9 * norm(pa));
        const double g = angle_deg(pa, pb);
        EXPECT_GT(std::abs(g - 90), 10.0) << g;
        EXPECT_GT(std::abs(g - 60), 3.0) << g;
        EXPECT_GT(std::abs(g - 120), 3.0) << g;
        break;
      }
      case LatticeSystem::Oblique: {
        // Reduced cell: |a| <= |b|, gamma obtuse; none of the special cases.
        const double r = lb / la;
        EXPECT_FALSE(b.centred);
        EXPECT_GE(r, 1.15 - 1e-9);
        EXPECT_LE(r, 1.6 + 1e-9);
        EXPECT_GE(gamma, 99 - 1e-9);
        EXPECT_LE(gamma, 111 + 1e-9);
        // b's projection on a is far from a/2 (that would be centred rectangular).
        EXPECT_LE(r * std::abs(std::cos(gamma * kDeg)), 0.35 + 1e-9);
        break;
      }
      }
      // The motif never adds a translation: the lattice is the label's.
      const SymmetryReport rep = analyse_symmetry(c, 0.3, false);
      EXPECT_EQ(rep.translations.size(), b.centred ? 1u : 0u);
    }
  }
}

// ------------------------------------------------------- symmetry analyser

TEST(StemSymmetry, AnalyserFindsTheHolohedryOfSimpleLattices) {
  Crystal sq{{{3, 0}, {0, 3}, false}, {{{0, 0}, 14}}};
  SymmetryReport r = analyse_symmetry(sq, 1e-6, true);
  EXPECT_EQ(r.rotations, (std::vector<int>{90, 180, 270}));
  ASSERT_EQ(r.mirrors.size(), 4u);
  for (const MirrorLine &m : r.mirrors) EXPECT_TRUE(m.pure);
  EXPECT_TRUE(r.translations.empty());

  Crystal hex{{{3, 0}, {-1.5, 1.5 * std::sqrt(3.0)}, false}, {{{0, 0}, 14}}};
  r = analyse_symmetry(hex, 1e-6, true);
  EXPECT_EQ(r.rotations, (std::vector<int>{60, 120, 180, 240, 300}));
  EXPECT_EQ(r.mirrors.size(), 6u);

  // Two atoms of different Z in a rectangular cell: positions alone are
  // centrosymmetric (p2), with Z there is no symmetry at all (p1).
  Crystal two{{{3, 0}, {0, 4.5}, false}, {{{0, 0}, 14}, {{0.3, 0.2}, 42}}};
  EXPECT_EQ(analyse_symmetry(two, 1e-6, false).rotations, (std::vector<int>{180}));
  EXPECT_TRUE(analyse_symmetry(two, 1e-6, true).rotations.empty());
  EXPECT_TRUE(analyse_symmetry(two, 1e-6, true).mirrors.empty());

  // A half-cell translation is found.
  Crystal half{{{3, 0}, {0, 4.5}, false}, {{{0, 0}, 14}, {{0.5, 0}, 14}}};
  r = analyse_symmetry(half, 1e-6, true);
  ASSERT_EQ(r.translations.size(), 1u);
  EXPECT_NEAR(r.translations[0].x, 0.5, 1e-9);
}

// --------------------------------------------------------- wallpaper groups

// The 17 groups' symmetry from the International Tables, independent of
// Wallpaper.cpp: rotation angles, and mirror directions (degrees from a)
// with 'p' for a true mirror, 'g' for glides only.
struct Expected {
  std::vector<int> rotations;
  std::string mirrors; // "0p 90g"
  bool centred;
};
const std::map<std::string, Expected> &ita_table() {
  static const std::map<std::string, Expected> t = {
      {"p1", {{}, "", false}},
      {"p2", {{180}, "", false}},
      {"pm", {{}, "90p", false}},
      {"pg", {{}, "90g", false}},
      {"cm", {{}, "90p", true}},
      {"pmm", {{180}, "0p 90p", false}},
      {"pmg", {{180}, "0g 90p", false}},
      {"pgg", {{180}, "0g 90g", false}},
      {"cmm", {{180}, "0p 90p", true}},
      {"p4", {{90, 180, 270}, "", false}},
      {"p4m", {{90, 180, 270}, "0p 45p 90p 135p", false}},
      {"p4g", {{90, 180, 270}, "0g 45p 90g 135p", false}},
      {"p3", {{120, 240}, "", false}},
      {"p3m1", {{120, 240}, "30p 90p 150p", false}},
      {"p31m", {{120, 240}, "0p 60p 120p", false}},
      {"p6", {{60, 120, 180, 240, 300}, "", false}},
      {"p6m", {{60, 120, 180, 240, 300}, "0p 30p 60p 90p 120p 150p", false}},
  };
  return t;
}

std::string mirror_text(const SymmetryReport &r) {
  std::string s;
  for (const MirrorLine &m : r.mirrors) s += (s.empty() ? "" : " ") + std::to_string(m.angle_deg) + (m.pure ? "p" : "g");
  return s;
}

void expect_table(const SymmetryReport &r, const std::string &group, const std::string &what) {
  const Expected &e = ita_table().at(group);
  EXPECT_EQ(r.rotations, e.rotations) << group << " " << what;
  EXPECT_EQ(mirror_text(r), e.mirrors) << group << " " << what;
  EXPECT_EQ(r.translations.size(), e.centred ? 1u : 0u) << group << " " << what;
}

TEST(StemWallpaper, GroupDefinitionsMatchTheInternationalTables) {
  Rng rng(5);
  for (int g = 0; g < kWallpaperGroups; ++g) {
    const WallpaperGroup &grp = wallpaper_group(g);
    expect_table(group_symmetry(grp, sample_basis(grp.system, rng)), grp.name, "operations");
  }
}

TEST(StemWallpaper, EveryOperationMapsTheAtomsOntoThemselves) {
  MotifOptions opt;
  for (int g = 0; g < kWallpaperGroups; ++g) {
    const WallpaperGroup &grp = wallpaper_group(g);
    for (int i = 0; i < 15; ++i) {
      Rng rng(21, uint64_t(g * 100 + i));
      const Crystal c = make_wallpaper_crystal(g, opt, rng);
      ASSERT_FALSE(c.atoms.empty());
      EXPECT_GE(c.min_separation(), opt.min_separation - 1e-9) << grp.name;
      for (const SymOp &op : grp.ops) {
        const Mat2 W = op.cartesian(c.basis.a, c.basis.b);
        const Vec2 t = op.t0 * c.basis.a + op.t1 * c.basis.b;
        // Positions to 1e-6 Å and atomic numbers exactly.
        EXPECT_TRUE(is_symmetry(c, W, t, 1e-6, true)) << grp.name << " crystal " << i;
      }
    }
  }
}

TEST(StemWallpaper, CrystalsHaveExactlyTheirGroupsSymmetry) {
  MotifOptions opt;
  for (int g = 0; g < kWallpaperGroups; ++g) {
    const WallpaperGroup &grp = wallpaper_group(g);
    for (int i = 0; i < 15; ++i) {
      Rng rng(31, uint64_t(g * 100 + i));
      const Crystal c = make_wallpaper_crystal(g, opt, rng);
      // Exactly: all of the group's symmetry, with atomic numbers.
      expect_table(analyse_symmetry(c, 1e-6, true), grp.name, "exact");
      // And no more, even approximately (0.3 Å) on positions alone: what the
      // image shows is the label's group, not a supergroup.
      expect_table(analyse_symmetry(c, 0.3, false), grp.name, "positions within 0.3 Å");
    }
  }
}

// ---------------------------------------------------------------- images

// Pearson correlation of a and b over the disc of radius r pixels about the centre.
double disc_correlation(const std::vector<double> &a, const std::vector<double> &b, int n, double r) {
  double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, k = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (std::hypot(i + 0.5 - n / 2.0, j + 0.5 - n / 2.0) > r) continue;
      const double x = a[size_t(i) * n + j], y = b[size_t(i) * n + j];
      sa += x, sb += y, saa += x * x, sbb += y * y, sab += x * y, k += 1;
    }
  const double ca = saa - sa * sa / k, cb = sbb - sb * sb / k, cab = sab - sa * sb / k;
  return cab / std::sqrt(ca * cb);
}

// The image transformed by the linear map W (image frame) about the image
// centre: out(x) = in(W^T (x - c) + c), bilinear interpolation.
std::vector<double> transform_image(const std::vector<double> &img, int n, const Mat2 &W) {
  std::vector<double> out(img.size(), 0.0);
  const Mat2 Wt = W.transpose();
  const double c = n / 2.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const Vec2 src = Wt * Vec2{j + 0.5 - c, i + 0.5 - c} + Vec2{c - 0.5, c - 0.5};
      const int j0 = int(std::floor(src.x)), i0 = int(std::floor(src.y));
      if (j0 < 0 || i0 < 0 || j0 + 1 >= n || i0 + 1 >= n) continue;
      const double fx = src.x - j0, fy = src.y - i0;
      auto at = [&](int ii, int jj) { return img[size_t(ii) * n + jj]; };
      out[size_t(i) * n + j] = (1 - fy) * ((1 - fx) * at(i0, j0) + fx * at(i0, j0 + 1)) +
                               fy * ((1 - fx) * at(i0 + 1, j0) + fx * at(i0 + 1, j0 + 1));
    }
  return out;
}

TEST(StemRender, ImagesCorrelateWithTheirSymmetryTransforms) {
  const int n = 128;
  const ImagingParams p = ideal(n, 0.2);
  MotifOptions opt;
  // Every operation of each group that fixes the origin (put at the image
  // centre) leaves the image unchanged; 2-fold, 3-fold, 4-fold, 6-fold
  // rotations and mirrors are all exercised.
  for (int g = 0; g < kWallpaperGroups; ++g) {
    const WallpaperGroup &grp = wallpaper_group(g);
    Rng rng(41, uint64_t(g));
    const Crystal c = make_wallpaper_crystal(g, opt, rng);
    const View v{0.7, {0, 0}};
    const std::vector<double> img = render_ideal(c, v, p);
    const Mat2 R = Mat2::rotation(v.theta);
    for (const SymOp &op : grp.ops) {
      if (op.identity_part() || op.t0 != 0 || op.t1 != 0) continue;
      const Mat2 W = R * op.cartesian(c.basis.a, c.basis.b) * R.transpose();
      EXPECT_GT(disc_correlation(img, transform_image(img, n, W), n, 0.45 * n), 0.97) << grp.name;
    }
  }
  // p1 has none of these symmetries: about any centre its image differs from
  // its rotated and reflected selves.
  for (int i = 0; i < 5; ++i) {
    Rng rng(43, uint64_t(i));
    const Crystal c = make_wallpaper_crystal(0, opt, rng);
    const View v{0.3, {0.37, 0.61}};
    const std::vector<double> img = render_ideal(c, v, p);
    const double phi = std::atan2(c.basis.a.y, c.basis.a.x) + v.theta;
    for (const Mat2 &W : {Mat2::rotation(M_PI), Mat2::rotation(M_PI / 2), Mat2::rotation(M_PI / 3),
                          Mat2::rotation(2 * M_PI / 3), Mat2::mirror(phi), Mat2::mirror(phi + M_PI / 2)}) {
      EXPECT_LT(disc_correlation(img, transform_image(img, n, W), n, 0.45 * n), 0.7) << "p1 crystal " << i;
    }
  }
  // p4 lacks the mirrors of p4m.
  Rng rng(44);
  const Crystal c4 = make_wallpaper_crystal(9, opt, rng);
  const View v{0.2, {0, 0}};
  const std::vector<double> img = render_ideal(c4, v, p);
  EXPECT_LT(disc_correlation(img, transform_image(img, n, Mat2::mirror(v.theta)), n, 0.45 * n), 0.7);
  EXPECT_GT(disc_correlation(img, transform_image(img, n, Mat2::rotation(M_PI / 2)), n, 0.45 * n), 0.97);
}

// Local maxima of |F| of the Hann-windowed image, refined to sub-bin
// precision by a parabola through each axis's three samples. Frequencies in
// cycles per field of view, (kx along columns, ky along rows).
struct Peak {
  Vec2 k;
  double mag;
};
std::vector<Peak> fft_peaks(const std::vector<double> &img, int n) {
  double mean = 0;
  for (double v : img) mean += v;
  mean /= double(img.size());
  std::vector<std::complex<double>> f(img.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double w = (0.5 - 0.5 * std::cos(2 * M_PI * (i + 0.5) / n)) * (0.5 - 0.5 * std::cos(2 * M_PI * (j + 0.5) / n));
      f[size_t(i) * n + j] = (img[size_t(i) * n + j] - mean) * w;
    }
  fft2d(f, n);
  auto mag = [&](int ky, int kx) { return std::abs(f[size_t((ky + n) % n) * n + size_t((kx + n) % n)]); };
  std::vector<Peak> peaks;
  for (int ky = -n / 2 + 1; ky < n / 2 - 1; ++ky)
    for (int kx = -n / 2 + 1; kx < n / 2 - 1; ++kx) {
      if (std::hypot(kx, ky) < 4) continue; // the window's DC leakage
      const double m = mag(ky, kx);
      bool top = true;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if ((dx || dy) && mag(ky + dy, kx + dx) >= m) top = false;
      if (!top) continue;
      auto vertex = [](double l, double c, double r) { return 0.5 * (l - r) / (l - 2 * c + r); };
      const double lx = std::log(mag(ky, kx - 1)), rx = std::log(mag(ky, kx + 1)), c = std::log(m);
      const double ly = std::log(mag(ky - 1, kx)), ry = std::log(mag(ky + 1, kx));
      peaks.push_back({{kx + vertex(lx, c, rx), ky + vertex(ly, c, ry)}, m});
    }
  std::sort(peaks.begin(), peaks.end(), [](const Peak &a, const Peak &b) { return a.mag > b.mag; });
  return peaks;
}

TEST(StemRender, FftPeaksLieOnTheReciprocalLattice) {
  const int n = 256;
  const ImagingParams p = ideal(n, 0.25);
  const double fov = n * p.pixel_size;
  MotifOptions opt;
  for (int s = 0; s < kLatticeSystems; ++s) {
    SCOPED_TRACE(lattice_system_name(LatticeSystem(s)));
    Rng rng(51, uint64_t(s));
    // One atom per lattice point: every reciprocal lattice vector has a peak.
    Crystal c;
    c.basis = sample_basis(LatticeSystem(s), rng).scaled(std::sqrt(8.0));
    c.atoms = {{{0, 0}, 42}};
    if (c.basis.centred) c.atoms.push_back({{0.5, 0.5}, 42});
    const View v{rng.uniform(0, 2 * M_PI), {0, 0}};
    const std::vector<Peak> peaks = fft_peaks(render_ideal(c, v, p), n);
    ASSERT_GE(peaks.size(), 8u);
    // Reciprocal basis of the primitive lattice, in the image frame and in
    // bins (cycles per field of view).
    const Mat2 R = Mat2::rotation(v.theta);
    const Vec2 a = R * c.basis.primitive_a(), b = R * c.basis.primitive_b();
    const double area = cross(a, b);
    const Vec2 as = (fov / area) * Vec2{b.y, -b.x}, bs = (fov / area) * Vec2{-a.y, a.x};
    const Mat2 Rec = Mat2::columns(as, bs), RecInv = Rec.inverse();
    // The strongest peaks all sit on reciprocal lattice points.
    for (size_t k = 0; k < 12 && k < peaks.size(); ++k) {
      const Vec2 hk = RecInv * peaks[k].k;
      const Vec2 g = std::round(hk.x) * as + std::round(hk.y) * bs;
      EXPECT_LT(norm(peaks[k].k - g), 0.25) << "peak " << k << " at (" << peaks[k].k.x << ", " << peaks[k].k.y << ")";
      EXPECT_GT(std::abs(std::round(hk.x)) + std::abs(std::round(hk.y)), 0);
    }
    // The first-order peaks measured from the image give back the lattice:
    // lengths to 1%, angle to 0.5 degrees, so e.g. square and rectangular
    // are told apart by the FFT alone.
    auto measured = [&](Vec2 want) {
      const Peak *best = nullptr;
      for (const Peak &pk : peaks)
        if (norm(pk.k - want) < 1.0 && (!best || pk.mag > best->mag)) best = &pk;
      EXPECT_NE(best, nullptr);
      EXPECT_GT(best ? best->mag : 0, 0.05 * peaks[0].mag);
      return best ? best->k : want;
    };
    const Vec2 am = measured(as), bm = measured(bs);
    const double ar = cross(am, bm);
    const Vec2 a_img = (fov / ar) * Vec2{bm.y, -bm.x}, b_img = (fov / ar) * Vec2{-am.y, am.x};
    EXPECT_NEAR(norm(a_img), norm(a), 0.01 * norm(a));
    EXPECT_NEAR(norm(b_img), norm(b), 0.01 * norm(b));
    EXPECT_NEAR(angle_deg(a_img, b_img), angle_deg(a, b), 0.5);
  }
}

TEST(StemRender, VacanciesRemoveTheirFractionOfColumns) {
  ImagingParams p = ideal(128, 0.25);
  p.background = 0;
  Crystal c{{{3, 0}, {0, 3}, false}, {{{0, 0}, 42}}};
  const View v{0.1, {0, 0}};
  auto total = [&](double rate) {
    p.vacancy_rate = rate;
    Rng rng(3);
    const std::vector<double> s = render_signal(c, v, p, draw_scan_distortion(p, rng), rng);
    double t = 0;
    for (double x : s) t += x;
    return t;
  };
  EXPECT_NEAR(total(0.3) / total(0.0), 0.7, 0.05);
}

TEST(StemRender, ScanDistortionIsSmallAndScalesWithItsParameter) {
  ImagingParams p = ideal(64);
  Rng rng(1);
  EXPECT_EQ(draw_scan_distortion(p, rng).max_shift, 0.0);
  for (double D : {0.05, 0.2}) {
    p.distortion = D;
    Rng r(2);
    const ScanDistortion d = draw_scan_distortion(p, r);
    EXPECT_GT(d.max_shift, 0.5 * D);
    EXPECT_LT(d.max_shift, 10 * D);
    // Line jitter: neighbouring rows are displaced differently.
    double diff = 0;
    for (int i = 1; i < p.size; ++i) diff += std::abs(d.dx[size_t(i) * 64 + 32] - d.dx[size_t(i - 1) * 64 + 32]);
    EXPECT_GT(diff / (p.size - 1), 0.3 * D);
  }
}

// ----------------------------------------------------------------- noise

TEST(StemNoise, PoissonPlusGaussianMoments) {
  // A flat signal: counts have mean = dose and variance = dose + read^2.
  const std::vector<double> flat(256 * 256, 1.0);
  for (auto [dose, read] : std::vector<std::pair<double, double>>{{5, 0}, {20, 3}, {200, 0}, {200, 10}}) {
    ImagingParams p;
    p.dose = dose;
    p.read_noise = read;
    Rng rng(9);
    const std::vector<double> c = detect(flat, p, rng);
    double m = 0, v = 0;
    for (double x : c) m += x;
    m /= double(c.size());
    for (double x : c) v += (x - m) * (x - m);
    v /= double(c.size() - 1);
    const double var = dose + read * read;
    EXPECT_NEAR(m, dose, 4 * std::sqrt(var / double(c.size()))) << dose << " " << read;
    EXPECT_NEAR(v, var, 0.03 * var) << dose << " " << read;
  }
  // On a real image: the residual about dose * s / mean(s) has variance
  // equal to the mean count plus the read variance.
  ImagingParams p = ideal(128);
  p.dose = 30;
  p.read_noise = 2;
  Rng rng(10);
  const Crystal c = make_bravais_crystal(LatticeSystem::Hexagonal, MotifOptions{}, rng);
  const std::vector<double> s = render_ideal(c, {0.2, {0, 0}}, p);
  const std::vector<double> counts = detect(s, p, rng);
  double ms = 0;
  for (double x : s) ms += x;
  ms /= double(s.size());
  double r2 = 0, mean_count = 0;
  for (size_t q = 0; q < s.size(); ++q) {
    const double lambda = p.dose * s[q] / ms;
    r2 += (counts[q] - lambda) * (counts[q] - lambda);
    mean_count += lambda;
  }
  EXPECT_NEAR(mean_count / double(s.size()), 30, 1e-9);
  EXPECT_NEAR(r2 / double(s.size()), 30 + 4, 0.05 * 34);
}

TEST(StemNoise, ImagesAreNormalised) {
  StemConfig cfg;
  const std::vector<float> img = generate_image(cfg, 0, 3, 2);
  ASSERT_EQ(img.size(), 64u * 64u);
  double m = 0, v = 0;
  for (float x : img) m += x;
  m /= double(img.size());
  for (float x : img) v += (x - m) * (x - m);
  EXPECT_NEAR(m, 0, 1e-5);
  EXPECT_NEAR(v / double(img.size()), 1, 1e-4);
}

// ------------------------------------------------------------- the dataset

TEST(StemDataset, DeterministicForASeedAndAnyThreadCount) {
  for (StemTask task : {StemTask::Bravais, StemTask::Wallpaper}) {
    StemConfig cfg;
    cfg.task = task;
    cfg.train = 24;
    cfg.test = 7;
    const StemData one = generate_dataset(cfg, 1, nullptr), three = generate_dataset(cfg, 3, nullptr);
    EXPECT_EQ(one.train_images, three.train_images);
    EXPECT_EQ(one.test_images, three.test_images);
    EXPECT_EQ(one.train_labels, three.train_labels);
    EXPECT_EQ(one.test_labels, three.test_labels);
    // Each image is its own stream: regenerating one alone gives the same bytes.
    const std::vector<float> img5 = generate_image(cfg, 0, 5, int(one.train_labels[5]));
    EXPECT_TRUE(std::equal(img5.begin(), img5.end(), one.train_images.begin() + 5 * 64 * 64));
    // Train and test images differ; another seed gives other data.
    EXPECT_FALSE(std::equal(one.test_images.begin(), one.test_images.begin() + 4096, one.train_images.begin()));
    cfg.seed = 2;
    const StemData other = generate_dataset(cfg, 2, nullptr);
    EXPECT_NE(one.train_images, other.train_images);
  }
}

TEST(StemDataset, LabelsAreBalanced) {
  for (auto [n, k] : std::vector<std::pair<int64_t, int>>{{10000, 5}, {103, 5}, {17000, 17}, {40, 17}}) {
    const std::vector<int64_t> l = balanced_labels(n, k, 7, 0);
    ASSERT_EQ(int64_t(l.size()), n);
    std::vector<int64_t> count(size_t(k), 0);
    for (int64_t x : l) {
      ASSERT_GE(x, 0);
      ASSERT_LT(x, k);
      ++count[size_t(x)];
    }
    const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
    EXPECT_LE(*hi - *lo, 1);
    EXPECT_EQ(*lo, n / k);
  }
  // Shuffled, not cyclic.
  const std::vector<int64_t> l = balanced_labels(100, 5, 7, 0);
  int cyclic = 0;
  for (int i = 0; i < 100; ++i) cyclic += l[size_t(i)] == i % 5;
  EXPECT_LT(cyclic, 60);
}

TEST(StemDataset, ClassNames) {
  EXPECT_EQ(num_classes(StemTask::Bravais), 5);
  EXPECT_EQ(num_classes(StemTask::Wallpaper), 17);
  EXPECT_EQ(class_name(StemTask::Bravais, 2), "centred-rectangular");
  EXPECT_EQ(class_name(StemTask::Wallpaper, 0), "p1");
  EXPECT_EQ(class_name(StemTask::Wallpaper, 13), "p3m1");
  EXPECT_EQ(class_name(StemTask::Wallpaper, 16), "p6m");
}

// ------------------------------------------------------------ class masks

// An atom-finding configuration: carbon with 10% silicon dopants.
StemConfig atoms_config(double distortion) {
  StemConfig cfg;
  cfg.masks = true;
  cfg.motif.elements = {6};
  cfg.imaging.dopant_z = 14;
  cfg.imaging.dopant_rate = 0.1;
  cfg.imaging.distortion = distortion;
  return cfg;
}

TEST(StemMasks, RadiusIsTheProbesHalfMaximum) {
  for (double fwhm : {0.6, 1.0, 2.0}) {
    ImagingParams p;
    p.probe_fwhm = fwhm;
    const double sigma = fwhm / (2 * std::sqrt(2 * std::log(2.0))), r = mask_radius(p);
    EXPECT_NEAR(std::exp(-r * r / (2 * sigma * sigma)), 0.5, 1e-12);
  }
}

TEST(StemMasks, SpeciesListIsTheElementsThenTheDopant) {
  StemConfig cfg = atoms_config(0);
  EXPECT_EQ(species_list(cfg), (std::vector<int>{6, 14}));
  cfg.motif.elements = {16, 42, 16};
  cfg.imaging.dopant_z = 42;
  EXPECT_EQ(species_list(cfg), (std::vector<int>{16, 42}));
  cfg.imaging.dopant_rate = 0;
  cfg.imaging.dopant_z = 0;
  cfg.motif.elements = {34};
  EXPECT_EQ(species_list(cfg), (std::vector<int>{34}));
}

// Without scan distortion the probe sits at the pixel centre: a pixel is
// labelled k exactly when its nearest column within FWHM/2 has species k,
// and is background exactly when no column is that close.
TEST(StemMasks, PixelsLieWithinTheRadiusOfAColumnOfTheirSpecies) {
  const StemConfig cfg = atoms_config(0);
  const ImagingParams &p = cfg.imaging;
  const double radius = mask_radius(p);
  const int n = p.size;
  int64_t labelled = 0, dopant = 0, columns = 0;
  for (int64_t idx = 0; idx < 20; ++idx) {
    const Sample s = generate_sample(cfg, 1, idx, int(idx % 5));
    ASSERT_EQ(s.mask.size(), size_t(n) * n);
    columns += int64_t(s.columns.size());
    std::vector<int> pixels(s.columns.size(), 0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const Vec2 q{(j + 0.5) * p.pixel_size, (i + 0.5) * p.pixel_size};
        double best = 1e300;
        int nearest = -1;
        for (size_t c = 0; c < s.columns.size(); ++c) {
          const double d = norm(q - Vec2{s.columns[c].x_A, s.columns[c].y_A});
          if (d < best) best = d, nearest = int(c);
        }
        const int64_t m = s.mask[size_t(i) * n + size_t(j)];
        if (best <= radius - 1e-6) {
          ASSERT_EQ(m, s.columns[size_t(nearest)].species) << "image " << idx << " pixel " << i << "," << j;
          ++pixels[size_t(nearest)];
        } else if (best > radius + 1e-6) {
          ASSERT_EQ(m, 0) << "image " << idx << " pixel " << i << "," << j << " at " << best << " Å";
        }
        labelled += m > 0;
        dopant += m == 2;
      }
    // Every listed column has pixels; its pixel and Å coordinates agree;
    // species and Z agree.
    for (size_t c = 0; c < s.columns.size(); ++c) {
      const ColumnRecord &r = s.columns[c];
      EXPECT_GT(pixels[c], 0) << "image " << idx << " column " << c;
      EXPECT_EQ(r.image, idx);
      EXPECT_NEAR(r.x_A, (r.x_px + 0.5) * p.pixel_size, 1e-9);
      EXPECT_NEAR(r.y_A, (r.y_px + 0.5) * p.pixel_size, 1e-9);
      EXPECT_EQ(r.z, r.species == 1 ? 6 : 14);
    }
  }
  // A disk of radius 2 pixels per column, one column per 6-9 Å²: about 10%
  // of the pixels; dopants about a tenth of those.
  const double frac = double(labelled) / double(20 * n * n);
  EXPECT_GT(frac, 0.06);
  EXPECT_LT(frac, 0.15);
  EXPECT_GT(double(dopant) / double(labelled), 0.05);
  EXPECT_LT(double(dopant) / double(labelled), 0.15);
  EXPECT_GT(columns, 20 * 20);
}

// With scan distortion the mask follows the probe: every column whose
// centre lies in the field gets pixels, and the listed columns are exactly
// those with pixels.
TEST(StemMasks, EveryColumnInTheFieldHasPixelsWithScanDistortion) {
  const StemConfig cfg = atoms_config(0.1);
  const ImagingParams &p = cfg.imaging;
  const double field = p.size * p.pixel_size;
  for (int64_t idx = 0; idx < 20; ++idx) {
    Rng rng(cfg.seed, image_stream(0, idx));
    const Scene sc = draw_scene(cfg, int(idx % 5), rng);
    const ScanDistortion d = draw_scan_distortion(p, rng);
    std::vector<Column> cols;
    render_signal(sc.crystal, sc.view, p, d, rng, &cols);
    std::vector<int> pixels;
    const std::vector<int64_t> mask = column_mask(cols, p, d, species_list(cfg), &pixels);
    size_t with_pixels = 0;
    for (size_t c = 0; c < cols.size(); ++c) {
      const Vec2 r = cols[c].r;
      if (r.x >= 0 && r.y >= 0 && r.x < field && r.y < field) EXPECT_GT(pixels[c], 0) << "image " << idx;
      with_pixels += pixels[c] > 0;
      // No column takes more than its disk (about 13 pixels at 2 px radius).
      EXPECT_LE(pixels[c], 21);
    }
    const Sample s = generate_sample(cfg, 0, idx, int(idx % 5));
    EXPECT_EQ(s.columns.size(), with_pixels);
    EXPECT_EQ(s.mask, mask);
  }
}

TEST(StemMasks, SameImagesAndDeterministic) {
  const StemConfig cfg = atoms_config(0.1);
  for (int64_t idx : {0, 7}) {
    const Sample a = generate_sample(cfg, 0, idx, 3), b = generate_sample(cfg, 0, idx, 3);
    EXPECT_EQ(a.image, generate_image(cfg, 0, idx, 3));
    EXPECT_EQ(a.mask, b.mask);
    EXPECT_EQ(a.columns.size(), b.columns.size());
  }
  // Masks do not change the images of the default configuration.
  StemConfig plain, masked;
  masked.masks = true;
  EXPECT_EQ(generate_image(plain, 1, 4, 2), generate_sample(masked, 1, 4, 2).image);
  // The whole dataset: any thread count, masks and columns in image order.
  StemConfig small = atoms_config(0.1);
  small.train = 12;
  small.test = 5;
  const StemData x = generate_dataset(small, 1, nullptr), y = generate_dataset(small, 3, nullptr);
  EXPECT_EQ(x.train_masks, y.train_masks);
  EXPECT_EQ(x.test_masks, y.test_masks);
  ASSERT_EQ(x.train_columns.size(), y.train_columns.size());
  for (size_t k = 0; k < x.train_columns.size(); ++k) {
    EXPECT_EQ(x.train_columns[k].x_A, y.train_columns[k].x_A);
    if (k) {
      EXPECT_LE(x.train_columns[k - 1].image, x.train_columns[k].image);
    }
  }
  EXPECT_EQ(x.train_masks.size(), size_t(12) * 64 * 64);
}

// Dopants replace their fraction of the columns, and only when asked for.
TEST(StemMasks, DopantsSubstituteTheirFraction) {
  StemConfig cfg = atoms_config(0);
  cfg.imaging.dopant_rate = 0.2;
  int64_t n = 0, doped = 0;
  for (int64_t idx = 0; idx < 40; ++idx)
    for (const ColumnRecord &c : generate_sample(cfg, 0, idx, int(idx % 5)).columns) {
      ++n;
      doped += c.z == 14;
    }
  EXPECT_NEAR(double(doped) / double(n), 0.2, 0.03) << n << " columns";
}

} // namespace
