// The HAADF-STEM image model (docs/datagen-stem.md): the probe scans the
// field row by row; at each pixel the detected signal is the sum over atomic
// columns of Z^1.7 times a Gaussian probe profile (FWHM given) around the
// column, plus a flat background; the probe positions carry scan distortion
// (line jitter, a sinusoidal stray field, flyback lag, drift); columns are
// missing at the vacancy rate; the detector counts are Poisson at the dose
// plus Gaussian read noise; each image is then normalised to mean 0, std 1.
#pragma once

#include "common/Rng.h"
#include "stem/Crystal.h"

#include <vector>

namespace dxgen::stem {

struct ImagingParams {
  int size = 64;              // pixels, square
  double pixel_size = 0.25;   // Å per pixel
  double probe_fwhm = 1.0;    // Å
  double dose = 50;           // mean detected electrons per pixel
  double read_noise = 2.0;    // electrons, standard deviation
  double vacancy_rate = 0.02; // fraction of columns missing
  double distortion = 0.1;    // Å, scale of the scan distortions
  double background = 0.1;    // flat signal, as a fraction of the mean column signal
  double z_exponent = 1.7;
  // Substitutional dopants (off by default): each column independently is
  // atomic number dopant_z instead of its site's element with this probability.
  int dopant_z = 0;
  double dopant_rate = 0;
};

// One atomic column as rendered: nominal position in the image frame (Å from
// the field's top-left corner, x along the fast scan) and atomic number.
struct Column {
  Vec2 r;
  int z;
};

// Where the crystal sits: the crystal-frame point `origin` (Å) is at the
// image centre and the crystal is rotated by theta (radians) about it.
struct View {
  double theta = 0;
  Vec2 origin;
};

// Per-pixel displacement (Å) of the probe from its nominal position, drawn
// from rng (nothing drawn when distortion is 0). Row-major, size*size.
struct ScanDistortion {
  std::vector<double> dx, dy;
  double max_shift = 0;
};
ScanDistortion draw_scan_distortion(const ImagingParams &p, Rng &rng);

// The noise-free signal (arbitrary units, mean > 0), row-major size*size;
// pixel (i, j) is centred at ((j + 0.5) p, (i + 0.5) p) Å. Vacancies are
// drawn from rng in a fixed column order (then dopants, when dopant_rate > 0).
// With `columns`, every drawn column that reaches the field (vacancies left
// out) is appended to it.
std::vector<double> render_signal(const Crystal &c, const View &v, const ImagingParams &p,
                                  const ScanDistortion &d, Rng &rng, std::vector<Column> *columns = nullptr);

// The radius (Å) of a column in the class masks: where its probe profile is
// at least half its peak, i.e. FWHM / 2.
double mask_radius(const ImagingParams &p);

// Per-pixel class map (row-major size*size): 0 where no column's probe covers
// the pixel, else species(z) of the nearest column within mask_radius of the
// pixel's probe position (nominal centre plus the scan distortion d, so the
// mask lies where the column appears in the image). pixels[c] counts the
// pixels column c got (ties: the nearer column takes the pixel).
std::vector<int64_t> column_mask(const std::vector<Column> &columns, const ImagingParams &p, const ScanDistortion &d,
                                 const std::vector<int> &species_z, std::vector<int> *pixels = nullptr);

// Detector counts: Poisson(dose * s / mean(s)) + N(0, read_noise^2).
std::vector<double> detect(const std::vector<double> &signal, const ImagingParams &p, Rng &rng);

// (x - mean) / std as float32; all zeros for a constant image.
std::vector<float> normalise(const std::vector<double> &x);

} // namespace dxgen::stem
