// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg{channel-block=16 generated-pooling=1}, canonicalize, cse, dx-propagate-layouts, canonicalize, cse, linalg-fuse-elementwise-ops, canonicalize, cse, dx-fuse-cheap-producers, canonicalize, cse)' --split-input-file %s | FileCheck %s
// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg{channel-block=16})' --split-input-file %s | FileCheck %s --check-prefix=LIB

// Generated 2-D max pooling (GeneratedMaxPool.h; dx-to-linalg's
// generated-pooling option, dxc's hidden --generated-pooling; without it,
// the LIB run, the library kernels): a channel-blocked pooling
// whose windows tile the plane reads the window's four strided slices of
// the packed input and yields the maximum and the winner's position (i8);
// its gradient reads dy and the winner at (h floordiv 2, w floordiv 2) and
// routes dy to the pixel whose position in its window, (h % 2) * 2 + w % 2,
// won. No dxrt_pool call remains. libdxrt's rule (the first NaN if there is
// one, else the first maximum) in two stages of one comparison per choice:
// the first maximum of the numbers (ogt), then every NaN from the last
// element to the first (uno); the position is chosen as an f32 and stored
// as i8.
// CHECK: #[[ID:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 floordiv 2, d3 floordiv 2, d4)>
// CHECK-LABEL: func.func @pool_and_grad(
// CHECK-NOT: dxrt_pool
// CHECK: %[[S00:.*]] = tensor.extract_slice %[[Y:.*]][0, 0, 0, 0, 0] [%{{.*}}, 2, 4, 4, 16] [1, 1, 2, 2, 1]
// CHECK: %[[S01:.*]] = tensor.extract_slice %[[Y]][0, 0, 0, 1, 0] [%{{.*}}, 2, 4, 4, 16] [1, 1, 2, 2, 1]
// CHECK: %[[S10:.*]] = tensor.extract_slice %[[Y]][0, 0, 1, 0, 0] [%{{.*}}, 2, 4, 4, 16] [1, 1, 2, 2, 1]
// CHECK: %[[S11:.*]] = tensor.extract_slice %[[Y]][0, 0, 1, 1, 0] [%{{.*}}, 2, 4, 4, 16] [1, 1, 2, 2, 1]
// CHECK: %[[POOL:.*]]:2 = linalg.generic {{.*}} ins(%[[S00]], %[[S01]], %[[S10]], %[[S11]] :
// CHECK-NOT: arith.cmpf ord
// CHECK-COUNT-3: arith.cmpf ogt
// CHECK-COUNT-4: arith.cmpf uno
// CHECK:   %[[WIN:.*]] = arith.fptoui %{{.*}} : f32 to i8
// CHECK:   linalg.yield %{{.*}}, %[[WIN]] : f32, i8
// CHECK: } -> (tensor<?x2x4x4x16xf32>, tensor<?x2x4x4x16xi8>)
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK: linalg.generic {indexing_maps = [#[[Q]], #[[Q]], #[[ID]], #[[ID]]]{{.*}} ins(%{{.*}}, %[[POOL]]#1, %[[Y]] :
// CHECK:   linalg.index 2
// CHECK:   linalg.index 3
// CHECK:   arith.remui
// CHECK:   arith.cmpi eq
// CHECK: call @dxrt_conv2d_grad_input_blocked(
// CHECK-NOT: dxrt_pool
// CHECK: return
// LIB-LABEL: func.func @pool_and_grad(
// LIB: call @dxrt_pool_forward_blocked(
// LIB: call @dxrt_pool_grad_blocked(
func.func @pool_and_grad(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>, %dy: tensor<?x32x4x4xf32>) -> (tensor<?x32x4x4xf32>, tensor<?x32x8x8xf32>) {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.relu %0 : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %2 = dx.maxpool %1 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x8x8xf32>) -> tensor<?x32x4x4xf32>
  %3 = dx.conv2d %2 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x4x4xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32>
  %4 = dx.pool_grad "max" %dy, %1 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x4x4xf32>, tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %5 = dx.unary_grad "relu" %4, %1 {alpha = 0.000000e+00 : f64} : (tensor<?x32x8x8xf32>, tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %6 = dx.conv2d_grad_input %5, %w1 {dilation = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  return %3, %6 : tensor<?x32x4x4xf32>, tensor<?x32x8x8xf32>
}

// -----

// Without a gradient (an evaluation step) the pooling yields only the
// maximum, and the relu before it (dx-fuse-cheap-producers, rule 3) runs on
// the slices of the convolution's output inside the pooling's op: the relu's
// full-size output is never written.
// CHECK-LABEL: func.func @eval_pool(
// CHECK: %[[CONV:.*]] = bufferization.to_tensor %{{.*}} : memref<?x2x8x8x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: tensor.extract_slice %[[CONV]][0, 0, 0, 0, 0] [%{{.*}}, 2, 4, 4, 16] [1, 1, 2, 2, 1]
// CHECK: tensor.extract_slice %[[CONV]][0, 0, 1, 1, 0] [%{{.*}}, 2, 4, 4, 16] [1, 1, 2, 2, 1]
// CHECK: linalg.generic
// CHECK:   arith.maximumf
// CHECK:   linalg.yield %{{.*}} : f32
// CHECK: } -> tensor<?x2x4x4x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: call @dxrt_conv2d_forward_blocked(
func.func @eval_pool(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32> {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.relu %0 : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %2 = dx.maxpool %1 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x8x8xf32>) -> tensor<?x32x4x4xf32>
  %3 = dx.conv2d %2 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x4x4xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32>
  return %3 : tensor<?x32x4x4xf32>
}

// -----

// Overlapping windows (3x3, stride 2, padded) and a plane the window does
// not tile (7x7 in 2x2 windows: the last row and column are in no window)
// stay libdxrt's blocked kernels.
// CHECK-LABEL: func.func @not_tiling(
// CHECK: call @dxrt_pool_forward_blocked(
// CHECK: call @dxrt_pool_forward_blocked(
// CHECK: return
func.func @not_tiling(%x: tensor<?x32x7x7xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>) -> (tensor<?x32x4x4xf32>, tensor<?x32x3x3xf32>) {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x7x7xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x7x7xf32>
  %1 = dx.maxpool %0 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<?x32x7x7xf32>) -> tensor<?x32x4x4xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x4x4xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32>
  %3 = dx.maxpool %0 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x7x7xf32>) -> tensor<?x32x3x3xf32>
  %4 = dx.conv2d %3 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x3x3xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x3x3xf32>
  return %2, %4 : tensor<?x32x4x4xf32>, tensor<?x32x3x3xf32>
}
