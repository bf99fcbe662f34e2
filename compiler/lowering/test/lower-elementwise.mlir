// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg, canonicalize, cse, linalg-fuse-elementwise-ops, canonicalize, cse)' --split-input-file %s | FileCheck %s

// Elementwise dx ops become parallel linalg.generic ops whose indexing maps
// implement NumPy broadcasting (trailing alignment, size-1 dims pinned to 0);
// a chain of them fuses into one loop.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @broadcast_chain(
// CHECK-SAME: %[[A:[^:]*]]: tensor<?x3x4xf32>, %[[B:[^:]*]]: tensor<3x1xf32>, %[[S:[^:]*]]: tensor<f32>, %[[R:[^:]*]]: tensor<4xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[A]], %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3x4xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[SCALAR]], #[[LAST]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]], %[[S]], %[[R]] : tensor<?x3x4xf32>, tensor<3x1xf32>, tensor<f32>, tensor<4xf32>) outs(%[[E]] : tensor<?x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[VA:.*]]: f32, %[[VB:.*]]: f32, %[[VS:.*]]: f32, %[[VR:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[T0:.*]] = arith.addf %[[VA]], %[[VB]] : f32
// CHECK-NEXT: %[[T1:.*]] = arith.mulf %[[T0]], %[[VS]] : f32
// CHECK-NEXT: %[[T2:.*]] = arith.subf %[[T1]], %[[VR]] : f32
// CHECK-NEXT: %[[T3:.*]] = math.exp %[[T2]] : f32
// CHECK-NEXT: linalg.yield %[[T3]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @broadcast_chain(%a: tensor<?x3x4xf32>, %b: tensor<3x1xf32>, %s: tensor<f32>, %r: tensor<4xf32>) -> tensor<?x3x4xf32> {
  %0 = dx.add %a, %b : (tensor<?x3x4xf32>, tensor<3x1xf32>) -> tensor<?x3x4xf32>
  %1 = dx.mul %0, %s : (tensor<?x3x4xf32>, tensor<f32>) -> tensor<?x3x4xf32>
  %2 = dx.sub %1, %r : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  %3 = dx.exp %2 : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %3 : tensor<?x3x4xf32>
}

// -----

// A dx.constant is a splat; fusion folds it into the loop as a scalar.
// CHECK-LABEL: func.func @constant_operand(
// CHECK: %[[K:.*]] = arith.constant 2.500000e+00 : f32
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.mulf %[[V]], %[[K]] : f32
func.func @constant_operand(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = dx.constant {value = 2.5 : f64} : () -> tensor<f32>
  %1 = dx.mul %x, %0 : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// Activations: one loop each, the formula in the body.
// CHECK-LABEL: func.func @activations(
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[RSQRT2:.*]] = arith.constant 0.707106769 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[SLOPE:.*]] = arith.constant 1.000000e-01 : f32
// leaky_relu: x > 0 ? x : slope * x
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[SLOPE]]
// CHECK-NEXT: %[[P:.*]] = arith.cmpf ogt, %[[X]], %[[ZERO]]
// CHECK-NEXT: %[[L:.*]] = arith.select %[[P]], %[[X]], %[[M]]
// CHECK-NEXT: linalg.yield %[[L]]
// elu (alpha 1): x > 0 ? x : expm1(x)
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[EM1:.*]] = math.expm1 %[[X]]
// CHECK-NEXT: %[[P:.*]] = arith.cmpf ogt, %[[X]], %[[ZERO]]
// CHECK-NEXT: arith.select %[[P]], %[[X]], %[[EM1]]
// gelu (exact): 0.5 x (1 + erf(x / sqrt 2))
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[X]], %[[RSQRT2]]
// CHECK-NEXT: %[[ERF:.*]] = math.erf %[[U]]
// CHECK-NEXT: %[[E1:.*]] = arith.addf %[[ERF]], %[[ONE]]
// CHECK-NEXT: %[[HX:.*]] = arith.mulf %[[X]], %[[HALF]]
// CHECK-NEXT: arith.mulf %[[HX]], %[[E1]]
// sigmoid: 1 / (1 + exp(-x))
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[NX:.*]] = arith.negf %[[X]]
// CHECK-NEXT: %[[EX:.*]] = math.exp %[[NX]]
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[EX]], %[[ONE]]
// CHECK-NEXT: arith.divf %[[ONE]], %[[D]]
func.func @activations(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %0 = dx.leaky_relu %x {slope = 0.1 : f64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = dx.elu %x {alpha = 1.0 : f64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = dx.gelu %x {approximate = "none"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = dx.sigmoid %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0, %1, %2, %3 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// Activation gradients: tanh and sigmoid read the saved output y.
// A gradient chain (tanh' then sigmoid') fuses into one loop.
// CHECK-LABEL: func.func @activation_grads(
// CHECK-SAME: %[[DY:[^:]*]]: tensor<?x4xf32>, %[[Y1:[^:]*]]: tensor<?x4xf32>, %[[Y2:[^:]*]]: tensor<?x4xf32>)
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.generic {{.*}} ins(%[[DY]], %[[Y1]], %[[Y2]] : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK-NEXT: ^bb0(%[[D:.*]]: f32, %[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// dy * (1 - y1^2)
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[A]], %[[A]]
// CHECK-NEXT: %[[OM:.*]] = arith.subf %[[ONE]], %[[SQ]]
// CHECK-NEXT: %[[G1:.*]] = arith.mulf %[[D]], %[[OM]]
// ... * y2 (1 - y2)
// CHECK-NEXT: %[[OM2:.*]] = arith.subf %[[ONE]], %[[B]]
// CHECK-NEXT: %[[YY:.*]] = arith.mulf %[[B]], %[[OM2]]
// CHECK-NEXT: %[[G2:.*]] = arith.mulf %[[G1]], %[[YY]]
// CHECK-NEXT: linalg.yield %[[G2]]
// CHECK-NOT: linalg.generic
func.func @activation_grads(%dy: tensor<?x4xf32>, %y1: tensor<?x4xf32>, %y2: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = dx.unary_grad "tanh" %dy, %y1 {alpha = 0.0 : f64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = dx.unary_grad "sigmoid" %0, %y2 {alpha = 0.0 : f64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// broadcast_to spreads a value over the batch (whose size comes from a
// function argument: the operand has none); with `mean` it also divides by
// the number of elements it was spread over.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SC:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @broadcast_mean(
// CHECK-SAME: %[[S:[^:]*]]: tensor<f32>, %[[X:[^:]*]]: tensor<?x4xf32>)
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[NF:.*]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK: %[[CNT:.*]] = arith.mulf %[[NF]], %[[FOUR]]
// CHECK: linalg.generic {indexing_maps = [#[[SC]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[S]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.divf %[[V]], %[[CNT]]
func.func @broadcast_mean(%s: tensor<f32>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = dx.broadcast_to %s {mean} : (tensor<f32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// reduce_to sums a broadcast result back to an operand's shape: the leading
// and the size-1 dims are reductions.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @reduce_to(
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x1xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[OUT]]], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[Z]] : tensor<3x1xf32>)
// CHECK: arith.addf
func.func @reduce_to(%y: tensor<?x3x4xf32>) -> tensor<3x1xf32> {
  %0 = dx.reduce_to %y : (tensor<?x3x4xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// Shapes: flatten/reshape are collapse/expand (batch dim kept), concat
// inserts slices at running offsets, slice extracts one.
// CHECK-LABEL: func.func @shapes(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x2x3x4xf32>, %[[Y:[^:]*]]: tensor<?x5x3x4xf32>)
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1, 2, 3]] : tensor<?x2x3x4xf32> into tensor<?x24xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0], [1, 2]] output_shape [%{{.*}}, 6, 4] : tensor<?x24xf32> into tensor<?x6x4xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 0, 0, 0] [%{{.*}}, 2, 3, 4] [1, 1, 1, 1]
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[Y]] into %[[I0]][0, 2, 0, 0] [%{{.*}}, 5, 3, 4] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[I1]][0, 3, 0, 0] [%{{.*}}, 4, 3, 4] [1, 1, 1, 1] : tensor<?x7x3x4xf32> to tensor<?x4x3x4xf32>
func.func @shapes(%x: tensor<?x2x3x4xf32>, %y: tensor<?x5x3x4xf32>) -> (tensor<?x24xf32>, tensor<?x6x4xf32>, tensor<?x4x3x4xf32>) {
  %0 = dx.flatten %x {start = 1 : i64} : (tensor<?x2x3x4xf32>) -> tensor<?x24xf32>
  %1 = dx.reshape %0 {shape = array<i64: 6, 4>} : (tensor<?x24xf32>) -> tensor<?x6x4xf32>
  %2 = dx.concat %x, %y {axis = 1 : i64} : (tensor<?x2x3x4xf32>, tensor<?x5x3x4xf32>) -> tensor<?x7x3x4xf32>
  %3 = dx.slice %2 {axis = 1 : i64, offset = 3 : i64} : (tensor<?x7x3x4xf32>) -> tensor<?x4x3x4xf32>
  return %0, %1, %3 : tensor<?x24xf32>, tensor<?x6x4xf32>, tensor<?x4x3x4xf32>
}
