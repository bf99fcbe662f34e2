// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg, canonicalize, cse)' --split-input-file %s | FileCheck %s

// 3-D convolution and pooling call the 5-D kernels of libdxrt
// (runtime/include/dxrt/kernels.h), the depth value first in each group:
//   conv:  sd, sh, sw, pad front, back, top, bottom, left, right, dd, dh, dw, groups
//   pool:  kind (0 max, 1 avg), kd, kh, kw, sd, sh, sw, pad front, back, top, bottom, left, right

// CHECK-DAG: #[[ID5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[CH5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1)>
// CHECK-LABEL: func.func private @dxrt_conv3d_forward(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @conv3d_bias(
// CHECK-DAG: %[[C0:[^ ]+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:[^ ]+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:[^ ]+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:[^ ]+]] = arith.constant 3 : i64
// stride (1, 2, 1), pad (front 1, back 1, top 0, bottom 2, left 3, right 0), dilation (1, 1, 2), groups 1
// CHECK: call @dxrt_conv3d_forward(%{{.*}}, %{{.*}}, %{{.*}}, %[[C1]], %[[C2]], %[[C1]], %[[C1]], %[[C1]], %[[C0]], %[[C2]], %[[C3]], %[[C0]], %[[C1]], %[[C1]], %[[C2]], %[[C1]])
// The bias: a channel broadcast over the 5-D result.
// CHECK: linalg.generic {indexing_maps = [#[[ID5]], #[[CH5]], #[[ID5]]]
func.func @conv3d_bias(%x: tensor<?x2x4x6x5xf32>, %w: tensor<3x2x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<?x3x4x3x4xf32> {
  %0 = dx.conv3d %x params(%w, %b) {bias = true, dilation = array<i64: 1, 1, 2>, filters = 3 : i64, groups = 1 : i64, kernel = array<i64: 3, 3, 3>, pad = array<i64: 1, 1, 0, 2, 3, 0>, stride = array<i64: 1, 2, 1>} : (tensor<?x2x4x6x5xf32>, tensor<3x2x3x3x3xf32>, tensor<3xf32>) -> tensor<?x3x4x3x4xf32>
  return %0 : tensor<?x3x4x3x4xf32>
}

// -----

// The two gradients of one dy are one call, dxrt_conv3d_backward.
// CHECK-LABEL: func.func @conv3d_backward(
// CHECK: call @dxrt_conv3d_backward(
// CHECK-NOT: call @dxrt_conv3d_grad
// CHECK: return
func.func @conv3d_backward(%dy: tensor<?x3x4x4x4xf32>, %x: tensor<?x2x4x4x4xf32>, %w: tensor<3x2x1x1x1xf32>) -> (tensor<?x2x4x4x4xf32>, tensor<3x2x1x1x1xf32>) {
  %0 = dx.conv2d_grad_input %dy, %w {dilation = array<i64: 1, 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<?x3x4x4x4xf32>, tensor<3x2x1x1x1xf32>) -> tensor<?x2x4x4x4xf32>
  %1 = dx.conv2d_grad_weight %dy, %x {dilation = array<i64: 1, 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<?x3x4x4x4xf32>, tensor<?x2x4x4x4xf32>) -> tensor<3x2x1x1x1xf32>
  return %0, %1 : tensor<?x2x4x4x4xf32>, tensor<3x2x1x1x1xf32>
}

// -----

// A transposed 3-D convolution is the input gradient of a 3-D convolution.
// CHECK-LABEL: func.func @conv_transpose3d(
// CHECK: call @dxrt_conv3d_grad_input(
func.func @conv_transpose3d(%x: tensor<?x4x2x2x2xf32>, %w: tensor<4x2x2x2x2xf32>) -> tensor<?x2x4x4x4xf32> {
  %0 = dx.conv_transpose3d %x params(%w) {bias = false, dilation = array<i64: 1, 1, 1>, filters = 2 : i64, groups = 1 : i64, kernel = array<i64: 2, 2, 2>, output_padding = array<i64: 0, 0, 0>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 2, 2, 2>} : (tensor<?x4x2x2x2xf32>, tensor<4x2x2x2x2xf32>) -> tensor<?x2x4x4x4xf32>
  return %0 : tensor<?x2x4x4x4xf32>
}

// -----

// maxpool3d: kind 0, window (2, 2, 3), stride (2, 1, 3), pad (0, 1, 0, 0, 1, 1).
// CHECK-LABEL: func.func @maxpool3d(
// CHECK-DAG: %[[C0:[^ ]+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:[^ ]+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:[^ ]+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:[^ ]+]] = arith.constant 3 : i64
// CHECK: call @dxrt_pool3d_forward(%{{.*}}, %{{.*}}, %[[C0]], %[[C2]], %[[C2]], %[[C3]], %[[C2]], %[[C1]], %[[C3]], %[[C0]], %[[C1]], %[[C0]], %[[C0]], %[[C1]], %[[C1]])
func.func @maxpool3d(%x: tensor<?x2x4x4x6xf32>) -> tensor<?x2x2x3x2xf32> {
  %0 = dx.maxpool3d %x {kernel = array<i64: 2, 2, 3>, pad = array<i64: 0, 1, 0, 0, 1, 1>, stride = array<i64: 2, 1, 3>} : (tensor<?x2x4x4x6xf32>) -> tensor<?x2x2x3x2xf32>
  return %0 : tensor<?x2x2x3x2xf32>
}

// -----

// The pooling gradient of a 5-D x is dxrt_pool3d_grad (kind 1: average).
// CHECK-LABEL: func.func @avgpool3d_grad(
// CHECK: call @dxrt_pool3d_grad(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64,
func.func @avgpool3d_grad(%dy: tensor<?x2x2x2x2xf32>, %x: tensor<?x2x4x4x4xf32>) -> tensor<?x2x4x4x4xf32> {
  %0 = dx.pool_grad "avg" %dy, %x {kernel = array<i64: 2, 2, 2>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 2, 2, 2>} : (tensor<?x2x2x2x2xf32>, tensor<?x2x4x4x4xf32>) -> tensor<?x2x4x4x4xf32>
  return %0 : tensor<?x2x4x4x4xf32>
}

// -----

// global_avgpool and nearest upsampling of 5-D tensors are generated loops:
// a reduction over D, H, W, and a gather with one floordiv per scaled dim.
// CHECK-LABEL: func.func @gap3d(
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT: call
func.func @gap3d(%x: tensor<?x3x4x5x6xf32>) -> tensor<?x3xf32> {
  %0 = dx.global_avgpool %x : (tensor<?x3x4x5x6xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// CHECK-DAG: #[[UP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 floordiv 2, d3, d4 floordiv 3)>
// CHECK-LABEL: func.func @upsample3d(
// CHECK: linalg.generic {indexing_maps = [#[[UP]], 
// CHECK-NOT: call
func.func @upsample3d(%x: tensor<?x3x2x2x2xf32>) -> tensor<?x3x4x2x6xf32> {
  %0 = dx.upsample %x {mode = "nearest", scale = array<i64: 2, 1, 3>} : (tensor<?x3x2x2x2xf32>) -> tensor<?x3x4x2x6xf32>
  return %0 : tensor<?x3x4x2x6xf32>
}
