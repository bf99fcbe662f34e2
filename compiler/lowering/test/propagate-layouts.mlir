// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg{nchw16c=1}, canonicalize, cse, dx-propagate-layouts, canonicalize, cse)' --split-input-file %s | FileCheck %s

// conv -> relu -> conv, 32 channels between them: the first convolution
// writes nChw16c ([?, 2, 8, 8, 16]), the relu runs on it, the second reads
// it as it is: no pack, no unpack, no conversion call between them. The
// network's input (3 channels) and output (a function result) stay NCHW,
// passed as [?, C, H, W, 1].
// CHECK-LABEL: func.func @conv_relu_conv(
// CHECK: call @dxrt_conv2d_forward_nchw16c(%{{.*}}, %{{.*}}, %[[Y1:[^,]+]],
// CHECK-NOT: tensor.pack
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK: arith.maximumf
// CHECK: call @dxrt_conv2d_forward_nchw16c(
// CHECK-NOT: dxrt_nchw
// CHECK: return
func.func @conv_relu_conv(%x: tensor<?x3x8x8xf32>, %w1: tensor<32x3x3x3xf32>, %w2: tensor<4x32x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<32x3x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.relu %0 : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<4x32x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %2 : tensor<?x4x8x8xf32>
}

// -----

// A bias (a per-channel vector, as [2, 16]) and the bias gradient (a sum
// per channel, computed on nChw16c and reshaped back to [32]) do not break
// the group.
// CHECK-LABEL: func.func @bias_and_bias_gradient(
// CHECK: call @dxrt_conv2d_forward_nchw16c(
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<?x2x8x8x16xf32>, tensor<2x16xf32>)
// CHECK: call @dxrt_conv2d_forward_nchw16c(
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x16xf32> into tensor<32xf32>
// CHECK-NOT: dxrt_nchw
// CHECK: return
func.func @bias_and_bias_gradient(%x: tensor<?x3x8x8xf32>, %w1: tensor<32x3x3x3xf32>, %b1: tensor<32xf32>, %w2: tensor<4x32x3x3xf32>) -> (tensor<?x4x8x8xf32>, tensor<32xf32>) {
  %0 = dx.conv2d %x params(%w1, %b1) {bias = true, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<32x3x3x3xf32>, tensor<32xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.relu %0 : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<4x32x3x3xf32>) -> tensor<?x4x8x8xf32>
  %3 = dx.sum %1 {axis = array<i64: 0, 2, 3>, keepdim = false} : (tensor<?x32x8x8xf32>) -> tensor<32xf32>
  return %2, %3 : tensor<?x4x8x8xf32>, tensor<32xf32>
}

// -----

// A max pooling between the convolutions joins its input and output to
// the group: the _nchw16c pooling kernel reads and writes nChw16c, and
// nothing is converted between the three calls.
// CHECK-LABEL: func.func @pool_between(
// CHECK: call @dxrt_conv2d_forward_nchw16c(
// CHECK-NOT: tensor.pack
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: memref.alloc({{.*}} : memref<?x2x4x4x16xf32>
// CHECK: call @dxrt_pool_forward_nchw16c(
// CHECK-NOT: tensor.pack
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: call @dxrt_conv2d_forward_nchw16c(
// CHECK: return
func.func @pool_between(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32> {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.maxpool %0 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x8x8xf32>) -> tensor<?x32x4x4xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x4x4xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32>
  return %2 : tensor<?x32x4x4xf32>
}

// -----

// The same, but the pooled tensor is also a function result: the group
// needs NCHW there, so it stays NCHW throughout: the NCHW kernels, no
// conversion.
// CHECK-LABEL: func.func @pool_result(
// CHECK-NOT: nchw16c
// CHECK: call @dxrt_conv2d_forward(
// CHECK: call @dxrt_pool_forward(
// CHECK: call @dxrt_conv2d_forward(
// CHECK-NOT: nchw16c
// CHECK: return
func.func @pool_result(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>) -> (tensor<?x32x4x4xf32>, tensor<?x32x4x4xf32>) {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.maxpool %0 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x8x8xf32>) -> tensor<?x32x4x4xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x4x4xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32>
  return %2, %1 : tensor<?x32x4x4xf32>, tensor<?x32x4x4xf32>
}

// -----

// Channels that are no multiple of 16 (24) stay NCHW; without the option,
// dx-to-linalg calls the NCHW kernels (the default pipeline's choice is made
// by dxc: docs/codegen.md).
// CHECK-LABEL: func.func @odd_channels(
// CHECK-NOT: nchw16c
// CHECK: call @dxrt_conv2d_forward(
// CHECK-NOT: nchw16c
// CHECK: call @dxrt_conv2d_forward(
// CHECK-NOT: nchw16c
// CHECK: return
func.func @odd_channels(%x: tensor<?x3x8x8xf32>, %w1: tensor<24x3x3x3xf32>, %w2: tensor<4x24x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 24 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<24x3x3x3xf32>) -> tensor<?x24x8x8xf32>
  %1 = dx.relu %0 : (tensor<?x24x8x8xf32>) -> tensor<?x24x8x8xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x24x8x8xf32>, tensor<4x24x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %2 : tensor<?x4x8x8xf32>
}

// -----

// Two convolutions added (a residual join): MLIR's propagation moves no
// unpack through a generic with two unpacked operands; dx-propagate-layouts'
// own pattern runs such an elementwise join on the packed tensors. The add,
// the relu and the three convolutions then work in nChw16c, with nothing
// converted between them.
// CHECK-LABEL: func.func @residual_add(
// CHECK: call @dxrt_conv2d_forward_nchw16c(
// CHECK: call @dxrt_conv2d_forward_nchw16c(
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<?x2x8x8x16xf32>, tensor<?x2x8x8x16xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: tensor<?x2x8x8x16xf32>
// CHECK: arith.maximumf
// CHECK: call @dxrt_conv2d_forward_nchw16c(
// CHECK-NOT: dxrt_nchw
// CHECK: return
func.func @residual_add(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>, %w3: tensor<4x32x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.conv2d %x params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %2 = dx.add %0, %1 : (tensor<?x32x8x8xf32>, tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %3 = dx.relu %2 : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %4 = dx.conv2d %3 params(%w3) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<4x32x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %4 : tensor<?x4x8x8xf32>
}
