// A small radix-2 FFT, used by the tests to find the lattice in a rendered
// image (its Fourier peaks sit on the reciprocal lattice) and available to
// tools that inspect generated images.
#pragma once

#include <complex>
#include <vector>

namespace dxgen::stem {

// In-place forward DFT (X_k = sum_n x_n e^{-2 pi i k n / N}); N a power of two.
void fft(std::vector<std::complex<double>> &x);
// In-place forward 2-D DFT of an n x n row-major array, n a power of two.
void fft2d(std::vector<std::complex<double>> &x, int n);

} // namespace dxgen::stem
