// The precision of the matrix units: convolutions and dense layers either
// read their inputs in fp32 or as bf16 copies (round to nearest even) with
// fp32 accumulation and fp32 results, as PyTorch's autocast does on the CPU.
// Set once per process from the model's metadata (train block's
// `precision:`), before the first kernel runs; everything outside the
// matrix products (generated loops, pooling, reductions, the update) is
// fp32 either way. The CUDA target's kernels (runtime/cuda/Gemm.cpp,
// Conv.cpp) read the same setting.
#pragma once

#include <cstdint>

namespace dxrt {

enum class Precision { kFp32, kBf16 };

// "fp32" or "bf16"; throws dxrt::Error on another name, or on bf16 for the
// "cpu" target where the CPU has no bf16 instructions (cpu_has_bf16), before
// anything runs. For the "cuda" target the GPU is checked when it is
// selected (runtime/cuda/Device.h), not the host CPU.
void set_matmul_precision(const char *who, const char *name, const char *target = "cpu");
Precision matmul_precision();
const char *precision_name(Precision p);

// Whether the CPU has bf16 dot products (AVX512_BF16, or AMX-BF16), read
// from CPUID. DXRT_CPU_BF16=0 makes it false, to test the refusal on a
// machine that has them.
bool cpu_has_bf16();

// The instruction set oneDNN dispatches its kernels to on this CPU, e.g.
// "avx512_core_bf16" or "avx512_core_amx" (what `ONEDNN_VERBOSE` shows).
const char *onednn_isa();

// Rounds n floats to bf16 (round to nearest even; NaN stays NaN), vector
// code where the CPU has AVX512_BF16.
void to_bf16(const float *src, uint16_t *dst, int64_t n);
float bf16_to_float(uint16_t b);
// dst[i] = src[i] rounded to bf16, as a float (the low 16 bits zero): for
// kernels that compute in fp32 on inputs rounded as bf16 kernels see them
// (the direct convolution). dst may be src.
void round_to_bf16(const float *src, float *dst, int64_t n);

} // namespace dxrt
