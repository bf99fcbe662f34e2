// RUN: dx-opt --dx-bf16-product-inputs --split-input-file %s | FileCheck %s

// dx-bf16-product-inputs (Bf16ProductInputs.h): in bf16 precision, an
// activation that only matrix products read and a weight gradient reads
// again is stored in bf16. Here a relu (a linalg.generic that does not read
// its output) feeds a dense layer's forward and weight gradient: the generic
// itself yields bf16, rounded as the library rounds (VCVTNEPS2BF16: nearest
// even, NaN quiet, denormals to zero) in integer operations, and both calls
// go to their _bf16x twins, each with a to_memref of its own.
// CHECK-LABEL: func.func @dense_after_relu(
// CHECK:      %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x8xbf16>
// CHECK:      %[[H:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?x8xbf16>)
// CHECK:        arith.maximumf
// CHECK-NEXT:   %[[U:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:        arith.shrui %[[U]]
// CHECK:        arith.cmpi ugt, %{{.*}}, %c2139095040_i32
// CHECK:        arith.ori %{{.*}}, %c64_i32
// CHECK:        arith.addi %[[U]], %c32767_i32
// CHECK:        %[[BITS:.*]] = arith.trunci %{{.*}} : i32 to i16
// CHECK-NEXT:   %[[B:.*]] = arith.bitcast %[[BITS]] : i16 to bf16
// CHECK-NEXT:   linalg.yield %[[B]] : bf16
// CHECK:      } -> tensor<?x8xbf16>
// CHECK:      %[[M1:.*]] = bufferization.to_memref %[[H]] read_only {dx.kernel_arg = 1 : i64} : memref<?x8xbf16, strided<[?, ?], offset: ?>>
// CHECK:      %[[C1:.*]] = memref.cast %[[M1]] : memref<?x8xbf16, strided<[?, ?], offset: ?>> to memref<?x?xbf16, strided<[?, ?], offset: ?>>
// CHECK:      call @dxrt_dense_forward_bf16x(%[[C1]], %{{.*}}, %{{.*}}) : (memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
// CHECK:      %[[M2:.*]] = bufferization.to_memref %[[H]] read_only {dx.kernel_arg = 2 : i64}
// CHECK:      %[[C2:.*]] = memref.cast %[[M2]]
// CHECK:      call @dxrt_dense_grad_weight_bf16x(%{{.*}}, %[[C2]], %{{.*}})
// CHECK-NOT:  call @dxrt_dense_forward(
// CHECK-NOT:  call @dxrt_dense_grad_weight(
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @dxrt_dense_forward(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func private @dxrt_dense_grad_weight(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @dense_after_relu(%a: tensor<?x8xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  %m1 = bufferization.to_memref %h read_only {dx.kernel_arg = 1 : i64} : memref<?x8xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<?x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %m2 = bufferization.to_memref %h read_only {dx.kernel_arg = 2 : i64} : memref<?x8xf32, strided<[?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<?x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %c2, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}

// -----

// A library kernel's result (a pooling's output, an allocation whose cast
// the pooling writes and the convolutions read): a bf16 allocation, a
// rounding loop on memrefs right after the pooling, and the convolution's
// forward and backward read the bf16 copy; the pooling still writes fp32.
// CHECK-LABEL: func.func @conv_after_pool(
// CHECK:      %[[P:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x2x4x4x16xf32>
// CHECK:      %[[PC:.*]] = memref.cast %[[P]]
// CHECK:      call @dxrt_pool_forward_blocked(%{{.*}}, %[[PC]])
// CHECK-NEXT: %[[B:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x2x4x4x16xbf16>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[P]] : memref<?x2x4x4x16xf32>) outs(%[[B]] : memref<?x2x4x4x16xbf16>)
// CHECK:      %[[BC:.*]] = memref.cast %[[B]] : memref<?x2x4x4x16xbf16> to memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>
// CHECK-NEXT: call @dxrt_conv2d_forward_blocked_bf16x(%[[BC]],
// CHECK:      %[[BC2:.*]] = memref.cast %[[B]]
// CHECK-NEXT: call @dxrt_conv2d_backward_blocked_bf16x(%{{.*}}, %[[BC2]],
func.func private @dxrt_pool_forward_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>)
func.func private @dxrt_conv2d_forward_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>)
func.func private @dxrt_conv2d_backward_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>)
func.func @conv_after_pool(%n: index, %x: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %w: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %y: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %dy: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %dx: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %dw: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) {
  %p = memref.alloc(%n) {alignment = 64 : i64} : memref<?x2x4x4x16xf32>
  %pc = memref.cast %p : memref<?x2x4x4x16xf32> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_forward_blocked(%x, %pc) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) -> ()
  call @dxrt_conv2d_forward_blocked(%pc, %w, %y) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) -> ()
  call @dxrt_conv2d_backward_blocked(%dy, %pc, %w, %dx, %dw) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}

// -----

// A reshape of a library result (flatten before a dense layer): a rounding
// generic on tensors after the reshape; the fp32 tensor's last reader is
// that generic.
// CHECK-LABEL: func.func @dense_after_flatten(
// CHECK:      %[[F:.*]] = tensor.collapse_shape
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4x64xbf16>
// CHECK-NEXT: %[[R:.*]] = linalg.generic {{.*}} ins(%[[F]] : tensor<4x64xf32>) outs(%[[E]] : tensor<4x64xbf16>)
// CHECK:      bufferization.to_memref %[[R]] read_only
// CHECK:      call @dxrt_dense_forward_bf16x(
// CHECK:      bufferization.to_memref %[[R]] read_only
// CHECK:      call @dxrt_dense_grad_weight_bf16x(
func.func private @dxrt_dense_forward(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func private @dxrt_dense_grad_weight(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @dense_after_flatten(%pool: memref<4x4x4x4xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<4x4x4x4xf32>
  memref.copy %pool, %a : memref<4x4x4x4xf32> to memref<4x4x4x4xf32>
  %t = bufferization.to_tensor %a restrict writable : memref<4x4x4x4xf32>
  %f = tensor.collapse_shape %t [[0], [1, 2, 3]] : tensor<4x4x4x4xf32> into tensor<4x64xf32>
  %m1 = bufferization.to_memref %f read_only {dx.kernel_arg = 1 : i64} : memref<4x64xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<4x64xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %m2 = bufferization.to_memref %f read_only {dx.kernel_arg = 2 : i64} : memref<4x64xf32, strided<[?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<4x64xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %c2, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}

// -----

// Left alone: x read by something other than a product (here a generic after
// the forward call), x only read forward (no weight gradient: an evaluation
// step) from a producer that cannot write bf16 itself (an accumulation: a
// rounding loop would cost what the library's rounding costs), and x a
// function argument (the batch: rounding it frees nothing).
// CHECK-LABEL: func.func @other_reader(
// CHECK-NOT:  bf16
// CHECK:      return
// CHECK-LABEL: func.func @forward_only(
// CHECK-NOT:  bf16
// CHECK:      return
// CHECK-LABEL: func.func @argument(
// CHECK-NOT:  bf16
// CHECK:      return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @dxrt_dense_forward(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func private @dxrt_dense_grad_weight(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @other_reader(%a: tensor<4x8xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m1 = bufferization.to_memref %h read_only {dx.kernel_arg = 1 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %m2 = bufferization.to_memref %h read_only {dx.kernel_arg = 2 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %c2, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return %h : tensor<4x8xf32>
}
func.func @forward_only(%a: tensor<4x8xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m1 = bufferization.to_memref %h read_only {dx.kernel_arg = 1 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}
func.func @argument(%a: tensor<4x8xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %m1 = bufferization.to_memref %a read_only {dx.kernel_arg = 1 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %m2 = bufferization.to_memref %a read_only {dx.kernel_arg = 2 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %c2, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}

// -----

// A generic that reads its output's initial value (an accumulation) cannot
// yield bf16 in place: the rounding is a generic of its own after it.
// CHECK-LABEL: func.func @accumulating_producer(
// CHECK:      %[[ACC:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf32>)
// CHECK:      } -> tensor<4x8xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4x8xbf16>
// CHECK-NEXT: %[[R:.*]] = linalg.generic {{.*}} ins(%[[ACC]] : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xbf16>)
// CHECK:      call @dxrt_dense_forward_bf16x(
// CHECK:      call @dxrt_dense_grad_weight_bf16x(
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @dxrt_dense_forward(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func private @dxrt_dense_grad_weight(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @accumulating_producer(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%b : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m1 = bufferization.to_memref %h read_only {dx.kernel_arg = 1 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %m2 = bufferization.to_memref %h read_only {dx.kernel_arg = 2 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %c2, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}

// -----

// Left alone too: x read by a relu's mask in the backward pass (a generic
// that only compares x with zero), and by a generic that computes with x's
// value. The mask could read a bf16 x, but then its gradient could not be
// written in place over x, and the step's peak memory grew where it was
// measured (Bf16ProductInputs.cpp).
// CHECK-LABEL: func.func @relu_mask(
// CHECK-NOT:  bf16
// CHECK:      return
// CHECK-LABEL: func.func @value_reader(
// CHECK-NOT:  bf16
// CHECK:      return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @dxrt_dense_forward(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func private @dxrt_dense_grad_weight(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @relu_mask(%a: tensor<4x8xf32>, %g: tensor<4x8xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m1 = bufferization.to_memref %h read_only {dx.kernel_arg = 1 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %mask = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g, %h : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %p = arith.cmpf ogt, %in2, %zero : f32
    %r = arith.select %p, %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m2 = bufferization.to_memref %h read_only {dx.kernel_arg = 2 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %c2, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return %mask : tensor<4x8xf32>
}
func.func @value_reader(%a: tensor<4x8xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m1 = bufferization.to_memref %h read_only {dx.kernel_arg = 1 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.cmpf ogt, %in, %zero : f32
    %r = arith.select %p, %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m2 = bufferization.to_memref %h read_only {dx.kernel_arg = 2 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %c2, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return %sq : tensor<4x8xf32>
}

// -----

// A gradient dy that only a weight gradient reads (a first convolution's,
// after a batch norm's backward; its input gradient is not needed), from a
// generic that writes it without reading it: the generic yields bf16 and
// the weight gradient reads it as it is, _bf16dy; with its x in bf16 too
// (a relu's output that only the convolution reads), _bf16xdy. A dy that
// an input gradient reads too is left alone: written in bf16 it could not
// be written in place over the generic's last fp32 input, and the step's
// peak memory grew (Bf16ProductInputs.cpp).
// CHECK-LABEL: func.func @conv_dy(
// CHECK:      %[[DY:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x2x4x4x16xbf16>)
// CHECK:        arith.mulf
// CHECK:        arith.trunci
// CHECK:      } -> tensor<?x2x4x4x16xbf16>
// CHECK:      %[[M:.*]] = bufferization.to_memref %[[DY]] read_only {dx.kernel_arg = 0 : i64}
// CHECK:      %[[C:.*]] = memref.cast %[[M]]
// CHECK-NEXT: call @dxrt_conv2d_grad_weight_blocked_bf16dy(%[[C]], %{{.*}}, %{{.*}}) : (memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
// CHECK-LABEL: func.func @conv_x_and_dy(
// CHECK:      call @dxrt_conv2d_forward_blocked_bf16x(
// CHECK:      call @dxrt_conv2d_grad_weight_blocked_bf16xdy(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
// CHECK-LABEL: func.func @conv_dy_input_gradient(
// CHECK-NOT:  bf16
// CHECK:      return
#blk = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func private @dxrt_conv2d_forward_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>)
func.func private @dxrt_conv2d_grad_weight_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>)
func.func private @dxrt_conv2d_backward_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>)
func.func @conv_dy(%g: tensor<?x2x4x4x16xf32>, %s: tensor<?x2x4x4x16xf32>, %x: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %w: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %dx: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %dw: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %g, %c0 : tensor<?x2x4x4x16xf32>
  %e = tensor.empty(%n) : tensor<?x2x4x4x16xf32>
  %dy = linalg.generic {indexing_maps = [#blk, #blk, #blk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%g, %s : tensor<?x2x4x4x16xf32>, tensor<?x2x4x4x16xf32>) outs(%e : tensor<?x2x4x4x16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %r = arith.mulf %in, %in2 : f32
    linalg.yield %r : f32
  } -> tensor<?x2x4x4x16xf32>
  %m = bufferization.to_memref %dy read_only {dx.kernel_arg = 0 : i64} : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %c = memref.cast %m : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_conv2d_grad_weight_blocked(%c, %x, %dw) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}
func.func @conv_x_and_dy(%a: tensor<?x2x4x4x16xf32>, %g: tensor<?x2x4x4x16xf32>, %w: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %y: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %dx: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %dw: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x2x4x4x16xf32>
  %e = tensor.empty(%n) : tensor<?x2x4x4x16xf32>
  %h = linalg.generic {indexing_maps = [#blk, #blk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<?x2x4x4x16xf32>) outs(%e : tensor<?x2x4x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x2x4x4x16xf32>
  %m1 = bufferization.to_memref %h read_only {dx.kernel_arg = 0 : i64} : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_conv2d_forward_blocked(%c1, %w, %y) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) -> ()
  %e2 = tensor.empty(%n) : tensor<?x2x4x4x16xf32>
  %dy = linalg.generic {indexing_maps = [#blk, #blk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%g : tensor<?x2x4x4x16xf32>) outs(%e2 : tensor<?x2x4x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<?x2x4x4x16xf32>
  %m2 = bufferization.to_memref %dy read_only {dx.kernel_arg = 0 : i64} : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %m3 = bufferization.to_memref %h read_only {dx.kernel_arg = 1 : i64} : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %c3 = memref.cast %m3 : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_conv2d_grad_weight_blocked(%c2, %c3, %dw) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}
func.func @conv_dy_input_gradient(%g: tensor<?x2x4x4x16xf32>, %x: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %w: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %dx: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %dw: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %g, %c0 : tensor<?x2x4x4x16xf32>
  %e = tensor.empty(%n) : tensor<?x2x4x4x16xf32>
  %dy = linalg.generic {indexing_maps = [#blk, #blk], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%g : tensor<?x2x4x4x16xf32>) outs(%e : tensor<?x2x4x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<?x2x4x4x16xf32>
  %m = bufferization.to_memref %dy read_only {dx.kernel_arg = 0 : i64} : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %c = memref.cast %m : memref<?x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_conv2d_backward_blocked(%c, %x, %w, %dx, %dw) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}

// -----

// Through a reshape that nothing else reads (NCHW seen as [N, C, H, W, 1] by
// a _blocked kernel): the generic yields bf16 and the reshape is rebuilt on
// the bf16 tensor; no rounding loop of its own.
// CHECK-LABEL: func.func @dy_through_reshape(
// CHECK:      %[[G:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x8x4x4xbf16>)
// CHECK:      %[[X:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [%{{.*}}, 8, 4, 4, 1] : tensor<?x8x4x4xbf16> into tensor<?x8x4x4x1xbf16>
// CHECK-NEXT: bufferization.to_memref %[[X]]
// CHECK-NOT:  linalg.generic
// CHECK:      call @dxrt_conv2d_grad_weight_blocked_bf16dy(
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @dxrt_conv2d_grad_weight_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>)
func.func @dy_through_reshape(%g: tensor<?x8x4x4xf32>, %x: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %dw: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %g, %c0 : tensor<?x8x4x4xf32>
  %e = tensor.empty(%n) : tensor<?x8x4x4xf32>
  %dy = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g : tensor<?x8x4x4xf32>) outs(%e : tensor<?x8x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<?x8x4x4xf32>
  %v = tensor.expand_shape %dy [[0], [1], [2], [3, 4]] output_shape [%n, 8, 4, 4, 1] : tensor<?x8x4x4xf32> into tensor<?x8x4x4x1xf32>
  %m = bufferization.to_memref %v read_only {dx.kernel_arg = 0 : i64} : memref<?x8x4x4x1xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %c = memref.cast %m : memref<?x8x4x4x1xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_conv2d_grad_weight_blocked(%c, %x, %dw) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}

// -----

// A first dense layer without bias: dy read by its weight gradient only
// (_bf16dy). With a bias, its gradient reads dy's values: left alone.
// CHECK-LABEL: func.func @dense_dy(
// CHECK:      call @dxrt_dense_grad_weight_bf16dy(
// CHECK-LABEL: func.func @dense_dy_bias(
// CHECK-NOT:  bf16
// CHECK:      return
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func private @dxrt_dense_grad_weight(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @dense_dy(%g: tensor<4x8xf32>, %x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %dy = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m = bufferization.to_memref %dy read_only {dx.kernel_arg = 0 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c = memref.cast %m : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%c, %x, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}
func.func @dense_dy_bias(%g: tensor<4x8xf32>, %x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %dy = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m = bufferization.to_memref %dy read_only {dx.kernel_arg = 0 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c = memref.cast %m : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%c, %x, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %eb = tensor.empty() : tensor<8xf32>
  %fb = linalg.fill ins(%zero : f32) outs(%eb : tensor<8xf32>) -> tensor<8xf32>
  %db = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<4x8xf32>) outs(%fb : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %db : tensor<8xf32>
}

// -----

// A transposed convolution's input: its forward reads it as the dy of an
// input gradient, its backward as the dy of _forward_grad_weight (kept from
// the forward pass to the backward pass, like a weight gradient's x). Left
// alone: in bf16 it raised the peak memory of the models that have one.
// CHECK-LABEL: func.func @transposed_input(
// CHECK-NOT:  bf16
// CHECK:      return
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @dxrt_conv2d_grad_input(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>)
func.func private @dxrt_conv2d_forward_grad_weight(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>)
func.func @transposed_input(%a: tensor<?x8x4x4xf32>, %w: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %y: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %g: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %dgx: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %dw: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8x4x4xf32>
  %e = tensor.empty(%n) : tensor<?x8x4x4xf32>
  %h = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<?x8x4x4xf32>) outs(%e : tensor<?x8x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x8x4x4xf32>
  %m1 = bufferization.to_memref %h read_only {dx.kernel_arg = 0 : i64} : memref<?x8x4x4xf32, strided<[?, ?, ?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<?x8x4x4xf32, strided<[?, ?, ?, ?], offset: ?>> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  call @dxrt_conv2d_grad_input(%c1, %w, %y) : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  %m2 = bufferization.to_memref %h read_only {dx.kernel_arg = 2 : i64} : memref<?x8x4x4xf32, strided<[?, ?, ?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<?x8x4x4xf32, strided<[?, ?, ?, ?], offset: ?>> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  call @dxrt_conv2d_forward_grad_weight(%g, %w, %c2, %dgx, %dw) : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}

// -----

// Left alone too: an x only read forward (an evaluation step) even where
// its producer could write bf16 itself (a transient value: in bf16 it would
// not be written in place over the producer's input), and a flatten of a
// tensor that something else reads (here a generic: the relu's mask), where
// the fp32 tensor would stay and a bf16 copy only add to it.
// CHECK-LABEL: func.func @forward_only_fused(
// CHECK-NOT:  bf16
// CHECK:      return
// CHECK-LABEL: func.func @flatten_of_shared(
// CHECK-NOT:  bf16
// CHECK:      return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @dxrt_dense_forward(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @forward_only_fused(%a: tensor<4x8xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m1 = bufferization.to_memref %h read_only {dx.kernel_arg = 1 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}
func.func private @dxrt_dense_grad_weight(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @flatten_of_shared(%a: tensor<4x2x4xf32>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %dw: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> tensor<4x2x4xf32> {
  %e = tensor.empty() : tensor<4x2x4xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<4x2x4xf32>) outs(%e : tensor<4x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<4x2x4xf32>
  %f = tensor.collapse_shape %h [[0], [1, 2]] : tensor<4x2x4xf32> into tensor<4x8xf32>
  %m1 = bufferization.to_memref %f read_only {dx.kernel_arg = 1 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c1 = memref.cast %m1 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_forward(%c1, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %m2 = bufferization.to_memref %f read_only {dx.kernel_arg = 2 : i64} : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %c2 = memref.cast %m2 : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %c2, %dw) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return %h : tensor<4x2x4xf32>
}
