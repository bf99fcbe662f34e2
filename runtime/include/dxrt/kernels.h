/* Kernels that generated code calls for the heavy operators. Generated code
 * declares them as external functions with MLIR's C interface, so each
 * memref argument arrives as a pointer to its descriptor. All tensors are
 * row-major (NCHW for images); a descriptor may carry an offset but its
 * strides must be those of a contiguous array. Everything runs on the
 * calling thread: data parallelism comes from MPI ranks, not threads.
 */
#ifndef DXRT_KERNELS_H
#define DXRT_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} dxrt_memref1;

typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} dxrt_memref2;

typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
} dxrt_memref4;

typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[5];
  int64_t strides[5];
} dxrt_memref5;

/* Dense layer, x [M, K], w [N, K] (PyTorch layout), y [M, N]:
 *   forward      y  = x  w^T
 *   grad_input   dx = dy w
 *   grad_weight  dw = dy^T x      (overwrites dw) */
void _mlir_ciface_dxrt_dense_forward(dxrt_memref2 *x, dxrt_memref2 *w, dxrt_memref2 *y);
void _mlir_ciface_dxrt_dense_grad_input(dxrt_memref2 *dy, dxrt_memref2 *w, dxrt_memref2 *dx);
void _mlir_ciface_dxrt_dense_grad_weight(dxrt_memref2 *dy, dxrt_memref2 *x, dxrt_memref2 *dw);

/* 2-D convolution, x [N, C, H, W], w [F, C/groups, KH, KW], y [N, F, HO, WO],
 * stride (sh, sw), padding (top, bottom, left, right), dilation (dh, dw).
 * The output size follows from the descriptors. No bias: generated code adds
 * it, fused with what follows.
 *   forward      y  = conv(x, w)
 *   grad_input   dx = d conv / dx applied to dy   (overwrites dx)
 *   grad_weight  dw = d conv / dw applied to dy   (overwrites dw) */
void _mlir_ciface_dxrt_conv2d_forward(dxrt_memref4 *x, dxrt_memref4 *w, dxrt_memref4 *y, int64_t sh, int64_t sw,
                                      int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh, int64_t dw,
                                      int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_input(dxrt_memref4 *dy, dxrt_memref4 *w, dxrt_memref4 *dx, int64_t sh,
                                         int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                         int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_weight(dxrt_memref4 *dy, dxrt_memref4 *x, dxrt_memref4 *dw, int64_t sh,
                                          int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                          int64_t ddw, int64_t groups);
/* Both gradients from one dy, as grad_input then grad_weight (the same
 * values), for a convolution whose dx and dw are both needed: dy is
 * reordered into oneDNN's layout once instead of twice. */
void _mlir_ciface_dxrt_conv2d_backward(dxrt_memref4 *dy, dxrt_memref4 *x, dxrt_memref4 *w, dxrt_memref4 *dx,
                                       dxrt_memref4 *dw, int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                       int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
/* y = conv(x, w) and the weight gradient dw from dy (the shape of y) of the
 * same geometry and x, as forward then grad_weight (the same values): x is
 * reordered into oneDNN's layout once instead of twice. The backward pass of
 * a transposed convolution is such a pair. */
void _mlir_ciface_dxrt_conv2d_forward_grad_weight(dxrt_memref4 *x, dxrt_memref4 *w, dxrt_memref4 *dy,
                                                  dxrt_memref4 *y, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                  int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                  int64_t ddw, int64_t groups);

/* The five 2-D convolutions above with each activation (x, y, dx, dy)
 * channel-blocked, [N, C/B, H, W, B] with B = 16 (nChw16c) or 8 (nChw8c)
 * (channel blocks of B innermost; C a multiple of B), or in NCHW as
 * [N, C, H, W, 1], and the weights in OIHW as above: the layouts oneDNN's
 * AVX-512 and AVX2 kernels compute in, which dxc keeps between
 * convolutions (docs/codegen.md). B is the memref's last size; the blocked
 * activations of one call share it. The same values as the NCHW kernels. */
void _mlir_ciface_dxrt_conv2d_forward_blocked(dxrt_memref5 *x, dxrt_memref4 *w, dxrt_memref5 *y, int64_t sh,
                                              int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                              int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_input_blocked(dxrt_memref5 *dy, dxrt_memref4 *w, dxrt_memref5 *dx, int64_t sh,
                                                 int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                 int64_t dh, int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_weight_blocked(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref4 *dw, int64_t sh,
                                                  int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                  int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_backward_blocked(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref4 *w, dxrt_memref5 *dx,
                                               dxrt_memref4 *dw, int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                               int64_t pl, int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked(dxrt_memref5 *x, dxrt_memref4 *w, dxrt_memref5 *dy,
                                                          dxrt_memref5 *y, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                          int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                          int64_t ddw, int64_t groups);
/* The two pooling kernels above with x, y (dy, dx) all in nChw16c
 * [N, C/16, H, W, 16], all in nChw8c [N, C/8, H, W, 8], or all NCHW passed
 * as [N, C, H, W, 1]: the same values as the NCHW kernels (the rule of each
 * lane is theirs). */
void _mlir_ciface_dxrt_pool_forward_blocked(dxrt_memref5 *x, dxrt_memref5 *y, int64_t kind, int64_t kh, int64_t kw,
                                            int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr);
void _mlir_ciface_dxrt_pool_grad_blocked(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref5 *dx, int64_t kind, int64_t kh,
                                         int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                         int64_t pr);
/* The two channel-blocked pooling kernels above on relu?(x * scale + shift)
 * instead of x, the product rounded before the sum and relu = max(v, +0)
 * with NaN kept (arith.maximumf): scale and shift hold C floats in channel
 * order ([C/B, B]), relu is 0 or 1. The gradient is with respect to that
 * input, as dxrt_pool_grad_blocked's on it. dxc's dx-fuse-pool-input calls
 * them in place of a generated per-channel map that only poolings read
 * (docs/codegen.md). */
void _mlir_ciface_dxrt_pool_forward_blocked_pre(dxrt_memref5 *x, dxrt_memref2 *scale, dxrt_memref2 *shift,
                                                dxrt_memref5 *y, int64_t kind, int64_t kh, int64_t kw, int64_t sh,
                                                int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                int64_t relu);
void _mlir_ciface_dxrt_pool_grad_blocked_pre(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref2 *scale,
                                             dxrt_memref2 *shift, dxrt_memref5 *dx, int64_t kind, int64_t kh,
                                             int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                             int64_t pr, int64_t relu);
/* y = x in the other layout: NCHW [N, C, H, W] <-> [N, C/B, H, W, B], B = 16 or 8. */
void _mlir_ciface_dxrt_nchw_to_blocked(dxrt_memref4 *x, dxrt_memref5 *y);
void _mlir_ciface_dxrt_blocked_to_nchw(dxrt_memref5 *x, dxrt_memref4 *y);

/* bf16 precision's product inputs held in bf16 (dxc's
 * dx-bf16-product-inputs, docs/codegen.md): an activation x, or a gradient
 * dy, of a dense layer or 2-D convolution that only products read is stored
 * in bf16 (the bits of a float's upper half, rounded as the products round
 * their inputs: to nearest even, NaN quiet, denormals to zero). These are
 * the kernels above with x (_bf16x), dy (_bf16dy) or both (_bf16xdy) in
 * bf16 and everything else fp32: the same values as those kernels given
 * the operands as floats, since rounding an already-rounded value changes
 * nothing. (The dy of _forward_grad_weight is a transposed convolution's
 * input.) */
typedef struct {
  uint16_t *allocated;
  uint16_t *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} dxrt_memref2_bf16;

typedef struct {
  uint16_t *allocated;
  uint16_t *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
} dxrt_memref4_bf16;

typedef struct {
  uint16_t *allocated;
  uint16_t *aligned;
  int64_t offset;
  int64_t sizes[5];
  int64_t strides[5];
} dxrt_memref5_bf16;

void _mlir_ciface_dxrt_dense_forward_bf16x(dxrt_memref2_bf16 *x, dxrt_memref2 *w, dxrt_memref2 *y);
void _mlir_ciface_dxrt_dense_grad_weight_bf16x(dxrt_memref2 *dy, dxrt_memref2_bf16 *x, dxrt_memref2 *dw);
void _mlir_ciface_dxrt_conv2d_forward_bf16x(dxrt_memref4_bf16 *x, dxrt_memref4 *w, dxrt_memref4 *y, int64_t sh,
                                            int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                            int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_weight_bf16x(dxrt_memref4 *dy, dxrt_memref4_bf16 *x, dxrt_memref4 *dw,
                                                int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_backward_bf16x(dxrt_memref4 *dy, dxrt_memref4_bf16 *x, dxrt_memref4 *w,
                                             dxrt_memref4 *dx, dxrt_memref4 *dw, int64_t sh, int64_t sw, int64_t pt,
                                             int64_t pb, int64_t pl, int64_t pr, int64_t dh, int64_t ddw,
                                             int64_t groups);
void _mlir_ciface_dxrt_conv2d_forward_grad_weight_bf16x(dxrt_memref4_bf16 *x, dxrt_memref4 *w, dxrt_memref4 *dy,
                                                        dxrt_memref4 *y, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                        int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                        int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_forward_blocked_bf16x(dxrt_memref5_bf16 *x, dxrt_memref4 *w, dxrt_memref5 *y,
                                                    int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                    int64_t pr, int64_t dh, int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_weight_blocked_bf16x(dxrt_memref5 *dy, dxrt_memref5_bf16 *x, dxrt_memref4 *dw,
                                                        int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                        int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_backward_blocked_bf16x(dxrt_memref5 *dy, dxrt_memref5_bf16 *x, dxrt_memref4 *w,
                                                     dxrt_memref5 *dx, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                     int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                     int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked_bf16x(dxrt_memref5_bf16 *x, dxrt_memref4 *w,
                                                                dxrt_memref5 *dy, dxrt_memref5 *y, dxrt_memref4 *dw,
                                                                int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                                                int64_t pl, int64_t pr, int64_t dh, int64_t ddw,
                                                                int64_t groups);

void _mlir_ciface_dxrt_dense_grad_input_bf16dy(dxrt_memref2_bf16 *dy, dxrt_memref2 *w, dxrt_memref2 *dx);
void _mlir_ciface_dxrt_dense_grad_weight_bf16dy(dxrt_memref2_bf16 *dy, dxrt_memref2 *x, dxrt_memref2 *dw);
void _mlir_ciface_dxrt_dense_grad_weight_bf16xdy(dxrt_memref2_bf16 *dy, dxrt_memref2_bf16 *x, dxrt_memref2 *dw);
void _mlir_ciface_dxrt_conv2d_grad_input_bf16dy(dxrt_memref4_bf16 *dy, dxrt_memref4 *w, dxrt_memref4 *dx, int64_t sh,
                                                int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_weight_bf16dy(dxrt_memref4_bf16 *dy, dxrt_memref4 *x, dxrt_memref4 *dw, int64_t sh,
                                                 int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                 int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_weight_bf16xdy(dxrt_memref4_bf16 *dy, dxrt_memref4_bf16 *x, dxrt_memref4 *dw,
                                                  int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                  int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_backward_bf16dy(dxrt_memref4_bf16 *dy, dxrt_memref4 *x, dxrt_memref4 *w, dxrt_memref4 *dx,
                                              dxrt_memref4 *dw, int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                              int64_t pl, int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_backward_bf16xdy(dxrt_memref4_bf16 *dy, dxrt_memref4_bf16 *x, dxrt_memref4 *w,
                                               dxrt_memref4 *dx, dxrt_memref4 *dw, int64_t sh, int64_t sw, int64_t pt,
                                               int64_t pb, int64_t pl, int64_t pr, int64_t dh, int64_t ddw,
                                               int64_t groups);
void _mlir_ciface_dxrt_conv2d_forward_grad_weight_bf16dy(dxrt_memref4 *x, dxrt_memref4 *w, dxrt_memref4_bf16 *dy,
                                                         dxrt_memref4 *y, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                         int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                         int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_forward_grad_weight_bf16xdy(dxrt_memref4_bf16 *x, dxrt_memref4 *w, dxrt_memref4_bf16 *dy,
                                                          dxrt_memref4 *y, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                          int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                          int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_input_blocked_bf16dy(dxrt_memref5_bf16 *dy, dxrt_memref4 *w, dxrt_memref5 *dx,
                                                        int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                        int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_weight_blocked_bf16dy(dxrt_memref5_bf16 *dy, dxrt_memref5 *x, dxrt_memref4 *dw,
                                                         int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                         int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_grad_weight_blocked_bf16xdy(dxrt_memref5_bf16 *dy, dxrt_memref5_bf16 *x, dxrt_memref4 *dw,
                                                          int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                          int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_backward_blocked_bf16dy(dxrt_memref5_bf16 *dy, dxrt_memref5 *x, dxrt_memref4 *w,
                                                      dxrt_memref5 *dx, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                      int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                      int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_backward_blocked_bf16xdy(dxrt_memref5_bf16 *dy, dxrt_memref5_bf16 *x, dxrt_memref4 *w,
                                                       dxrt_memref5 *dx, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                       int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                       int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked_bf16dy(dxrt_memref5 *x, dxrt_memref4 *w,
                                                                 dxrt_memref5_bf16 *dy, dxrt_memref5 *y,
                                                                 dxrt_memref4 *dw, int64_t sh, int64_t sw, int64_t pt,
                                                                 int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                                 int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked_bf16xdy(dxrt_memref5_bf16 *x, dxrt_memref4 *w,
                                                                  dxrt_memref5_bf16 *dy, dxrt_memref5 *y,
                                                                  dxrt_memref4 *dw, int64_t sh, int64_t sw, int64_t pt,
                                                                  int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                                  int64_t ddw, int64_t groups);

/* 3-D convolution, x [N, C, D, H, W], w [F, C/groups, KD, KH, KW],
 * y [N, F, DO, HO, WO], stride (sd, sh, sw), padding (front, back, top,
 * bottom, left, right), dilation (dd, dh, dw); otherwise as the 2-D kernels
 * above (no bias, dx and dw overwritten, backward = grad_input then
 * grad_weight). */
void _mlir_ciface_dxrt_conv3d_forward(dxrt_memref5 *x, dxrt_memref5 *w, dxrt_memref5 *y, int64_t sd, int64_t sh,
                                      int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb, int64_t pl,
                                      int64_t pr, int64_t dd, int64_t dh, int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_conv3d_grad_input(dxrt_memref5 *dy, dxrt_memref5 *w, dxrt_memref5 *dx, int64_t sd,
                                         int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb,
                                         int64_t pl, int64_t pr, int64_t dd, int64_t dh, int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_conv3d_grad_weight(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref5 *dw, int64_t sd,
                                          int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb,
                                          int64_t pl, int64_t pr, int64_t dd, int64_t dh, int64_t ddw,
                                          int64_t groups);
void _mlir_ciface_dxrt_conv3d_backward(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref5 *w, dxrt_memref5 *dx,
                                       dxrt_memref5 *dw, int64_t sd, int64_t sh, int64_t sw, int64_t pf, int64_t pk,
                                       int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dd, int64_t dh,
                                       int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_conv3d_forward_grad_weight(dxrt_memref5 *x, dxrt_memref5 *w, dxrt_memref5 *dy,
                                                  dxrt_memref5 *y, dxrt_memref5 *dw, int64_t sd, int64_t sh,
                                                  int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb,
                                                  int64_t pl, int64_t pr, int64_t dd, int64_t dh, int64_t ddw,
                                                  int64_t groups);

/* Pooling over x [N, C, H, W] into y [N, C, HO, WO]; kind 0 = max (padding
 * is -inf), 1 = average (padding counts as zeros, divisor kh*kw, as PyTorch's
 * count_include_pad default). grad writes dx (overwrites) from dy; for max it
 * routes each gradient to the first maximal element of its window. */
void _mlir_ciface_dxrt_pool_forward(dxrt_memref4 *x, dxrt_memref4 *y, int64_t kind, int64_t kh, int64_t kw,
                                    int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr);
void _mlir_ciface_dxrt_pool_grad(dxrt_memref4 *dy, dxrt_memref4 *x, dxrt_memref4 *dx, int64_t kind, int64_t kh,
                                 int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr);

/* 3-D pooling over x [N, C, D, H, W] into y [N, C, DO, HO, WO], window
 * (kd, kh, kw), stride (sd, sh, sw), padding (front, back, top, bottom,
 * left, right); kinds and semantics as the 2-D kernels above (average
 * divides by kd*kh*kw, max routes to the first maximal element; a NaN in a
 * window is its maximum, as PyTorch). */
void _mlir_ciface_dxrt_pool3d_forward(dxrt_memref5 *x, dxrt_memref5 *y, int64_t kind, int64_t kd, int64_t kh,
                                      int64_t kw, int64_t sd, int64_t sh, int64_t sw, int64_t pf, int64_t pk,
                                      int64_t pt, int64_t pb, int64_t pl, int64_t pr);
void _mlir_ciface_dxrt_pool3d_grad(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref5 *dx, int64_t kind, int64_t kd,
                                   int64_t kh, int64_t kw, int64_t sd, int64_t sh, int64_t sw, int64_t pf,
                                   int64_t pk, int64_t pt, int64_t pb, int64_t pl, int64_t pr);

/* Bilinear upsampling of x [N, C, H, W] into y [N, C, H*sh, W*sw] with
 * PyTorch's interpolate(mode="bilinear", align_corners=False,
 * scale_factor=(sh, sw)): output pixel o samples input coordinate
 * max((o + 0.5) / s - 0.5, 0). grad writes dx (overwrites) from dy, each
 * output's gradient shared among its four input pixels by the same weights. */
void _mlir_ciface_dxrt_upsample_bilinear_forward(dxrt_memref4 *x, dxrt_memref4 *y, int64_t sh, int64_t sw);
void _mlir_ciface_dxrt_upsample_bilinear_grad(dxrt_memref4 *dy, dxrt_memref4 *dx, int64_t sh, int64_t sw);

/* Trilinear upsampling of x [N, C, D, H, W] into y [N, C, D*sd, H*sh, W*sw]
 * with PyTorch's interpolate(mode="trilinear", align_corners=False,
 * scale_factor=(sd, sh, sw)): the bilinear rule above on each of the three
 * axes. grad writes dx (overwrites) from dy, each output's gradient shared
 * among its eight input elements by the same weights. */
void _mlir_ciface_dxrt_upsample_trilinear_forward(dxrt_memref5 *x, dxrt_memref5 *y, int64_t sd, int64_t sh,
                                                  int64_t sw);
void _mlir_ciface_dxrt_upsample_trilinear_grad(dxrt_memref5 *dy, dxrt_memref5 *dx, int64_t sd, int64_t sh,
                                               int64_t sw);

/* Counter-based random numbers (Philox-4x32-10) for dropout and randn_like:
 * element i of the op with stream s in the step keyed by (seed, step, rank)
 * gets the same value on every run. Fill `out` with uniforms in
 * [0, 1) or standard normals; element i of `out` gets draw i. */
void _mlir_ciface_dxrt_random_uniform(dxrt_memref1 *out, int64_t seed, int64_t step, int64_t rank, int64_t stream);
void _mlir_ciface_dxrt_random_normal(dxrt_memref1 *out, int64_t seed, int64_t step, int64_t rank, int64_t stream);

typedef struct {
  int8_t *allocated;
  int8_t *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} dxrt_memref_i8;

/* The workspace of a step: at least `bytes` bytes, 64-byte aligned, reused by
 * every step (the compiler plans all of a step's buffers inside it), grown
 * only when a step needs more than before. */
void _mlir_ciface_dxrt_workspace(dxrt_memref_i8 *result, int64_t bytes);
/* How often the workspace grew, and its size: a training loop that allocates
 * nothing per step sees the count stop after the first step. */
int64_t dxrt_workspace_grows(void);
int64_t dxrt_workspace_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* DXRT_KERNELS_H */
