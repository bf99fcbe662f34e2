// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg, canonicalize, cse, linalg-fuse-elementwise-ops, canonicalize, cse)' --split-input-file %s | FileCheck %s

// Random ops read the step's key (seed, step, rank) from the {dx.rng}
// argument of a training-mode function (dx.mode = "train") and call the
// counter-based generator of libdxrt with the op's own stream number, so a
// dropout mask can be redrawn identically by its gradient. In any other
// function (evaluation) dropout is the identity and randn_like gives its mean, 0.

// CHECK-LABEL: func.func private @dxrt_random_normal(memref<?xf32, strided<[?], offset: ?>>, i64, i64, i64, i64)
// CHECK-LABEL: func.func private @dxrt_random_uniform(memref<?xf32, strided<[?], offset: ?>>, i64, i64, i64, i64)
// CHECK-LABEL: func.func @m_train_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x6xf32> {dx.input = "x"}, %[[KEY:[^:]*]]: tensor<3xi64> {dx.rng})
// CHECK-DAG: %[[S4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[S7:.*]] = arith.constant 7 : i64
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 1.33333337 : f32
// CHECK-DAG: %[[P:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG: %[[SEED:.*]] = tensor.extract %[[KEY]][%c0]
// CHECK-DAG: %[[STEP:.*]] = tensor.extract %[[KEY]][%c1]
// CHECK-DAG: %[[RANK:.*]] = tensor.extract %[[KEY]][%c2]
// One draw per element: a flat buffer of B*6 floats, expanded to [B, 6].
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %c6 : index
// CHECK: %[[U:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?xf32>
// CHECK: %[[UC:.*]] = memref.cast %[[U]]
// CHECK: call @dxrt_random_uniform(%[[UC]], %[[SEED]], %[[STEP]], %[[RANK]], %[[S4]])
// CHECK: %[[UT:.*]] = bufferization.to_tensor %[[U]]
// CHECK: %[[UX:.*]] = tensor.expand_shape %[[UT]] {{\[\[}}0, 1]] output_shape [%{{.*}}, 6] : tensor<?xf32> into tensor<?x6xf32>
// CHECK: %[[G:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?xf32>
// CHECK: %[[GC:.*]] = memref.cast %[[G]]
// CHECK: call @dxrt_random_normal(%[[GC]], %[[SEED]], %[[STEP]], %[[RANK]], %[[S7]])
// CHECK: %[[GX:.*]] = tensor.expand_shape
// The mask (keep where u >= p, scale by 1/(1-p)) fuses with the add.
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[UX]], %[[GX]] : tensor<?x6xf32>, tensor<?x6xf32>, tensor<?x6xf32>)
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[UV:.*]]: f32, %[[NV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[KEEP:.*]] = arith.cmpf oge, %[[UV]], %[[P]]
// CHECK-NEXT: %[[XS:.*]] = arith.mulf %[[XV]], %[[SCALE]]
// CHECK-NEXT: %[[D:.*]] = arith.select %[[KEEP]], %[[XS]], %{{.*}}
// CHECK-NEXT: arith.addf %[[D]], %[[NV]]
func.func @m_train_step(%x: tensor<?x6xf32> {dx.input = "x"}, %key: tensor<3xi64> {dx.rng}) -> tensor<?x6xf32> attributes {dx.mode = "train"} {
  %0 = dx.dropout %x {p = 2.500000e-01 : f64, stream = 4 : i64} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  %1 = dx.randn_like %0 {stream = 7 : i64} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  %2 = dx.add %0, %1 : (tensor<?x6xf32>, tensor<?x6xf32>) -> tensor<?x6xf32>
  return %2 : tensor<?x6xf32>
}

// -----

// Evaluation: no random numbers at all.
// CHECK-LABEL: func.func @m_eval(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x6xf32>
// CHECK-NOT: call
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<?x6xf32>)
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.addf %[[XV]], %cst
// CHECK-NOT: call
// CHECK: return
func.func @m_eval(%x: tensor<?x6xf32> {dx.input = "x"}) -> tensor<?x6xf32> {
  %0 = dx.dropout %x {p = 2.500000e-01 : f64, stream = 4 : i64} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  %1 = dx.randn_like %0 {stream = 7 : i64} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  %2 = dx.add %0, %1 : (tensor<?x6xf32>, tensor<?x6xf32>) -> tensor<?x6xf32>
  return %2 : tensor<?x6xf32>
}

// -----

// p = 0 is the identity even in training.
// CHECK-LABEL: func.func @p_zero_train_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x6xf32>
// CHECK-NOT: call
// CHECK: return %[[X]]
func.func @p_zero_train_step(%x: tensor<?x6xf32> {dx.input = "x"}, %key: tensor<3xi64> {dx.rng}) -> tensor<?x6xf32> attributes {dx.mode = "train"} {
  %0 = dx.dropout %x {p = 0.000000e+00 : f64, stream = 1 : i64} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}
