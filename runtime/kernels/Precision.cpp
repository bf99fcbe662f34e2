#include "kernels/Precision.h"

#include "common/Check.h"
#include "kernels/Bf16Round.h"
#include "kernels/Onednn.h"

#include <atomic>
#include <cpuid.h>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>

namespace dxrt {

namespace {

std::atomic<int> g_precision{int(Precision::kFp32)};

bool cpuid_bf16() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool avx512f = b & (1u << 16);
  const bool amx_bf16 = d & (1u << 22);
  const unsigned max_sub = a;
  bool avx512_bf16 = false;
  if (max_sub >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) avx512_bf16 = a & (1u << 5);
  // The OS must save the AVX-512 state (XCR0 bits 5-7) for either to run.
  unsigned lo = 0, hi = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return false; // OSXSAVE
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  const bool os_avx512 = (lo & 0xe6) == 0xe6;
  return os_avx512 && avx512f && (avx512_bf16 || amx_bf16);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void to_bf16_avx512(const float *src, uint16_t *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + i + 16), _mm512_loadu_ps(src + i));
    _mm512_storeu_si512(reinterpret_cast<__m512i *>(dst + i), reinterpret_cast<__m512i>(v));
  }
  for (; i + 16 <= n; i += 16) {
    __m256bh v = _mm512_cvtneps_pbh(_mm512_loadu_ps(src + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i), reinterpret_cast<__m256i>(v));
  }
  if (i < n) {
    const __mmask16 m = __mmask16((1u << (n - i)) - 1);
    __m256bh v = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, src + i));
    _mm256_mask_storeu_epi16(dst + i, m, reinterpret_cast<__m256i>(v));
  }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void round_avx512(const float *src, float *dst,
                                                                                int64_t n) {
  int64_t i = 0;
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
    const __m256bh b = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, src + i));
    // The maskz forms: GCC 12 warns that the plain ones' undefined vector may be used.
    const __m512i wide =
        _mm512_maskz_slli_epi32(m, _mm512_maskz_cvtepu16_epi32(m, reinterpret_cast<__m256i>(b)), 16);
    _mm512_mask_storeu_ps(dst + i, m, _mm512_castsi512_ps(wide));
  }
}

} // namespace

bool cpu_has_bf16() {
  static const bool has = [] {
    const char *v = std::getenv("DXRT_CPU_BF16");
    if (v && std::strcmp(v, "0") == 0) return false;
    return cpuid_bf16();
  }();
  return has;
}

void set_matmul_precision(const char *who, const char *name, const char *target) {
  if (std::strcmp(name, "fp32") == 0) {
    g_precision = int(Precision::kFp32);
    return;
  }
  DXRT_CHECK(std::strcmp(name, "bf16") == 0, str(who, ": unknown precision '", name, "'"),
             "the model's metadata says fp32 or bf16: recompile it with this release's dxc");
  DXRT_CHECK(std::strcmp(target, "cpu") != 0 || cpu_has_bf16(),
             str(who, ": the model was compiled with precision bf16, but this CPU has no bf16 instructions "
                      "(AVX512_BF16 or AMX-BF16)"),
             "recompile with `dxc compile --precision fp32`, or run on a CPU with AVX512_BF16 (Cooper Lake, "
             "Sapphire Rapids, Zen 4 or later)");
  g_precision = int(Precision::kBf16);
}

Precision matmul_precision() { return Precision(g_precision.load(std::memory_order_relaxed)); }

const char *precision_name(Precision p) { return p == Precision::kBf16 ? "bf16" : "fp32"; }

const char *onednn_isa() {
  switch (dnnl::get_effective_cpu_isa()) {
  case dnnl::cpu_isa::sse41: return "sse41";
  case dnnl::cpu_isa::avx: return "avx";
  case dnnl::cpu_isa::avx2: return "avx2";
  case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
  case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
  case dnnl::cpu_isa::avx512_core: return "avx512_core";
  case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
  case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
  case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
  case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
  default: return "other";
  }
}

void to_bf16(const float *src, uint16_t *dst, int64_t n) {
  if (cpu_has_bf16()) {
    to_bf16_avx512(src, dst, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = round_bf16_bits(src[i]);
}

void round_to_bf16(const float *src, float *dst, int64_t n) {
  if (cpu_has_bf16()) {
    round_avx512(src, dst, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_float(round_bf16_bits(src[i]));
}

float bf16_to_float(uint16_t b) { return bf16_bits_to_float(b); }

} // namespace dxrt
