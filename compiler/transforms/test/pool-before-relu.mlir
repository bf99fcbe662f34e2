// RUN: dx-opt --dx-pool-before-relu --mlir-print-debuginfo --split-input-file %s | FileCheck %s

// dx-pool-before-relu (transforms/Passes.h): a max pooling whose windows
// tile the plane, of a relu that nothing else reads, pools the relu's input
// and applies the relu to the pooled tensor; both keep their locations.
// CHECK-LABEL: func.func @swapped(
// CHECK-SAME: %[[X:.*]]: tensor<?x8x6x6xf32>
// CHECK: %[[P:.*]] = dx.maxpool %[[X]] {{.*}} : (tensor<?x8x6x6xf32>) -> tensor<?x8x3x3xf32> loc(#[[POOL:.*]])
// CHECK: %[[R:.*]] = dx.relu %[[P]] : (tensor<?x8x3x3xf32>) -> tensor<?x8x3x3xf32> loc(#[[RELU:.*]])
// CHECK: return %[[R]]
// CHECK-DAG: #[[POOL]] = loc("pool")
// CHECK-DAG: #[[RELU]] = loc("relu")
func.func @swapped(%x: tensor<?x8x6x6xf32>) -> tensor<?x8x3x3xf32> {
  %0 = dx.relu %x : (tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32> loc("relu")
  %1 = dx.maxpool %0 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x8x6x6xf32>) -> tensor<?x8x3x3xf32> loc("pool")
  return %1 : tensor<?x8x3x3xf32>
}

// -----

// Left alone: a relu read by something else too (a skip connection), and
// overlapping windows (3x3, stride 2, padded).
// CHECK-LABEL: func.func @left_alone(
// CHECK: %[[R:.*]] = dx.relu %{{.*}} : (tensor<?x8x6x6xf32>)
// CHECK: dx.maxpool %[[R]]
// CHECK: %[[R2:.*]] = dx.relu %{{.*}} : (tensor<?x8x6x6xf32>)
// CHECK: dx.maxpool %[[R2]]
func.func @left_alone(%x: tensor<?x8x6x6xf32>, %y: tensor<?x8x6x6xf32>) -> (tensor<?x8x3x3xf32>, tensor<?x8x6x6xf32>, tensor<?x8x3x3xf32>) {
  %0 = dx.relu %x : (tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %1 = dx.maxpool %0 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x8x6x6xf32>) -> tensor<?x8x3x3xf32>
  %2 = dx.relu %y : (tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %3 = dx.maxpool %2 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<?x8x6x6xf32>) -> tensor<?x8x3x3xf32>
  return %1, %0, %3 : tensor<?x8x3x3xf32>, tensor<?x8x6x6xf32>, tensor<?x8x3x3xf32>
}
