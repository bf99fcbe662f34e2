// A small, fully specified random generator, so that a seed gives the same
// data with any compiler, standard library and thread count: xoshiro256**
// (Blackman & Vigna) seeded by splitmix64, with its own uniform, normal and
// Poisson draws (std::normal_distribution's algorithm is implementation-
// defined). Parallel work gives each task its own stream: Rng(seed, task).
#pragma once

#include <cmath>
#include <cstdint>

namespace dxgen {

inline uint64_t splitmix64(uint64_t &s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Rng {
public:
  // Stream `stream` of seed `seed`: independent streams for independent tasks.
  explicit Rng(uint64_t seed, uint64_t stream = 0) {
    uint64_t s = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
    for (uint64_t &w : s_) w = splitmix64(s);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n).
  uint64_t below(uint64_t n) { return uint64_t(uniform() * double(n)) % n; }
  // Standard normal (Box-Muller; the second value of each pair is kept).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = 0;
    while (u1 <= 0) u1 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1)), phi = 2.0 * M_PI * uniform();
    spare_ = r * std::sin(phi);
    has_spare_ = true;
    return r * std::cos(phi);
  }
  // Poisson(mean): multiplication method below 30, else the normal
  // approximation rounded and clipped at 0 (relative error < 1% there).
  double poisson(double mean) {
    if (mean <= 0) return 0;
    if (mean < 30) {
      const double limit = std::exp(-mean);
      double p = uniform();
      int k = 0;
      while (p > limit) {
        p *= uniform();
        ++k;
      }
      return k;
    }
    const double v = std::floor(mean + std::sqrt(mean) * normal() + 0.5);
    return v < 0 ? 0 : v;
  }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

} // namespace dxgen
