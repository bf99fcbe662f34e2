// The AVX-512 building blocks of the stride-2 pooling loops, shared by the
// 2x2 loops of Pool.cpp and the 2x2x2 max gradient of Pool3d.cpp: a block of
// n <= 16 windows along a row, 2n floats read with masked loads (AVX-512
// masks suppress faults and writes outside them, so the rest of a row is one
// more, shorter block) and split into the windows' even and odd elements,
// and the inverse interleaving store. Lanes outside the mask see zeros, and
// nothing of them is stored. x86-64 only; the functions carry their own
// target attribute, so the including file needs no -mavx512f.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

namespace dxrt::avx512 {

#define DXRT_AVX512 __attribute__((target("avx512f")))

struct Block16 {
  __mmask16 in_lo, in_hi, out; // 2n input (or gradient-row) floats in two registers, n windows
};
inline Block16 block16(int64_t n) {
  const uint32_t in = uint32_t((uint64_t(1) << (2 * n)) - 1);
  return {__mmask16(in & 0xffff), __mmask16(in >> 16), __mmask16((uint32_t(1) << n) - 1)};
}
DXRT_AVX512 inline void split16(const float *p, const Block16 &t, __m512 &even, __m512 &odd) {
  const __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i io = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  __m512 lo = _mm512_maskz_loadu_ps(t.in_lo, p), hi = _mm512_maskz_loadu_ps(t.in_hi, p + 16);
  even = _mm512_permutex2var_ps(lo, ie, hi);
  odd = _mm512_permutex2var_ps(lo, io, hi);
}
DXRT_AVX512 inline void store_pairs16(float *o, __m512 even, __m512 odd, const Block16 &t) {
  const __m512i ilo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i ihi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  _mm512_mask_storeu_ps(o, t.in_lo, _mm512_permutex2var_ps(even, ilo, odd));
  _mm512_mask_storeu_ps(o + 16, t.in_hi, _mm512_permutex2var_ps(even, ihi, odd));
}
DXRT_AVX512 inline __mmask16 isnan16(__m512 v) { return _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q); }

} // namespace dxrt::avx512

#endif
