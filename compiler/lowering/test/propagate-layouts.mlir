// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg{channel-block=16}, canonicalize, cse, dx-propagate-layouts, canonicalize, cse)' --split-input-file %s | FileCheck %s

// conv -> relu -> conv, 32 channels between them: the first convolution
// writes nChw16c ([?, 2, 8, 8, 16]), the relu runs on it, the second reads
// it as it is: no pack, no unpack, no conversion call between them. The
// network's input (3 channels) and output (a function result) stay NCHW,
// passed as [?, C, H, W, 1].
// CHECK-LABEL: func.func @conv_relu_conv(
// CHECK: call @dxrt_conv2d_forward_blocked(%{{.*}}, %{{.*}}, %[[Y1:[^,]+]],
// CHECK-NOT: tensor.pack
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK: arith.maximumf
// CHECK: call @dxrt_conv2d_forward_blocked(
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
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<?x2x8x8x16xf32>, tensor<2x16xf32>)
// CHECK: call @dxrt_conv2d_forward_blocked(
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
// the group: the _blocked pooling kernel reads and writes nChw16c, and
// nothing is converted between the three calls.
// CHECK-LABEL: func.func @pool_between(
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK-NOT: tensor.pack
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: memref.alloc({{.*}} : memref<?x2x4x4x16xf32>
// CHECK: call @dxrt_pool_forward_blocked(
// CHECK-NOT: tensor.pack
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK: return
func.func @pool_between(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32> {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.maxpool %0 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x8x8xf32>) -> tensor<?x32x4x4xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x4x4xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32>
  return %2 : tensor<?x32x4x4xf32>
}

// -----

// The same, but the pooled tensor is also a function result, which needs
// NCHW: converting it (a quarter of the convolution's output) costs less
// than libdxrt's reorders of both convolution activations, so the group
// stays blocked and the result is converted. The second convolution reads
// the buffer the pooling wrote (keepOnlyUsefulBlocks once gave it a buffer
// of its own that nothing wrote).
// CHECK-LABEL: func.func @pool_result(
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK: %[[POOLED:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?x2x4x4x16xf32>
// CHECK: %[[P:.*]] = memref.cast %[[POOLED]]
// CHECK: call @dxrt_pool_forward_blocked(%{{.*}}, %[[P]],
// CHECK: call @dxrt_blocked_to_nchw(%[[P]],
// CHECK: call @dxrt_conv2d_forward_blocked(%[[P]],
// CHECK: return
func.func @pool_result(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>) -> (tensor<?x32x4x4xf32>, tensor<?x32x4x4xf32>) {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.maxpool %0 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x8x8xf32>) -> tensor<?x32x4x4xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x4x4xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32>
  return %2, %1 : tensor<?x32x4x4xf32>, tensor<?x32x4x4xf32>
}

// -----

// A relu between two convolutions whose output is also a function result
// (full size): converting it would cost what blocking saves, so the group
// stays NCHW: the NCHW kernels, no conversion.
// CHECK-LABEL: func.func @full_size_result(
// CHECK-NOT: _blocked
// CHECK: call @dxrt_conv2d_forward(
// CHECK: call @dxrt_conv2d_forward(
// CHECK-NOT: _blocked
// CHECK: return
func.func @full_size_result(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>) -> (tensor<?x32x8x8xf32>, tensor<?x32x8x8xf32>) {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.relu %0 : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  return %2, %1 : tensor<?x32x8x8xf32>, tensor<?x32x8x8xf32>
}

// -----

// One convolution, its relu and pooling, the pooled tensor the result (an
// evaluation step's conv -> relu -> pool -> flatten): converting the pooled
// tensor costs a quarter of what libdxrt's reorder of the convolution's
// output would, so the group is blocked. The input (a function argument,
// as large as what the convolution reads) stays NCHW.
// CHECK-LABEL: func.func @one_conv_pooled(
// CHECK-NOT: dxrt_nchw_to_blocked
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<?x2x8x8x16xf32>)
// CHECK: call @dxrt_pool_forward_blocked(
// CHECK: call @dxrt_blocked_to_nchw(
// CHECK: return
func.func @one_conv_pooled(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>) -> tensor<?x32x4x4xf32> {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %1 = dx.relu %0 : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %2 = dx.maxpool %1 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x32x8x8xf32>) -> tensor<?x32x4x4xf32>
  return %2 : tensor<?x32x4x4xf32>
}

// -----

// Channels that are no multiple of 16 (24) stay NCHW; without the option,
// dx-to-linalg calls the NCHW kernels (the default pipeline's choice is made
// by dxc: docs/codegen.md).
// CHECK-LABEL: func.func @odd_channels(
// CHECK-NOT: _blocked
// CHECK: call @dxrt_conv2d_forward(
// CHECK-NOT: _blocked
// CHECK: call @dxrt_conv2d_forward(
// CHECK-NOT: _blocked
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
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<?x2x8x8x16xf32>, tensor<?x2x8x8x16xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: tensor<?x2x8x8x16xf32>
// CHECK: arith.maximumf
// CHECK: call @dxrt_conv2d_forward_blocked(
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

// -----

// A batch norm between convolutions (conv -> batch norm -> relu -> conv)
// joins the group: its statistics are sums over N, H and W of the packed
// tensor into [2, 16] (one vector of 16 channels per block), its
// normalisation and the relu run on the packed tensor, and the running
// statistics take only the count from x. The normalisation reads two
// per-channel coefficients (scale and shift). The mean and variance go back
// to [32] for dx.running_stats.
// CHECK-LABEL: func.func @batchnorm_between(
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK-NOT: tensor.pack
// CHECK-NOT: dxrt_nchw
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<?x2x8x8x16xf32>, tensor<2x16xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x16xf32>, tensor<2x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<?x2x8x8x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<?x2x8x8x16xf32>)
// CHECK: arith.maximumf
// CHECK: call @dxrt_conv2d_forward_blocked(
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: return
func.func @batchnorm_between(%x: tensor<?x3x8x8xf32>, %w1: tensor<32x3x3x3xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>, %rm: tensor<32xf32>, %rv: tensor<32xf32>, %w2: tensor<4x32x3x3xf32>) -> (tensor<?x4x8x8xf32>, tensor<32xf32>, tensor<32xf32>) {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<32x3x3x3xf32>) -> tensor<?x32x8x8xf32>
  %y, %mean, %var = dx.batchnorm_train %0 affine(%g, %b) {eps = 1.000000e-05 : f64} : (tensor<?x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<?x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>)
  %nm, %nv = dx.running_stats %rm, %rv, %mean, %var, %0 {momentum = 1.000000e-01 : f64} : (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<?x32x8x8xf32>) -> (tensor<32xf32>, tensor<32xf32>)
  %1 = dx.relu %y : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %2 = dx.conv2d %1 params(%w2) {bias = false, dilation = array<i64: 1, 1>, filters = 4 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<4x32x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %2, %nm, %nv : tensor<?x4x8x8xf32>, tensor<32xf32>, tensor<32xf32>
}

// -----

// The gradient: dy comes from a convolution's input gradient, dx goes to
// another's, and the batch norm's backward pass (its sums of dy and
// dy * (x - mean) per channel, then dx) runs on the packed tensors between them.
// CHECK-LABEL: func.func @batchnorm_grad_between(
// CHECK: call @dxrt_conv2d_grad_input_blocked(
// CHECK-NOT: tensor.unpack
// CHECK-NOT: dxrt_nchw
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x2x8x8x16xf32>, tensor<?x2x8x8x16xf32>, tensor<2x16xf32>)
// CHECK-NOT: tensor.pack
// CHECK: call @dxrt_conv2d_grad_input_blocked(
// CHECK-NOT: dxrt_nchw
// CHECK: return
func.func @batchnorm_grad_between(%x: tensor<?x32x8x8xf32>, %w1: tensor<32x32x3x3xf32>, %g: tensor<32xf32>, %w2: tensor<32x32x3x3xf32>, %dz: tensor<?x32x8x8xf32>) -> (tensor<?x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>) {
  %0 = dx.conv2d %x params(%w1) {bias = false, dilation = array<i64: 1, 1>, filters = 32 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %dy = dx.conv2d_grad_input %dz, %w2 {dilation = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %dx, %dgamma, %dbeta = dx.norm_grad "batchnorm" %dy, %0 gamma(%g) {dims = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<?x32x8x8xf32>, tensor<?x32x8x8xf32>, tensor<32xf32>) -> (tensor<?x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>)
  %1 = dx.conv2d_grad_input %dx, %w1 {dilation = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  return %1, %dgamma, %dbeta : tensor<?x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>
}
