#include "cosmo/Fft3d.h"

#include <cmath>
#include <stdexcept>

namespace dxgen::cosmo {

Fft1d::Fft1d(int n) : n_(n) {
  if (n < 2 || (n & (n - 1))) throw std::invalid_argument("Fft1d: size must be a power of two >= 2");
  reverse_.resize(size_t(n));
  int bits = 0;
  while ((1 << bits) < n) ++bits;
  for (int i = 0; i < n; ++i) {
    int r = 0;
    for (int b = 0; b < bits; ++b)
      if (i & (1 << b)) r |= 1 << (bits - 1 - b);
    reverse_[size_t(i)] = r;
  }
  twiddle_.resize(size_t(n / 2));
  for (int k = 0; k < n / 2; ++k) {
    const double a = -2 * M_PI * double(k) / double(n);
    twiddle_[size_t(k)] = cplx(std::cos(a), std::sin(a));
  }
}

void Fft1d::run(cplx *x, bool inverse) const {
  for (int i = 0; i < n_; ++i)
    if (i < reverse_[size_t(i)]) std::swap(x[i], x[reverse_[size_t(i)]]);
  for (int len = 2; len <= n_; len <<= 1) {
    const int half = len / 2, stride = n_ / len;
    for (int i = 0; i < n_; i += len)
      for (int k = 0; k < half; ++k) {
        const cplx w = inverse ? std::conj(twiddle_[size_t(k * stride)]) : twiddle_[size_t(k * stride)];
        const cplx u = x[i + k], v = x[i + k + half] * w;
        x[i + k] = u + v;
        x[i + k + half] = u - v;
      }
  }
}

Fft3d::Fft3d(int n) : fft_(n) {}

void Fft3d::run(std::vector<cplx> &f, bool inverse) const {
  const size_t n = size_t(fft_.size());
  if (f.size() != n * n * n) throw std::invalid_argument("Fft3d: the array must hold n^3 values");
  auto line_fft = [&](cplx *p) { inverse ? fft_.inverse(p) : fft_.forward(p); };
  // z: contiguous lines.
  for (size_t r = 0; r < n * n; ++r) line_fft(f.data() + r * n);
  // y and x: gather each line, transform, scatter back.
  std::vector<cplx> line(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t l = 0; l < n; ++l) {
      for (size_t j = 0; j < n; ++j) line[j] = f[(i * n + j) * n + l];
      line_fft(line.data());
      for (size_t j = 0; j < n; ++j) f[(i * n + j) * n + l] = line[j];
    }
  for (size_t j = 0; j < n; ++j)
    for (size_t l = 0; l < n; ++l) {
      for (size_t i = 0; i < n; ++i) line[i] = f[(i * n + j) * n + l];
      line_fft(line.data());
      for (size_t i = 0; i < n; ++i) f[(i * n + j) * n + l] = line[i];
    }
}

void Fft3d::inverse(std::vector<cplx> &f) const {
  run(f, true);
  const double s = 1.0 / double(f.size());
  for (cplx &v : f) v *= s;
}

} // namespace dxgen::cosmo
