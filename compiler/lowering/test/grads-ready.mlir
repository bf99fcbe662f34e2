// RUN: dx-opt --dx-grads-ready --split-input-file %s | FileCheck %s

// dx-grads-ready (GradsReady.h): each gradient's store into the gradient
// arena moves to right after the gradient, and dxrt_grads_ready(first) follows
// each store that makes the final suffix [first, end) of the arena longer. A
// library call's gradient (a memref.alloc the call writes through a
// memref.cast, then bufferization.to_tensor) is written by the call into the
// arena's view itself: the view moves above the allocation, the call's cast
// takes the view, and the allocation, the to_tensor and the store (a copy)
// go away. The bias, a tensor of the function's arguments, is stored first
// (at the top), then the weight after its call.
// CHECK-LABEL: func.func @dx_train_step(
// CHECK-SAME: %[[ARENA:[^:]+]]: memref<?xf32>
// CHECK:      %[[BV:.*]] = memref.reinterpret_cast %[[ARENA]] to offset: [32], sizes: [8]
// CHECK-NEXT: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[BV]]
// CHECK:      call @dxrt_grads_ready(%{{.*}}) : (i64) -> ()
// CHECK:      %[[WV:.*]] = memref.reinterpret_cast %[[ARENA]] to offset: [0], sizes: [8, 4], strides: [4, 1]
// CHECK-NOT:  memref.alloc
// CHECK:      %[[CAST:.*]] = memref.cast %[[WV]] : memref<8x4xf32, strided<[4, 1]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT: call @dxrt_dense_grad_weight(%{{.*}}, %{{.*}}, %[[CAST]])
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @dxrt_grads_ready(%[[ZERO]]) : (i64) -> ()
// CHECK-NOT:  bufferization.to_tensor
// CHECK-NOT:  materialize_in_destination
// CHECK:      return
func.func private @dxrt_dense_grad_weight(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @dx_train_step(%arena: memref<?xf32>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %bias: tensor<8xf32>) {
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x4xf32>
  %cast = memref.cast %alloc : memref<8x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %x, %cast) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %w = bufferization.to_tensor %alloc restrict writable : memref<8x4xf32>
  %wv = memref.reinterpret_cast %arena to offset: [0], sizes: [8, 4], strides: [4, 1] : memref<?xf32> to memref<8x4xf32, strided<[4, 1]>>
  bufferization.materialize_in_destination %w in restrict writable %wv {dx.grad_offset = 0 : i64, dx.grad_size = 32 : i64} : (tensor<8x4xf32>, memref<8x4xf32, strided<[4, 1]>>) -> ()
  %bv = memref.reinterpret_cast %arena to offset: [32], sizes: [8], strides: [1] : memref<?xf32> to memref<8xf32, strided<[1], offset: 32>>
  bufferization.materialize_in_destination %bias in restrict writable %bv {dx.grad_offset = 32 : i64, dx.grad_size = 8 : i64} : (tensor<8xf32>, memref<8xf32, strided<[1], offset: 32>>) -> ()
  return
}

// -----

// The allocation is read by something other than a library call (here a
// load after the call): the store stays a copy.
// CHECK-LABEL: func.func @dx_train_step(
// CHECK:      memref.alloc
// CHECK:      bufferization.to_tensor
// CHECK:      bufferization.materialize_in_destination
func.func private @dxrt_dense_grad_weight(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @dx_train_step(%arena: memref<?xf32>, %dy: memref<?x?xf32, strided<[?, ?], offset: ?>>, %x: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> f32 {
  %c0 = arith.constant 0 : index
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x4xf32>
  %cast = memref.cast %alloc : memref<8x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @dxrt_dense_grad_weight(%dy, %x, %cast) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  %first = memref.load %alloc[%c0, %c0] : memref<8x4xf32>
  %w = bufferization.to_tensor %alloc restrict writable : memref<8x4xf32>
  %wv = memref.reinterpret_cast %arena to offset: [0], sizes: [8, 4], strides: [4, 1] : memref<?xf32> to memref<8x4xf32, strided<[4, 1]>>
  bufferization.materialize_in_destination %w in restrict writable %wv {dx.grad_offset = 0 : i64, dx.grad_size = 32 : i64} : (tensor<8x4xf32>, memref<8x4xf32, strided<[4, 1]>>) -> ()
  return %first : f32
}
