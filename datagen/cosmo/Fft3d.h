// A radix-2 complex FFT in one and three dimensions for the cosmology
// generator (docs/datagen-cosmo.md): twiddles and the bit-reversal table are
// computed once per size, so a transform does no trigonometry. Plain C++ and
// deterministic (the same bytes on every machine and thread count; no FFTW).
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

namespace dxgen::cosmo {

using cplx = std::complex<double>;

// Length-n transforms, n a power of two (>= 2).
class Fft1d {
public:
  explicit Fft1d(int n);
  int size() const { return n_; }
  // In place: X_k = sum_j x_j e^{-2 pi i j k / n} (forward) or with e^{+...}
  // (inverse, unnormalised).
  void forward(cplx *x) const { run(x, false); }
  void inverse(cplx *x) const { run(x, true); }

private:
  void run(cplx *x, bool inverse) const;
  int n_;
  std::vector<int> reverse_;
  std::vector<cplx> twiddle_; // e^{-2 pi i k / n}, k < n/2
};

// n x n x n arrays in C order (x slowest, z fastest): element (i, j, l) at
// (i * n + j) * n + l.
class Fft3d {
public:
  explicit Fft3d(int n);
  int size() const { return fft_.size(); }
  // X(k) = sum_x f(x) e^{-i k.x}.
  void forward(std::vector<cplx> &f) const { run(f, false); }
  // The inverse, normalised: inverse(forward(f)) == f up to rounding.
  void inverse(std::vector<cplx> &f) const;

private:
  void run(std::vector<cplx> &f, bool inverse) const;
  Fft1d fft_;
};

} // namespace dxgen::cosmo
