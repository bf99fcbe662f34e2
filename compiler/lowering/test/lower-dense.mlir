// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg, canonicalize, cse, linalg-fuse-elementwise-ops, canonicalize, cse)' --split-input-file %s | FileCheck %s

// dx-to-linalg followed by elementwise fusion, as in dxc's pipeline (the
// canonicalisation between them folds the tensor.dim uses that would
// otherwise keep a producer alive): the GEMM goes to libdxrt, everything
// around it is generated and fused.

// A dense layer with bias, then relu: ONE GEMM call and ONE fused loop that
// adds the bias (broadcast along the batch) and applies relu.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func private @dxrt_dense_forward(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @dense_bias_relu(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x4xf32>, %[[W:[^:]*]]: tensor<8x4xf32>, %[[B:[^:]*]]: tensor<8xf32>)
// CHECK: %[[XM:.*]] = bufferization.to_memref %[[X]] read_only
// CHECK: %[[XC:.*]] = memref.cast %[[XM]]
// CHECK: %[[WM:.*]] = bufferization.to_memref %[[W]] read_only
// CHECK: %[[WC:.*]] = memref.cast %[[WM]]
// The result buffer is sized by the batch of x and 64-byte aligned.
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[Y:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x8xf32>
// CHECK: %[[YC:.*]] = memref.cast %[[Y]]
// CHECK: call @dxrt_dense_forward(%[[XC]], %[[WC]], %[[YC]])
// CHECK-NOT: call
// CHECK: %[[YT:.*]] = bufferization.to_tensor %[[Y]] restrict writable
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[YT]], %[[B]] : tensor<?x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[BV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[V]], %[[BV]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
func.func @dense_bias_relu(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = dx.dense %x params(%w, %b) {bias = true, units = 8 : i64} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %1 = dx.relu %0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// Without a bias the GEMM's result is used as is: the only loop is relu's.
// CHECK-LABEL: func.func @dense_nobias_tanh(
// CHECK: call @dxrt_dense_forward
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[V]] : f32
// CHECK-NEXT: linalg.yield %[[T]]
// CHECK-NOT: linalg.generic
func.func @dense_nobias_tanh(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>) -> tensor<?x8xf32> {
  %0 = dx.dense %x params(%w) {bias = false, units = 8 : i64} : (tensor<?x4xf32>, tensor<8x4xf32>) -> tensor<?x8xf32>
  %1 = dx.tanh %0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// A dense layer over [B, T, K] runs the GEMM on the collapsed [B*T, K] rows
// and expands the result back; the bias is broadcast over the last dim.
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @dense_3d(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x5x4xf32>
// CHECK: %[[X2:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x5x4xf32> into tensor<?x4xf32>
// CHECK: bufferization.to_memref %[[X2]]
// CHECK: call @dxrt_dense_forward
// CHECK: %[[Y3:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 5, 8] : tensor<?x8xf32> into tensor<?x5x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[LAST]], #[[ID3]]]
// CHECK-SAME: ins(%[[Y3]], %{{.*}} : tensor<?x5x8xf32>, tensor<8xf32>)
func.func @dense_3d(%x: tensor<?x5x4xf32>, %w: tensor<8x4xf32>, %b: tensor<8xf32>) -> tensor<?x5x8xf32> {
  %0 = dx.dense %x params(%w, %b) {bias = true, units = 8 : i64} : (tensor<?x5x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x5x8xf32>
  return %0 : tensor<?x5x8xf32>
}

// -----

// The backward of dense + bias + relu: relu's gradient is one loop (a select
// on the saved pre-activation), the two GEMMs are calls that read it, and the
// bias gradient is one reduction loop over the batch.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @dense_relu_backward(
// CHECK-SAME: %[[DY:[^:]*]]: tensor<?x8xf32>, %[[H:[^:]*]]: tensor<?x8xf32>, %[[X:[^:]*]]: tensor<?x4xf32>, %[[W:[^:]*]]: tensor<8x4xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[DY]], %[[H]] : tensor<?x8xf32>, tensor<?x8xf32>)
// CHECK-NEXT: ^bb0(%[[D:.*]]: f32, %[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[POS:.*]] = arith.cmpf ogt, %[[V]], %[[ZERO]] : f32
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[POS]], %[[D]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[SEL]]
// CHECK: %[[GM:.*]] = bufferization.to_memref %[[G]] read_only
// CHECK: %[[GC:.*]] = memref.cast %[[GM]]
// CHECK: call @dxrt_dense_grad_input(%[[GC]], %{{.*}}, %{{.*}})
// CHECK: %[[DXT:.*]] = bufferization.to_tensor
// Each kernel call reads its operands through its own to_memref (not CSE'd).
// CHECK: %[[GM2:.*]] = bufferization.to_memref %[[G]] read_only
// CHECK: %[[GC2:.*]] = memref.cast %[[GM2]]
// CHECK: %[[DWA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x4xf32>
// CHECK: call @dxrt_dense_grad_weight(%[[GC2]], %{{.*}}, %{{.*}})
// CHECK: %[[DWT:.*]] = bufferization.to_tensor %[[DWA]]
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK: %[[DB:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME: ins(%[[G]] : tensor<?x8xf32>) outs(%[[ACC]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[OUT]], %[[IN]]
// CHECK-NEXT: linalg.yield %[[SUM]]
// CHECK: return %[[DXT]], %[[DWT]], %[[DB]]
func.func @dense_relu_backward(%dy: tensor<?x8xf32>, %h: tensor<?x8xf32>, %x: tensor<?x4xf32>, %w: tensor<8x4xf32>) -> (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) {
  %0 = dx.unary_grad "relu" %dy, %h {alpha = 0.000000e+00 : f64} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = dx.dense_grad_input %0, %w : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  %2 = dx.dense_grad_weight %0, %x : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<8x4xf32>
  %3 = dx.sum %0 {axis = array<i64: 0>, keepdim = false} : (tensor<?x8xf32>) -> tensor<8xf32>
  return %1, %2, %3 : tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>
}
