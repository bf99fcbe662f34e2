// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg{channel-block=8}, canonicalize, cse, dx-propagate-layouts, canonicalize, cse)' --split-input-file %s | FileCheck %s
// RUN: not dx-opt --pass-pipeline='builtin.module(dx-to-linalg{channel-block=4})' --split-input-file %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: dx-to-linalg: channel-block must be 16, 8 or 0, not 4

// dx-to-linalg{channel-block=8}: the plan of propagate-layouts.mlir in
// blocks of 8 channels (nChw8c, the layout oneDNN's AVX2 convolutions
// compute in). 24 channels, no multiple of 16, are 3 blocks of 8: the relu
// between the convolutions runs on [?, 3, 8, 8, 8], nothing is converted.
// CHECK-LABEL: func.func @conv_relu_conv_24(
// CHECK: call @dxrt_conv2d_forward_blocked(%{{.*}}, %{{.*}}, %{{[^,]+}},
// CHECK-NOT: tensor.pack
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: linalg.generic
// CHECK-SAME: tensor<?x3x8x8x8xf32>
// CHECK: arith.maximumf
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK-NOT: dxrt_nchw
// CHECK: return
func.func @conv_relu_conv_24(%x: tensor<?x3x8x8xf32>, %w1: tensor<24x3x3x3xf32>, %w2: tensor<4x24x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 24 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<24x3x3x3xf32>) -> tensor<?x24x8x8xf32>
  %1 = dx.relu %0 : (tensor<?x24x8x8xf32>) -> tensor<?x24x8x8xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x24x8x8xf32>, tensor<4x24x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %2 : tensor<?x4x8x8xf32>
}

// -----

// conv -> batch norm -> relu -> max pool -> conv: the statistics sum the
// packed tensor into [4, 8] (one 8-channel vector per block), the pooling
// calls its _blocked kernel on [?, 4, 8, 8, 8] and writes [?, 4, 4, 4, 8].
// CHECK-LABEL: func.func @batchnorm_pool_between(
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK-NOT: tensor.pack
// CHECK-NOT: dxrt_nchw
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<?x4x8x8x8xf32>, tensor<4x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: arith.maximumf
// CHECK: memref.alloc({{.*}} : memref<?x4x4x4x8xf32>
// CHECK: call @dxrt_pool_forward_blocked(
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK-NOT: dxrt_nchw
// CHECK: return
func.func @batchnorm_pool_between(%x: tensor<?x3x8x8xf32>, %w1: tensor<32x3x3x3xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>, %w2: tensor<4x32x3x3xf32>) -> (tensor<?x4x4x4xf32>, tensor<32xf32>, tensor<32xf32>) {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<32x3x3x3xf32>) -> tensor<?x32x8x8xf32>
  %y, %mean, %var = dx.batchnorm_train %0 affine(%g, %b) {eps = 1.000000e-05 : f64} : (tensor<?x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<?x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>)
  %1 = dx.relu %y : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %2 = dx.maxpool %1 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x8x8xf32>) -> tensor<?x32x4x4xf32>
  %3 = dx.conv2d %2 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x4x4xf32>, tensor<4x32x3x3xf32>) -> tensor<?x4x4x4xf32>
  return %3, %mean, %var : tensor<?x4x4x4xf32>, tensor<32xf32>, tensor<32xf32>
}

// -----

// A channel slice at an offset that is no multiple of 8 (12) leaves its
// group in NCHW; 20 channels, no multiple of 8, stay NCHW too.
// CHECK-LABEL: func.func @unaligned_slice(
// CHECK-NOT: _blocked
// CHECK: return
func.func @unaligned_slice(%x: tensor<?x3x8x8xf32>, %w1: tensor<32x3x3x3xf32>, %w2: tensor<4x20x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<32x3x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.slice %0 {axis = 1 : i64, offset = 12 : i64} : (tensor<?x32x8x8xf32>) -> tensor<?x20x8x8xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x20x8x8xf32>, tensor<4x20x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %2 : tensor<?x4x8x8xf32>
}
