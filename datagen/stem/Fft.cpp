#include "stem/Fft.h"

#include <cmath>
#include <stdexcept>

namespace dxgen::stem {

void fft(std::vector<std::complex<double>> &x) {
  const size_t n = x.size();
  if (n == 0 || (n & (n - 1))) throw std::invalid_argument("fft: size must be a power of two");
  // Bit-reversal permutation, then iterative Cooley-Tukey butterflies.
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const double ang = -2 * M_PI / double(len);
    const std::complex<double> wl(std::cos(ang), std::sin(ang));
    for (size_t i = 0; i < n; i += len) {
      std::complex<double> w(1, 0);
      for (size_t k = 0; k < len / 2; ++k) {
        const std::complex<double> u = x[i + k], v = x[i + k + len / 2] * w;
        x[i + k] = u + v;
        x[i + k + len / 2] = u - v;
        w *= wl;
      }
    }
  }
}

void fft2d(std::vector<std::complex<double>> &x, int n) {
  if (x.size() != size_t(n) * size_t(n)) throw std::invalid_argument("fft2d: size must be n*n");
  std::vector<std::complex<double>> line(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) line[size_t(j)] = x[size_t(i) * n + size_t(j)];
    fft(line);
    for (int j = 0; j < n; ++j) x[size_t(i) * n + size_t(j)] = line[size_t(j)];
  }
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) line[size_t(i)] = x[size_t(i) * n + size_t(j)];
    fft(line);
    for (int i = 0; i < n; ++i) x[size_t(i) * n + size_t(j)] = line[size_t(i)];
  }
}

} // namespace dxgen::stem
