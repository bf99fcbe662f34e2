// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg, canonicalize, cse, linalg-fuse-elementwise-ops, canonicalize, cse)' --split-input-file %s | FileCheck %s

// Convolution and pooling are calls into libdxrt (runtime/include/dxrt/kernels.h)
// with the geometry as i64 scalars after the memrefs:
//   conv:  sh, sw, pad top, bottom, left, right, dh, dw, groups
//   pool:  kind (0 max, 1 avg), kh, kw, sh, sw, pad top, bottom, left, right
// The kernels take no bias: it is a channel-broadcast loop, fused with what follows.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func private @dxrt_conv2d_forward(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x3x8x8xf32>, %[[W:[^:]*]]: tensor<6x1x3x3xf32>, %[[B:[^:]*]]: tensor<6xf32>)
// CHECK-DAG: %[[C0:[^ ]+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:[^ ]+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:[^ ]+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:[^ ]+]] = arith.constant 3 : i64
// CHECK: %[[XC:.*]] = memref.cast %{{.*}} : memref<?x3x8x8xf32, strided<[?, ?, ?, ?], offset: ?>> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: %[[WC:.*]] = memref.cast %{{.*}} : memref<6x1x3x3xf32, strided<[?, ?, ?, ?], offset: ?>> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: %[[Y:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x6x4x3xf32>
// CHECK: %[[YC:.*]] = memref.cast %[[Y]]
// stride (2, 2), pad (top 1, bottom 1, left 0, right 2), dilation (1, 2), groups 3
// CHECK: call @dxrt_conv2d_forward(%[[XC]], %[[WC]], %[[YC]], %[[C2]], %[[C2]], %[[C1]], %[[C1]], %[[C0]], %[[C2]], %[[C1]], %[[C2]], %[[C3]])
// CHECK: %[[YT:.*]] = bufferization.to_tensor %[[Y]]
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[YT]], %[[B]] : tensor<?x6x4x3xf32>, tensor<6xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
func.func @conv_bias_relu(%x: tensor<?x3x8x8xf32>, %w: tensor<6x1x3x3xf32>, %b: tensor<6xf32>) -> tensor<?x6x4x3xf32> {
  %0 = dx.conv2d %x params(%w, %b) {bias = true, dilation = array<i64: 1, 2>, filters = 6 : i64, groups = 3 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 0, 2>, stride = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>, tensor<6x1x3x3xf32>, tensor<6xf32>) -> tensor<?x6x4x3xf32>
  %1 = dx.relu %0 : (tensor<?x6x4x3xf32>) -> tensor<?x6x4x3xf32>
  return %1 : tensor<?x6x4x3xf32>
}

// -----

// Without a bias: only the call.
// CHECK-LABEL: func.func @conv_nobias(
// CHECK: call @dxrt_conv2d_forward
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @conv_nobias(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32> {
  %0 = dx.conv2d %x params(%w) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

// The backward: both gradients are calls with the forward's geometry; the
// weight gradient has a static shape (no batch dim); the bias gradient is a
// reduction over N, H, W. The two gradients of one dy are one call,
// dxrt_conv2d_backward (dy, x, w -> dx, dw): dy is reordered once.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv_backward(
// CHECK-SAME: %[[DY:[^:]*]]: tensor<?x6x4x3xf32>
// CHECK-DAG: %[[C0:[^ ]+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:[^ ]+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:[^ ]+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:[^ ]+]] = arith.constant 3 : i64
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x3x8x8xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<6x1x3x3xf32>
// CHECK: call @dxrt_conv2d_backward(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C2]], %[[C2]], %[[C1]], %[[C1]], %[[C0]], %[[C2]], %[[C1]], %[[C2]], %[[C3]])
// CHECK-NOT: call @dxrt_conv2d_grad
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[DY]] : tensor<?x6x4x3xf32>) outs(%{{.*}} : tensor<6xf32>)
func.func @conv_backward(%dy: tensor<?x6x4x3xf32>, %x: tensor<?x3x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> (tensor<?x3x8x8xf32>, tensor<6x1x3x3xf32>, tensor<6xf32>) {
  %0 = dx.conv2d_grad_input %dy, %w {dilation = array<i64: 1, 2>, groups = 3 : i64, pad = array<i64: 1, 1, 0, 2>, stride = array<i64: 2, 2>} : (tensor<?x6x4x3xf32>, tensor<6x1x3x3xf32>) -> tensor<?x3x8x8xf32>
  %1 = dx.conv2d_grad_weight %dy, %x {dilation = array<i64: 1, 2>, groups = 3 : i64, pad = array<i64: 1, 1, 0, 2>, stride = array<i64: 2, 2>} : (tensor<?x6x4x3xf32>, tensor<?x3x8x8xf32>) -> tensor<6x1x3x3xf32>
  %2 = dx.sum %dy {axis = array<i64: 0, 2, 3>, keepdim = false} : (tensor<?x6x4x3xf32>) -> tensor<6xf32>
  return %0, %1, %2 : tensor<?x3x8x8xf32>, tensor<6x1x3x3xf32>, tensor<6xf32>
}

// -----

// conv_transpose2d is the input gradient of a convolution: the same kernel,
// its bias a channel-broadcast loop.
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv_transpose(
// CHECK-DAG: %[[C0:[^ ]+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:[^ ]+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:[^ ]+]] = arith.constant 2 : i64
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x2x10x10xf32>
// CHECK: call @dxrt_conv2d_grad_input(%{{.*}}, %{{.*}}, %{{.*}}, %[[C2]], %[[C2]], %[[C0]], %[[C0]], %[[C0]], %[[C0]], %[[C1]], %[[C1]], %[[C1]])
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[CH]], #{{.*}}]
// CHECK-SAME: tensor<?x2x10x10xf32>, tensor<2xf32>
func.func @conv_transpose(%x: tensor<?x4x5x5xf32>, %w: tensor<4x2x2x2xf32>, %b: tensor<2xf32>) -> tensor<?x2x10x10xf32> {
  %0 = dx.conv_transpose2d %x params(%w, %b) {bias = true, dilation = array<i64: 1, 1>, filters = 2 : i64, groups = 1 : i64, kernel = array<i64: 2, 2>, output_padding = array<i64: 0, 0>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x4x5x5xf32>, tensor<4x2x2x2xf32>, tensor<2xf32>) -> tensor<?x2x10x10xf32>
  return %0 : tensor<?x2x10x10xf32>
}

// -----

// Pooling: kind 0 is max, 1 is average. Two pools in a row hand the first
// result's buffer straight to the second call. Global average pooling is
// generated: a sum over H, W and a division by H*W.
// CHECK-LABEL: func.func @pools(
// CHECK-DAG: %[[C0:[^ ]+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:[^ ]+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:[^ ]+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:[^ ]+]] = arith.constant 3 : i64
// CHECK-DAG: %[[NINE:[^ ]+]] = arith.constant 9.000000e+00 : f32
// CHECK: %[[P1:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x4x3x3xf32>
// CHECK: %[[P1C:.*]] = memref.cast %[[P1]]
// CHECK: call @dxrt_pool_forward(%{{.*}}, %[[P1C]], %[[C0]], %[[C2]], %[[C2]], %[[C2]], %[[C2]], %[[C0]], %[[C0]], %[[C0]], %[[C0]])
// CHECK: %[[P2:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x4x3x3xf32>
// CHECK: %[[P2C:.*]] = memref.cast %[[P2]]
// CHECK: call @dxrt_pool_forward(%[[P1C]], %[[P2C]], %[[C1]], %[[C3]], %[[C3]], %[[C1]], %[[C1]], %[[C1]], %[[C1]], %[[C1]], %[[C1]])
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<?x4xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<?x4xf32>)
// CHECK: arith.divf %{{.*}}, %[[NINE]]
func.func @pools(%x: tensor<?x4x6x6xf32>) -> tensor<?x4xf32> {
  %0 = dx.maxpool %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x4x6x6xf32>) -> tensor<?x4x3x3xf32>
  %1 = dx.avgpool %0 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x4x3x3xf32>) -> tensor<?x4x3x3xf32>
  %2 = dx.global_avgpool %1 : (tensor<?x4x3x3xf32>) -> tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @pool_backward(
// CHECK-DAG: %[[C0:[^ ]+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C2:[^ ]+]] = arith.constant 2 : i64
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x4x6x6xf32>
// CHECK: call @dxrt_pool_grad(%{{.*}}, %{{.*}}, %{{.*}}, %[[C0]], %[[C2]], %[[C2]], %[[C2]], %[[C2]], %[[C0]], %[[C0]], %[[C0]], %[[C0]])
func.func @pool_backward(%dy: tensor<?x4x3x3xf32>, %x: tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32> {
  %0 = dx.pool_grad "max" %dy, %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x4x3x3xf32>, tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

// Gradients that do not share dy (or their convolution's attributes) stay
// two calls.
// CHECK-LABEL: func.func @conv_backward_unpaired(
// CHECK: call @dxrt_conv2d_grad_input(
// CHECK: call @dxrt_conv2d_grad_weight(
// CHECK-NOT: dxrt_conv2d_backward
func.func @conv_backward_unpaired(%dy: tensor<?x6x4x3xf32>, %dy2: tensor<?x6x4x3xf32>, %x: tensor<?x3x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> (tensor<?x3x8x8xf32>, tensor<6x1x3x3xf32>) {
  %0 = dx.conv2d_grad_input %dy, %w {dilation = array<i64: 1, 2>, groups = 3 : i64, pad = array<i64: 1, 1, 0, 2>, stride = array<i64: 2, 2>} : (tensor<?x6x4x3xf32>, tensor<6x1x3x3xf32>) -> tensor<?x3x8x8xf32>
  %1 = dx.conv2d_grad_weight %dy2, %x {dilation = array<i64: 1, 2>, groups = 3 : i64, pad = array<i64: 1, 1, 0, 2>, stride = array<i64: 2, 2>} : (tensor<?x6x4x3xf32>, tensor<?x3x8x8xf32>) -> tensor<6x1x3x3xf32>
  return %0, %1 : tensor<?x3x8x8xf32>, tensor<6x1x3x3xf32>
}

// -----

// A weight gradient before the input gradient stays its own call: its dw
// may be used before the input gradient's place.
// CHECK-LABEL: func.func @conv_backward_weight_first(
// CHECK: call @dxrt_conv2d_grad_weight(
// CHECK: call @dxrt_conv2d_grad_input(
// CHECK-NOT: dxrt_conv2d_backward
func.func @conv_backward_weight_first(%dy: tensor<?x6x4x3xf32>, %x: tensor<?x3x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> (tensor<?x3x8x8xf32>, tensor<6x1x3x3xf32>) {
  %1 = dx.conv2d_grad_weight %dy, %x {dilation = array<i64: 1, 2>, groups = 3 : i64, pad = array<i64: 1, 1, 0, 2>, stride = array<i64: 2, 2>} : (tensor<?x6x4x3xf32>, tensor<?x3x8x8xf32>) -> tensor<6x1x3x3xf32>
  %0 = dx.conv2d_grad_input %dy, %w {dilation = array<i64: 1, 2>, groups = 3 : i64, pad = array<i64: 1, 1, 0, 2>, stride = array<i64: 2, 2>} : (tensor<?x6x4x3xf32>, tensor<6x1x3x3xf32>) -> tensor<?x3x8x8xf32>
  return %0, %1 : tensor<?x3x8x8xf32>, tensor<6x1x3x3xf32>
}
