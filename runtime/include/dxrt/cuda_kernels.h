/* The device kernels of libdxrt_cuda, for code compiled with --target=cuda.
 * Each has the C signature of its CPU twin in kernels.h, named
 * _mlir_ciface_dxrt_cuda_* instead of _mlir_ciface_dxrt_*; the descriptors
 * hold device pointers (slices of the device arena) and the layouts and
 * semantics are the CPU kernels' (row-major, NCHW, OIHW). Everything is
 * queued on the library's one stream (dxrt_cuda_stream()) and returns
 * without waiting; a failure prints the kernel, the CUDA library's message
 * and a hint, and aborts.
 */
#ifndef DXRT_CUDA_KERNELS_H
#define DXRT_CUDA_KERNELS_H

#include "dxrt/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

void _mlir_ciface_dxrt_cuda_dense_forward(dxrt_memref2 *x, dxrt_memref2 *w, dxrt_memref2 *y);
void _mlir_ciface_dxrt_cuda_dense_grad_input(dxrt_memref2 *dy, dxrt_memref2 *w, dxrt_memref2 *dx);
void _mlir_ciface_dxrt_cuda_dense_grad_weight(dxrt_memref2 *dy, dxrt_memref2 *x, dxrt_memref2 *dw);

void _mlir_ciface_dxrt_cuda_conv2d_forward(dxrt_memref4 *x, dxrt_memref4 *w, dxrt_memref4 *y, int64_t sh,
                                           int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                           int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_grad_input(dxrt_memref4 *dy, dxrt_memref4 *w, dxrt_memref4 *dx, int64_t sh,
                                              int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                              int64_t dh, int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_grad_weight(dxrt_memref4 *dy, dxrt_memref4 *x, dxrt_memref4 *dw, int64_t sh,
                                               int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                               int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_backward(dxrt_memref4 *dy, dxrt_memref4 *x, dxrt_memref4 *w, dxrt_memref4 *dx,
                                            dxrt_memref4 *dw, int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                            int64_t pl, int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight(dxrt_memref4 *x, dxrt_memref4 *w, dxrt_memref4 *dy,
                                                       dxrt_memref4 *y, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                       int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                       int64_t ddw, int64_t groups);

/* The bf16 twins of the kernels above (kernels.h: x, dy or both in bf16, as
 * dxc's dx-bf16-product-inputs stores them): the fp32 kernel's result on the
 * operands widened, with a bf16 operand handed to cuBLAS or cuDNN as it is
 * wherever they read bf16. */
void _mlir_ciface_dxrt_cuda_dense_forward_bf16x(dxrt_memref2_bf16 *x, dxrt_memref2 *w, dxrt_memref2 *y);
void _mlir_ciface_dxrt_cuda_dense_grad_input_bf16dy(dxrt_memref2_bf16 *dy, dxrt_memref2 *w, dxrt_memref2 *dx);
void _mlir_ciface_dxrt_cuda_dense_grad_weight_bf16x(dxrt_memref2 *dy, dxrt_memref2_bf16 *x, dxrt_memref2 *dw);
void _mlir_ciface_dxrt_cuda_dense_grad_weight_bf16dy(dxrt_memref2_bf16 *dy, dxrt_memref2 *x, dxrt_memref2 *dw);
void _mlir_ciface_dxrt_cuda_dense_grad_weight_bf16xdy(dxrt_memref2_bf16 *dy, dxrt_memref2_bf16 *x, dxrt_memref2 *dw);
void _mlir_ciface_dxrt_cuda_conv2d_forward_bf16x(dxrt_memref4_bf16 *x, dxrt_memref4 *w, dxrt_memref4 *y, int64_t sh,
                                                 int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                 int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_grad_input_bf16dy(dxrt_memref4_bf16 *dy, dxrt_memref4 *w, dxrt_memref4 *dx,
                                                     int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                     int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_grad_weight_bf16x(dxrt_memref4 *dy, dxrt_memref4_bf16 *x, dxrt_memref4 *dw,
                                                     int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                     int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_grad_weight_bf16dy(dxrt_memref4_bf16 *dy, dxrt_memref4 *x, dxrt_memref4 *dw,
                                                      int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                      int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_grad_weight_bf16xdy(dxrt_memref4_bf16 *dy, dxrt_memref4_bf16 *x, dxrt_memref4 *dw,
                                                       int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                       int64_t pr, int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_backward_bf16x(dxrt_memref4 *dy, dxrt_memref4_bf16 *x, dxrt_memref4 *w,
                                                  dxrt_memref4 *dx, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                  int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                  int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_backward_bf16dy(dxrt_memref4_bf16 *dy, dxrt_memref4 *x, dxrt_memref4 *w,
                                                   dxrt_memref4 *dx, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                   int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                   int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_backward_bf16xdy(dxrt_memref4_bf16 *dy, dxrt_memref4_bf16 *x, dxrt_memref4 *w,
                                                    dxrt_memref4 *dx, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                    int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                    int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight_bf16x(dxrt_memref4_bf16 *x, dxrt_memref4 *w, dxrt_memref4 *dy,
                                                             dxrt_memref4 *y, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                             int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                             int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight_bf16dy(dxrt_memref4 *x, dxrt_memref4 *w, dxrt_memref4_bf16 *dy,
                                                              dxrt_memref4 *y, dxrt_memref4 *dw, int64_t sh, int64_t sw,
                                                              int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                              int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight_bf16xdy(dxrt_memref4_bf16 *x, dxrt_memref4 *w,
                                                               dxrt_memref4_bf16 *dy, dxrt_memref4 *y, dxrt_memref4 *dw,
                                                               int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                                               int64_t pl, int64_t pr, int64_t dh, int64_t ddw,
                                                               int64_t groups);

void _mlir_ciface_dxrt_cuda_conv3d_forward(dxrt_memref5 *x, dxrt_memref5 *w, dxrt_memref5 *y, int64_t sd,
                                           int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb,
                                           int64_t pl, int64_t pr, int64_t dd, int64_t dh, int64_t dw,
                                           int64_t groups);
void _mlir_ciface_dxrt_cuda_conv3d_grad_input(dxrt_memref5 *dy, dxrt_memref5 *w, dxrt_memref5 *dx, int64_t sd,
                                              int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt,
                                              int64_t pb, int64_t pl, int64_t pr, int64_t dd, int64_t dh,
                                              int64_t dw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv3d_grad_weight(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref5 *dw, int64_t sd,
                                               int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt,
                                               int64_t pb, int64_t pl, int64_t pr, int64_t dd, int64_t dh,
                                               int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv3d_backward(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref5 *w, dxrt_memref5 *dx,
                                            dxrt_memref5 *dw, int64_t sd, int64_t sh, int64_t sw, int64_t pf,
                                            int64_t pk, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dd,
                                            int64_t dh, int64_t ddw, int64_t groups);
void _mlir_ciface_dxrt_cuda_conv3d_forward_grad_weight(dxrt_memref5 *x, dxrt_memref5 *w, dxrt_memref5 *dy,
                                                       dxrt_memref5 *y, dxrt_memref5 *dw, int64_t sd, int64_t sh,
                                                       int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb,
                                                       int64_t pl, int64_t pr, int64_t dd, int64_t dh, int64_t ddw,
                                                       int64_t groups);

void _mlir_ciface_dxrt_cuda_pool_forward(dxrt_memref4 *x, dxrt_memref4 *y, int64_t kind, int64_t kh, int64_t kw,
                                         int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr);
void _mlir_ciface_dxrt_cuda_pool_grad(dxrt_memref4 *dy, dxrt_memref4 *x, dxrt_memref4 *dx, int64_t kind,
                                      int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                      int64_t pl, int64_t pr);

void _mlir_ciface_dxrt_cuda_pool3d_forward(dxrt_memref5 *x, dxrt_memref5 *y, int64_t kind, int64_t kd,
                                           int64_t kh, int64_t kw, int64_t sd, int64_t sh, int64_t sw, int64_t pf,
                                           int64_t pk, int64_t pt, int64_t pb, int64_t pl, int64_t pr);
void _mlir_ciface_dxrt_cuda_pool3d_grad(dxrt_memref5 *dy, dxrt_memref5 *x, dxrt_memref5 *dx, int64_t kind,
                                        int64_t kd, int64_t kh, int64_t kw, int64_t sd, int64_t sh, int64_t sw,
                                        int64_t pf, int64_t pk, int64_t pt, int64_t pb, int64_t pl, int64_t pr);

void _mlir_ciface_dxrt_cuda_upsample_bilinear_forward(dxrt_memref4 *x, dxrt_memref4 *y, int64_t sh, int64_t sw);
void _mlir_ciface_dxrt_cuda_upsample_bilinear_grad(dxrt_memref4 *dy, dxrt_memref4 *dx, int64_t sh, int64_t sw);
void _mlir_ciface_dxrt_cuda_upsample_trilinear_forward(dxrt_memref5 *x, dxrt_memref5 *y, int64_t sd, int64_t sh,
                                                       int64_t sw);
void _mlir_ciface_dxrt_cuda_upsample_trilinear_grad(dxrt_memref5 *dy, dxrt_memref5 *dx, int64_t sd, int64_t sh,
                                                    int64_t sw);

/* Element i of a Philox stream is the CPU kernel's element i: uniforms bit
 * for bit, normals equal or (rarely) one float ulp apart (CUDA's double
 * log/cos/sin against glibc's). */
void _mlir_ciface_dxrt_cuda_random_uniform(dxrt_memref1 *out, int64_t seed, int64_t step, int64_t rank,
                                           int64_t stream);
void _mlir_ciface_dxrt_cuda_random_normal(dxrt_memref1 *out, int64_t seed, int64_t step, int64_t rank,
                                          int64_t stream);

/* A rank-0 f32 memref (the descriptor MLIR passes for memref<f32>). */
typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
} dxrt_memref0_f32;

/* The step's device workspace (the twin of dxrt_workspace): at least `bytes`
 * bytes, 256-byte aligned, reused by every step, grown only when a step needs
 * more than before; and how often it grew / its size. */
void _mlir_ciface_dxrt_cuda_workspace(dxrt_memref_i8 *result, int64_t bytes);
int64_t dxrt_cuda_workspace_grows(void);
int64_t dxrt_cuda_workspace_bytes(void);
/* A device scalar (the step's loss) on the host, after the stream has run
 * everything queued before it. */
float _mlir_ciface_dxrt_cuda_read_f32(dxrt_memref0_f32 *scalar);

/* The library's stream (a cudaStream_t); generated launches go to it too. */
void *dxrt_cuda_stream(void);
/* Waits until everything queued on the stream has run. */
void dxrt_cuda_synchronize(void);
/* How often the kernels' device scratch grew (stops after the first step). */
int64_t dxrt_cuda_scratch_grows(void);

#ifdef __cplusplus
}
#endif

#endif /* DXRT_CUDA_KERNELS_H */
