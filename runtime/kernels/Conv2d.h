// The two implementations behind the dxrt_conv2d_* and dxrt_conv3d_* kernels
// (Conv2d.cpp): oneDNN's convolution primitives (Conv2dOnednn.cpp), and
// im2col + OpenBLAS GEMM (Conv2dIm2col.cpp), which takes every case oneDNN
// rejects and can be chosen for all with DXRT_CONV=im2col. Both read and
// write NCHW tensors and [F, C/groups, KH, KW] weights (NCDHW and
// [F, C/groups, KD, KH, KW] for a geometry with spatial == 3) with
// PyTorch's semantics. The functions keep their conv2d_ names: a 3-D
// convolution is the same code with a depth axis (kernels/Im2col.h).
#pragma once

#include "kernels/Im2col.h"

namespace dxrt {

// Which tensors are read and which written. Every function below takes its
// three tensors as (x side, w side, y side):
//   kForward     (x, w, y)    reads x and w, writes y
//   kGradInput   (dx, w, dy)  reads dy and w, writes dx
//   kGradWeight  (x, dw, dy)  reads x and dy, writes dw
enum class ConvDir : int { kForward = 0, kGradInput = 1, kGradWeight = 2 };

enum class ConvBackend : int { kOnednn = 0, kIm2col = 1 };

// The backend of the kernels: oneDNN unless the environment variable
// DXRT_CONV is "im2col" (read at the first call; another value throws
// dxrt::Error, so the driver and dx_model_open call conv_backend() and
// conv_algorithm() before any kernel runs). Tests switch it with
// set_conv_backend to run both paths on the same shapes.
ConvBackend conv_backend();
void set_conv_backend(ConvBackend backend);
// Whether the oneDNN backend hands few-channel geometries to conv2d_direct
// (default on; DXRT_CONV_DIRECT=0 at the first call turns it off). Tests
// turn it off to run oneDNN on those shapes.
void set_conv_direct(bool on);

// im2col + GEMM, one image and one group at a time: takes every geometry.
void conv2d_im2col(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y);

// Direct convolution on NCHW for few input channels (Conv2dDirect.cpp): the
// forward when C * KH * KW <= kDirectMaxTaps, stride and dilation 1, one
// group, and the weight gradient of such a layer with one input channel;
// 2-D geometries only. Cheaper than oneDNN there, which reorders the
// large tensor (y, or dy) to and from its blocked layout around a little
// arithmetic. conv2d_direct_applies says whether it takes the direction and
// geometry (never the input gradient: a first layer has none, and oneDNN's
// is fast where there is one).
constexpr int64_t kDirectMaxTaps = 27;
bool conv2d_direct_applies(ConvDir dir, const ConvGeometry &g);
void conv2d_direct(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y);
// For tests: the direction with one ISA's variant ("avx512f", "avx2",
// "baseline"); false, having done nothing, when this CPU lacks it.
bool conv2d_direct_isa(const char *isa, ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y);

// The dispatch of the dxrt_conv2d_* kernels on NCHW tensors (Conv2d.cpp):
// the direct kernel where it applies, else oneDNN, else im2col.
void conv2d_run(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y);
// The fused pairs of the dxrt_conv2d_backward and _forward_grad_weight
// kernels on NCHW tensors: one oneDNN call shares its reorder where no
// direct kernel takes a direction, else the directions one by one.
void conv2d_backward_run(const ConvGeometry &g, float *x, float *w, float *dy, float *dx, float *dw);
void conv2d_forward_grad_weight_run(const ConvGeometry &g, float *x, float *w, float *dy, float *y, float *dw);
// Whether the oneDNN backend is on and the geometry is not empty.
bool conv2d_onednn_applies(const ConvGeometry &g);
// Whether a bf16 twin hands its bf16 operands to oneDNN as they are
// (kXSideBf16, kYSideBf16 below) for direction `dir`, its activations in
// layouts `blocked` (BlockedSides): bf16 precision, oneDNN applies, and, for
// all-NCHW activations (0), the direct kernel does not take the direction,
// as in the NCHW dispatch. Otherwise they are widened for the fp32 kernel.
bool conv2d_onednn_reads_bf16(ConvDir dir, const ConvGeometry &g, int blocked);

// Which activations the oneDNN functions below take channel-blocked
// (kernels/BlockedLayout.h; 2-D, channels a multiple of the block), the
// layout oneDNN's kernels compute in, so that they are not reordered: the x
// side (x or dx), the y side (y or dy), both, or neither (0: NCHW); with
// kBlock8 the blocked sides are nChw8c (AVX2's), else nChw16c (AVX-512's).
// Weights are always OIHW.
// kXSideBf16 / kYSideBf16 (2-D only): the x side (x) / the y side (dy) is an
// input held in bf16 (the bf16 twins of kernels.h, Bf16Input.h), which
// oneDNN reads as it is. kYSideBf16 only where the y side is an input: the
// input and weight gradients.
enum BlockedSides : int { kXSideBlocked = 1, kYSideBlocked = 2, kBlock8 = 4, kXSideBf16 = 8, kYSideBf16 = 16 };
// The channel block of BlockedSides' blocked sides: 8 or 16.
inline int64_t channel_block(int blocked) { return blocked & kBlock8 ? 8 : 16; }

// oneDNN on the calling thread. Returns false, having done nothing, when
// oneDNN has no implementation for the geometry or only its slow reference
// one: the caller then runs conv2d_im2col. `blocked`: BlockedSides.
bool conv2d_onednn(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y, int blocked = 0);

// Both gradients of a convolution from one dy: dx (the x side) and dw,
// with oneDNN, reordering dy into the primitives' layout once when both
// want the same one. Returns false, having done nothing, when oneDNN has
// no (fast) implementation of either direction.
// `blocked` may carry kXSideBf16 (x in bf16, read by the weight gradient
// only; dx is fp32) and kYSideBf16 (dy in bf16, read by both).
bool conv2d_backward_onednn(const ConvGeometry &g, float *x, float *w, float *dy, float *dx, float *dw,
                            int blocked = 0);
// Whether conv2d_backward_onednn reorders dy once for the geometry (both
// primitives want dy in the same non-plain layout); for tests.
bool conv2d_backward_onednn_shares_dy(const ConvGeometry &g);

// A convolution and a weight gradient that read the same x: y = conv(x, w)
// and dw from dy, with oneDNN, reordering x into the primitives' layout once
// when both want the same one (the backward pass of a transposed
// convolution, whose input gradient convolves its dy and whose weight
// gradient reads that dy as x). Returns false, having done nothing, when
// oneDNN has no (fast) implementation of either direction. `blocked` may
// carry kXSideBf16 (x in bf16, read by both) and kYSideBf16 (dy in bf16,
// read by the weight gradient; y is fp32).
bool conv2d_forward_grad_weight_onednn(const ConvGeometry &g, float *x, float *w, float *dy, float *y, float *dw,
                                       int blocked = 0);
// Whether it reorders x once for the geometry; for tests.
bool conv2d_forward_grad_weight_onednn_shares_x(const ConvGeometry &g);

// The algorithm of oneDNN's 2-D convolutions. kAuto (the default) runs
// Winograd F(4x4, 3x3) where it is expected to pay and direct elsewhere
// (conv2d_winograd_pays); kDirect never runs Winograd; kWinograd runs it
// wherever oneDNN has it and gets it right (tests). The environment
// variable DXRT_CONV_ALGORITHM (auto, direct, winograd) sets it at the first
// call; set_conv_algorithm switches it (the primitive cache keys on it).
enum class ConvAlgorithm : int { kAuto = 0, kDirect = 1, kWinograd = 2 };
ConvAlgorithm conv_algorithm();
void set_conv_algorithm(ConvAlgorithm a);
// Whether kAuto tries Winograd on the geometry: 2-D, one group, 3x3,
// stride and dilation 1, the same padding (0 or 1) on every side, at least
// 16 channels on each side and 512 channel pairs, an output of at least 4x4
// (and fp32: oneDNN has no bf16 Winograd).
bool conv2d_winograd_pays(const ConvGeometry &g);

// The oneDNN implementation (e.g. "jit:avx512_core", "gemm:jit") that runs
// this convolution, or nullptr when it falls back to im2col; for tests and
// diagnostics. Creates the primitive if it is not cached yet.
const char *conv2d_onednn_impl(ConvDir dir, const ConvGeometry &g, int blocked = 0);
// How many of x, w, y the cached primitive reorders into another layout
// (-1: oneDNN does not run the geometry); for tests.
int conv2d_onednn_reorders(ConvDir dir, const ConvGeometry &g, int blocked = 0);

} // namespace dxrt
