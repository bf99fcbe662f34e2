// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg, canonicalize, cse)' --split-input-file %s | FileCheck %s

// A transposed convolution's backward pass: its input gradient is a
// convolution of dy, its weight gradient reads the same dy as x. The two are
// one call, dxrt_conv2d_forward_grad_weight (x, w, dy -> y, dw), at the
// convolution's place: libdxrt reorders x into oneDNN's layout once.
// CHECK-LABEL: func.func private @dxrt_conv2d_forward_grad_weight(
// CHECK-SAME: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @conv_transpose_backward(
// CHECK-DAG: %[[C0:[^ ]+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:[^ ]+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:[^ ]+]] = arith.constant 2 : i64
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x4x5x5xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4x2x2x2xf32>
// CHECK: call @dxrt_conv2d_forward_grad_weight(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C2]], %[[C2]], %[[C0]], %[[C0]], %[[C0]], %[[C0]], %[[C1]], %[[C1]], %[[C1]])
// CHECK-NOT: call @dxrt_conv2d_forward(
// CHECK-NOT: call @dxrt_conv2d_grad_weight(
func.func @conv_transpose_backward(%dyt: tensor<?x2x10x10xf32>, %x: tensor<?x4x5x5xf32>, %w: tensor<4x2x2x2xf32>) -> (tensor<?x4x5x5xf32>, tensor<4x2x2x2xf32>) {
  %0 = dx.conv2d %dyt params(%w) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x2x10x10xf32>, tensor<4x2x2x2xf32>) -> tensor<?x4x5x5xf32>
  %1 = dx.conv2d_grad_weight %x, %dyt {dilation = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x4x5x5xf32>, tensor<?x2x10x10xf32>) -> tensor<4x2x2x2xf32>
  return %0, %1 : tensor<?x4x5x5xf32>, tensor<4x2x2x2xf32>
}

// -----

// The 3-D twin.
// CHECK-LABEL: func.func @conv_transpose3d_backward(
// CHECK: call @dxrt_conv3d_forward_grad_weight(
// CHECK-NOT: call @dxrt_conv3d_forward(
// CHECK-NOT: call @dxrt_conv3d_grad_weight(
func.func @conv_transpose3d_backward(%dyt: tensor<?x2x4x4x4xf32>, %x: tensor<?x3x2x2x2xf32>, %w: tensor<3x2x2x2x2xf32>) -> (tensor<?x3x2x2x2xf32>, tensor<3x2x2x2x2xf32>) {
  %0 = dx.conv3d %dyt params(%w) {bias = false, dilation = array<i64: 1, 1, 1>, filters = 3 : i64, groups = 1 : i64, kernel = array<i64: 2, 2, 2>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 2, 2, 2>} : (tensor<?x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>) -> tensor<?x3x2x2x2xf32>
  %1 = dx.conv2d_grad_weight %x, %dyt {dilation = array<i64: 1, 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 2, 2, 2>} : (tensor<?x3x2x2x2xf32>, tensor<?x2x4x4x4xf32>) -> tensor<3x2x2x2x2xf32>
  return %0, %1 : tensor<?x3x2x2x2xf32>, tensor<3x2x2x2x2xf32>
}

// -----

// A layer's own forward convolution and weight gradient read the same x,
// but the weight gradient's dy is computed after the convolution: two calls.
// CHECK-LABEL: func.func @conv_layer_forward_backward(
// CHECK: call @dxrt_conv2d_forward(
// CHECK: call @dxrt_conv2d_grad_weight(
// CHECK-NOT: dxrt_conv2d_forward_grad_weight
func.func @conv_layer_forward_backward(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<?x4x6x6xf32>, tensor<4x3x3x3xf32>) {
  %0 = dx.conv2d %x params(%w) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  %1 = dx.relu %0 : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %2 = dx.conv2d_grad_weight %1, %x {dilation = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x4x6x6xf32>, tensor<?x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %0, %2 : tensor<?x4x6x6xf32>, tensor<4x3x3x3xf32>
}

// -----

// Another geometry (stride), or a convolution with a bias: two calls.
// CHECK-LABEL: func.func @unpaired(
// CHECK: call @dxrt_conv2d_forward(
// CHECK: call @dxrt_conv2d_grad_weight(
// CHECK: call @dxrt_conv2d_forward(
// CHECK: call @dxrt_conv2d_grad_weight(
// CHECK-NOT: dxrt_conv2d_forward_grad_weight
func.func @unpaired(%dyt: tensor<?x2x10x10xf32>, %x: tensor<?x4x5x5xf32>, %x9: tensor<?x4x9x9xf32>, %w: tensor<4x2x2x2xf32>, %b: tensor<4xf32>) -> (tensor<?x4x9x9xf32>, tensor<4x2x2x2xf32>, tensor<?x4x5x5xf32>, tensor<4x2x2x2xf32>) {
  %0 = dx.conv2d %dyt params(%w) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x2x10x10xf32>, tensor<4x2x2x2xf32>) -> tensor<?x4x9x9xf32>
  %1 = dx.conv2d_grad_weight %x, %dyt {dilation = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x4x5x5xf32>, tensor<?x2x10x10xf32>) -> tensor<4x2x2x2xf32>
  %2 = dx.conv2d %dyt params(%w, %b) {bias = true, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x2x10x10xf32>, tensor<4x2x2x2xf32>, tensor<4xf32>) -> tensor<?x4x5x5xf32>
  %3 = dx.conv2d_grad_weight %x, %dyt {dilation = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x4x5x5xf32>, tensor<?x2x10x10xf32>) -> tensor<4x2x2x2xf32>
  return %0, %1, %2, %3 : tensor<?x4x9x9xf32>, tensor<4x2x2x2xf32>, tensor<?x4x5x5xf32>, tensor<4x2x2x2xf32>
}
