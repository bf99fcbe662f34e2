// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg, canonicalize, cse, linalg-fuse-elementwise-ops, canonicalize, cse)' --split-input-file %s | FileCheck %s

// sum and mean are linalg.generic reductions into a zero-filled accumulator;
// the reduced iteration dims are "reduction" iterators and the output map
// drops them (or pins them to 0 with keepdim). mean divides by the element
// count, whose batch part is read at run time.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-LABEL: func.func @sum_keepdim(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x3x4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x1x4xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<?x1x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<?x3x4xf32>) outs(%[[ACC]] : tensor<?x1x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[IN]]
// CHECK-NEXT: linalg.yield %[[S]]
func.func @sum_keepdim(%x: tensor<?x3x4xf32>) -> tensor<?x1x4xf32> {
  %0 = dx.sum %x {axis = array<i64: 1>, keepdim = true} : (tensor<?x3x4xf32>) -> tensor<?x1x4xf32>
  return %0 : tensor<?x1x4xf32>
}

// -----

// A mean over the batch and the last dim: the count is B * 4.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MID:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @mean_axes(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x3x4xf32>
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK-DAG: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[MID]]], iterator_types = ["reduction", "parallel", "reduction"]}{{.*}}outs(%{{.*}} : tensor<3xf32>)
// CHECK-DAG: %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK-DAG: %[[NF:.*]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK-DAG: %[[CNT:.*]] = arith.mulf %[[NF]], %[[FOUR]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.divf %[[V]], %[[CNT]]
func.func @mean_axes(%x: tensor<?x3x4xf32>) -> tensor<3xf32> {
  %0 = dx.mean %x {axis = array<i64: 0, 2>, keepdim = false} : (tensor<?x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Without axes, everything is reduced to a 0-d tensor.
// CHECK-DAG: #[[SC:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-LABEL: func.func @mean_all(
// CHECK-DAG: %[[TWELVE:.*]] = arith.constant 1.200000e+01 : f32
// CHECK-DAG: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK-DAG: %[[S:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[SC]]], iterator_types = ["reduction", "reduction", "reduction"]}{{.*}}outs(%[[ACC]] : tensor<f32>)
// CHECK-DAG: %[[CNT:.*]] = arith.mulf %{{.*}}, %[[TWELVE]] : f32
// CHECK: linalg.generic {{.*}} iterator_types = []} ins(%[[S]] : tensor<f32>)
// CHECK: arith.divf %{{.*}}, %[[CNT]]
func.func @mean_all(%x: tensor<?x3x4xf32>) -> tensor<f32> {
  %0 = dx.mean %x {keepdim = false} : (tensor<?x3x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// An elementwise producer fuses into the reduction that consumes it:
// sum(x * x) is one loop.
// CHECK-LABEL: func.func @sum_of_squares(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x4xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[X]] : tensor<?x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[SQ]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK-NOT: linalg.generic
func.func @sum_of_squares(%x: tensor<?x4xf32>) -> tensor<f32> {
  %0 = dx.square %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = dx.sum %0 {keepdim = false} : (tensor<?x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
